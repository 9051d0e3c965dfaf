#!/usr/bin/env bash
# Corpus summary citations on 100 synthetic summaries (one vectorised pass), then SQL over
# the per-document rows. --max-claims 12 makes the one 15-claim summary an error row.
set -euo pipefail
BIN="${1:-.venv/bin}"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
"$BIN/citelens" corpus summary-citations "$HERE" --out "$OUT" --max-claims 12
echo "--- summary.md ---"
cat "$OUT/summary.md"
echo "--- documents per failure reason (DuckDB over documents.parquet) ---"
"$BIN/python" - "$OUT" <<'PY'
import sys

import duckdb

con = duckdb.connect()
path = sys.argv[1] + "/documents.parquet"
rows = con.execute(
    "SELECT reason, count(*) AS documents "
    "FROM (SELECT unnest(failure_reasons) AS reason FROM read_parquet(?) WHERE status = 'ok') "
    "GROUP BY reason ORDER BY documents DESC, reason",
    [path],
).fetchall()
for reason, documents in rows:
    print(f"{reason:<28} {documents}")
PY
