"""Span rule, span status and source lengths (support-metrics.md §3.5, §3.6, §6.1)."""

from __future__ import annotations

from typing import Any

import pytest

from ._helpers import compute


def claim_status(claim: dict[str, Any], **kwargs: Any) -> str:
    report = compute([{"claim_id": "c", **claim}], **kwargs)
    tables = report.tables(raw_identifiers=True)
    status: str = tables.claims["span_status"].to_pylist()[0]
    return status


def claim_row(claim: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    report = compute([{"claim_id": "c", **claim}], **kwargs)
    row: dict[str, Any] = report.tables(raw_identifiers=True).claims.to_pylist()[0]
    return row


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({}, "missing"),
        ({"start": 3}, "invalid"),
        ({"end": 3}, "invalid"),
        ({"start": -1, "end": 3}, "invalid"),
        ({"start": 3, "end": 3}, "invalid"),  # zero length
        ({"start": 4, "end": 3}, "invalid"),  # reversed
        ({"start": 0, "end": 3, "source_length": -1}, "invalid"),
        ({"start": 0, "end": 11, "source_length": 10}, "out_of_bounds"),
        ({"start": 0, "end": 10, "source_length": 10}, "valid"),  # end == length
        ({"start": 0, "end": 1}, "valid"),
        ({"start": 0, "end": 1, "source_length": 0}, "out_of_bounds"),
        ({"start": 11, "end": 12, "source_length": -5}, "invalid"),  # length < 0 first
    ],
)
def test_status_table(fields: dict[str, Any], status: str) -> None:
    assert claim_status(fields) == status


def test_counts_per_status() -> None:
    # valid, missing, invalid (half), out_of_bounds: claim_span_count = 3 (missing excluded),
    # valid 1, invalid 2 (out_of_bounds counts as invalid), validity 1/3.
    claims = [
        {"claim_id": "a", "start": 0, "end": 2},
        {"claim_id": "b"},
        {"claim_id": "c", "start": 1},
        {"claim_id": "d", "start": 0, "end": 9, "source_length": 5},
    ]
    data = compute(claims).to_dict()["deterministic_span_checks"]
    assert data["claim_span_count"] == 3
    assert data["valid_claim_span_count"] == 1
    assert data["missing_claim_span_count"] == 1
    assert data["invalid_claim_span_count"] == 2
    assert data["claim_span_validity"] == 1 / 3


@pytest.mark.parametrize(
    "fields",
    [
        {"span": {"start": 1, "end": 4}},
        {"span": {"begin": 1, "stop": 4}},
        {"span": {"offset_start": 1, "offset_end": 4}},
        {"span": [1, 4]},
        {"span": (1, 4)},
        {"source_span": [1, 4]},
        {"claim_span": {"start": 1, "end": 4}},
        {"evidence_span": [1, 4]},
        {"source_start": 1, "source_end": 4},
        {"span_start": 1, "span_end": 4},
        {"start": 1, "end": 4, "span": [1, 4]},  # equal nested and top level
        {"start": 1, "span": {"end": 4}},  # top-level start, nested end
    ],
)
def test_span_forms(fields: dict[str, Any]) -> None:
    row = claim_row(fields)
    assert (row["start"], row["end"]) == (1, 4)


@pytest.mark.parametrize("nested", ["1-4", 14, True, 1.5])
def test_other_nested_values_are_ignored(nested: Any) -> None:
    row = claim_row({"span": nested})
    assert (row["start"], row["end"], row["span_status"]) == (None, None, "missing")


def test_equal_aliases_compare_by_value() -> None:
    # start 2 under "start" and 2.0 under "span_start": equal, the first (int) is kept.
    row = claim_row({"start": 2, "span_start": 2.0, "end": 5})
    assert (row["start"], row["end"]) == (2, 5)


@pytest.mark.parametrize(
    ("fields", "message", "category"),
    [
        ({"start": 1, "span": [2, 4]}, "conflicting span offsets", "span"),
        ({"end": 1, "span": {"end": 2}}, "conflicting span offsets", "span"),
        ({"span": [1, 2, 3]}, "span tuple must contain two offsets", "span"),
        ({"span": [1]}, "span tuple must contain two offsets", "span"),
        ({"start": 1.0, "end": 2}, "span offsets must be integers", "span"),
        ({"start": True, "end": 2}, "span offsets must be integers", "span"),
        ({"start": "1", "end": 2}, "span offsets must be integers", "span"),
        ({"start": 0, "end": 2**63}, "span offsets must be integers", "span"),
        ({"start": -(2**63) - 1, "end": 2}, "span offsets must be integers", "span"),
        ({"start": 1, "source_start": 2}, "conflicting field aliases", "record"),
        ({"span": [1, 2], "source_span": [1, 3]}, "conflicting field aliases", "record"),
    ],
)
def test_span_errors(fields: dict[str, Any], message: str, category: str) -> None:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        compute([{"claim_id": "c", **fields}])
    assert str(info.value) == message
    assert info.value.category == category
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_int64_extremes_accepted() -> None:
    row = claim_row({"start": -(2**63), "end": 2**63 - 1})
    assert (row["start"], row["end"], row["span_status"]) == (-(2**63), 2**63 - 1, "invalid")


def test_source_length_aliases_and_text_fallback() -> None:
    assert claim_row({"document_length": 7})["source_length"] == 7
    assert claim_row({"text_length": 8})["source_length"] == 8
    assert claim_row({"length": 9})["source_length"] == 9
    # source_text / document_text give their code-point length (decision a).
    assert claim_row({"source_text": "héllo"})["source_length"] == 5
    assert claim_row({"document_text": "abc"})["source_length"] == 3
    # An explicit length wins over the text.
    assert claim_row({"source_length": 2, "source_text": "abcdef"})["source_length"] == 2
    # "text" never gives a length (decision a).
    assert claim_row({"text": "a much longer claim sentence"})["source_length"] is None
    # A non-str source_text gives nothing.
    assert claim_row({"source_text": 12})["source_length"] is None


def test_text_is_ignored_for_bounds() -> None:
    # Decision a: "text" of length 3 does not make the span [0, 10) out of bounds.
    assert claim_status({"start": 0, "end": 10, "text": "abc"}) == "valid"


def test_source_lengths_fill_only_missing_lengths() -> None:
    lengths = {"doc": 20, "other": 1}
    # No own length: filled from source_lengths by source id -> [0, 25) is out of bounds.
    assert claim_status({"start": 0, "end": 25, "source_id": "doc"}, source_lengths=lengths) == (
        "out_of_bounds"
    )
    # Own length wins.
    row = claim_row(
        {"start": 0, "end": 25, "source_id": "doc", "source_length": 30}, source_lengths=lengths
    )
    assert (row["source_length"], row["span_status"]) == (30, "valid")
    # Text fallback is an own length too.
    row = claim_row({"source_id": "doc", "source_text": "abc"}, source_lengths=lengths)
    assert row["source_length"] == 3
    # No source id: nothing to fill.
    assert claim_row({"start": 0, "end": 25}, source_lengths=lengths)["source_length"] is None


def test_source_lengths_key_normalisation_later_wins() -> None:
    # " doc" and "doc" normalise to the same key; the later entry (5) wins.
    row = claim_row({"source_id": "doc"}, source_lengths={"doc": 9, " doc": 5})
    assert row["source_length"] == 5


def test_source_lengths_fill_evidence() -> None:
    report = compute(
        [{"claim_id": "c", "citations": ["e"]}],
        [{"evidence_id": "e", "start": 0, "end": 30, "document_id": "src"}],
        source_lengths={"src": 20},
    )
    assert dict(report.deterministic.invalid_citation_reasons) == {"invalid_evidence_span": 1}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"source_length": 1.0}, "source lengths must be integers"),
        ({"source_length": True}, "source lengths must be integers"),
        ({"source_length": "10"}, "source lengths must be integers"),
        ({"source_length": 2**63}, "source lengths must be integers"),
    ],
)
def test_source_length_errors(fields: dict[str, Any], message: str) -> None:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        compute([{"claim_id": "c", **fields}])
    assert (str(info.value), info.value.category) == (message, "value")


def test_source_lengths_value_errors() -> None:
    import citelens

    for bad in (1.5, True, "3", None, 2**63):
        with pytest.raises(citelens.CitationSupportError) as info:
            compute([], source_lengths={"s": bad})
        assert (str(info.value), info.value.category) == (
            "source lengths must be integers",
            "value",
        )
    # Negative lengths are accepted at input.
    assert compute([], source_lengths={"s": -3}).claim_count == 0


def test_citation_span_forms() -> None:
    report = compute(
        [{"claim_id": "c"}],
        [{"evidence_id": "e", "start": 0, "end": 10}],
        [
            {"claim_id": "c", "evidence_id": "e", "evidence_span": {"begin": 2, "stop": 4}},
            {"claim_id": "c", "evidence_id": "e", "span_start": 2, "span_end": 4},
        ],
    )
    # Both spell the same sub-span [2, 4): one edge, one duplicate.
    assert report.citation_count == 1
    assert report.deterministic.duplicate_citation_count == 1
