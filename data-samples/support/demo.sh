#!/usr/bin/env bash
# citelens support on a small synthetic example: three discharge summaries' worth of atomic
# claims (JSONL), evidence spans (CSV), explicit citation edges (CSV, some invalid on purpose)
# and reviewer adjudications (JSONL). Usage: bash data-samples/support/demo.sh <venv bin dir>
set -euo pipefail
BIN="${1:-.venv/bin}"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

INPUTS=(
    --claims "$HERE/claims.jsonl"
    --evidence "$HERE/evidence.csv"
    --citations "$HERE/citations.csv"
    --adjudications "$HERE/adjudications.jsonl"
)

echo "--- citelens support (Markdown report on stdout) ---"
"$BIN/citelens" support "${INPUTS[@]}"

echo "--- citelens support --json (written to a temporary directory) ---"
"$BIN/citelens" support "${INPUTS[@]}" --json "$OUT/support.json" --tables "$OUT/tables"
"$BIN/python" - "$OUT/support.json" <<'PY'
import json
import sys

report = json.load(open(sys.argv[1], encoding="utf-8"))
checks = report["deterministic_span_checks"]
review = report["clinician_adjudication"]
print(f"claims={report['claim_count']} evidence={report['evidence_count']} "
      f"edges={report['citation_count']} (duplicates {checks['duplicate_citation_count']})")
print(f"invalid edges by reason: {checks['invalid_citation_reasons']}")
print(f"orphan claims={report['orphan_claim_count']} unused evidence={report['unused_evidence_count']}")
print(f"citation precision={review['citation_precision']} support recall={review['support_recall']} "
      f"unmatched adjudications={review['unmatched_adjudication_count']} "
      f"conflicts={review['conflicting_adjudication_count']}")
print(f"input digest: {report['provenance']['input_digest']}")
PY
echo "edge-level tables (identifiers pseudonymised): $(cd "$OUT/tables" && ls | tr '\n' ' ')"

echo "--- --strict exits 1 because some spans and edges are invalid ---"
set +e
"$BIN/citelens" support "${INPUTS[@]}" --strict --json "$OUT/strict.json"
echo "exit code: $?"
set -e
