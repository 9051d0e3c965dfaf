"""Identifier rule, optional identifiers and claim types (support-metrics.md §3.8)."""

from __future__ import annotations

from typing import Any

import pytest

from ._helpers import compute

ID_ERROR = ("identifier is empty, bounded, and control-free", "identifier")
TYPE_ERROR = ("identifier must be a string", "identifier")


def claim_ids(*ids: Any) -> list[str]:
    report = compute([{"claim_id": value} for value in ids])
    out: list[str] = report.tables(raw_identifiers=True).claims["claim_id"].to_pylist()
    return out


def error_of(*args: Any, **kwargs: Any) -> tuple[str, str]:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        compute(*args, **kwargs)
    assert info.value.__cause__ is None and info.value.__context__ is None
    return str(info.value), info.value.category


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        (1, "1"),
        (-5, "-5"),
        (2**70, str(2**70)),  # identifiers are not bounded to int64
        (" x ", "x"),
        ("\u00a0x\u3000", "x"),
        ("\u2000x\u200a", "x"),
        ("\x1cx\x1f", "x"),  # U+001C..U+001F are whitespace for str.strip
        ("\x85x", "x"),
        ("x\u200b", "x\u200b"),  # zero-width space is not stripped and is allowed
        ("x\x80y\x9f", "x\x80y\x9f"),  # C1 controls allowed
        ("é" * 256, "é" * 256),  # 256 code points
        ("sha256:" + "a" * 64, "sha256:" + "a" * 64),
    ],
)
def test_identifier_normalisation(raw: Any, normalised: str) -> None:
    assert claim_ids(raw) == [normalised]


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "\u3000",
        "x" * 257,
        " " + "x" * 257,
        "a\tb",
        "a\nb",
        "a\x00b",
        "a\x7fb",
        "a\x1bb",
        "a\ud800b",  # surrogate (decision i)
        "\udfff",
    ],
)
def test_identifier_rejected(raw: str) -> None:
    assert error_of([{"claim_id": raw}]) == ID_ERROR


@pytest.mark.parametrize("raw", [True, False, 1.0, 1.5, [1], {"a": 1}, b"x"])
def test_identifier_wrong_type(raw: Any) -> None:
    assert error_of([{"claim_id": raw}]) == TYPE_ERROR


def test_leading_whitespace_counted_after_strip() -> None:
    # 256 code points after stripping two spaces: accepted.
    assert claim_ids("  " + "x" * 256 + " ") == ["x" * 256]


def test_int_and_string_identifiers_match() -> None:
    # Claim 1 cites evidence "7"; evidence id 7; adjudication uses " 1 " and 7.
    report = compute(
        [{"claim_id": 1, "citations": ["7"]}],
        [{"evidence_id": 7, "start": 0, "end": 2}],
        None,
        [{"claim_id": " 1 ", "evidence_id": 7, "label": "supports"}],
    )
    assert report.deterministic.valid_citation_count == 1
    assert report.adjudication.supporting_citation_count == 1


def test_identifiers_in_other_places() -> None:
    # Evidence ids, citation items, source ids, compact keys, source_lengths keys.
    assert error_of([], [{"evidence_id": "a\tb"}]) == ID_ERROR
    assert error_of([{"claim_id": "c", "citations": ["a\tb"]}]) == ID_ERROR
    assert error_of([{"claim_id": "c", "citations": [None]}]) == TYPE_ERROR
    assert error_of([{"claim_id": "c", "citations": [1.5]}]) == TYPE_ERROR
    assert error_of([{"claim_id": "c", "citations": [["e"]]}]) == TYPE_ERROR
    assert error_of([{"claim_id": "c", "source_id": "a\tb"}]) == ID_ERROR
    assert error_of([{"claim_id": "c", "source_id": 1.5}]) == TYPE_ERROR
    assert error_of({"a\tb": ["e"]}) == ID_ERROR
    assert error_of([], source_lengths={"a\tb": 3}) == ID_ERROR
    assert error_of([], source_lengths={1.5: 3}) == TYPE_ERROR
    assert error_of([], None, [("c", "a\tb")]) == ID_ERROR
    assert (
        error_of([], None, None, [{"claim_id": "c", "evidence_id": True, "label": "supports"}])
        == TYPE_ERROR
    )


def test_optional_source_id() -> None:
    # None and "" mean no source id; "  " is not "" and fails the identifier rule.
    report = compute([{"claim_id": "c", "source_id": ""}, {"claim_id": "d", "source_id": None}])
    assert report.tables(raw_identifiers=True).claims["source_id"].to_pylist() == ["", ""]
    assert error_of([{"claim_id": "c", "source_id": "  "}]) == ID_ERROR
    # An int source id is an identifier like any other.
    report = compute([{"claim_id": "c", "source_id": 42}])
    assert report.tables(raw_identifiers=True).claims["source_id"].to_pylist() == ["42"]


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("Medication Dose!", "medication-dose"),
        ("Médication", "m-dication"),
        ("diagnosis", "diagnosis"),
        ("  LAB.value_2 ", "lab.value_2"),
        (7, "7"),
        ("a" * 64, "a" * 64),
        ("--x--", "x"),
        ("", ""),
        (None, ""),
    ],
)
def test_claim_type(raw: Any, normalised: str) -> None:
    report = compute([{"claim_id": "c", "claim_type": raw}])
    assert report.tables(raw_identifiers=True).claims["claim_type"].to_pylist() == [normalised]


@pytest.mark.parametrize("raw", ["_x", "!!!", "a" * 65, ".x", "   "])
def test_claim_type_rejected(raw: str) -> None:
    assert error_of([{"claim_id": "c", "claim_type": raw}]) == (
        "claim type must be a bounded label",
        "value",
    )


def test_claim_type_aliases() -> None:
    for key in ("claim_class", "category", "type"):
        report = compute([{"claim_id": "c", key: "Dose"}])
        assert report.tables(raw_identifiers=True).claims["claim_type"].to_pylist() == ["dose"]


def test_claim_type_changes_claim_digest_only() -> None:
    a = compute([{"claim_id": "c", "claim_type": "x"}])
    b = compute([{"claim_id": "c", "claim_type": "y"}])
    assert a.claim_digest != b.claim_digest
    assert a.evidence_digest == b.evidence_digest
    assert a.to_dict()["deterministic_span_checks"] == b.to_dict()["deterministic_span_checks"]


def test_duplicate_identifiers_after_normalisation() -> None:
    assert error_of([{"claim_id": 1}, {"claim_id": " 1"}]) == (
        "duplicate claim identifiers",
        "reference",
    )
    assert error_of([], [{"evidence_id": "e"}, {"id": "e "}]) == (
        "duplicate evidence identifiers",
        "reference",
    )


def test_identifier_aliases() -> None:
    assert claim_ids(1) == ["1"]
    for key in ("id", "fact_id", "key"):
        report = compute([{key: "k"}])
        assert report.tables(raw_identifiers=True).claims["claim_id"].to_pylist() == ["k"]
    assert error_of([{"claim_id": "a", "id": "b"}]) == ("conflicting field aliases", "record")
    # Equal values under two aliases are fine (1 == "1" is False in Python, 1 == 1 is True).
    assert compute([{"claim_id": 1, "id": 1}]).claim_count == 1
    assert error_of([{"claim_id": 1, "id": "1"}]) == ("conflicting field aliases", "record")


def test_identifier_strip_set_is_str_isspace() -> None:
    # The engine strips exactly the characters Python's str.strip() strips (its isspace set).
    from citelens.support._fields import whitespace

    expected = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    assert whitespace() == expected
