#!/usr/bin/env bash
# Summary citation consistency on synthetic sample data. Usage: demo.sh [VENV_BIN_DIR]
set -euo pipefail
BIN="${1:-.venv/bin}"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

echo "--- 1. A draft brief: one claim has no citation, one cites the same record twice"
"$BIN/citelens" summary-citations --claims "$HERE/claims.jsonl" --evidence "$HERE/evidence.csv"

echo "--- 2. The same draft behind the strict gate (exit code 1 expected)"
set +e
"$BIN/citelens" summary-citations --claims "$HERE/claims.jsonl" --evidence "$HERE/evidence.csv" \
    --gate --json "$OUT/report.json" --parquet "$OUT/report.parquet"
status=$?
set -e
echo "exit code: $status"
echo "JSON report (first lines):"
head -n 6 "$OUT/report.json"

echo "--- 3. The corrected brief passes the gate"
"$BIN/citelens" summary-citations --claims "$HERE/claims_complete.jsonl" \
    --evidence "$HERE/evidence.csv" --gate --markdown "$OUT/report.md"
echo "exit code: $?"
grep -E "Coverage|Verdict" "$OUT/report.md"
