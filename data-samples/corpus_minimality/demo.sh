#!/usr/bin/env bash
# Corpus minimality on 60 synthetic notes: one batch call, then SQL over the per-document rows.
set -euo pipefail
BIN="${1:-.venv/bin}"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
"$BIN/citelens" corpus minimality "$HERE" --out "$OUT" --max-excess-tokens 2
echo "--- summary.md ---"
cat "$OUT/summary.md"
echo "--- documents with flagged citations (DuckDB over documents.parquet) ---"
"$BIN/python" - "$OUT" <<'PY'
import sys

import duckdb

con = duckdb.connect()
path = sys.argv[1] + "/documents.parquet"
rows = con.execute(
    "SELECT count(*) AS documents, sum(flagged_count) AS flagged, "
    "sum(excess_token_count) AS excess_tokens FROM read_parquet(?) WHERE status = 'ok'",
    [path],
).fetchall()
print(f"documents={rows[0][0]} flagged={rows[0][1]} excess_tokens={rows[0][2]}")
PY
