"""``longbench-cite`` importer: LongBench-Cite prediction records to the import tables.

Claims are the cited statements, located in the answer as ``auto_scorer.py`` reads it (the
prediction without ``<cite>…</cite>`` and ``<statement>`` tags); evidence the cited sentence
ranges of the context, with ``cite`` as the quote."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from _importer_input import fixture_lines, raw_lines

from citelens.errors import CitationImportError
from citelens.importers import _longbench_cite

FIXTURE = Path(__file__).parent / "fixtures" / "longbench-cite" / "predictions.jsonl"


def _statement(text: str, *citations: Mapping[str, object]) -> dict[str, object]:
    return {"statement": text, "citation": list(citations)}


def test_fixture_tables() -> None:
    tables = _longbench_cite.convert(fixture_lines(FIXTURE))
    none = {"source_id": "answer", "offset_unit": "none", "original_start": None,
            "original_end": None}  # fmt: skip
    # cleaned answer: "Die Zugspitze ist 2962 m hoch." (30) + "Sie wurde 1820 erstmals
    # bestiegen und liegt in Bayern." (54) = 84 code points
    assert tables.claims.to_dicts() == [
        {"document_ref": "line-000000001", "claim_id": "c0", "start": 0, "end": 30,
         "source_length": 84, **none},
        {"document_ref": "line-000000001", "claim_id": "c1", "start": 30, "end": 84,
         "source_length": 84, **none},
        # line 2: "I cannot tell from the document." (32 code points) cites nothing: an
        # orphan claim spanning the whole answer
        {"document_ref": "line-000000002", "claim_id": "c0", "start": 0, "end": 32,
         "source_length": 32, **none},
    ]  # fmt: skip
    # context chunks: "Die Zugspitze ist 2962 m hoch. " [0, 31), "Sie liegt in Bayern. "
    # [31, 52), "Der Gipfel wurde 1820 erstmals bestiegen." [52, 93); [1-2] is [31, 93)
    assert tables.evidence.to_dicts() == [
        {"document_ref": "line-000000001", "evidence_id": "e0.0", "source_id": "s0",
         "start": 0, "end": 31, "source_length": 93, "quote": "Die Zugspitze ist 2962 m hoch. ",
         "location_type": "sentence_range", "offset_unit": "code_point", "original_start": 0,
         "original_end": 31},
        {"document_ref": "line-000000001", "evidence_id": "e1.0", "source_id": "s0",
         "start": 31, "end": 93, "source_length": 93,
         "quote": "Sie liegt in Bayern. Der Gipfel wurde 1820 erstmals bestiegen.",
         "location_type": "sentence_range", "offset_unit": "code_point", "original_start": 31,
         "original_end": 93},
    ]  # fmt: skip
    assert tables.citations.rows() == [
        ("line-000000001", "c0", "e0.0"),
        ("line-000000001", "c1", "e1.0"),
    ]
    # line 2 has no context and no cited statement: no evidence, edge or source
    source = tables.sources
    assert source.select("document_ref", "source_id").rows() == [("line-000000001", "s0")]
    assert source["text"][0][31:93] == tables.evidence["quote"][1]  # the quote is verbatim


def test_non_ascii_offsets_old_spelling_and_sentence_only_citations() -> None:
    prediction = (
        "<statement>Ärger über Öl.<cite>[0-0]</cite></statement>"
        "<statement>Zweiter Satz.<cite>[1-1]</cite></statement>"
    )
    item = {
        "prediction": prediction,
        "statements": [
            _statement("Ärger über Öl.", {"st_sent": 0, "ed_sent": 0, "start_char": 0,
                                          "end_char": 6, "cite": "CANARY"}),
            _statement("Zweiter Satz.", {"start_sentence_idx": 1, "end_sentence_idx": 1}),
        ],
    }  # fmt: skip
    tables = _longbench_cite.convert(raw_lines([item]))
    # "Ärger über Öl." is 14 code points (17 UTF-8 bytes: Ä, ü, Ö take 2 each), so the
    # second statement starts at code point 14, not at Polars' byte offset 17
    assert tables.claims.select("claim_id", "start", "end", "source_length").rows() == [
        ("c0", 0, 14, 27),
        ("c1", 14, 27, 27),  # 14 + len("Zweiter Satz.") 13
    ]
    assert tables.evidence.select(
        "evidence_id", "start", "end", "source_length", "quote", "offset_unit",
        "original_start", "original_end",
    ).rows() == [
        ("e0.0", 0, 6, None, "CANARY", "code_point", 0, 6),  # old spelling, no context
        ("e1.0", None, None, None, None, "sentence", 1, 1),  # sentence indices only
    ]  # fmt: skip
    assert tables.sources.height == 0


def test_statement_not_found_and_repeated_statements() -> None:
    cite = {"start_char_idx": 0, "end_char_idx": 1}
    item = {
        "prediction": "<statement>Same.<cite>[0-0]</cite></statement>"
        "<statement>Same.<cite>[0-0]</cite></statement>",
        "statements": [
            _statement("Same.", cite),
            _statement("Same.", cite),
            _statement("CANARY absent", cite),
            _statement("uncited"),
        ],
    }
    claims = _longbench_cite.convert(raw_lines([item])).claims
    # both "Same." take the first occurrence [0, 5); a statement not in the answer has no
    # span; the uncited statement is a claim too (an orphan), not in the answer either
    assert claims.select("claim_id", "start", "end").rows() == [
        ("c0", 0, 5),
        ("c1", 0, 5),
        ("c2", None, None),
        ("c3", None, None),
    ]


@pytest.mark.parametrize(
    ("item", "message", "detail"),
    [
        (
            {"statements": []},
            "longbench-cite input is malformed: prediction is missing",
            "longbench-cite line 2: prediction is missing",
        ),
        (
            {"prediction": "CANARY"},
            "longbench-cite input is malformed: statements is missing",
            "longbench-cite line 2: statements is missing",
        ),
        (
            {"prediction": "CANARY", "statements": [{"citation": []}]},
            "longbench-cite input is malformed: statements[].statement is missing",
            "longbench-cite line 2: statements[].statement is missing",
        ),
        (
            {"prediction": "CANARY", "statements": [
                _statement("CANARY", {"start_char_idx": 9, "end_char_idx": 3})]},
            "longbench-cite input is malformed: "
            "statements[].citation[].end_char_idx must not be before start_char_idx",
            "longbench-cite line 2: "
            "statements[].citation[].end_char_idx must not be before start_char_idx",
        ),
        (
            {"prediction": "CANARY",
             "statements": [_statement("CANARY", {"st_sent": 2, "ed_sent": 1})]},
            "longbench-cite input is malformed: "
            "statements[].citation[].ed_sent must not be before st_sent",
            "longbench-cite line 2: statements[].citation[].ed_sent must not be before st_sent",
        ),
        (
            {"prediction": "CANARY",
             "statements": [_statement("CANARY", {"start_char": "CANARY"})]},
            "longbench-cite input is malformed: "
            "statements[].citation[].start_char must be an integer",
            "longbench-cite line 2: statements[].citation[].start_char must be an integer",
        ),
    ],
)  # fmt: skip
def test_malformed_lines(item: object, message: str, detail: str) -> None:
    good = {"prediction": "fine", "statements": []}
    with pytest.raises(CitationImportError) as caught:
        _longbench_cite.convert(raw_lines([good, item]))
    assert str(caught.value) == message
    assert caught.value.detail == detail
    assert "CANARY" not in message + detail
