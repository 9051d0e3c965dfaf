"""The ``gemini`` importer: grounding supports (UTF-8 byte segments) to the four tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from _importer_input import raw_lines

from citelens.errors import CitationImportError
from citelens.importers import _gemini

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"


def _raw(*lines: Any) -> pl.DataFrame:
    return raw_lines(lines)


def _response(parts: list[str], chunks: list[Any], supports: list[Any]) -> dict[str, Any]:
    metadata = {"groundingChunks": chunks, "groundingSupports": supports}
    content = {"parts": [{"text": p} for p in parts]}
    return {"candidates": [{"content": content, "groundingMetadata": metadata}]}


def test_sdk_fixture_camel_and_snake_case_give_the_same_tables() -> None:
    lines = FIXTURES.joinpath("camel_and_snake.jsonl").read_text(encoding="utf-8").splitlines()
    tables = _gemini.convert(pl.DataFrame({"_line": [1, 2], "raw": lines}))
    # "Paris é 日本 😀." : bytes P-a-r-i-s 0..5, " " 5, é 6..8, " " 8, 日 9..12, 本 12..15,
    # " " 15, 😀 16..20, "." 20; code points P..s 0..5, " " 5, é 6, " " 7, 日 8, 本 9, " " 10,
    # 😀 11, "." 12: 13 code points. Bytes [0, 8) = "Paris é" = code points [0, 7);
    # bytes [9, 20) = "日本 😀" = code points [8, 12) (startIndex 9 given, partIndex left out).
    for ref in ("line-000000001", "line-000000002"):
        assert tables.claims.filter(pl.col("document_ref") == ref).drop("document_ref").rows() == [
            ("c0", 0, 7, "answer", 13, "utf8_byte", 0, 8),
            ("c1", 8, 12, "answer", 13, "utf8_byte", 9, 20),
        ]
    # chunk 0 is web (no text), chunk 1 retrieved context "Tokyo is in 日本.":
    # 5 + 1 + 2 + 1 + 2 + 1 + 2 + 1 = 15 code points
    assert [r[1:3] + r[5:9] for r in tables.evidence.rows()[:3]] == [
        ("e0.0", "s0", None, None, "web", "none"),
        ("e1.0", "s1", 15, None, "retrieved_context", "none"),
        ("e1.1", "s0", None, None, "web", "none"),
    ]
    assert tables.sources.rows() == [
        ("line-000000001", "s1", "Tokyo is in 日本."),
        ("line-000000002", "s1", "Tokyo is in 日本."),
    ]
    assert tables.citations.height == 6


def test_part_index_and_two_candidates_shift_offsets() -> None:
    first = _response(
        ["Ab. ", "ü ok"],
        [{"web": {"uri": "https://a"}}],
        # part 1 "ü ok": ü is 2 bytes, so bytes [3, 5) = "ok" = code points [2, 4), shifted by
        # the 4 code points of "Ab. " to [6, 8)
        [
            {
                "segment": {"partIndex": 1, "startIndex": 3, "endIndex": 5},
                "groundingChunkIndices": [0],
            }
        ],
    )["candidates"][0]
    second = _response(
        ["Z."],
        [{"retrievedContext": {"uri": "gs://z", "text": "Zed."}}],
        # after 8 code points of candidate 0: "Z" [0, 1) -> [8, 9); its chunk is source s1
        [{"segment": {"endIndex": 1}, "groundingChunkIndices": [0]}],
    )["candidates"][0]
    tables = _gemini.convert(_raw({"response": {"candidates": [first, second]}}))
    assert [r[1:4] + r[6:9] for r in tables.claims.rows()] == [
        ("c0", 6, 8, "utf8_byte", 3, 5),
        ("c1", 8, 9, "utf8_byte", 0, 1),
    ]
    assert [r[1:3] for r in tables.evidence.rows()] == [("e0.0", "s0"), ("e1.0", "s1")]
    assert tables.sources.rows() == [("line-000000001", "s1", "Zed.")]


def test_no_grounding_metadata_and_empty_supports() -> None:
    bare = {"candidates": [{"content": {"parts": [{"text": "Hello."}]}}]}
    tables = _gemini.convert(_raw(bare, _response(["x"], [], [])))
    assert (tables.claims.height, tables.evidence.height, tables.sources.height) == (0, 0, 0)


_SUPPORTS = "candidates[].groundingMetadata.groundingSupports[]"


@pytest.mark.parametrize(
    ("support", "field", "problem"),
    [
        # "é" is bytes [0, 2): byte 1 is inside the code point
        (
            {"segment": {"endIndex": 1}, "groundingChunkIndices": [0]},
            "segment.endIndex",
            "must be a UTF-8 character boundary within its part",
        ),
        # beyond the 2-byte part
        (
            {"segment": {"endIndex": 3}, "groundingChunkIndices": [0]},
            "segment.endIndex",
            "must be a UTF-8 character boundary within its part",
        ),
        (
            {"segment": {"startIndex": 0}, "groundingChunkIndices": [0]},
            "segment.endIndex",
            "must be given",
        ),
        (
            {"segment": {"startIndex": 2, "endIndex": 0}, "groundingChunkIndices": [0]},
            "segment.endIndex",
            "must not be less than startIndex",
        ),
        (
            {"segment": {"partIndex": 1, "endIndex": 2}, "groundingChunkIndices": [0]},
            "segment.partIndex",
            "must name a part",
        ),
        (
            {"segment": {"endIndex": 2}, "groundingChunkIndices": [1]},
            "groundingChunkIndices[]",
            "must name a grounding chunk",
        ),
        (
            {"segment": {"endIndex": "2"}, "groundingChunkIndices": [0]},
            "segment.endIndex",
            "must be an integer",
        ),
    ],
)
def test_malformed_line(support: dict[str, Any], field: str, problem: str) -> None:
    good = _response(["é"], [{"web": {"uri": "u"}}], [])
    bad = _response(["é"], [{"web": {"uri": "u"}}], [support])
    with pytest.raises(CitationImportError) as caught:
        _gemini.convert(_raw(good, bad))
    assert str(caught.value) == f"gemini input is malformed: {_SUPPORTS}.{field} {problem}"
    assert caught.value.detail == f"gemini line 2: {_SUPPORTS}.{field} {problem}"
