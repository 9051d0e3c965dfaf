"""The ``anthropic`` importer: every citation type, against tables worked out by hand.

The fixture ``fixtures/anthropic/exchanges.jsonl`` was built with the ``anthropic`` SDK's types
(``fixtures/make_anthropic.py``); these tests read its JSON only.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from citelens.errors import CitationImportError
from citelens.importers import import_exchanges

FIXTURE = Path(__file__).parent / "fixtures" / "anthropic" / "exchanges.jsonl"


@pytest.fixture(scope="module")
def tables():  # type: ignore[no-untyped-def]
    return import_exchanges("anthropic", FIXTURE)


def _rows(frame: pl.DataFrame, *columns: str) -> list[tuple[object, ...]]:
    return [tuple(row) for row in frame.select(columns).iter_rows()]


def test_claims_are_cited_text_blocks_at_their_answer_offsets(tables) -> None:  # type: ignore[no-untyped-def]
    # line 1: "In short: " (10) | "the grass is green" (18) -> c0 [10, 28) | ", and " (6)
    #   | "café prices in Zürich rose." (27 code points, 29 UTF-8 bytes) -> c1 [34, 61)
    # line 2 is blank (counted, skipped); line 3: "Two blocks say so." (18) -> [0, 18),
    #   " One more." (10) -> [18, 28); line 4: "Beta two holds." (15), " Also the web." (14)
    # line 5 cites nothing (citations absent, and []); line 6 (a bare response): "Bare." (5)
    assert _rows(tables.claims, "document_ref", "claim_id", "start", "end", "source_length") == [
        ("line-000000001", "c0", 10, 28, 61),
        ("line-000000001", "c1", 34, 61, 61),
        ("line-000000003", "c0", 0, 18, 28),
        ("line-000000003", "c1", 18, 28, 28),
        ("line-000000004", "c0", 0, 15, 29),
        ("line-000000004", "c1", 15, 29, 29),
        ("line-000000006", "c0", 0, 5, 5),
    ]
    assert set(tables.claims.get_column("source_id")) == {"answer"}
    assert set(tables.claims.get_column("offset_unit")) == {"code_point"}


def test_evidence_of_every_citation_type(tables) -> None:  # type: ignore[no-untyped-def]
    columns = ("document_ref", "evidence_id", "source_id", "start", "end", "source_length")
    columns += ("location_type", "offset_unit", "original_start", "original_end")
    assert _rows(tables.evidence, *columns) == [
        # char_location: "The grass is green. " is chars [0, 20) of a 36-char text
        ("line-000000001", "e0.0", "s0", 0, 20, 36, "char_location", "code_point", 0, 20),
        # "Café prices in Zürich rose. " = 28 code points of the 37 of s1 (30 UTF-8 bytes)
        ("line-000000001", "e1.0", "s1", 0, 28, 37, "char_location", "code_point", 0, 28),
        ("line-000000001", "e1.1", "s0", 20, 36, 36, "char_location", "code_point", 20, 36),
        # blocks "Ünïcode first. " (15), "Second block. " (14), "Third." (6): blocks [1, 3)
        # are chars [15, 15 + 14 + 6) = [15, 35) of the concatenation (35)
        (
            "line-000000003",
            "e0.0",
            "s0",
            15,
            35,
            35,
            "content_block_location",
            "content_block",
            1,
            3,
        ),
        # a PDF cited by pages: no text, no character offsets; pages 2..4 kept as given
        ("line-000000003", "e0.1", "s1", None, None, None, "page_location", "page", 2, 4),
        # a string content is one block: block [0, 1) is the whole 17-char text
        (
            "line-000000003",
            "e1.0",
            "s2",
            0,
            17,
            17,
            "content_block_location",
            "content_block",
            0,
            1,
        ),
        # no documents; search results s0 (in a tool_result), s1: blocks "Beta one. " (10),
        # "Beta two." (9), block [1, 2) = chars [10, 19)
        (
            "line-000000004",
            "e0.0",
            "s1",
            10,
            19,
            19,
            "search_result_location",
            "content_block",
            1,
            2,
        ),
        # the cited URL is the next source, s2, both times it is cited
        (
            "line-000000004",
            "e0.1",
            "s2",
            None,
            None,
            None,
            "web_search_result_location",
            "none",
            None,
            None,
        ),
        (
            "line-000000004",
            "e1.0",
            "s2",
            None,
            None,
            None,
            "web_search_result_location",
            "none",
            None,
            None,
        ),
        # a bare response: document 1 cited, its text unknown
        ("line-000000006", "e0.0", "s1", 2, 5, None, "char_location", "code_point", 2, 5),
    ]
    assert tables.evidence.get_column("quote").to_list()[:3] == [
        "The grass is green. ",
        "Café prices in Zürich rose. ",
        "The sky is blue.",
    ]


def test_citations_and_sources(tables) -> None:  # type: ignore[no-untyped-def]
    assert tables.citations.height == 10
    assert _rows(tables.citations, "claim_id", "evidence_id")[:3] == [
        ("c0", "e0.0"),
        ("c1", "e1.0"),
        ("c1", "e1.1"),
    ]
    # text known: text and content documents, search results; the PDF (line 3, s1) has none
    assert _rows(tables.sources, "document_ref", "source_id", "text") == [
        ("line-000000001", "s0", "The grass is green. The sky is blue."),
        ("line-000000001", "s1", "Café prices in Zürich rose. Tea fell."),
        ("line-000000003", "s0", "Ünïcode first. Second block. Third."),
        ("line-000000003", "s2", "One string block."),
        ("line-000000004", "s0", "Alpha result."),
        ("line-000000004", "s1", "Beta one. Beta two."),
        ("line-000000005", "s0", "Nothing cited here."),
    ]


def test_quotes_match_the_source_at_the_offsets(tables) -> None:  # type: ignore[no-untyped-def]
    joined = tables.evidence.join(tables.sources, on=["document_ref", "source_id"])
    sliced = joined.select(
        pl.col("quote"), pl.col("text").str.slice(pl.col("start"), pl.col("end") - pl.col("start"))
    )
    assert sliced.get_column("quote").to_list() == sliced.get_column("text").to_list()
    # with text and offsets: e0.0, e1.0, e1.1 of line 1; e0.0, e1.0 of line 3; e0.0 of line 4
    assert sliced.height == 6


def _line(response: dict[str, object], request: dict[str, object] | None = None) -> str:
    documents = [{"type": "document", "source": {"type": "text", "data": "abcdef"}}]
    body = request or {"messages": [{"role": "user", "content": documents}]}
    return json.dumps({"request": body, "response": response})


def _cited(citation: dict[str, object]) -> dict[str, object]:
    return {"content": [{"type": "text", "text": "x", "citations": [citation]}]}


@pytest.mark.parametrize(
    ("citation", "message", "detail"),
    [
        (
            {"type": "char_location", "document_index": 0, "start_char_index": "1"},
            "anthropic input is malformed: "
            "response.content[].citations[].start_char_index must be an integer",
            "anthropic line 2: response.content[].citations[].start_char_index must be an integer",
        ),
        (
            {
                "type": "char_location",
                "document_index": 0,
                "start_char_index": 3,
                "end_char_index": 2,
            },
            "anthropic input is malformed: "
            "response.content[].citations[].end_char_index must not be less than the start",
            "anthropic line 2: "
            "response.content[].citations[].end_char_index must not be less than the start",
        ),
        (
            {
                "type": "char_location",
                "document_index": 1,
                "start_char_index": 0,
                "end_char_index": 2,
            },
            "anthropic input is malformed: "
            "response.content[].citations[].document_index is beyond the request's list",
            "anthropic line 2: "
            "response.content[].citations[].document_index is beyond the request's list",
        ),
        (
            {"type": "char_location", "document_index": 0, "start_char_index": 0},
            "anthropic input is malformed: "
            "response.content[].citations[].end_char_index is required",
            "anthropic line 2: response.content[].citations[].end_char_index is required",
        ),
        (
            {"type": "quote_location", "cited_text": "a"},
            "anthropic input is malformed: response.content[].citations[].type is not supported",
            "anthropic line 2: response.content[].citations[].type is not supported",
        ),
        (
            {
                "type": "content_block_location",
                "document_index": 0,
                "start_block_index": 0,
                "end_block_index": 1,
            },
            # a text document has no blocks to index
            "anthropic input is malformed: "
            "response.content[].citations[].end_block_index is beyond the source's blocks",
            "anthropic line 2: "
            "response.content[].citations[].end_block_index is beyond the source's blocks",
        ),
    ],
)
def test_malformed_citations(citation: dict[str, object], message: str, detail: str) -> None:
    good = _line(
        _cited(
            {
                "type": "char_location",
                "document_index": 0,
                "start_char_index": 0,
                "end_char_index": 1,
                "cited_text": "a",
            }
        )
    )
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", [good, _line(_cited(citation))])
    assert str(caught.value) == message
    assert caught.value.detail == detail
    assert caught.value.category == "input"
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_missing_response_content_and_wrong_shapes() -> None:
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", [_line({"id": "m"})])
    assert caught.value.detail == "anthropic line 1: response.content is required"
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", [_line({"content": {"type": "text"}})])
    assert caught.value.detail == "anthropic line 1: response.content must be a list"


def test_both_shapes_of_message_and_tool_result_content() -> None:
    # a string message content holds no document; a string tool_result content no result
    request = {
        "messages": [
            {"role": "user", "content": "plain"},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}],
            },
            {
                "role": "user",
                "content": [{"type": "document", "source": {"type": "text", "data": "éa"}}],
            },
        ]
    }
    citation = {
        "type": "char_location",
        "document_index": 0,
        "start_char_index": 1,
        "end_char_index": 2,
        "cited_text": "a",
    }
    tables = import_exchanges("anthropic", [_line(_cited(citation), request)])
    assert _rows(tables.sources, "source_id", "text") == [("s0", "éa")]
    assert _rows(tables.evidence, "source_id", "start", "end", "source_length") == [("s0", 1, 2, 2)]


def test_empty_input_gives_empty_tables() -> None:
    tables = import_exchanges("anthropic", [])
    assert [frame.height for frame in tables.tables().values()] == [0, 0, 0, 0]
    tables = import_exchanges("anthropic", [_line({"content": []})])
    assert [frame.height for frame in tables.tables().values()] == [0, 0, 0, 1]  # the source


def test_the_same_input_gives_equal_tables(tables) -> None:  # type: ignore[no-untyped-def]
    again = import_exchanges("anthropic", FIXTURE.read_text(encoding="utf-8").split("\n"))
    for role, frame in tables.tables().items():
        assert again.tables()[role].equals(frame), role


def test_request_blocks_of_every_content_shape() -> None:
    # an assistant turn passed back with server tool results: a content object
    # (code_execution_tool_result), a web search error object, a list of web results; a
    # search result whose "source" is a string; a document inside a tool_result's list; a
    # string message content: all read, and the sources numbered documents first
    request = {
        "messages": [
            {"role": "user", "content": "find it"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "code_execution_tool_result",
                        "tool_use_id": "t1",
                        "content": {"type": "code_execution_result", "stdout": "", "content": []},
                    },
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": "t2",
                        "content": {"type": "web_search_tool_result_error", "error_code": "x"},
                    },
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": "t3",
                        "content": [{"type": "web_search_result", "url": "u", "title": "T"}],
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "search_result",
                        "source": "https://example.org/a",
                        "title": "A",
                        "content": [{"type": "text", "text": "Result one."}],
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "t4",
                        "content": [
                            {"type": "text", "text": "see"},
                            {"type": "document", "source": {"type": "text", "data": "Doc x."}},
                        ],
                    },
                ],
            },
        ]
    }
    citation = {
        "type": "search_result_location",
        "search_result_index": 0,
        "start_block_index": 0,
        "end_block_index": 1,
        "cited_text": "Result one.",
        "source": "https://example.org/a",
    }
    tables = import_exchanges("anthropic", [_line(_cited(citation), request)])
    # one document (s0, in the tool_result), then one search result (s1)
    assert _rows(tables.sources, "source_id", "text") == [("s0", "Doc x."), ("s1", "Result one.")]
    # search result 0 is s1; its block [0, 1) is chars [0, 11) of "Result one." (11)
    assert _rows(tables.evidence, "source_id", "start", "end", "source_length") == [
        ("s1", 0, 11, 11)
    ]


@pytest.mark.parametrize(
    ("request_", "detail"),
    [
        (
            {"messages": [{"role": "user", "content": [{"type": "document", "source": 5}]}]},
            "anthropic line 1: request.messages[].content[].source must be an object",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "document", "source": {"type": "text", "data": 1}}],
                    }
                ]
            },
            "anthropic line 1: request.messages[].content[].source.data must be text",
        ),
        ({"messages": {"role": "user"}}, "anthropic line 1: request.messages must be a list"),
        (
            {"messages": [{"role": "user", "content": [{"type": "document", "source": "x"}]}]},
            "anthropic line 1: request.messages[].content[].source must be an object",
        ),
        (
            {"messages": [{"content": 3}]},
            "anthropic line 1: request.messages[].content must be a list",
        ),
        ("hello", "anthropic line 1: request must be an object"),
    ],
)
def test_malformed_requests(request_: object, detail: str) -> None:
    line = json.dumps({"request": request_, "response": {"content": []}})
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", [line])
    assert caught.value.detail == detail
    assert caught.value.category == "input"


def test_a_bare_response_names_its_own_fields() -> None:
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", [json.dumps({"id": "m", "content": 3})])
    assert caught.value.detail == "anthropic line 1: content must be a list"
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", [json.dumps({"id": "m"})])
    assert caught.value.detail == "anthropic line 1: content is required"


@pytest.mark.parametrize("content", ["In short.", {"type": "text", "text": "x"}, 3])
def test_a_response_content_must_be_a_list(content: object) -> None:
    # a string or an object content is valid in a request, never in a response
    exchange = json.dumps({"request": {"messages": []}, "response": {"content": content}})
    bare = json.dumps({"content": content})
    for line, field in ((exchange, "response.content"), (bare, "content")):
        with pytest.raises(CitationImportError) as caught:
            import_exchanges("anthropic", [line])
        assert caught.value.detail == f"anthropic line 1: {field} must be a list"
