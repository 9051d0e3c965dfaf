"""Importing in batches: the same tables whatever the batch size, and the reader's refusals
still named before a malformed line (the file is converted as it is read)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from citelens.errors import CitationImportError
from citelens.importers import import_exchanges
from citelens.importers._lines import frame_batches, line_batches, lines_of

FIXTURES = Path(__file__).parent / "fixtures"
FILES = {
    "anthropic": "anthropic/exchanges.jsonl",
    "openai": "openai/responses_and_chat.jsonl",
    "gemini": "gemini/camel_and_snake.jsonl",
    "cohere": "cohere/documents.jsonl",
    "bedrock": "bedrock/responses.jsonl",
    "alce": "alce/result-items.jsonl",
    "longbench-cite": "longbench-cite/predictions.jsonl",
}


def read_lines(path: Path, fmt: str, *, block_bytes: int | None = None) -> pl.DataFrame:
    """Every line of the file in one frame, as the importer's batches give them."""
    return lines_of(pl.concat(list(line_batches(path, fmt, block_bytes=block_bytes))), fmt)


def _tiny_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    # blocks of a few bytes are one line each; batches of one byte are one block each
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BLOCK_BYTES", 16)
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BATCH_BYTES", 1)


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_one_line_per_batch_gives_the_same_tables(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = FIXTURES / FILES[fmt]
    whole = import_exchanges(fmt, path)
    lines = path.read_text(encoding="utf-8").split("\n")
    _tiny_batches(monkeypatch)
    assert len(list(line_batches(path, fmt))) == sum(1 for line in lines if line.strip())
    for batched in (import_exchanges(fmt, path), import_exchanges(fmt, lines)):
        for role, frame in whole.tables().items():
            assert batched.tables()[role].equals(frame), (fmt, role)


def test_batches_are_whole_blocks_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("".join(f'{{"n": {i}}}\n' for i in range(10)), encoding="utf-8")
    # each line is 9 bytes: a block of 16 bytes read ends at the next newline, so it holds
    # two lines (18 bytes); a batch is cut once 30 bytes are reached, after two blocks (36):
    # 4 + 4 + 2 lines
    batches = list(line_batches(path, "anthropic", block_bytes=16, batch_bytes=30))
    assert [batch.get_column("_line").to_list() for batch in batches] == [
        [1, 2, 3, 4],
        [5, 6, 7, 8],
        [9, 10],
    ]
    assert read_lines(path, "anthropic", block_bytes=16).height == 10


def test_frame_batches_cut_by_bytes() -> None:
    lines = pl.DataFrame(
        {"_line": [1, 2, 3, 4, 5], "raw": ['{"a": 1}'] * 5}
    )  # 8 bytes each: bytes before 0, 8, 16, 24, 32
    sizes = [batch.height for batch in frame_batches(lines, batch_bytes=16)]
    assert sizes == [2, 2, 1]  # batches [0, 16), [16, 32), [32, 48) of the bytes before
    assert [b.height for b in frame_batches(lines.clear())] == [0]  # no lines: one empty batch


def test_a_bound_further_on_is_named_before_a_malformed_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tiny_batches(monkeypatch)
    path = tmp_path / "x.jsonl"
    bad = json.dumps({"request": {"messages": []}, "response": {"content": 3}})
    deep = "[" * 40 + "]" * 40
    path.write_text(f'{bad}\n{{"content": []}}\n{{"a": {deep}}}\n', encoding="utf-8")
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", path)
    assert caught.value.category == "limit"
    assert caught.value.detail == "anthropic JSONL line 3 nests deeper than 32 levels"
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    # without the bound further on, the malformed first line is named
    path.write_text(f'{bad}\n{{"content": []}}\n{{"a": "tru"}}\n', encoding="utf-8")
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", path)
    assert caught.value.detail == "anthropic line 1: response.content must be a list"
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_the_first_malformed_batch_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # line 2 is no valid JSON, line 4 no JSON object: each line its own batch, line 2 first
    _tiny_batches(monkeypatch)
    path = tmp_path / "x.jsonl"
    path.write_text('{"content": []}\n{"content": tru}\n{"content": []}\n[]\n', encoding="utf-8")
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", path)
    assert caught.value.detail == "anthropic line 2: line is not valid JSON"
