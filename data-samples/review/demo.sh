#!/usr/bin/env bash
# Blinded summary review, end to end: render packets, export, import returned decisions, gate.
# Usage: bash data-samples/review/demo.sh [VENV_BIN]. Everything private goes to a temp dir.
set -euo pipefail
BIN="${1:-.venv/bin}"
BIN="$(cd "$BIN" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$HERE"
CL="$BIN/citelens"
ART=(--claims claims.json --evidence evidence.json --summary summary.txt --source source.txt)
show() { "$BIN/python" -c "$1"; }

echo "# 1. render blinded packets (packets -> reviewers; mapping stays PRIVATE)"
"$CL" review render setup.json --key-file demo-key.txt \
    --packets-out "$WORK/packets.json" --mapping-out "$WORK/mapping.json"

echo "# 2. export the review request (public) and the sealed private document"
"$CL" review export --packets "$WORK/packets.json" --mapping "$WORK/mapping.json" \
    --key-file demo-key.txt --bindings bindings.json "${ART[@]}" \
    --rubric-version 1 --evidence-kind reviewer \
    --request-out "$WORK/request.json" --sealed-out "$WORK/sealed.json"
show "
import json; r = json.load(open('$WORK/request.json'))
print('request_digest', r['request_digest'])
for row in r['reviews']:
    print('  review', row['review_ref'][:19] + '...', row['candidate_alias'],
          'case', row['case_index'], 'excerpt', row['evidence_index'],
          'claim', (row['claim_start'], row['claim_end']))"

IMP=(--sealed "$WORK/sealed.json" --key-file demo-key.txt --minimum-cell-size 2)
GATE=(--thresholds thresholds.json --protected-surfaces protected_surfaces.json
      --required-spans required_spans.json)
for returned in complete disputed resolved; do
    echo "# 3. import returned-$returned.json"
    set +e
    "$CL" review import "returned-$returned.json" "${IMP[@]}" "${ART[@]}" --out "$WORK/import.json"
    code=$?
    set -e
    show "
import json; d = json.load(open('$WORK/import.json'))
print('  states', d['states'], 'complete', d['complete'],
      'support_recall', d['citation_support']['support_recall'])
print('  agreement', d['reviewer_agreement']['agreement'])"
    echo "  exit code $code (0 = complete reviewer evidence)"
    echo "# 4. gate with returned-$returned.json"
    set +e
    "$CL" review gate --returned "returned-$returned.json" "${IMP[@]}" "${ART[@]}" "${GATE[@]}" \
        --out "$WORK/gate.json"
    code=$?
    set -e
    show "
import json; d = json.load(open('$WORK/gate.json'))
for c in d['checks']:
    print('  %-28s %-5s %s' % (c['gate'], c['passed'], c['reason']))"
    echo "  exit code $code (0 = gate passed)"
done

echo "# 5. a same-length edit of the source after export is stale: the import is refused"
sed 's/ceftriaxone/ceftriaxonx/' source.txt | tr -d '\n' > "$WORK/source-edited.txt"
set +e
"$CL" review import returned-complete.json "${IMP[@]}" --claims claims.json \
    --evidence evidence.json --summary summary.txt --source "$WORK/source-edited.txt" 2>&1
echo "  exit code $? (2 = refused)"
set -e
