"""Fuzzing the public API of ``citelens.review`` (issue 10) with wholly hostile values: every
function and every validating record constructor satisfies ``_review.check`` (a result, or a
fixed ``SummaryReviewError`` without cause or context; no canary in any public output), and
``evaluate_summary_gate`` never raises (review.md §11). Hostile values: ``tests/gold/_fuzz``,
``strategies.values`` and the hostile container subclasses of ``_review``; each replaces one or
more arguments of a valid call. Near-valid inputs are in ``test_review_near_valid.py``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citelens.review as rv
from citelens.review._common import cj
from review import _scenario as sc  # tests/review: the canary scenario

from ._review import (
    ANY,
    FUZZ,
    JSONISH,
    _document,
    _gate_kwargs,
    _public_checks,
    _public_export,
    _public_import,
    _public_render,
    _replaced,
    check,
    imported,
    mutated,
    scenario,
)

pytestmark = pytest.mark.fuzz


@FUZZ
@given(st.data())
def test_render_blinded_packets(data: st.DataObject) -> None:
    kwargs = data.draw(_replaced(sc.setup_kwargs()))
    check(lambda: rv.render_blinded_packets(**kwargs), _public_render)


@FUZZ
@given(st.data())
def test_verify_and_balance(data: st.DataObject) -> None:
    s = scenario()
    args = data.draw(
        _replaced({"packets": s.packets, "mapping": s.mapping, "randomization_key": sc.KEY})
    )
    check(lambda: rv.verify_sealed_identity_mapping(**args))
    check(lambda: rv.validate_packet_balance(args["mapping"]))


@FUZZ
@given(st.data())
def test_export_summary_review(data: st.DataObject) -> None:
    kwargs = data.draw(_replaced(scenario().export_kwargs()))
    check(lambda: rv.export_summary_review(**kwargs), _public_export, "invalid_review_export")


@FUZZ
@given(st.data())
def test_import_summary_review(data: st.DataObject) -> None:
    s = scenario()
    kwargs = data.draw(_replaced({"decisions": _document(), **s.import_kwargs()}))
    check(lambda: rv.import_summary_review(**kwargs), _public_import, "invalid_review_import")


@FUZZ
@given(st.data())
def test_evaluate_summary_gate_never_raises(data: st.DataObject) -> None:
    kwargs = data.draw(_replaced(_gate_kwargs()))
    result = check(lambda: rv.evaluate_summary_gate(**kwargs), _public_checks)
    assert not isinstance(result, BaseException)  # the gate reports, it never raises


@FUZZ
@given(ANY, st.one_of(ANY, st.lists(st.one_of(ANY, st.just("Zebulon")), max_size=4)))
def test_check_identifier_leakage(text: Any, surfaces: Any) -> None:
    result = check(
        lambda: rv.check_identifier_leakage(text, surfaces), lambda r: [repr(r), cj(r.to_dict())]
    )
    if not isinstance(result, BaseException):
        assert result.leaked_token_count == len(result.leaked_token_hashes)


@FUZZ
@given(ANY)
def test_artifact_digest(text: Any) -> None:
    result = check(lambda: rv.artifact_digest(text), message=None)
    if not isinstance(result, BaseException):
        assert type(result) is str and len(result) == 71 and result.startswith("sha256:")


_DECISION = st.builds(
    rv.ReviewerDecision,
    st.sampled_from(["case-1", "case-2"]),
    st.sampled_from(["r1", "r2", "r3"]),
    st.sampled_from(["supports", "irrelevant"]),
    st.one_of(st.none(), st.sampled_from(list(rv.DisagreementReason))),
    st.booleans(),
)


@FUZZ
@given(
    st.one_of(
        ANY,
        st.lists(st.one_of(_DECISION, ANY), max_size=6),
        st.lists(_DECISION, max_size=6).map(iter),
    ),
    st.one_of(st.sampled_from([2, 5]), ANY),
)
def test_reviewer_agreement_report(decisions: Any, minimum: Any) -> None:
    check(
        lambda: rv.reviewer_agreement_report(decisions, minimum_cell_size=minimum),
        lambda r: [repr(r), cj(r.to_dict())],
    )


@FUZZ
@given(
    st.one_of(
        ANY,
        st.lists(st.one_of(ANY, st.sampled_from([rv.GateCheck("x", True)])), max_size=3),
    )
)
def test_gate_passed_is_a_verdict(checks: Any) -> None:
    result = check(lambda: rv.gate_passed(checks))
    assert type(result) is bool  # fail closed: anything but passing GateChecks is not a pass


# --------------------------------------------------------------------------------------------
# Record constructors and round trips


def _fields(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in obj.__dataclass_fields__}


@cache
def _records() -> dict[str, Any]:
    s = scenario()
    packet = s.packets[0]
    entry = s.mapping.entries[0]
    case = sc.setup_kwargs()["cases"][0]
    return {
        "RubricCriterion": packet.rubric[0],
        "SourceEvidence": packet.source_evidence[0],
        "ComparisonCase": case,
        "ConflictOfInterest": packet.conflict_of_interest,
        "BlindedCandidate": packet.candidates[0],
        "BlindedPacket": packet,
        "IdentityAssignment": entry.assignments[0],
        "MappingEntry": entry,
        "SealedIdentityMapping": s.mapping,
        "ReviewerDecision": rv.ReviewerDecision("case", "reviewer", "supports"),
        "ImportedSummaryReview": imported(),
    }


@pytest.mark.parametrize(
    "name",
    [
        "RubricCriterion",
        "SourceEvidence",
        "ComparisonCase",
        "ConflictOfInterest",
        "BlindedCandidate",
        "BlindedPacket",
        "IdentityAssignment",
        "MappingEntry",
        "SealedIdentityMapping",
        "ReviewerDecision",
        "ImportedSummaryReview",
    ],
)
def test_record_constructors(name: str) -> None:
    cls = getattr(rv, name)
    base = _fields(_records()[name])

    @FUZZ
    @given(_replaced(base))
    def run(fields: dict[str, Any]) -> None:
        result = check(lambda: cls(**fields))
        if not isinstance(result, BaseException):
            assert type(result) is cls

    run()


@FUZZ
@given(st.data())
def test_packet_from_dict(data: st.DataObject) -> None:
    document = scenario().packets[0].to_dict()
    changed = data.draw(mutated(document, st.one_of(JSONISH, ANY)))
    result = check(lambda: rv.BlindedPacket.from_dict(changed))  # repr only: packets are shown
    if not isinstance(result, BaseException):
        assert cj(result.to_dict()) == cj(changed)  # only the same document rebuilds


@FUZZ
@given(st.data())
def test_mapping_from_private_dict(data: st.DataObject) -> None:
    document = scenario().mapping.to_private_dict()
    changed = data.draw(mutated(document, st.one_of(JSONISH, ANY)))
    result = check(lambda: rv.SealedIdentityMapping.from_private_dict(changed))
    if not isinstance(result, BaseException):
        assert cj(result.to_private_dict()) == cj(changed)
        audit = check(lambda: rv.verify_sealed_identity_mapping(scenario().packets, result, sc.KEY))
        # any other content breaks the commitment
        assert audit.valid == (cj(changed) == cj(document))


# --------------------------------------------------------------------------------------------
# Leakage: the set-lookup shortcut decides exactly as the contract's pattern (review.md §10)


def _reference_leaks(text: str, surfaces: list[str]) -> list[str]:
    """review.md §10 literally: one regular-expression search of the whole text per surface."""
    import hashlib
    import re
    import unicodedata

    def norm(t: str) -> str:
        t = t.translate(dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff")))
        return unicodedata.normalize("NFC", t).casefold()

    found = set()
    for surface in {" ".join(norm(s).split()) for s in surfaces} - {""}:
        words = r"\s+".join(re.escape(word) for word in surface.split())
        if re.search(r"(?<!\w)" + words + r"(?!\w)", norm(text)):
            found.add("sha256:" + hashlib.sha256(surface.encode()).hexdigest())
    return sorted(found)


# word, non-word, whitespace (Unicode too), invisible, case-folding and combining characters
_LEAK_TEXT = st.text(alphabet="ab_1 .-:\t\n\u00a0\u2003\u200bAßSé\u0301", max_size=24)


@FUZZ
@given(_LEAK_TEXT, st.lists(_LEAK_TEXT, max_size=5))
def test_leakage_matches_the_contract_pattern(text: str, surfaces: list[str]) -> None:
    # surfaces cut from the text are likely to leak, the others mostly not: both are tried
    pieces = [text[i : i + 5] for i in range(0, len(text), 3)]
    result = rv.check_identifier_leakage(text, surfaces + pieces)
    assert list(result.leaked_token_hashes) == _reference_leaks(text, surfaces + pieces)
