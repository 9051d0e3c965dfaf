"""``citelens.importers._decode``: every line decoded at once into the declared dtype; a line
that does not fit is blamed by line number and field path, never by value."""

from __future__ import annotations

import polars as pl
import pytest

from citelens.errors import CitationImportError
from citelens.importers._decode import decode

CITATION = pl.Struct({"type": pl.String, "start_char_index": pl.Int64, "cited_text": pl.String})
BLOCK = pl.Struct({"type": pl.String, "text": pl.String, "citations": pl.List(CITATION)})
RESPONSE = pl.Struct(
    {"id": pl.String, "content": pl.List(BLOCK), "usage": pl.Struct({"input_tokens": pl.Int64})}
)
GOOD = (
    '{"id":"msg-1","content":[{"type":"text","text":"hi","citations":'
    '[{"type":"char_location","start_char_index":3,"cited_text":"CANARY-q"}]}],"extra":[1]}'
)


def _raw(lines: list[str], first: int = 1) -> pl.DataFrame:
    return pl.DataFrame({"_line": range(first, first + len(lines)), "raw": lines})


def test_fields_decode_and_unknown_fields_are_ignored() -> None:
    frame = decode(_raw([GOOD, "{}"], first=7), RESPONSE, "anthropic")
    assert frame.columns == ["_line", "id", "content", "usage"]
    assert frame["_line"].to_list() == [7, 8]
    assert frame["id"].to_list() == ["msg-1", None]  # an absent field is null
    citation = frame["content"][0][0]["citations"][0]
    assert citation == {
        "type": "char_location",
        "start_char_index": 3,
        "cited_text": "CANARY-q",
    }


@pytest.mark.parametrize(
    ("bad", "field", "problem"),
    [
        ('{"content":"a string"}', "content", "must be a list"),
        ('{"usage":5}', "usage", "must be an object"),
        ('{"usage":{"input_tokens":"CANARY-n"}}', "usage.input_tokens", "must be an integer"),
        ('{"content":[{"citations":{"a":1}}]}', "content[].citations", "must be a list"),
        # the second citation of the second block is the bad one
        (
            '{"content":[{"citations":[]},{"citations":[{"start_char_index":1},'
            '{"start_char_index":"CANARY-7"}]}]}',
            "content[].citations[].start_char_index",
            "must be an integer",
        ),
    ],
)
def test_the_first_misfit_line_and_its_field_are_named(bad: str, field: str, problem: str) -> None:
    # lines 10..14: the misfit is on line 13 and line 14 repeats it (the first one is named)
    lines = [GOOD, GOOD, GOOD, bad, bad]
    with pytest.raises(CitationImportError) as caught:
        decode(_raw(lines, first=10), RESPONSE, "anthropic")
    error = caught.value
    assert error.args[0] == f"anthropic input is malformed: {field} {problem}"
    assert error.category == "input"
    assert error.detail == f"anthropic line 13: {field} {problem}"
    assert "CANARY" not in repr(error) + str(error) + str(error.detail)
    assert error.__cause__ is None and error.__context__ is None


@pytest.mark.parametrize("position", [0, 1, 500, 998, 999])
def test_bisection_finds_the_line_anywhere(position: int) -> None:
    lines = [GOOD] * 1000
    lines[position] = '{"usage":[]}'
    with pytest.raises(CitationImportError) as caught:
        decode(_raw(lines), RESPONSE, "anthropic")
    assert caught.value.detail == f"anthropic line {position + 1}: usage must be an object"
