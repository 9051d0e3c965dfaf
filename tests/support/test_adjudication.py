"""Adjudication metrics (support-metrics.md §6.5), hand-checked."""

from __future__ import annotations

from typing import Any

import pytest

from ._helpers import compute


def adj(report: Any) -> dict[str, Any]:
    return dict(report.to_dict()["clinician_adjudication"])


def ev(eid: str, start: int = 0, end: int = 10) -> dict[str, Any]:
    return {"evidence_id": eid, "start": start, "end": end}


def a(claim: str, evidence: str, label: Any) -> dict[str, Any]:
    return {"claim_id": claim, "evidence_id": evidence, "label": label}


def test_not_supplied_and_empty_are_not_available() -> None:
    for adjudications in (None, [], (), {}):
        report = compute([{"claim_id": "c1", "citations": ["e1"]}], [ev("e1")], None, adjudications)
        data = adj(report)
        assert data["available"] is False
        assert data["status"] == "not_available"
        assert data["citation_precision"] is None
        assert data["support_recall"] is None
        # One valid edge, nothing reviewed: coverage 0 / 1 = 0.0.
        assert data["adjudication_coverage"] == 0.0
        assert data["unadjudicated_citation_count"] == 1
        assert report.citation_precision is None
        assert "| Citation precision | n/a |" in report.to_markdown()
        assert "- Status: `not_available`" in report.to_markdown()


def test_only_unmatched_rows_are_available_but_unscored() -> None:
    # c1 cites e1; adjudications name (c1, e2) and (c2, e1): both pairs are not valid pairs.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [ev("e1"), ev("e2")],
        None,
        [a("c1", "e2", "supports"), a("c2", "e1", "supports")],
    )
    data = adj(report)
    assert data["available"] is True
    assert data["status"] == "available"
    assert data["unmatched_adjudication_count"] == 2
    assert data["adjudicated_citation_count"] == 0
    # R = 0 -> precision and recall None; coverage 0 / 1 = 0.0 (never None).
    assert data["citation_precision"] is None
    assert data["support_recall"] is None
    assert data["adjudication_coverage"] == 0.0


def test_adjudication_on_invalid_edge_is_unmatched() -> None:
    # The only edge (c1, e1, [0, 20)) lies outside e1 [0, 10): invalid, so the pair is not
    # a valid pair and its adjudication is unmatched.
    report = compute(
        [{"claim_id": "c1"}],
        [ev("e1")],
        [{"claim_id": "c1", "evidence_id": "e1", "start": 0, "end": 20}],
        [a("c1", "e1", "supports")],
    )
    data = adj(report)
    assert data["unmatched_adjudication_count"] == 1
    assert data["adjudicated_citation_count"] == 0
    assert data["label_counts"]["supports"] == 0


def test_unmatched_duplicates_counted_with_multiplicity() -> None:
    report = compute([{"claim_id": "c1"}], [ev("e1")], None, [a("c1", "e1", "supports")] * 3)
    assert adj(report)["unmatched_adjudication_count"] == 3


def test_conflicting_labels_become_unclear() -> None:
    # Pair (c1, e1) labelled supports and contradicts -> one conflict, effective unclear.
    # Pair (c1, e2) labelled irrelevant twice -> identical rows, not a conflict.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1", "e2"]}],
        [ev("e1"), ev("e2")],
        None,
        [
            a("c1", "e1", "supports"),
            a("c1", "e1", "contradicts"),
            a("c1", "e2", "irrelevant"),
            a("c1", "e2", "Irrelevant"),
        ],
    )
    data = adj(report)
    assert data["conflicting_adjudication_count"] == 1
    assert dict(data["label_counts"]) == {
        "supports": 0,
        "contradicts": 0,
        "irrelevant": 1,
        "unclear": 1,
    }
    assert data["unclear_citation_count"] == 1
    assert data["irrelevant_citation_count"] == 1
    # R = 2; supporting 0 -> precision 0 / 2 = 0.0; no supported claim -> recall 0 / 1 = 0.0.
    assert data["adjudicated_citation_count"] == 2
    assert data["citation_precision"] == 0.0
    assert data["support_recall"] == 0.0
    # The unclear pair still makes c1 adjudicated.
    assert data["adjudicated_claim_count"] == 1


def test_supported_and_contradicted_claim_counts_as_supported() -> None:
    # c1 cites e1 (supports) and e2 (contradicts); c2 cites e3 (irrelevant).
    report = compute(
        [{"claim_id": "c1", "citations": ["e1", "e2"]}, {"claim_id": "c2", "citations": ["e3"]}],
        [ev("e1"), ev("e2"), ev("e3")],
        None,
        [a("c1", "e1", "supports"), a("c1", "e2", "contradicts"), a("c2", "e3", "irrelevant")],
    )
    data = adj(report)
    # R = 3 reviewed edges, 1 supporting -> precision 1/3.
    assert data["citation_precision"] == 1 / 3
    # 1 supported claim (c1) of 2 claims -> recall 1/2.
    assert data["support_recall"] == 0.5
    assert data["supported_claim_count"] == 1
    assert data["adjudicated_claim_count"] == 2
    assert data["contradicting_citation_count"] == 1
    assert report.citation_precision == 1 / 3
    assert report.to_dict()["citation_precision"] == 0.3333333333333333
    assert '"citation_precision":0.3333333333333333' in report.to_json()


def test_recall_denominator_is_all_claims() -> None:
    # 3 claims: c1 supported, c2 orphan, c3 with an invalid-only edge. Recall = 1 / 3.
    report = compute(
        [
            {"claim_id": "c1", "citations": ["e1"]},
            {"claim_id": "c2"},
            {"claim_id": "c3", "citations": ["e-missing"]},
        ],
        [ev("e1")],
        None,
        [a("c1", "e1", "supports")],
    )
    data = adj(report)
    assert data["support_recall"] == 1 / 3
    assert data["unadjudicated_claim_count"] == 2  # 3 claims - 1 adjudicated
    assert report.support_recall == 1 / 3


def test_one_label_covers_every_valid_sub_span_edge() -> None:
    # Three distinct valid edges of (c1, e1): plain, [0, 5), [5, 10); one label covers all.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [ev("e1")],
        [
            {"claim_id": "c1", "evidence_id": "e1", "start": 0, "end": 5},
            {"claim_id": "c1", "evidence_id": "e1", "start": 5, "end": 10},
            {"claim_id": "c1", "evidence_id": "e1", "start": 5, "end": 11},  # invalid: outside
        ],
        [a("c1", "e1", "supports")],
    )
    data = adj(report)
    # valid edges 3, all labelled supports: R = 3, precision 3/3 = 1.0, coverage 3/3 = 1.0.
    assert data["adjudicated_citation_count"] == 3
    assert data["supporting_citation_count"] == 3
    assert data["citation_precision"] == 1.0
    assert data["adjudication_coverage"] == 1.0
    assert data["unmatched_adjudication_count"] == 0
    assert report.deterministic.invalid_citation_count == 1


def test_coverage_arithmetic() -> None:
    # Valid edges: (c1,e1), (c1,e2), (c2,e3); reviewed only (c1,e1) -> coverage 1/3.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1", "e2"]}, {"claim_id": "c2", "citations": ["e3"]}],
        [ev("e1"), ev("e2"), ev("e3")],
        None,
        [a("c1", "e1", "supports")],
    )
    data = adj(report)
    assert data["adjudication_coverage"] == 1 / 3
    assert data["unadjudicated_citation_count"] == 2
    assert data["citation_precision"] == 1.0
    assert data["support_recall"] == 0.5
    assert "- Adjudication coverage: `0.3333`" in report.to_markdown()
    assert "- Reviewed citations: `1`" in report.to_markdown()
    assert "- Reviewed claims: `1`" in report.to_markdown()


def test_embedded_adjudication_from_evidence_row() -> None:
    # Evidence e1 carries claim_id + relation "supported": one embedded adjudication.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 5, "claim_id": "c1", "relation": "supported"}],
    )
    data = adj(report)
    assert data["available"] is True
    assert data["supporting_citation_count"] == 1
    assert data["citation_precision"] == 1.0


def test_embedded_and_explicit_conflict() -> None:
    # Embedded supports + explicit contradicts for the same pair -> unclear, one conflict.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 5, "claim_id": "c1", "label": "supports"}],
        None,
        [a("c1", "e1", "contradicts")],
    )
    data = adj(report)
    assert data["conflicting_adjudication_count"] == 1
    assert data["unclear_citation_count"] == 1


def test_evidence_claim_without_label_embeds_nothing() -> None:
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 5, "claim_id": "c1"}],
    )
    assert adj(report)["available"] is False


def test_label_without_claim_alias_embeds_nothing() -> None:
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 5, "label": "n/a"}],  # not even validated
    )
    assert adj(report)["available"] is False


def test_adjudication_source_id_names_the_evidence() -> None:
    # Adjudication records fall back to source_id for the evidence id (§3.5).
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [ev("e1")],
        None,
        [{"claim_id": "c1", "source_id": "e1", "label": "supports"}],
    )
    assert adj(report)["supporting_citation_count"] == 1


@pytest.mark.parametrize(
    "record",
    [
        {"claim": "c1", "evidence": "e1", "judgment": "entails"},
        {"fact_id": "c1", "citation_id": "e1", "clinician_label": "supported"},
        {"claim_id": "c1", "evidence_id": "e1", "supports": True},
    ],
)
def test_adjudication_aliases(record: dict[str, Any]) -> None:
    report = compute([{"claim_id": "c1", "citations": ["e1"]}], [ev("e1")], None, [record])
    assert adj(report)["supporting_citation_count"] == 1


def test_typed_adjudication_and_compact_mapping() -> None:
    from citelens.support import ClinicianAdjudication

    typed = ClinicianAdjudication("c1", "e1", "Supported")
    assert typed.label == "supports"
    assert repr(typed) == "ClinicianAdjudication(label='supports')"
    report = compute([{"claim_id": "c1", "citations": ["e1"]}], [ev("e1")], None, [typed])
    assert adj(report)["supporting_citation_count"] == 1
    # Compact mapping {claim_id: record}: the key supplies the claim id.
    compact = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [ev("e1")],
        None,
        {"c1": {"evidence_id": "e1", "label": "supports"}},
    )
    assert compact.to_json() == report.to_json()


def test_label_counts_order_and_read_only() -> None:
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}], [ev("e1")], None, [a("c1", "e1", "unclear")]
    )
    counts = report.adjudication.label_counts
    assert list(counts) == ["supports", "contradicts", "irrelevant", "unclear"]
    assert dict(counts) == {"supports": 0, "contradicts": 0, "irrelevant": 0, "unclear": 1}
    with pytest.raises(TypeError):
        counts["supports"] = 5  # type: ignore[index]
    # An unclear pair is adjudicated but not supporting: precision 0 / 1.
    assert report.citation_precision == 0.0
