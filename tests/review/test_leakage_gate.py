"""Identifier leakage (review.md §10) and the gate's fail-closed paths (§11)."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pytest

from citelens.review import (
    GateCheck,
    SummaryReviewError,
    check_identifier_leakage,
    evaluate_summary_gate,
    gate_passed,
)

from . import _scenario as sc


def _h(surface: str) -> str:
    return "sha256:" + hashlib.sha256(surface.encode()).hexdigest()


def test_leakage_normalisation() -> None:
    # zero-width characters are removed and text is NFC-normalised and case-folded
    result = check_identifier_leakage(
        "Seen: Jo\u200bhn Sm\u200dith, CAFE\u0301.", ["john smith", "Café"]
    )
    assert result.to_dict() == {
        "passed": False,
        "checked_token_count": 2,
        "leaked_token_count": 2,
        "leaked_token_hashes": sorted([_h("john smith"), _h("café")]),
    }
    # word-bounded: no match inside a word or across an underscore
    assert check_identifier_leakage("Annabel and ann_x", ["Ann"]).passed
    assert not check_identifier_leakage("(Ann)", ["ann"]).passed
    # whitespace runs inside a surface collapse; duplicates and blanks are dropped
    result = check_identifier_leakage("nothing here", ["  MRN \t 123 ", "mrn 123", " ", ""])
    assert result.checked_token_count == 1 and result.passed
    assert check_identifier_leakage("x", ()).to_dict()["checked_token_count"] == 0
    # regex metacharacters are literal
    assert not check_identifier_leakage("call 555.0100 now", ["555.0100"]).passed
    assert check_identifier_leakage("call 55500100 now", ["555.0100"]).passed


@pytest.mark.parametrize(
    ("text", "surfaces"),
    [
        (b"x", []),
        ("x", "surface"),
        ("x", iter(["a"])),
        ("x", [1]),
        ("x", ["a" * 10_001]),
        ("x", ["\ud800"]),
        ("x", ["a"] * 100_001),
    ],
)
def test_leakage_invalid_input(text: Any, surfaces: Any) -> None:
    with pytest.raises(SummaryReviewError) as info:
        check_identifier_leakage(text, surfaces)
    assert str(info.value) == "invalid_leakage_input"
    assert info.value.category == "input"
    assert info.value.__context__ is None


INPUT_FAILURE = [
    {"gate": "summary_input", "passed": False, "reason": "invalid_evaluation_input", "details": {}}
]


def _base() -> dict[str, Any]:
    scenario = sc.build()
    return {
        **scenario.artifacts(),
        "thresholds": dict(sc.THRESHOLDS),
        "protected_surfaces": list(sc.PROTECTED),
    }


def _thresholds(**change: Any) -> dict[str, Any]:
    thresholds = dict(sc.THRESHOLDS)
    thresholds.update(change)
    return thresholds


@pytest.mark.parametrize(
    "override",
    [
        {"thresholds": _thresholds(leaked_identifier_count_max=1)},
        {"thresholds": _thresholds(citation_support_min=True)},
        {"thresholds": _thresholds(citation_support_min=1.5)},
        {"thresholds": _thresholds(citation_support_min=math.nan)},
        {"thresholds": _thresholds(summary_citation_coverage_min=-0.1)},
        {"thresholds": _thresholds(citation_minimality_flagged_max=0.0)},
        {"thresholds": _thresholds(citation_minimality_flagged_max=-1)},
        {"thresholds": {**sc.THRESHOLDS, "extra": 1}},
        {"thresholds": [("citation_support_min", 0.5)]},
        {"summary": b"bytes"},
        {"claims": iter([])},
        {"evidence": {"e": [0, 1]}},
        {"protected_surfaces": None},
        {"protected_surfaces": [1]},
        {"required_spans": [(0, 1)]},
        {"required_spans": {"c": (0, 10_000)}},
        {"required_spans": {"c": "ab"}},
        {"required_spans": {"c": (True, 3)}},
        {"required_spans": {"c": (3, 3)}},
        {"required_spans": {"unknown-claim": (0, 5)}},
        {"review_import": "not an import"},
        {"adjudications": 5},
    ],
)
def test_gate_fails_closed_on_invalid_input(override: dict[str, Any]) -> None:
    kwargs = _base()
    kwargs.update(override)
    checks = evaluate_summary_gate(**kwargs)
    assert [c.to_dict() for c in checks] == INPUT_FAILURE
    assert not gate_passed(checks)


@pytest.mark.parametrize(
    "override",
    [{"claims": []}, {"evidence": ()}, {"summary": " \n"}, {"source": ""}],
)
def test_gate_missing_evidence(override: dict[str, Any]) -> None:
    kwargs = _base()
    kwargs.update(override)
    checks = evaluate_summary_gate(**kwargs)
    assert [c.to_dict() for c in checks] == [
        {"gate": "summary_evidence", "passed": False, "reason": "missing_evidence", "details": {}}
    ]


def test_gate_check_helpers() -> None:
    assert not gate_passed([])
    assert gate_passed([GateCheck("x", True)])
    assert not gate_passed(iter([GateCheck("x", True), GateCheck("y", False)]))
    check = GateCheck("x", True, details={"b": (1, 2), "a": {2: "x", 1: "y"}})
    assert check.to_dict() == {
        "gate": "x",
        "passed": True,
        "reason": "ok",
        "details": {"a": {"1": "y", "2": "x"}, "b": [1, 2]},
    }
    assert list(check.to_dict()["details"]) == ["a", "b"]
