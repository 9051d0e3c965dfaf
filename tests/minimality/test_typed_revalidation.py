"""Typed records are revalidated at the boundary (issue 10, item 9).

``MinimalityClaim`` and ``ClaimCitation`` are frozen, but ``object.__setattr__`` (or
``object.__delattr__``) still changes them after construction. Every entry point reads a typed
record as its fields and puts them through the same column rules as a mapping, so a mutated
record raises the error the equivalent mapping raises, and a mutated value never reaches a
report. Expected errors are minimality.md §2's messages and categories.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from citelens.minimality import (
    ClaimCitation,
    MinimalityClaim,
    check_citation_minimality,
    check_citation_minimality_batch,
)
from citelens.minimality._check import check_with_table

from ._helpers import C1, C2, CANARY, D1, TEXT, X1, expect_error, ref

IDENTIFIER = ("citation identifiers must be opaque sha256 references", "identifier")
NOT_HALF_OPEN = ("citation offsets must form a non-empty half-open span", "span")
NOT_INTEGERS = ("citation offsets must be integers", "span")
BEYOND_TEXT = ("citation offsets exceed source text", "span")
FIELDS = ("citation record fields are invalid", "record")
NO_CITATION_CLAIM_ID = ("citations require an opaque claim id", "record")
NO_CLAIM_ID = ("atomic claims require an opaque claim id", "record")
UNKNOWN_CLAIM = ("citation refers to an unknown atomic claim", "reference")


def _claim() -> MinimalityClaim:
    return MinimalityClaim(C1, (6, 10))  # "beta" of TEXT = "alpha beta gamma delta"


def _citation() -> ClaimCitation:
    return ClaimCitation(C1, (6, 16), X1)  # "beta gamma"


def _set(record: Any, name: str, value: Any) -> Any:
    object.__setattr__(record, name, value)
    return record


class _RaisingSpan:
    """A span value whose ``start`` raises with a canary in the text."""

    @property
    def start(self) -> int:
        raise RuntimeError(CANARY)


def _claim_start(value: Any) -> MinimalityClaim:
    record = _claim()
    object.__setattr__(record.required_span, "start", value)
    return record


def _claim_end(value: Any) -> MinimalityClaim:
    record = _claim()
    object.__setattr__(record.required_span, "end", value)
    return record


def _claim_without_id() -> MinimalityClaim:
    record = _claim()
    object.__delattr__(record, "claim_id")
    return record


CLAIM_CASES: list[tuple[str, Callable[[], MinimalityClaim], tuple[str, str]]] = [
    ("claim_id canary", lambda: _set(_claim(), "claim_id", CANARY), IDENTIFIER),
    ("claim_id upper hex", lambda: _set(_claim(), "claim_id", C1.upper()), IDENTIFIER),
    ("start -1", lambda: _claim_start(-1), NOT_HALF_OPEN),
    ("start bool", lambda: _claim_start(True), NOT_INTEGERS),
    ("end before start", lambda: _claim_end(6), NOT_HALF_OPEN),
    ("end beyond text", lambda: _claim_end(23), BEYOND_TEXT),  # len(TEXT) = 22
    ("claim_id deleted", _claim_without_id, NO_CLAIM_ID),
    ("span raises", lambda: _set(_claim(), "required_span", _RaisingSpan()), FIELDS),
]


def _citation_start(value: Any) -> ClaimCitation:
    record = _citation()
    object.__setattr__(record.source_span, "start", value)
    return record


def _citation_without_claim_id() -> ClaimCitation:
    record = _citation()
    object.__delattr__(record, "claim_id")
    return record


CITATION_CASES: list[tuple[str, Callable[[], ClaimCitation], tuple[str, str]]] = [
    ("claim_id canary", lambda: _set(_citation(), "claim_id", CANARY), IDENTIFIER),
    ("citation_id canary", lambda: _set(_citation(), "citation_id", CANARY), IDENTIFIER),
    ("start -1", lambda: _citation_start(-1), NOT_HALF_OPEN),
    ("start float", lambda: _citation_start(6.0), NOT_INTEGERS),
    ("start 2**70", lambda: _citation_start(2**70), NOT_HALF_OPEN),  # 2**70 >= end 16
    ("span beyond text", lambda: _set(_citation(), "source_span", (6, 99)), BEYOND_TEXT),
    ("claim_id deleted", _citation_without_claim_id, NO_CITATION_CLAIM_ID),
    ("span raises", lambda: _set(_citation(), "source_span", _RaisingSpan()), FIELDS),
    # a valid id of a claim that is not part of the check: checked against the claims
    ("claim_id unknown", lambda: _set(_citation(), "claim_id", C2), UNKNOWN_CLAIM),
]


def _entry_points(claims: Any, citations: Any) -> list[Callable[[], Any]]:
    document = {"document_ref": D1, "source_text": TEXT, "claims": claims, "citations": citations}
    return [
        lambda: check_citation_minimality(TEXT, claims, citations),
        lambda: check_citation_minimality(TEXT, [claims] if claims else [], citations),
        lambda: check_with_table(TEXT, claims, citations),
        lambda: check_citation_minimality_batch([document]),
    ]


@pytest.mark.parametrize(("name", "make", "expected"), CLAIM_CASES, ids=[c[0] for c in CLAIM_CASES])
def test_mutated_claim_is_rejected(
    name: str, make: Callable[[], MinimalityClaim], expected: tuple[str, str]
) -> None:
    for call in _entry_points(make(), []):
        expect_error(call, *expected)


@pytest.mark.parametrize(
    ("name", "make", "expected"), CITATION_CASES, ids=[c[0] for c in CITATION_CASES]
)
def test_mutated_citation_is_rejected(
    name: str, make: Callable[[], ClaimCitation], expected: tuple[str, str]
) -> None:
    for call in _entry_points(_claim(), [make()]):
        expect_error(call, *expected)


def test_collected_batch_error_is_the_single_call_error() -> None:
    claim = _set(_claim(), "claim_id", CANARY)
    documents = [{"document_ref": D1, "source_text": TEXT, "claims": [claim], "citations": []}]
    result = check_citation_minimality_batch(documents, errors="collect")
    assert result.errors.to_pylist() == [
        {"document_ref": D1, "category": IDENTIFIER[1], "message": IDENTIFIER[0]}
    ]
    assert CANARY not in repr(result.errors.to_pylist())


def test_a_replaced_span_is_read_as_a_span_value() -> None:
    # A span replaced by a plain pair is revalidated, not trusted or refused: [1, 2) is inside
    # "alpha" [0, 5), so it overlaps 1 token and does not cover the required [6, 10).
    citation = _set(_citation(), "source_span", (1, 2))
    report = check_citation_minimality(TEXT, [_claim()], [citation])
    (record,) = report.to_dict()["records"]
    assert record["citation_offset"] == {"start": 1, "end": 2}
    assert record["citation_token_count"] == 1
    assert record["status"] == "missing_required_span"
    # The citation id is the one stored on the record (X1), not re-derived from the new span.
    assert record["citation_id"] == X1


def test_a_mutated_valid_claim_id_is_the_one_reported() -> None:
    # A mutation to another valid identifier passes the rules; the report shows that value,
    # read from the record at the boundary (never a value cached at construction).
    other = ref("other-claim")
    claim = _set(_claim(), "claim_id", other)
    citation = _set(_citation(), "claim_id", other)
    report = check_citation_minimality(TEXT, [claim], [citation])
    assert [r["claim_id"] for r in report.to_dict()["records"]] == [other]
    assert C1 not in report.to_json()


def test_a_cleared_citation_id_is_derived_like_an_absent_field() -> None:
    # citation_id None is an absent field (§6 null rule): the id is derived from claim id and
    # offsets (§4), the same as for ClaimCitation(C1, (6, 16)) without an id.
    citation = _set(_citation(), "citation_id", None)
    report = check_citation_minimality(TEXT, [_claim()], [citation])
    (record,) = report.records
    assert record.citation_id == ClaimCitation(C1, (6, 16)).citation_id
