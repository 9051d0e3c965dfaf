"""Reviewer agreement with minimum-cell and complementary suppression (review.md §9)."""

from __future__ import annotations

from typing import Any

import pytest

from citelens.review import (
    DisagreementReason,
    ReviewerDecision,
    SummaryReviewError,
    reviewer_agreement_report,
)
from citelens.review._agreement import publish

Q = DisagreementReason.EVIDENCE_QUALITY
L = DisagreementReason.LABEL_DEFINITION
SUPPRESSED = {"denominator": None, "numerator": None, "rate": None, "suppressed": True}


def _pub(numerator: int, denominator: int, rate: float) -> dict[str, Any]:
    return {"denominator": denominator, "numerator": numerator, "rate": rate, "suppressed": False}


@pytest.mark.parametrize(
    ("numerator", "denominator", "m", "expected"),
    [
        # m = 2: a cell below 2 or a complement below 2 is withheld
        (3, 3, 2, _pub(3, 3, 1.0)),  # complement 0 is safe
        (2, 3, 2, SUPPRESSED),  # complement 3 - 2 = 1 < 2
        (1, 3, 2, SUPPRESSED),  # numerator 1 < 2
        (2, 4, 2, _pub(2, 4, 0.5)),  # 2 and 2: both cells at the boundary
        (0, 2, 2, _pub(0, 2, 0.0)),  # zero numerator is safe, complement 2
        (1, 2, 2, SUPPRESSED),  # numerator 1 < 2
        (1, 1, 2, SUPPRESSED),  # denominator 1 < 2
        (0, 0, 2, _pub(0, 0, None)),  # empty denominator: nothing to hide
        # m = 5
        (5, 5, 5, _pub(5, 5, 1.0)),  # denominator at the boundary, complement 0
        (4, 4, 5, SUPPRESSED),  # denominator 4 < 5
        (5, 10, 5, _pub(5, 10, 0.5)),  # both cells exactly 5
        (4, 9, 5, SUPPRESSED),  # numerator 4 < 5
        (5, 9, 5, SUPPRESSED),  # complement 9 - 5 = 4 < 5
        (7, 10, 5, SUPPRESSED),  # complement 3 < 5 (vector 024)
        (0, 5, 5, _pub(0, 5, 0.0)),
        (10, 10, 5, _pub(10, 10, 1.0)),
    ],
)
def test_publish_boundaries(numerator: int, denominator: int, m: int, expected: Any) -> None:
    rate = publish(numerator, denominator, m)
    assert rate.to_dict() == expected


def _rows(agree: int, disagree: list[tuple[DisagreementReason, bool]]) -> list[ReviewerDecision]:
    rows = []
    for i in range(agree):
        for reviewer in ("r1", "r2"):
            rows.append(ReviewerDecision(f"a{i}", reviewer, "supports"))
    for i, (reason, adjudicated) in enumerate(disagree):
        rows.append(ReviewerDecision(f"d{i}", "r1", "supports", reason, adjudicated))
        rows.append(ReviewerDecision(f"d{i}", "r2", "irrelevant", reason, adjudicated))
    return rows


def test_report_at_m2() -> None:
    # 4 agreeing cases, 2 disagreements (quality, both adjudicated), 2 (label, one adjudicated)
    rows = _rows(4, [(Q, True), (Q, True), (L, True), (L, False)])
    report = reviewer_agreement_report(rows, minimum_cell_size=2).to_dict()
    # agreement 4/8: cells 4 and 4 >= 2 -> 0.5
    assert report["agreement"] == _pub(4, 8, 0.5)
    # adjudication 3/4: complement 1 < 2 -> suppressed
    assert report["adjudication"] == SUPPRESSED
    # evidence_quality 2/2 published; label_definition 1/2 suppressed (numerator 1 < 2)
    assert report["reason_adjudication"] == [
        {"reason": "evidence_quality", **_pub(2, 2, 1.0)},
    ]
    assert report["suppressed_reason_cells"] == 1
    assert report["has_suppressed_cells"] is True
    assert report["minimum_cell_size"] == 2
    assert report["schema_version"] == "citelens.reviewer_agreement.v1"


def test_report_at_m5() -> None:
    # 5 agreeing, 5 disagreeing (all quality, all adjudicated)
    rows = _rows(5, [(Q, True)] * 5)
    report = reviewer_agreement_report(rows, minimum_cell_size=5).to_dict()
    assert report["agreement"] == _pub(5, 10, 0.5)  # 5 and 5
    assert report["adjudication"] == _pub(5, 5, 1.0)  # complement 0
    assert report["reason_adjudication"] == [{"reason": "evidence_quality", **_pub(5, 5, 1.0)}]
    assert report["has_suppressed_cells"] is False
    # one fewer agreeing case: agreement 4/9 -> numerator 4 < 5
    rows = _rows(4, [(Q, True)] * 5)
    report = reviewer_agreement_report(rows, minimum_cell_size=5).to_dict()
    assert report["agreement"] == SUPPRESSED
    assert report["adjudication"] == _pub(5, 5, 1.0)
    # default m is 5
    assert reviewer_agreement_report(rows).minimum_cell_size == 5


def test_reason_cells_sorted_by_value() -> None:
    reasons = [DisagreementReason.OTHER, DisagreementReason.CLINICAL_INTERPRETATION]
    rows = _rows(2, [(r, True) for r in reasons for _ in range(2)])
    report = reviewer_agreement_report(rows, minimum_cell_size=2)
    assert [r["reason"] for r in report.to_dict()["reason_adjudication"]] == [
        "clinical_interpretation",
        "other",
    ]


def _error(message: str, category: str, decisions: Any, m: Any = 5) -> None:
    with pytest.raises(SummaryReviewError) as info:
        reviewer_agreement_report(decisions, minimum_cell_size=m)
    assert str(info.value) == message
    assert info.value.category == category
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_errors_in_order() -> None:
    ok = _rows(1, [])
    for bad in (1, 0, True, 2.0, "5"):
        _error("invalid_minimum_cell_size", "policy", ok, bad)
    _error("invalid_decision_record", "record", [*ok, {"case_id": "x"}])
    _error("invalid_decision_record", "record", 5)
    _error("duplicate_decision", "reference", [*ok, ok[0]])
    _error("missing_decisions", "collection", [])
    _error("insufficient_reviewers", "review", ok[:1])
    mixed = [
        ReviewerDecision("d", "r1", "supports", Q, True),
        ReviewerDecision("d", "r2", "irrelevant", Q, False),
    ]
    _error("inconsistent_adjudication_flag", "review", mixed)
    _error(
        "unexpected_disagreement_reason",
        "review",
        [ReviewerDecision("a", "r1", "supports", Q), ReviewerDecision("a", "r2", "supports", Q)],
    )
    _error(
        "unexpected_disagreement_reason",
        "review",
        [
            ReviewerDecision("a", "r1", "supports", adjudicated=True),
            ReviewerDecision("a", "r2", "supports", adjudicated=True),
        ],
    )
    _error(
        "missing_disagreement_reason",
        "review",
        [ReviewerDecision("d", "r1", "supports", Q), ReviewerDecision("d", "r2", "unclear", L)],
    )
    _error(
        "missing_disagreement_reason",
        "review",
        [ReviewerDecision("d", "r1", "supports"), ReviewerDecision("d", "r2", "unclear")],
    )

    def exploding() -> Any:
        yield ok[0]
        raise RuntimeError("upstream secret value")

    with pytest.raises(SummaryReviewError) as info:
        reviewer_agreement_report(exploding())
    assert "secret" not in repr(info.value) and info.value.__context__ is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"case_id": " ", "reviewer_id": "r", "decision": "x"},
        {"case_id": "c", "reviewer_id": 1, "decision": "x"},
        {"case_id": "c", "reviewer_id": "r", "decision": ""},
        {"case_id": "c", "reviewer_id": "r", "decision": "x", "reason": "other"},
        {"case_id": "c", "reviewer_id": "r", "decision": "x", "adjudicated": 1},
    ],
)
def test_decision_record_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SummaryReviewError) as info:
        ReviewerDecision(**kwargs)
    assert str(info.value) == "invalid_decision_record"
    assert info.value.category == "record"
    assert repr(ReviewerDecision("c", "r", "x")) == "ReviewerDecision(<redacted>)"
