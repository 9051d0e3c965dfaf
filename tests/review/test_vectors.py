"""Conformance: every case of ../shared/vectors/review/ (review.md §13)."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from citelens.review import (
    BlindedPacket,
    ReviewerDecision,
    SealedIdentityMapping,
    SealedSummaryReview,
    SummaryReviewError,
    check_identifier_leakage,
    evaluate_summary_gate,
    export_summary_review,
    import_summary_review,
    reviewer_agreement_report,
    validate_packet_balance,
    verify_sealed_identity_mapping,
)
from citelens.review import DisagreementReason as Reason
from citelens.review._export import Reject, export_impl
from citelens.review._import import import_impl
from conftest import assert_fixed_error, load_vector, vector_params

from ._harness import export_kwargs, key, render

CASES = vector_params("review")


def _decision(row: dict[str, Any]) -> ReviewerDecision:
    reason = row["reason"]
    return ReviewerDecision(
        case_id=row["case_id"],
        reviewer_id=row["reviewer_id"],
        decision=row["decision"],
        reason=None if reason is None else Reason(reason),
        adjudicated=row["adjudicated"],
    )


def _run_render(case: dict[str, Any]) -> None:
    if "expected_error" in case:
        with pytest.raises(SummaryReviewError) as info:
            render(case["setup"])
        assert_fixed_error(info.value, case)
        return
    packets, mapping = render(case["setup"])
    assert [p.to_dict() for p in packets] == case["expected_packets"]
    assert mapping.to_private_dict() == case["expected_mapping_private"]
    assert mapping.to_private_json() == case["expected_mapping_private_json"]
    audit = verify_sealed_identity_mapping(packets, mapping, key(case["setup"]))
    assert audit.to_dict() == case["expected_audit"]
    assert validate_packet_balance(mapping).to_dict() == case["expected_balance"]
    # round trips (§4.6)
    assert tuple(BlindedPacket.from_dict(p.to_dict()) for p in packets) == packets
    assert SealedIdentityMapping.from_private_dict(mapping.to_private_dict()) == mapping


def _run_export(case: dict[str, Any]) -> None:
    kwargs = export_kwargs(case["setup"], case["export"])
    if "expected_error" in case:
        with pytest.raises(SummaryReviewError) as info:
            export_summary_review(**kwargs)
        assert_fixed_error(info.value, case)
        return
    request, sealed = export_summary_review(**kwargs)
    assert request == case["expected_request"]
    assert list(request) == list(case["expected_request"])  # insertion order (§5.3)
    assert sealed.private_json == case["expected_private_json"]
    assert sealed.commitment == case["expected_commitment"]


def _import_call(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    kwargs = export_kwargs(case["setup"], case["export"])
    _, sealed = export_summary_review(**kwargs)
    spec = case["import"]
    current = {name: kwargs[name] for name in ("claims", "evidence", "summary", "source")}
    current.update(spec.get("current", {}))
    if "private_json_override" in spec:
        sealed = SealedSummaryReview(spec["private_json_override"], sealed.commitment)
    call = {
        "sealed": sealed,
        "sealing_key": kwargs["sealing_key"],
        "minimum_cell_size": spec["minimum_cell_size"],
        **current,
    }
    return spec["return_document"], call


def _run_import(case: dict[str, Any]) -> None:
    document, call = _import_call(case)
    if "expected_error" in case:
        with pytest.raises(SummaryReviewError) as info:
            import_summary_review(document, **call)
        assert_fixed_error(info.value, case)
        # the informative internal check names the failing step
        with pytest.raises(Reject) as internal:
            import_impl(document, **call)
        assert internal.value.code == case["internal_check"]
        return
    result = import_summary_review(document, **call)
    assert result.to_dict() == case["expected_import"]
    assert list(result.to_dict()) == list(case["expected_import"])
    accepted = [
        {"claim_id": a.claim_id, "evidence_id": a.evidence_id, "label": a.label}
        for a in result.adjudications
    ]
    assert accepted == case["expected_accepted_adjudications"]


def _run_agreement(case: dict[str, Any]) -> None:
    data = case["input"]
    decisions = [_decision(row) for row in data["decisions"]]
    if "expected_error" in case:
        with pytest.raises(SummaryReviewError) as info:
            reviewer_agreement_report(decisions, minimum_cell_size=data["minimum_cell_size"])
        assert_fixed_error(info.value, case)
        return
    report = reviewer_agreement_report(decisions, minimum_cell_size=data["minimum_cell_size"])
    assert report.to_dict() == case["expected"]


def _run_leakage(case: dict[str, Any]) -> None:
    data = case["input"]
    result = check_identifier_leakage(data["text"], data["protected_surfaces"])
    assert result.to_dict() == case["expected"]


def _run_gate(case: dict[str, Any]) -> None:
    checks = evaluate_summary_gate(**case["input"])
    assert [c.to_dict() for c in checks] == case["expected"]


RUNNERS = {
    "render": _run_render,
    "export": _run_export,
    "import": _run_import,
    "agreement": _run_agreement,
    "leakage": _run_leakage,
    "gate": _run_gate,
}


@pytest.mark.parametrize("path", CASES)
def test_vector(path: pathlib.Path) -> None:
    case = load_vector(path)
    assert case["derived_from"] == "contract"
    RUNNERS[case["kind"]](case)


EXPORT_ERRORS = vector_params("review", "00[5-7]_export_error_*.json")


@pytest.mark.parametrize("path", EXPORT_ERRORS)
def test_export_internal_checks(path: pathlib.Path) -> None:
    """Export error vectors name their internal check in the description."""
    case = load_vector(path)
    with pytest.raises(Reject) as internal:
        export_impl(**export_kwargs(case["setup"], case["export"]))
    assert f"(internal: {internal.value.code})" in case["description"]
