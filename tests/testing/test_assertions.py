"""citelens.testing: the assertion helpers pass, fail with counts only, and never show a value."""

from __future__ import annotations

import math
import pathlib
from typing import Any

import pytest

from citelens import Limits
from citelens.errors import CitationSupportError, SummaryCitationError
from citelens.testing import assert_citations_valid, assert_summary_citations_pass

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "data-samples" / "support"
SUMMARY = ROOT / "data-samples" / "summary_citations"
CANARY = "CANARY-9b1e"


def _claim(claim_id: str, start: int, end: int, cited: list[str]) -> dict[str, Any]:
    return {"claim_id": claim_id, "start": start, "end": end, "citations": cited}


def _evidence(evidence_id: str, start: int, end: int) -> dict[str, Any]:
    return {"evidence_id": evidence_id, "start": start, "end": end, "source_length": 50}


# One claim citing one good evidence span: every check passes.
GOOD_CLAIMS = [_claim(f"{CANARY}-claim-1", 0, 10, [f"{CANARY}-ev-1"])]
GOOD_EVIDENCE = [_evidence(f"{CANARY}-ev-1", 0, 20)]


def _failure(excinfo: pytest.ExceptionInfo[AssertionError]) -> str:
    """The message, after checking the error shows no input value and is not chained."""
    error = excinfo.value
    assert type(error) is AssertionError
    assert error.__cause__ is None and error.__context__ is None
    for shown in (str(error), repr(error), excinfo.getrepr(style="long").__str__()):
        assert CANARY not in shown
    return str(error)


def test_valid_citations_return_the_report() -> None:
    report = assert_citations_valid(GOOD_CLAIMS, GOOD_EVIDENCE)
    assert report.claim_count == 1 and report.citation_count == 1
    assert report.deterministic.passed


def test_invalid_citations_fail_with_counts_and_reason_codes_only() -> None:
    claims = [
        *GOOD_CLAIMS,
        # cites an evidence id that does not exist: reason missing_evidence
        _claim(f"{CANARY}-claim-2", 11, 20, [f"{CANARY}-ev-absent"]),
        # cites evidence whose span ends beyond its source (60 > 50): invalid_evidence_span
        _claim(f"{CANARY}-claim-3", 21, 30, [f"{CANARY}-ev-2"]),
    ]
    evidence = [*GOOD_EVIDENCE, _evidence(f"{CANARY}-ev-2", 40, 60)]
    with pytest.raises(AssertionError) as excinfo:
        assert_citations_valid(claims, evidence)
    # one invalid evidence span; two invalid edges, one per reason (codes in sorted order)
    assert _failure(excinfo) == (
        "citation support check failed: invalid_evidence_span=1; "
        "invalid_citation=2 (invalid_evidence_span=1, missing_evidence=1)"
    )


def test_bundled_support_sample_fails_with_every_reason() -> None:
    # The sample is built to show each of the six reasons once (and the report counts two
    # invalid evidence spans: b-e3 runs past its source, c-e2 has no end), one claim without a
    # span (c-c2) and one claim span beyond its source (b-c3 ends at 170 of 160).
    with pytest.raises(AssertionError) as excinfo:
        assert_citations_valid(
            SUPPORT / "claims.jsonl",
            SUPPORT / "evidence.csv",
            SUPPORT / "citations.csv",
            adjudications=SUPPORT / "adjudications.jsonl",
        )
    assert _failure(excinfo) == (
        "citation support check failed: missing_claim_span=1; invalid_claim_span=1; "
        "invalid_evidence_span=2; invalid_citation=7 (citation_outside_evidence=1, "
        "invalid_citation_span=1, invalid_evidence_span=2, missing_claim=1, "
        "missing_evidence=1, source_mismatch=1)"
    )


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        ([], "no claims evaluated"),
        # a claim without any citation is an orphan: nothing was checked, so no pass
        ([_claim(f"{CANARY}-claim-1", 0, 10, [])], "no citations evaluated"),
    ],
)
def test_nothing_measured_is_not_a_pass(claims: list[dict[str, Any]], expected: str) -> None:
    with pytest.raises(AssertionError) as excinfo:
        assert_citations_valid(claims, GOOD_EVIDENCE)
    assert _failure(excinfo) == f"citation support check failed: {expected}"


def test_thresholds_fail_on_measured_values() -> None:
    claims = [*GOOD_CLAIMS, _claim(f"{CANARY}-claim-2", 11, 20, [])]  # an orphan claim
    evidence = [*GOOD_EVIDENCE, _evidence(f"{CANARY}-ev-unused", 30, 40)]  # never cited
    adjudications = [
        {"claim_id": f"{CANARY}-claim-1", "evidence_id": f"{CANARY}-ev-1", "label": "supports"}
    ]
    # precision 1/1 = 1.0 and recall 1 of 2 claims = 0.5; one orphan, one unused evidence
    passing = {"min_citation_precision": 1.0, "min_support_recall": 0.5}
    bounds = {"max_orphan_claims": 1, "max_unused_evidence": 1}
    report = assert_citations_valid(
        claims, evidence, adjudications=adjudications, **passing, **bounds
    )
    assert report.citation_precision == 1.0 and report.support_recall == 0.5
    with pytest.raises(AssertionError) as excinfo:
        assert_citations_valid(
            claims,
            evidence,
            adjudications=adjudications,
            min_support_recall=0.75,
            max_orphan_claims=0,
            max_unused_evidence=0,
        )
    assert _failure(excinfo) == (
        "citation support check failed: support_recall=0.5000 below minimum 0.7500; "
        "orphan_claims=1 above maximum 0; unused_evidence=1 above maximum 0"
    )


def test_an_unmeasured_threshold_fails() -> None:
    # no adjudications: precision and recall are null, which never satisfies a minimum
    with pytest.raises(AssertionError) as excinfo:
        assert_citations_valid(GOOD_CLAIMS, GOOD_EVIDENCE, min_citation_precision=0.0)
    assert _failure(excinfo) == (
        "citation support check failed: citation_precision not measured (no adjudications)"
    )


RATIO = "must be a number between 0 and 1"
COUNT = "must be a non-negative integer"


@pytest.mark.parametrize(
    ("option", "value", "rule"),
    [
        ("min_citation_precision", 1.5, RATIO),
        ("min_citation_precision", math.nan, RATIO),
        ("min_support_recall", True, RATIO),
        ("min_support_recall", "0.5", RATIO),
        ("max_orphan_claims", -1, COUNT),
        ("max_unused_evidence", 1.0, COUNT),
    ],
)
def test_invalid_thresholds_are_policy_errors(option: str, value: object, rule: str) -> None:
    with pytest.raises(CitationSupportError) as excinfo:
        assert_citations_valid(GOOD_CLAIMS, GOOD_EVIDENCE, **{option: value})  # type: ignore[arg-type]
    assert str(excinfo.value) == f"{option} {rule}" and excinfo.value.category == "policy"


def test_unusable_input_is_the_checks_own_error_not_a_failed_assertion() -> None:
    with pytest.raises(CitationSupportError) as excinfo:
        assert_citations_valid(42, GOOD_EVIDENCE)
    assert not isinstance(excinfo.value, AssertionError)
    assert CANARY not in str(excinfo.value)


def test_summary_citations_pass_returns_the_report() -> None:
    report = assert_summary_citations_pass(
        SUMMARY / "claims_complete.jsonl", SUMMARY / "evidence.csv"
    )
    assert report.passed and report.coverage == 1.0


def test_summary_citations_failure_lists_reasons_and_counts_only() -> None:
    claims = [
        # cites existing evidence: supported
        {"claim": f"{CANARY} text one", "citations": [{"evidence_id": f"{CANARY}-ev-1"}]},
        # no citation at all: missing_citation, unsupported_claim
        {"claim": f"{CANARY} text two", "citations": []},
    ]
    evidence = [{"id": f"{CANARY}-ev-1", "start": 0, "end": 12, "value": f"{CANARY} value"}]
    with pytest.raises(AssertionError) as excinfo:
        assert_summary_citations_pass(claims, evidence)
    # 2 claims, 1 unsupported, 1 citation (valid), 1 claim with no citation
    assert _failure(excinfo) == (
        "summary citations check failed: missing_citation, unsupported_claim; "
        "claim_count=2, unsupported_claim_count=1, citation_count=1, missing_citation_count=1"
    )


def test_summary_citations_without_evidence_fail_closed() -> None:
    claims = [{"claim": f"{CANARY} text", "citations": [{"evidence_id": f"{CANARY}-ev-1"}]}]
    with pytest.raises(AssertionError) as excinfo:
        assert_summary_citations_pass(claims, [])
    message = _failure(excinfo)
    assert "missing_source_evidence" in message
    assert "; source evidence not available; " in message


def test_summary_citations_limits_must_be_limits() -> None:
    with pytest.raises(SummaryCitationError) as excinfo:
        assert_summary_citations_pass([], [], limits={"claims": 1})  # type: ignore[arg-type]
    assert str(excinfo.value) == "limits must be a Limits instance"
    assert excinfo.value.category == "policy"


def test_summary_citations_limits_apply() -> None:
    claims = [{"claim": "one", "citations": []}, {"claim": "two", "citations": []}]
    with pytest.raises(SummaryCitationError) as excinfo:
        assert_summary_citations_pass(claims, [], limits=Limits(claims=1))
    assert excinfo.value.category == "limit"
