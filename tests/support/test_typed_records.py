"""Typed records (§3.9): literal cases, and each constructor field against the columnar engine.

The literal cases show in a comment why the expected value is what the contract says. The
differential cases vary ONE field of a typed record over awkward values (everything else
valid) and compare the constructor with the same field given to the collection engine as a
mapping record: the normalised value (from the engine's canonical tables) or the error must
be the same, since one field alone meets the same field rule on both paths.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from citelens.errors import CitationSupportError
from citelens.support import (
    AtomicClaim,
    Citation,
    ClinicianAdjudication,
    EvidenceSpan,
    compute_citation_support_metrics,
)


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    """The record's fields, or the error's (message, category)."""
    try:
        record = call(*args, **kwargs)
    except CitationSupportError as exc:
        assert exc.__cause__ is None  # raised directly, never chained
        return (str(exc), exc.category)
    return tuple(getattr(record, name) for name in type(record).__slots__)


def error(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    result = outcome(call, *args, **kwargs)
    assert _failed(result), result
    return result  # type: ignore[no-any-return]


# -- literal cases ----------------------------------------------------------------------------


def test_identifiers_strip_and_accept_integers() -> None:
    # str() then str.strip(): " c1 " → "c1", 7 → "7"; the source id "" means none
    claim = AtomicClaim(" c1 ", citations=(7, "\u00a0e2\u3000"))
    assert (claim.claim_id, claim.citations, claim.source_id) == ("c1", ("7", "e2"), "")
    # an integer beyond int64 is still an identifier: its decimal text
    assert Citation(2**70, "e").claim_id == str(2**70)
    # U+200B is not whitespace (str.isspace() is false), so it stays and is allowed
    assert EvidenceSpan("\u200be").evidence_id == "\u200be"
    # C1 controls are allowed, C0 and U+007F are not
    assert EvidenceSpan("a\x85b").evidence_id == "a\x85b"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, ("identifier must be a string", "identifier")),  # bool is not an identifier
        (1.0, ("identifier must be a string", "identifier")),  # nor a float, even integral
        (None, ("identifier must be a string", "identifier")),  # nor None in a constructor
        (b"e", ("identifier must be a string", "identifier")),
        ("   ", ("identifier is empty, bounded, and control-free", "identifier")),  # empty
        ("a\x7fb", ("identifier is empty, bounded, and control-free", "identifier")),
        ("x" * 257, ("identifier is empty, bounded, and control-free", "identifier")),
        ("a\ud800", ("identifier is empty, bounded, and control-free", "identifier")),
    ],
)
def test_identifier_errors(value: Any, expected: tuple[str, str]) -> None:
    assert error(EvidenceSpan, value) == expected
    assert error(Citation, "c", value) == expected
    assert error(ClinicianAdjudication, value, "e", "supports") == expected


def test_identifier_bound_is_code_points() -> None:
    # 256 code points of 4 UTF-8 bytes each are fine; 257 are not
    assert EvidenceSpan("\U0001f600" * 256).evidence_id == "\U0001f600" * 256
    assert error(EvidenceSpan, "\U0001f600" * 257)[0].startswith("identifier is empty")


def test_offsets_and_lengths() -> None:
    # offsets and lengths are non-bool int64 values; negatives are accepted at input
    span = EvidenceSpan("e", -3, 2**63 - 1, source_length=-1)
    assert (span.start, span.end, span.source_length) == (-3, 2**63 - 1, -1)
    assert error(EvidenceSpan, "e", 2**63) == ("span offsets must be integers", "span")
    assert error(EvidenceSpan, "e", None, True) == ("span offsets must be integers", "span")
    assert error(Citation, "c", "e", 0, 1.0) == ("span offsets must be integers", "span")
    assert error(EvidenceSpan, "e", source_length=2.0) == (
        "source lengths must be integers",
        "value",
    )
    assert error(AtomicClaim, "c", source_length=-(2**63) - 1) == (
        "source lengths must be integers",
        "value",
    )


def test_claim_types() -> None:
    # §3.8 examples: runs outside [a-z0-9_.-] become "-", then "-" is stripped at the ends
    assert AtomicClaim("c", claim_type="Medication Dose!").claim_type == "medication-dose"
    assert AtomicClaim("c", claim_type="Médication").claim_type == "m-dication"
    # str(value) of a non-string: 5 → "5"; None and "" are no claim type
    assert AtomicClaim("c", claim_type=5).claim_type == "5"
    assert AtomicClaim("c", claim_type=None).claim_type == ""
    for bad in ("_x", "!!!", "a" * 65):
        assert error(AtomicClaim, "c", claim_type=bad) == (
            "claim type must be a bounded label",
            "value",
        )


def test_citations() -> None:
    # None → none; a text or an int → one identifier; a sequence → its items
    assert AtomicClaim("c", citations=None).citations == ()
    assert AtomicClaim("c", citations=" e ").citations == ("e",)
    assert AtomicClaim("c", citations=range(2)).citations == ("0", "1")
    for value in (1.5, {"e"}, {"evidence_id": "e"}, True, b"e"):
        assert error(AtomicClaim, "c", citations=value) == (
            "citation identifiers must be a sequence",
            "record",
        )
    # each item through the identifier rule; the first failing item decides
    assert error(AtomicClaim, "c", citations=["e", " ", None]) == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )
    assert error(AtomicClaim, "c", citations=["e", None, " "]) == (
        "identifier must be a string",
        "identifier",
    )


def test_citations_bounded_as_a_citation_collection() -> None:
    # the default citation limit is 500,000 items; one more is the collection's limit error
    assert len(AtomicClaim("c", citations=["e"] * 500_000).citations) == 500_000
    assert error(AtomicClaim, "c", citations=["e"] * 500_001) == (
        "citation collection exceeds the record limit",
        "limit",
    )

    class Broken:
        def __len__(self) -> int:
            return 2

        def __getitem__(self, index: int) -> str:
            raise RuntimeError("caller sequence")

    from collections.abc import Sequence

    Sequence.register(Broken)
    assert error(AtomicClaim, "c", citations=Broken()) == (
        "citation collection must be an iterable of records",
        "collection",
    )


def test_constructor_step_order() -> None:
    # §3.9 order: identifier, offsets, citations, source id, length, claim type
    assert error(AtomicClaim, None, "x", citations=1.5) == (
        "identifier must be a string",
        "identifier",
    )
    assert error(AtomicClaim, "c", "x", citations=1.5) == (
        "span offsets must be integers",
        "span",
    )
    assert error(AtomicClaim, "c", citations=1.5, source_id=" ") == (
        "citation identifiers must be a sequence",
        "record",
    )
    assert error(AtomicClaim, "c", source_id=" ", source_length=1.5) == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )
    assert error(AtomicClaim, "c", source_length=1.5, claim_type="_") == (
        "source lengths must be integers",
        "value",
    )
    # start is checked before end; the claim id before the evidence id
    assert error(Citation, "c", "e", "a", 1.5) == ("span offsets must be integers", "span")
    assert error(ClinicianAdjudication, " ", 1.5, None) == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Supported", "supports"),  # case-folded, then looked up
        (" relevant support ", "supports"),  # stripped; the space run becomes "_"
        ("__ENTAILS__", "supports"),  # leading and trailing "_" removed
        ("false", "contradicts"),  # the string "false" contradicts …
        (False, "irrelevant"),  # … the boolean False is irrelevant
        (True, "supports"),
        ("does-not-support", "irrelevant"),
        ("Unknown", "unclear"),
    ],
)
def test_labels(value: Any, expected: str) -> None:
    assert ClinicianAdjudication("c", "e", value).label == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ("adjudication label must be a string", "value")),
        (1, ("adjudication label must be a string", "value")),
        ("n/a", ("adjudication label is unsupported", "value")),  # "n_a" is no spelling
        ("", ("adjudication label is unsupported", "value")),
    ],
)
def test_label_errors(value: Any, expected: tuple[str, str]) -> None:
    assert error(ClinicianAdjudication, "c", "e", value) == expected


def test_from_mapping_record_rules() -> None:
    # evidence: the text fallback of the length; a nested span mapping (begin/stop aliases)
    span = EvidenceSpan.from_mapping({"id": "e", "document_text": "abcd", "span": {"stop": 3}})
    assert (span.evidence_id, span.start, span.end, span.source_length) == ("e", None, 3, 4)
    # embedded adjudication keys are not read by from_mapping (no embedded labels)
    embedded = {"evidence_id": "e", "claim_id": "c", "claim": "d", "label": "bogus"}
    assert EvidenceSpan.from_mapping(embedded).evidence_id == "e"
    assert error(EvidenceSpan.from_mapping, {"evidence_id": "e", "span": [1]}) == (
        "span tuple must contain two offsets",
        "span",
    )
    assert error(EvidenceSpan.from_mapping, {"evidence_id": "e", "id": "f"}) == (
        "conflicting field aliases",
        "record",
    )
    assert error(EvidenceSpan.from_mapping, {"evidence_id": None}, default_id=None) == (
        "evidence identifier is required",
        "record",
    )
    # citation: the source id aliases win over source_id (decision b)
    citation = Citation.from_mapping(
        {"claim_id": "c", "evidence_id": "e", "source_id": "s", "document_id": "d"}
    )
    assert citation.source_id == "d"
    assert error(Citation.from_mapping, {"claim_id": "c", "id": "e"}) == (
        "citation requires claim and evidence identifiers",
        "record",
    )
    # adjudication: flags, and the evidence from source_id when no evidence alias is present
    flags = ClinicianAdjudication.from_mapping({"claim": "c", "source_id": "e", "supports": True})
    assert (flags.claim_id, flags.evidence_id, flags.label) == ("c", "e", "supports")
    only_false = {"claim": "c", "evidence": "e", "supported": False}
    assert ClinicianAdjudication.from_mapping(only_false).label == "irrelevant"
    assert error(ClinicianAdjudication.from_mapping, {"claim": "c", "evidence": "e"}) == (
        "adjudication requires claim, evidence, and label",
        "record",
    )
    assert error(
        ClinicianAdjudication.from_mapping, {"claim": "c", "evidence": "e", "supports": None}
    ) == ("adjudication flags must be boolean", "value")
    conflicting = {"claim": "c", "evidence": "e", "label": "supports", "contradicts": True}
    assert error(ClinicianAdjudication.from_mapping, conflicting) == (
        "conflicting adjudication labels",
        "value",
    )
    # record conversion: a typed record of another kind is not a mapping (slots, no to_dict)
    assert error(ClinicianAdjudication.from_mapping, Citation("c", "e")) == (
        "adjudication record must be a mapping",
        "record",
    )


def test_from_mapping_claims() -> None:
    # step 8: a mapping item contributes its evidence alias, "id" included
    claim = AtomicClaim.from_mapping({"key": "c", "sources": [{"id": "e1"}, " e2 "]})
    assert (claim.claim_id, claim.citations) == ("c", ("e1", "e2"))
    assert error(AtomicClaim.from_mapping, {"claim_id": "c", "citations": [{"x": 1}]}) == (
        "citation record requires an evidence identifier",
        "record",
    )
    assert error(AtomicClaim.from_mapping, {"claim_id": "c", "citations": 1.5}) == (
        "citation values must be identifiers or records",
        "record",
    )


# -- one field at a time: constructor vs the collection engine -------------------------------

_AWKWARD: list[Any] = [
    "e",
    " e ",
    "",
    " ",
    "\t",
    "a\x00",
    "a\x85",
    "\u200b",
    "x" * 256,
    "x" * 257,
    "Médication",
    "Supported",
    "n/a",
    "_x",
    0,
    -1,
    7,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    True,
    False,
    1.0,
    math.nan,
    b"e",
    ["e"],
    {"start": 1},
]


def _engine(**collections: Any) -> Any:
    """The report's raw tables, or the error's (message, category)."""
    try:
        report = compute_citation_support_metrics(
            collections.get("claims", []),
            collections.get("evidence", []),
            collections.get("citations", []),
            collections.get("adjudications", []),
        )
    except CitationSupportError as exc:
        return (str(exc), exc.category)
    return report.tables(raw_identifiers=True)


def _failed(result: Any) -> bool:
    """An error outcome: a plain (message, category) pair, not a record or the tables."""
    return type(result) is tuple and len(result) == 2 and isinstance(result[1], str)


def _compare(typed: Any, engine: Any, position: int, table: str, column: str) -> None:
    if _failed(typed) or _failed(engine):
        assert typed == engine
        return
    assert typed[position] == getattr(engine, table).column(column).to_pylist()[0]


@pytest.mark.parametrize("value", _AWKWARD, ids=repr)
def test_evidence_fields_match_the_engine(value: Any) -> None:
    for position, field in (
        (0, "evidence_id"),
        (1, "start"),
        (3, "source_id"),
        (4, "source_length"),
    ):
        typed = (
            outcome(EvidenceSpan, value)
            if field == "evidence_id"
            else outcome(EvidenceSpan, "e", **{field: value})
        )
        engine = _engine(evidence=[{"evidence_id": "e", field: value}])
        _compare(typed, engine, position, "evidence", field)


@pytest.mark.parametrize("value", _AWKWARD, ids=repr)
def test_claim_fields_match_the_engine(value: Any) -> None:
    for position, field in ((0, "claim_id"), (4, "source_id"), (6, "claim_type")):
        typed = (
            outcome(AtomicClaim, value)
            if field == "claim_id"
            else outcome(AtomicClaim, "c", **{field: value})
        )
        engine = _engine(claims=[{"claim_id": "c", field: value}])
        _compare(typed, engine, position, "claims", field)
    if type(value) in (str, int, list):
        # a text, an integer or a list of identifiers: the same items on both paths
        typed = outcome(AtomicClaim, "c", citations=value)
        engine = _engine(claims=[{"claim_id": "c", "citations": value}])
        if _failed(typed) or _failed(engine):
            assert typed == engine
        else:
            assert typed[3] == tuple(engine.edges.column("evidence_id").to_pylist())


@pytest.mark.parametrize("value", _AWKWARD, ids=repr)
def test_labels_match_the_engine(value: Any) -> None:
    typed = outcome(ClinicianAdjudication, "c", "e", value)
    engine = _engine(adjudications=[{"claim_id": "c", "evidence_id": "e", "label": value}])
    _compare(typed, engine, 2, "adjudications", "label")


# -- caller code inside a constructor (issue 10: only citelens errors) ------------------------


class _RaisingText(str):
    def __str__(self) -> str:
        raise RuntimeError("CANARY-typed-str")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("CANARY-typed-eq")

    __hash__ = str.__hash__


class _RaisingInt(int):
    def __str__(self) -> str:
        raise RuntimeError("CANARY-typed-int-str")

    def __int__(self) -> int:
        raise RuntimeError("CANARY-typed-int")


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        # str() of an identifier runs the subclass's __str__, which raises: an input error
        (lambda: AtomicClaim(_RaisingText("c")), "citation-support input cannot be normalized"),
        (lambda: Citation("c", _RaisingInt(5)), "citation-support input cannot be normalized"),
        # int() of an offset runs the subclass's __int__
        (
            lambda: EvidenceSpan("e", start=_RaisingInt(1)),
            "citation-support input cannot be normalized",
        ),
        # the claim type is str()-ed too
        (
            lambda: AtomicClaim("c", claim_type=_RaisingText("x")),
            "citation-support input cannot be normalized",
        ),
    ],
)
def test_caller_code_that_raises_is_an_input_error(build: Any, expected: str) -> None:
    with pytest.raises(CitationSupportError) as caught:
        build()
    assert (str(caught.value), caught.value.category) == (expected, "input")
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    assert "CANARY" not in repr(caught.value)


def test_labels_and_empty_checks_run_no_caller_code() -> None:
    # str's own strip/casefold/len are used: the subclass's raising __eq__/__str__ never run
    assert ClinicianAdjudication("c", "e", _RaisingText(" Supported ")).label == "supports"
    assert EvidenceSpan("e", source_id=_RaisingText("")).source_id == ""
