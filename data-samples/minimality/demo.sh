#!/usr/bin/env bash
# Citation minimality on a synthetic discharge summary: Markdown to stdout, then JSON/Parquet.
# Usage: bash data-samples/minimality/demo.sh [VENV_BIN]. Outputs go to a temp dir.
set -euo pipefail
BIN="${1:-.venv/bin}"
BIN="$(cd "$BIN" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$HERE"
ARGS=(--source source.txt --claims claims.json --citations citations.jsonl)

echo "# 1. Markdown report on stdout (allowance 0 extra tokens)"
"$BIN/citelens" minimality "${ARGS[@]}"

echo
echo "# 2. allowance of 1 extra token, JSON + Parquet written atomically"
"$BIN/citelens" minimality "${ARGS[@]}" --max-excess-tokens 1 \
    --json "$WORK/minimality.json" --parquet "$WORK/minimality.parquet"
"$BIN/python" -c "
import json, pyarrow.parquet as pq
report = json.load(open('$WORK/minimality.json'))
print('flagged', report['flagged_count'], 'of', report['citation_count'])
for row in pq.read_table('$WORK/minimality.parquet').to_pylist():
    print('  ', row['citation_id'][:15] + '...', row['status'], 'excess', row['excess_token_count'],
          'left', (row['excess_left_start'], row['excess_left_end']),
          'right', (row['excess_right_start'], row['excess_right_end']))"

echo
echo "# 3. bad input exits 2 with a fixed message (no path or value echoed)"
set +e
"$BIN/citelens" minimality --source source.txt --claims claims.json --citations missing.csv 2>&1
echo "exit code: $?"
