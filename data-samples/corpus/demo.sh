#!/usr/bin/env bash
# Corpus mode on the synthetic sample corpus (300 documents), then SQL over its outputs.
# Usage: bash data-samples/corpus/demo.sh [VENV_BIN]. Outputs go to a temp dir.
set -euo pipefail
BIN="${1:-.venv/bin}"
BIN="$(cd "$BIN" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"

echo "# 1. evaluate every document: documents.parquet, summary.json/.md, edges.parquet"
"$BIN/citelens" corpus support data-samples/corpus --out "$WORK/out" --edges
ls "$WORK/out"

echo
echo "# 2. precision and recall by document group (sql/examples/precision_by_group.sql)"
"$BIN/citelens" sql "$WORK/out" --file sql/examples/precision_by_group.sql

echo
echo "# 3. why edges are invalid (reasons view)"
"$BIN/citelens" sql "$WORK/out" \
    "SELECT reason, sum(count) AS edges FROM reasons GROUP BY reason ORDER BY edges DESC, reason"

echo
echo "# 4. the same as CSV"
"$BIN/citelens" sql "$WORK/out" --format csv \
    "SELECT status, count(*) AS documents FROM documents GROUP BY status ORDER BY status"

echo
echo "# 5. an invalid query exits 2 with a fixed message (the query is not echoed)"
set +e
"$BIN/citelens" sql "$WORK/out" "SELECT secret FROM nowhere" 2>&1
echo "exit code: $?"
