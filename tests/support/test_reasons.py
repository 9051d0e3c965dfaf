"""Edge reason codes (support-metrics.md §6.2), one hand-checked case per row of the
precedence table, plus the reason map and the deterministic verdict (§6.4)."""

from __future__ import annotations

from typing import Any

import pytest

from ._helpers import compute

# Evidence e1: span [10, 20) of a 50-code-point source "doc".
E1 = {"evidence_id": "e1", "start": 10, "end": 20, "source_id": "doc", "source_length": 50}
C1 = {"claim_id": "c1", "start": 0, "end": 5}


def checks(report: Any) -> dict[str, Any]:
    return dict(report.to_dict()["deterministic_span_checks"])


def reasons_of(citation: dict[str, Any], evidence: list[dict[str, Any]] | None = None) -> Any:
    report = compute([C1], [E1] if evidence is None else evidence, [citation])
    return dict(checks(report)["invalid_citation_reasons"])


def test_missing_claim() -> None:
    # Edge (c9, e1): c9 is not a claim -> row 1.
    assert reasons_of({"claim_id": "c9", "evidence_id": "e1"}) == {"missing_claim": 1}


def test_missing_claim_wins_over_missing_evidence() -> None:
    # Edge (c9, e9): both missing; row 1 comes first.
    assert reasons_of({"claim_id": "c9", "evidence_id": "e9"}) == {"missing_claim": 1}


def test_missing_evidence() -> None:
    assert reasons_of({"claim_id": "c1", "evidence_id": "e9"}) == {"missing_evidence": 1}


@pytest.mark.parametrize(
    "evidence",
    [
        {"evidence_id": "e1"},  # no offsets: status missing
        {"evidence_id": "e1", "start": 10},  # half span: invalid
        {"evidence_id": "e1", "start": 10, "end": 10},  # zero length: invalid
        {"evidence_id": "e1", "start": -1, "end": 5},  # negative start: invalid
        {"evidence_id": "e1", "start": 10, "end": 60, "source_length": 50},  # out_of_bounds
        {"evidence_id": "e1", "start": 1, "end": 2, "source_length": -1},  # negative length
    ],
)
def test_invalid_evidence_span(evidence: dict[str, Any]) -> None:
    # Row 3: the evidence's own status is not valid, even for a plain edge.
    assert reasons_of({"claim_id": "c1", "evidence_id": "e1"}, [evidence]) == {
        "invalid_evidence_span": 1
    }


def test_invalid_evidence_span_before_source_mismatch() -> None:
    evidence = {"evidence_id": "e1", "source_id": "doc"}  # no span
    citation = {"claim_id": "c1", "evidence_id": "e1", "span_source_id": "other"}
    assert reasons_of(citation, [evidence]) == {"invalid_evidence_span": 1}


def test_source_mismatch() -> None:
    citation = {"claim_id": "c1", "evidence_id": "e1", "source_id": "other"}
    assert reasons_of(citation) == {"source_mismatch": 1}


def test_source_mismatch_before_invalid_citation_span() -> None:
    # The sub-span [30, 20) is reversed, but row 4 comes before row 6.
    citation = {"claim_id": "c1", "evidence_id": "e1", "source_id": "x", "start": 30, "end": 20}
    assert reasons_of(citation) == {"source_mismatch": 1}


def test_same_source_is_not_a_mismatch() -> None:
    citation = {"claim_id": "c1", "evidence_id": "e1", "document_id": "doc"}
    assert reasons_of(citation) == {}


def test_no_mismatch_without_evidence_source() -> None:
    evidence = {"evidence_id": "e1", "start": 10, "end": 20}
    citation = {"claim_id": "c1", "evidence_id": "e1", "source_id": "anything"}
    assert reasons_of(citation, [evidence]) == {}


def test_plain_edge_is_valid() -> None:
    # Row 5: no sub-span, evidence valid -> valid.
    report = compute([C1], [E1], [{"claim_id": "c1", "evidence_id": "e1"}])
    data = checks(report)
    assert (data["valid_citation_count"], data["invalid_citation_count"]) == (1, 0)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (12, None),  # half span
        (None, 15),  # half span
        (15, 15),  # zero length
        (15, 12),  # reversed
        (-1, 12),  # negative start
        (12, 51),  # beyond the evidence's source length 50
    ],
)
def test_invalid_citation_span(start: int | None, end: int | None) -> None:
    citation: dict[str, Any] = {"claim_id": "c1", "evidence_id": "e1"}
    if start is not None:
        citation["start"] = start
    if end is not None:
        citation["end"] = end
    assert reasons_of(citation) == {"invalid_citation_span": 1}


def test_citation_span_up_to_source_length_is_checked_against_evidence() -> None:
    # [12, 50) lies inside the source (end == length is valid) but ends after the evidence
    # end 20 -> row 7.
    assert reasons_of({"claim_id": "c1", "evidence_id": "e1", "start": 12, "end": 50}) == {
        "citation_outside_evidence": 1
    }


@pytest.mark.parametrize(("start", "end"), [(9, 15), (12, 21), (0, 30)])
def test_citation_outside_evidence(start: int, end: int) -> None:
    citation = {"claim_id": "c1", "evidence_id": "e1", "start": start, "end": end}
    assert reasons_of(citation) == {"citation_outside_evidence": 1}


@pytest.mark.parametrize(("start", "end"), [(10, 20), (10, 11), (19, 20), (12, 15)])
def test_sub_span_inside_evidence_is_valid(start: int, end: int) -> None:
    citation = {"claim_id": "c1", "evidence_id": "e1", "start": start, "end": end}
    assert reasons_of(citation) == {}


def test_citation_span_without_evidence_length() -> None:
    # No source length: only the evidence span bounds the sub-span.
    evidence = {"evidence_id": "e1", "start": 10, "end": 20}
    assert (
        reasons_of({"claim_id": "c1", "evidence_id": "e1", "start": 11, "end": 19}, [evidence])
        == {}
    )


def test_claim_span_never_affects_edges() -> None:
    # Claim span [5, 3) is invalid, claim source id differs from the evidence's: edge valid.
    claim = {"claim_id": "c1", "start": 5, "end": 3, "source_id": "summary", "citations": ["e1"]}
    report = compute([claim], [E1])
    data = checks(report)
    assert data["valid_citation_count"] == 1
    assert data["invalid_claim_span_count"] == 1
    assert data["passed"] is False


def test_reason_map_sorted_nonzero_and_counts() -> None:
    # Five edges of c1: e1 valid plain, e9 missing evidence, (c9,e1) missing claim,
    # e1 [12,25) outside evidence, e1 with source "x" mismatch.
    citations = [
        {"claim_id": "c1", "evidence_id": "e1"},
        {"claim_id": "c1", "evidence_id": "e9"},
        {"claim_id": "c9", "evidence_id": "e1"},
        {"claim_id": "c1", "evidence_id": "e1", "start": 12, "end": 25},
        {"claim_id": "c1", "evidence_id": "e1", "source_id": "x"},
    ]
    report = compute([C1], [E1], citations)
    data = checks(report)
    reasons = data["invalid_citation_reasons"]
    assert list(reasons) == [
        "citation_outside_evidence",
        "missing_claim",
        "missing_evidence",
        "source_mismatch",
    ]
    assert dict(reasons) == {
        "citation_outside_evidence": 1,
        "missing_claim": 1,
        "missing_evidence": 1,
        "source_mismatch": 1,
    }
    # citation_count = 5 edges; valid = 1; invalid = 4 = sum of the map.
    assert data["citation_count"] == 5
    assert data["valid_citation_count"] == 1
    assert data["invalid_citation_count"] == 4
    # citation_span_validity = 1 / 5 = 0.2
    assert data["citation_span_validity"] == 1 / 5
    assert data["passed"] is False
    assert report.deterministic.invalid_citation_reasons == reasons


def test_reason_codes_constant() -> None:
    import citelens.support as support

    assert support.REASON_CODES == (
        "citation_outside_evidence",
        "invalid_citation_span",
        "invalid_evidence_span",
        "missing_claim",
        "missing_evidence",
        "source_mismatch",
    )
    assert tuple(sorted(support.REASON_CODES)) == support.REASON_CODES


def test_passed_rule() -> None:
    # All spans valid, every edge valid -> pass; orphans and unused evidence do not matter.
    claims = [C1, {"claim_id": "c2", "start": 6, "end": 9}]
    evidence = [E1, {"evidence_id": "e2", "start": 0, "end": 3}]
    report = compute(claims, evidence, [{"claim_id": "c1", "evidence_id": "e1"}])
    assert report.orphan_claim_count == 1
    assert report.unused_evidence_count == 1
    assert report.deterministic.passed is True
    assert "- Verdict: `pass`" in report.to_markdown()


def test_missing_claim_span_fails_passed() -> None:
    # A claim without offsets is unverified: passed false, the edge is still measured.
    report = compute([{"claim_id": "c1", "citations": ["e1"]}], [E1])
    data = checks(report)
    assert data["missing_claim_span_count"] == 1
    assert data["claim_span_count"] == 0
    assert data["claim_span_validity"] == 0.0  # denominator 0
    assert data["valid_citation_count"] == 1
    assert data["passed"] is False
    assert "- Verdict: `review`" in report.to_markdown()
    assert "- Valid claim spans: `0/0`" in report.to_markdown()


def test_missing_evidence_span_fails_passed() -> None:
    report = compute([C1], [{"evidence_id": "e1"}])
    data = checks(report)
    assert data["missing_evidence_span_count"] == 1
    assert data["passed"] is False


def test_empty_input_passes_with_zero_rates() -> None:
    report = compute([])
    data = checks(report)
    assert data["passed"] is True
    for key in ("claim_span_validity", "evidence_span_validity", "citation_span_validity"):
        assert data[key] == 0.0
    assert report.orphan_claim_rate == 0.0
    assert report.unused_evidence_rate == 0.0
