#!/usr/bin/env bash
# Real citation data in: each provider or benchmark sample (data-samples/importers/<format>.jsonl)
# imported to a corpus directory, checked for span support, checked for verbatim provenance,
# then queried with SQL. Usage: bash data-samples/importers/demo.sh [VENV_BIN].
set -euo pipefail
BIN="${1:-.venv/bin}"
BIN="$(cd "$BIN" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FORMATS=(anthropic openai gemini cohere bedrock alce longbench-cite)

for format in "${FORMATS[@]}"; do
    echo "# $format: import, corpus support, provenance"
    "$BIN/citelens" import "$format" "$HERE/$format.jsonl" --out "$WORK/$format" --no-progress
    "$BIN/citelens" corpus support "$WORK/$format" --out "$WORK/$format-out" --no-progress
    "$BIN/citelens" provenance "$WORK/$format" --out "$WORK/$format-out/provenance" --no-progress
done

echo
echo "# verbatim provenance of the Anthropic sample, by status (SQL over the outputs)"
"$BIN/citelens" sql "$WORK/anthropic-out" \
    "SELECT status, count(*) AS edges FROM provenance GROUP BY status ORDER BY status"
