"""``alce`` importer: ALCE result items (``jq -c '.data[]'`` of ``run.py``'s JSON) to the
import tables. Claims are all the sentences of ``output`` (those without ``[k`` markers are
orphans), evidence the whole ``docs[k - 1]``."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from _importer_input import fixture_lines, raw_lines

from citelens.errors import CitationImportError
from citelens.importers import _alce

FIXTURE = Path(__file__).parent / "fixtures" / "alce" / "result-items.jsonl"


def test_fixture_claims_are_all_the_sentences() -> None:
    claims = _alce.convert(fixture_lines(FIXTURE)).claims
    no_original = {"source_id": "answer", "offset_unit": "none", "original_start": None,
                   "original_end": None}  # fmt: skip
    assert claims.to_dicts() == [
        # "Faust was written by Johann Wolfgang von Goethe [1]." is 52 code points; output is
        # 106 ("… [1]." 52 + " " + "Part two appeared in 1832 [1][2]." 33 + " " + 19)
        {"document_ref": "line-000000001", "claim_id": "c0", "start": 0, "end": 52,
         "source_length": 106, **no_original},
        # the second sentence starts after 52 + 1 space: [53, 53 + 33)
        {"document_ref": "line-000000001", "claim_id": "c1", "start": 53, "end": 86,
         "source_length": 106, **no_original},
        # "It remains popular." has no marker: a claim without citations (an orphan),
        # [86 + 1, 87 + 19) = [87, 106)
        {"document_ref": "line-000000001", "claim_id": "c2", "start": 87, "end": 106,
         "source_length": 106, **no_original},
        # Line 2: "… à Paris [1]." 37 code points (à is one, 2 UTF-8 bytes)
        {"document_ref": "line-000000002", "claim_id": "c0", "start": 0, "end": 37,
         "source_length": 37, **no_original},
    ]  # fmt: skip


def test_fixture_evidence_edges_and_sources() -> None:
    tables = _alce.convert(fixture_lines(FIXTURE))
    assert tables.evidence.select(
        "document_ref", "evidence_id", "source_id", "start", "end", "source_length", "quote",
        "location_type", "offset_unit",
    ).rows() == [
        # [1] -> docs[0], 53 code points; [1][2] -> docs[0], docs[1] (60: ’ is one code point);
        # each cites its whole passage, [0, length)
        ("line-000000001", "e0.0", "s0", 0, 53, 53, None, "marker", "none"),
        ("line-000000001", "e1.0", "s0", 0, 53, 53, None, "marker", "none"),
        ("line-000000001", "e1.1", "s1", 0, 60, 60, None, "marker", "none"),
        ("line-000000002", "e0.0", "s0", 0, 51, 51, None, "marker", "none"),
    ]  # fmt: skip
    assert tables.citations.rows() == [
        ("line-000000001", "c0", "e0.0"),
        ("line-000000001", "c1", "e1.0"),
        ("line-000000001", "c1", "e1.1"),
        ("line-000000002", "c0", "e0.0"),
    ]
    assert tables.sources.rows() == [
        ("line-000000001", "s0", "Faust is a tragic play by Johann Wolfgang von Goethe."),
        ("line-000000001", "s1", "Faust, Part Two was published in 1832, after Goethe’s death."),
        ("line-000000002", "s0", "La tour Eiffel est une tour de fer puddlé de Paris."),
    ]


def test_sentence_splitting() -> None:
    text = '  He said "hi." Then 3.5 left! Dr. X?\nend [2]  '
    frame = _alce.sentences(pl.DataFrame({"_line": [1], "o": [text]}), "o")
    assert frame.select("start", "end", "sentence").rows() == [
        (2, 15, 'He said "hi."'),  # leading spaces skipped; the closing quote stays
        (16, 30, "Then 3.5 left!"),  # "3.5": a period before a digit ends nothing
        (31, 34, "Dr."),  # no abbreviation list: NLTK would keep "Dr. X?" together
        (35, 37, "X?"),
        (38, 45, "end [2]"),  # after the line break; trailing spaces excluded (45 = 47 - 2)
    ]


def test_markers_follow_eval_py_and_sent_is_preferred() -> None:
    item = {
        # "[1, 2]": eval.py's \[\d+ finds "[1" only; "[2][2]" gives two edges to docs[1]
        "output": "Ünïcödé first [1, 2]. Second [2][2].",
        "docs": [
            {"title": "T0", "text": "CANARY-long passage", "sent": "CANARY-sent"},
            {"title": "T1", "text": "other"},
        ],
    }
    tables = _alce.convert(raw_lines([item]))
    # "Ünïcödé first [1, 2]." = 7 + 1 + 5 + 1 + 7 = 21 code points; "Second [2][2]." [22, 36)
    assert tables.claims.select("claim_id", "start", "end").rows() == [
        ("c0", 0, 21),
        ("c1", 22, 36),
    ]
    assert tables.citations.select("claim_id", "evidence_id").rows() == [
        ("c0", "e0.0"),
        ("c1", "e1.0"),
        ("c1", "e1.1"),
    ]
    assert tables.evidence.select("source_id", "source_length").rows() == [
        ("s0", 11),  # "CANARY-sent": sent wins over text, 11 code points
        ("s1", 5),
        ("s1", 5),
    ]
    assert tables.sources["text"].to_list() == ["CANARY-sent", "other"]


def test_no_markers_give_orphan_claims_and_no_docs_no_rows() -> None:
    items = [{"output": "No citation here. None.", "docs": []}, {"output": "", "docs": None}]
    tables = _alce.convert(raw_lines(items))
    # line 1: two sentences, [0, 17) and [18, 23), neither cites; line 2: no sentence
    assert tables.claims.select("document_ref", "claim_id", "start", "end").rows() == [
        ("line-000000001", "c0", 0, 17),
        ("line-000000001", "c1", 18, 23),
    ]
    assert [tables.evidence.height, tables.citations.height, tables.sources.height] == [0, 0, 0]


@pytest.mark.parametrize(
    "output",
    [
        "CANARY [3].",  # two docs, marker [3]
        "CANARY [0].",  # markers count from 1: [0] names no document
        "CANARY [99999999999999999999].",  # beyond Int64
    ],
)
def test_a_marker_beyond_docs_is_an_edge_to_missing_evidence(output: str) -> None:
    # the edge stays and no evidence row exists for it: the support check counts a citation
    # of missing evidence, as eval.py counts the sentence unsupported
    tables = _alce.convert(raw_lines([{"output": output, "docs": [{"text": "a"}, {"text": "b"}]}]))
    assert tables.citations.select("claim_id", "evidence_id").rows() == [("c0", "e0.0")]
    assert tables.evidence.height == 0
    assert tables.sources["source_id"].to_list() == ["s0", "s1"]


@pytest.mark.parametrize(
    ("item", "message", "detail"),
    [
        (
            {"docs": []},
            "alce input is malformed: output is missing",
            "alce line 2: output is missing",
        ),
        (
            {"output": "CANARY", "docs": "CANARY"},
            "alce input is malformed: docs must be a list",
            "alce line 2: docs must be a list",
        ),
    ],
)
def test_malformed_lines(item: object, message: str, detail: str) -> None:
    good = {"output": "fine [1].", "docs": [{"text": "ok"}]}
    with pytest.raises(CitationImportError) as caught:
        _alce.convert(raw_lines([good, item]))
    assert str(caught.value) == message
    assert caught.value.detail == detail
    assert "CANARY" not in message + detail
