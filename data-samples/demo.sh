#!/usr/bin/env bash
# `make demo`: run each data-samples/<area>/demo.sh with the venv's bin directory, the main job
# (citation support) first, then the other checks, then corpus scale.
set -euo pipefail
BIN="${1:-.venv/bin}"
cd "$(dirname "$0")/.."
ORDER=(support summary_citations minimality review gold corpus corpus_minimality corpus_summary)
for area in "${ORDER[@]}"; do
    echo "=== data-samples/$area ==="
    bash "data-samples/$area/demo.sh" "$BIN"
    echo
done
# Any area added later and not listed above still runs.
for script in data-samples/*/demo.sh; do
    area="$(basename "$(dirname "$script")")"
    if [[ " ${ORDER[*]} " != *" $area "* ]]; then
        echo "=== data-samples/$area ==="
        bash "$script" "$BIN"
        echo
    fi
done
