"""The ``openai`` importer: Responses API and Chat Completions annotations to the four tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from _importer_input import raw_lines

from citelens.errors import CitationImportError
from citelens.importers import _openai

FIXTURES = Path(__file__).parent / "fixtures" / "openai"


def _raw(*lines: Any) -> pl.DataFrame:
    return raw_lines(lines)


def _responses(text: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "output": [
            {
                "type": "message",
                "content": [{"type": "output_text", "text": text, "annotations": annotations}],
            }
        ]
    }


def test_sdk_fixture_every_citation_type() -> None:
    lines = FIXTURES.joinpath("responses_and_chat.jsonl").read_text(encoding="utf-8").splitlines()
    raw = pl.DataFrame({"_line": [1, 2], "raw": lines})
    tables = _openai.convert(raw)
    # line 1: "Café prices rose 5% (menu.pdf). See chart." is 42 code points; url_citation
    # [0, 19) "Café prices rose 5%", file_citation inserted at 30 (after ")"), container file
    # [32, 42) "See chart."; the file_path annotation cites nothing. Line 2 (Chat Completions):
    # "日本 has 47 prefectures." is 22 code points, cited [0, 22).
    assert tables.claims.rows() == [
        ("line-000000001", "c0", 0, 19, "answer", 42, "code_point", 0, 19),
        ("line-000000001", "c1", 30, 30, "answer", 42, "code_point", 30, 30),
        ("line-000000001", "c2", 32, 42, "answer", 42, "code_point", 32, 42),
        ("line-000000002", "c0", 0, 22, "answer", 22, "code_point", 0, 22),
    ]
    none = (None, None, None, None)
    assert [(r[1], r[2], r[7], r[8]) for r in tables.evidence.rows()] == [
        ("e0.0", "s0", "url_citation", "none"),
        ("e1.0", "s1", "file_citation", "none"),
        ("e2.0", "s2", "container_file_citation", "none"),
        ("e0.0", "s0", "url_citation", "none"),
    ]
    assert {(r[3], r[4], r[5], r[6]) for r in tables.evidence.rows()} == {none}
    assert tables.citations.rows() == [
        ("line-000000001", "c0", "e0.0"),
        ("line-000000001", "c1", "e1.0"),
        ("line-000000001", "c2", "e2.0"),
        ("line-000000002", "c0", "e0.0"),
    ]
    assert tables.sources.height == 0  # no source text in an OpenAI exchange


def test_shared_span_is_one_claim_and_repeated_url_one_source() -> None:
    text = "Alpha beta. Gamma."
    annotations = [
        {
            "type": "url_citation",
            "url": "https://a",
            "title": "A",
            "start_index": 0,
            "end_index": 11,
        },
        {
            "type": "url_citation",
            "url": "https://b",
            "title": "B",
            "start_index": 0,
            "end_index": 11,
        },
        {
            "type": "url_citation",
            "url": "https://a",
            "title": "A",
            "start_index": 12,
            "end_index": 18,
        },
    ]
    tables = _openai.convert(_raw(_responses(text, annotations)))
    assert [r[1:4] for r in tables.claims.rows()] == [("c0", 0, 11), ("c1", 12, 18)]
    # a is s0 (first cited), b is s1, the second citation of a is s0 again
    assert [r[1:3] for r in tables.evidence.rows()] == [
        ("e0.0", "s0"),
        ("e0.1", "s1"),
        ("e1.0", "s0"),
    ]


def test_two_text_parts_shift_into_one_answer() -> None:
    response = {
        "output": [
            {
                "type": "message",
                "content": [{"type": "output_text", "text": "é😀 one.", "annotations": []}],
            },
            {
                "type": "message",
                "content": [
                    {
                        "type": "output_text",
                        "text": "Two.",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "u",
                                "title": "t",
                                "start_index": 0,
                                "end_index": 4,
                            }
                        ],
                    }
                ],
            },
        ]
    }
    tables = _openai.convert(_raw({"request": {}, "response": response}))
    # "é😀 one." is 7 code points (é and 😀 one each), so "Two." is [7, 11) of the 11-long answer
    assert tables.claims.rows() == [
        ("line-000000001", "c0", 7, 11, "answer", 11, "code_point", 0, 4)
    ]


def test_empty_annotations_and_no_message() -> None:
    chat = {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hi.", "annotations": []}}
        ]
    }
    tables = _openai.convert(_raw(chat, {"output": []}, _responses("x", [])))
    assert (tables.claims.height, tables.evidence.height, tables.citations.height) == (0, 0, 0)


@pytest.mark.parametrize(
    ("line", "message", "detail"),
    [
        (
            _responses("x", [{"type": "url_citation", "url": "u", "start_index": 0}]),
            "openai input is malformed: output[].content[].annotations[].end_index must be given",
            "openai line 2: output[].content[].annotations[].end_index must be given",
        ),
        (
            _responses(
                "xy", [{"type": "url_citation", "url": "u", "start_index": 2, "end_index": 1}]
            ),
            "openai input is malformed: output[].content[].annotations[].end_index must not be "
            "less than start_index",
            "openai line 2: output[].content[].annotations[].end_index must not be less than "
            "start_index",
        ),
        (
            {
                "choices": [
                    {
                        "message": {
                            "content": "x",
                            "annotations": [
                                {
                                    "type": "url_citation",
                                    "url_citation": {"start_index": 0, "end_index": 1},
                                }
                            ],
                        }
                    }
                ]
            },
            "openai input is malformed: choices[].message.annotations[].url_citation.url must be "
            "given",
            "openai line 2: choices[].message.annotations[].url_citation.url must be given",
        ),
        (
            _responses(
                "x", [{"type": "url_citation", "url": "u", "start_index": "0", "end_index": 1}]
            ),
            "openai input is malformed: output[].content[].annotations[].start_index must be an "
            "integer",
            "openai line 2: output[].content[].annotations[].start_index must be an integer",
        ),
    ],
)
def test_malformed_line(line: dict[str, Any], message: str, detail: str) -> None:
    with pytest.raises(CitationImportError) as caught:
        _openai.convert(_raw(_responses("fine", []), line))
    assert str(caught.value) == message
    assert caught.value.detail == detail
    assert caught.value.category == "input"
