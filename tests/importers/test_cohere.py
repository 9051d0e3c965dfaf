"""The ``cohere`` importer: v2 chat citations and request documents to the four tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from _importer_input import raw_lines

from citelens.errors import CitationImportError
from citelens.importers import _cohere

FIXTURES = Path(__file__).parent / "fixtures" / "cohere"


def _raw(*lines: Any) -> pl.DataFrame:
    return raw_lines(lines)


def _message(texts: list[str], citations: list[Any]) -> dict[str, Any]:
    content = [{"type": "text", "text": t} for t in texts]
    return {"message": {"role": "assistant", "content": content, "citations": citations}}


def test_sdk_fixture_string_and_object_documents() -> None:
    line = FIXTURES.joinpath("documents.jsonl").read_text(encoding="utf-8").splitlines()
    tables = _cohere.convert(pl.DataFrame({"_line": [1], "raw": line}))
    # "The tallest penguins live in Antarctica." is 40 code points
    assert tables.claims.rows() == [
        ("line-000000001", "c0", 4, 20, "answer", 40, "code_point", 4, 20),
        ("line-000000001", "c1", 29, 39, "answer", 40, "code_point", 29, 39),
    ]
    # s0: the string document (id doc:0, 33 code points), s1: the object "hab" (41), s2: the
    # tool source the request does not list (no text)
    assert [(*r[1:3], r[5], r[7]) for r in tables.evidence.rows()] == [
        ("e0.0", "s0", 33, "document"),
        ("e1.0", "s1", 41, "document"),
        ("e1.1", "s2", None, "tool"),
    ]
    assert tables.sources.rows() == [
        ("line-000000001", "s0", "Emperor penguins are the tallest."),
        ("line-000000001", "s1", "Emperor penguins only live in Antarctica."),
    ]
    assert tables.citations.rows() == [
        ("line-000000001", "c0", "e0.0"),
        ("line-000000001", "c1", "e1.0"),
        ("line-000000001", "c1", "e1.1"),
    ]


def test_content_index_thinking_and_non_ascii() -> None:
    message = {
        "message": {
            "content": [
                {"type": "text", "text": "Café 😀. "},
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "日本 yes."},
            ],
            "citations": [
                # item 2 "日本 yes.": [0, 2) = "日本", shifted by the 8 code points of item 0
                {
                    "start": 0,
                    "end": 2,
                    "text": "日本",
                    "content_index": 2,
                    "sources": [
                        {"type": "document", "id": "x", "document": {"id": "x", "text": "日本 src"}}
                    ],
                },
                {
                    "start": 0,
                    "end": 3,
                    "text": "hmm",
                    "content_index": 1,
                    "type": "THINKING_CONTENT",
                    "sources": [{"type": "document", "id": "x"}],
                },
                {
                    "start": 0,
                    "end": 3,
                    "content_index": 1,
                    "sources": [{"type": "document", "id": "x"}],
                },
            ],
        }
    }
    tables = _cohere.convert(_raw(message))
    # only the first citation cites the answer (the others cite the thinking item)
    assert tables.claims.rows() == [
        ("line-000000001", "c0", 8, 10, "answer", 15, "code_point", 0, 2)
    ]
    assert tables.sources.rows() == [("line-000000001", "s0", "日本 src")]  # echoed text


def test_empty_citations_and_no_documents() -> None:
    tables = _cohere.convert(
        _raw(_message(["Hi."], []), {"request": {"documents": []}, "response": _message(["x"], [])})
    )
    assert (tables.claims.height, tables.evidence.height, tables.sources.height) == (0, 0, 0)


def test_uncited_request_documents_are_sources() -> None:
    line = {
        "request": {"documents": ["one", {"data": {"text": "two"}}]},
        "response": _message(["a"], []),
    }
    tables = _cohere.convert(_raw(line))
    assert tables.sources.rows() == [
        ("line-000000001", "s0", "one"),
        ("line-000000001", "s1", "two"),
    ]


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        (
            _message(["abc"], [{"end": 1, "sources": []}]),
            "message.citations[].start",
            "must be given",
        ),
        (
            _message(["abc"], [{"start": 2, "end": 1, "sources": []}]),
            "message.citations[].end",
            "must not be less than start",
        ),
        (
            _message(["abc"], [{"start": 0, "end": 1, "content_index": 4, "sources": []}]),
            "message.citations[].content_index",
            "must name a content item",
        ),
        (
            _message(["abc"], [{"start": 0, "end": 1, "sources": [{"type": "tool"}]}]),
            "message.citations[].sources[].id",
            "must be given",
        ),
        (
            {"request": {"documents": [3]}, "response": _message(["a"], [])},
            "request.documents[]",
            "must be text or an object",
        ),
        (
            {
                "request": {"documents": ["ok", {"data": {"text": ["no"]}}]},
                "response": _message(["a"], []),
            },
            "request.documents[].data.text",
            "must be text",
        ),
    ],
)
def test_malformed_line(line: dict[str, Any], field: str, problem: str) -> None:
    with pytest.raises(CitationImportError) as caught:
        _cohere.convert(_raw(_message(["fine"], []), line))
    assert str(caught.value) == f"cohere input is malformed: {field} {problem}"
    assert caught.value.detail == f"cohere line 2: {field} {problem}"
