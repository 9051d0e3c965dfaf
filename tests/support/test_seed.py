"""The seed document's example (shared/seeds/000_085c0c174a77b188.txt), the digest worked
example of support-metrics.md §8.5 / Appendix A, and the JSON of §7.2 byte for byte."""

from __future__ import annotations

import re

from conftest import shared_dir

from . import _digest_reference as ref
from ._helpers import S1, S2

SEED_JSON = (
    '{"citation_count":1,"citation_precision":1.0,"claim_count":2,"clinician_adjudication":'
    '{"adjudicated_citation_count":1,"adjudicated_claim_count":1,"adjudication_coverage":1.0,'
    '"available":true,"citation_precision":1.0,"conflicting_adjudication_count":0,'
    '"contradicting_citation_count":0,"irrelevant_citation_count":0,"label_counts":'
    '{"contradicts":0,"irrelevant":0,"supports":1,"unclear":0},"status":"available",'
    '"support_recall":0.5,"supported_claim_count":1,"supporting_citation_count":1,'
    '"unadjudicated_citation_count":0,"unadjudicated_claim_count":1,"unclear_citation_count":0,'
    '"unmatched_adjudication_count":0},"deterministic_span_checks":{"citation_count":1,'
    '"citation_span_validity":1.0,"claim_span_count":2,"claim_span_validity":1.0,'
    '"duplicate_citation_count":0,"evidence_span_count":2,"evidence_span_validity":1.0,'
    '"invalid_citation_count":0,"invalid_citation_reasons":{},"invalid_claim_span_count":0,'
    '"invalid_evidence_span_count":0,"missing_claim_span_count":0,'
    '"missing_evidence_span_count":0,"passed":true,"valid_citation_count":1,'
    '"valid_claim_span_count":2,"valid_evidence_span_count":2},"disclaimer":"Claim-level '
    "citation metrics are evaluation evidence only; they are not a clinical decision, "
    "compliance certification, or guarantee of clinical truth. Qualified human review remains "
    'required before clinical use.","evidence_count":2,"human_review_required":true,'
    '"orphan_claim_count":1,"orphan_claim_rate":0.5,"provenance":{"adjudication_digest":'
    '"sha256:53dd64b7e54f0cbf385ac228d973afd3226c47b7cef2225ebe07e66016867c00","claim_digest":'
    '"sha256:3724375af6a83b4dd173cf27af2e8aef3117127e134b320e610840f6de4cc62d",'
    '"evidence_digest":"sha256:1cd535a0d78ced1ece8489f458f2306490ccf6f10375412756261a8fd4d11f42",'
    '"input_digest":"sha256:c01442d7dabfb94a8679e9a68360b3ac429d8c5180193b19fec7c391cdce945f"},'
    '"schema_version":1,"suite":"citation_support_metrics","support_recall":0.5,'
    '"unused_evidence_count":1,"unused_evidence_rate":0.5}\n'
)

SEED_DIGESTS = {
    "adjudication_digest": (
        "sha256:53dd64b7e54f0cbf385ac228d973afd3226c47b7cef2225ebe07e66016867c00"
    ),
    "claim_digest": "sha256:3724375af6a83b4dd173cf27af2e8aef3117127e134b320e610840f6de4cc62d",
    "evidence_digest": "sha256:1cd535a0d78ced1ece8489f458f2306490ccf6f10375412756261a8fd4d11f42",
    "input_digest": "sha256:c01442d7dabfb94a8679e9a68360b3ac429d8c5180193b19fec7c391cdce945f",
}

# The 286-byte evidence message of §8.5, 32 bytes per line.
EVIDENCE_MESSAGE_HEX = (
    "23000000636974656c656e732e737570706f72742e65766964656e63655f6469"
    "676573742e763102000000000000000c00000065766964656e63652d30303101"
    "0400000000000000010a00000000000000470000007368613235363a32323232"
    "3232323232323232323232323232323232323232323232323232323232323232"
    "3232323232323232323232323232323232323232323232323232323201180000"
    "00000000000f00000065766964656e63652d756e75736564010c000000000000"
    "00011200000000000000470000007368613235363a3232323232323232323232"
    "3232323232323232323232323232323232323232323232323232323232323232"
    "323232323232323232323232323232323232323232011800000000000000"
)

# The 81-byte adjudication message of §8.5.
ADJUDICATION_MESSAGE_HEX = (
    "27000000636974656c656e732e737570706f72742e61646a756469636174696f6e5f6469676573742e7631"
    "0100000000000000"
    "09000000636c61696d2d303031"
    "0c00000065766964656e63652d303031"
    "00"
)

SEED_ROWS = {
    "claims": [("claim-001", 0, 12, S1, 40, ""), ("claim-002", 13, 25, S1, 40, "")],
    "evidence": [("evidence-001", 4, 10, S2, 24), ("evidence-unused", 12, 18, S2, 24)],
    "edges": [("claim-001", "evidence-001", None, None, "")],
    "adjudications": [("claim-001", "evidence-001", "supports")],
}


def test_seed_example_as_written() -> None:
    # The seed's example verbatim, with ``openmed.eval`` replaced by ``citelens``.
    from citelens import compute_citation_support_metrics

    claims = [
        {
            "claim_id": "claim-001",
            "start": 0,
            "end": 12,
            "source_id": "sha256:" + "1" * 64,
            "source_length": 40,
            "citations": ["evidence-001"],
        },
        {
            "claim_id": "claim-002",
            "start": 13,
            "end": 25,
            "source_id": "sha256:" + "1" * 64,
            "source_length": 40,
            "citations": [],
        },
    ]
    evidence = [
        {
            "evidence_id": "evidence-001",
            "source_id": "sha256:" + "2" * 64,
            "start": 4,
            "end": 10,
            "source_length": 24,
        },
        {
            "evidence_id": "evidence-unused",
            "source_id": "sha256:" + "2" * 64,
            "start": 12,
            "end": 18,
            "source_length": 24,
        },
    ]
    adjudications = [
        {
            "claim_id": "claim-001",
            "evidence_id": "evidence-001",
            "label": "supports",
        }
    ]

    report = compute_citation_support_metrics(
        claims,
        evidence,
        adjudications=adjudications,
    )
    assert report.citation_precision == 1.0
    assert report.support_recall == 0.5
    assert report.orphan_claim_count == 1
    assert report.unused_evidence_count == 1

    # §7.2: the JSON byte for byte; §8.5: the digests.
    assert report.to_json() == SEED_JSON
    assert dict(report.to_dict()["provenance"]) == SEED_DIGESTS
    assert report.claim_digest == SEED_DIGESTS["claim_digest"]
    assert report.evidence_digest == SEED_DIGESTS["evidence_digest"]
    assert report.adjudication_digest == SEED_DIGESTS["adjudication_digest"]
    assert report.input_digest == SEED_DIGESTS["input_digest"]


def test_seed_file_example_runs_with_citelens() -> None:
    """The code block of the seed file itself, executed with openmed.eval → citelens."""
    text = (shared_dir("seeds") / "000_085c0c174a77b188.txt").read_text(encoding="utf-8")
    match = re.search(
        r"^from openmed\.eval import compute_citation_support_metrics$.*?"
        r"^assert report\.unused_evidence_count == 1$",
        text,
        flags=re.MULTILINE | re.DOTALL,
    )
    assert match is not None
    code = match.group(0).replace("from openmed.eval import", "from citelens import")
    namespace: dict[str, object] = {}
    exec(compile(code, "seed-example", "exec"), namespace)
    report = namespace["report"]
    assert report.to_json() == SEED_JSON  # type: ignore[attr-defined]


def test_appendix_script_values() -> None:
    # Appendix A's __main__ block prints exactly the §8.5 results.
    assert ref.citelens_digests(**SEED_ROWS) == SEED_DIGESTS


def test_worked_example_messages_byte_for_byte() -> None:
    evidence = ref.evidence_message(SEED_ROWS["evidence"])
    assert len(evidence) == 286
    assert evidence.hex() == EVIDENCE_MESSAGE_HEX
    adjudication = ref.adjudication_message(SEED_ROWS["adjudications"])
    assert len(adjudication) == 81
    assert adjudication.hex() == ADJUDICATION_MESSAGE_HEX
    edge = ref.edge_row(SEED_ROWS["edges"][0])
    assert edge.hex() == (
        "09000000636c61696d2d3030310c00000065766964656e63652d303031" + "00" * 18 + "00000000"
    )


def test_seed_markdown_matches_vector() -> None:
    from conftest import load_vector

    from ._helpers import call_input

    case = load_vector(shared_dir("vectors", "support") / "001_seed_example.json")
    report = call_input(case["input"])
    assert report.to_markdown() == case["expected_markdown"]
    assert report.to_markdown().endswith("reviewer comments.\n")
    assert not report.to_markdown().endswith("\n\n")
