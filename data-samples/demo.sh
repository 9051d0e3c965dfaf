#!/usr/bin/env bash
# `make demo`: run every data-samples/<area>/demo.sh in order with the venv's bin directory.
set -euo pipefail
BIN="${1:-.venv/bin}"
cd "$(dirname "$0")/.."
for script in data-samples/*/demo.sh; do
    echo "=== ${script%/demo.sh} ==="
    bash "$script" "$BIN"
    echo
done
