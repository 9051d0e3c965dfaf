#!/usr/bin/env bash
# Gold-set harness demo: validate our synthetic gold set, run the offline suite, then the online
# suite against the bundled deterministic reference system (lexical: no network, no key).
# Usage: bash data-samples/gold/demo.sh [VENV_BIN_DIR]
set -euo pipefail
BIN="${1:-.venv/bin}"
BIN="$(cd "$BIN" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
RESULTS="$(mktemp -d "${TMPDIR:-/tmp}/citelens-gold-demo.XXXXXX")"
trap 'rm -rf "$RESULTS"' EXIT

echo "--- citelens gold validate"
"$BIN/citelens" gold validate --datasets "$HERE"

echo
echo "--- citelens gold detect (three citation styles)"
"$BIN/citelens" gold detect "Atorvastatin lowered LDL cholesterol.1,2" \
    "The fund lagged its index [1, 3]." "Caps rarely cover negligence (Okafor et al., 2019)."

echo
echo "--- offline suite (citation detection), saved as the baseline"
"$BIN/citelens" gold run --datasets "$HERE" --results "$RESULTS" --baseline --ci

echo
echo "--- online suite against the lexical reference system, gated against that baseline"
"$BIN/citelens" gold run --online --datasets "$HERE" --results "$RESULTS" --ci \
    --format html --out "$RESULTS/report.html"
echo
echo "HTML report: $(wc -c < "$RESULTS/report.html") bytes, self-contained (removed at exit)"
