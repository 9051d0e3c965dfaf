"""Reading exchange files: line numbers, blank lines, compression, bounds, fixed errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest

from citelens.errors import CitationImportError
from citelens.importers import import_exchanges
from citelens.importers._lines import frame_lines, line_batches, lines_of


def read_lines(path: Path, fmt: str, *, block_bytes: int | None = None) -> pl.DataFrame:
    """Every line of the file in one frame, as the importer's batches give them."""
    return lines_of(pl.concat(list(line_batches(path, fmt, block_bytes=block_bytes))), fmt)


def _refusal(path: object) -> CitationImportError:
    # the reader refuses what is no JSON object; the importer's decode what is no valid JSON
    with pytest.raises(CitationImportError) as caught:
        import_exchanges("anthropic", path)
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    return caught.value


def test_blank_lines_are_skipped_but_counted(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    # BOM, a CRLF line, a blank line, a line of spaces: lines 1 and 4 remain
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\n   \t\n{"b": "\xc3\xa9"}\n')
    frame = read_lines(path, "anthropic")
    assert frame.rows() == [(1, '{"a": 1}'), (4, '{"b": "é"}')]


def test_gzip_is_read_as_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n\n{"a": 2}\n'))
    assert read_lines(path, "anthropic").rows() == [(1, '{"a": 1}'), (3, '{"a": 2}')]


def test_nan_and_infinity_inside_strings_are_text(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    # a bare response without blocks: valid, so imported (its one exchange has no claims)
    path.write_bytes(b'{"content": [], "a": "ratio: NaN, [Inf", "b": "\\": Infinity"}\n')
    tables = import_exchanges("anthropic", path)
    assert [frame.height for frame in tables.tables().values()] == [0, 0, 0, 0]


def test_blocks_number_lines_from_the_file_start(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("".join(f'{{"n": {i}}}\n' for i in range(100)), encoding="utf-8")
    frame = read_lines(path, "anthropic", block_bytes=64)  # many blocks of a few lines
    assert frame.get_column("_line").to_list() == list(range(1, 101))


@pytest.mark.parametrize(
    ("content", "message", "detail"),
    [
        (
            b'{"a": 1}\n[1]\n',
            "anthropic input is malformed: line must be a JSON object",
            "anthropic line 2: line must be a JSON object",
        ),
        (
            b'{"a": 1}\n\n{"a": tru}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 3: line is not valid JSON",
        ),
        (
            b'{"a": 1}\n{"a": [1}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 2: line is not valid JSON",
        ),  # unbalanced: the pre-scan's refusal
        (
            b'{"a": NaN}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 1: line is not valid JSON",
        ),
        (
            b'{"a": "x: NaN"}\n{"a": [1, -Infinity]}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 2: line is not valid JSON",
        ),  # NaN inside a string is text; -Infinity outside one is no JSON
        (
            b'{"a": {"b": Inf}}\n{"a": tru}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 1: line is not valid JSON",
        ),  # the earlier of the two refusals
        (
            b'{"a": tru}\n{"a": NaN}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 1: line is not valid JSON",
        ),
        (
            b'{"a": 1} {"a": 2}\n',
            "anthropic input is malformed: line is not valid JSON",
            "anthropic line 1: line is not valid JSON",
        ),  # two objects on one line
    ],
)
def test_malformed_lines(tmp_path: Path, content: bytes, message: str, detail: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    error = _refusal(path)
    assert (str(error), error.detail, error.category) == (message, detail, "input")


def test_depth_bound(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n' + '{"a":' * 33 + "1" + "}" * 33 + "\n", encoding="utf-8")
    error = _refusal(path)
    assert str(error) == "anthropic input could not be read"
    assert error.detail == "anthropic JSONL line 2 nests deeper than 32 levels"
    assert error.category == "limit"


@pytest.mark.parametrize(
    ("name", "content", "detail"),
    [
        ("missing.jsonl", None, "anthropic file not found"),
        ("x.csv", b"a\n", "anthropic file type is not supported"),
        ("x.jsonl", b'{"a": "\xff"}\n', "anthropic file is not valid UTF-8"),
        ("x.jsonl.gz", b"not gzip", "anthropic file is not valid gzip"),
    ],
)
def test_unreadable_files(tmp_path: Path, name: str, content: bytes | None, detail: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    error = _refusal(path)
    assert (str(error), error.detail, error.category) == (
        "anthropic input could not be read",
        detail,
        "input",
    )
    assert str(tmp_path) not in str(error.detail)


def test_frames_in_memory_are_checked_as_files_are() -> None:
    frame = pl.DataFrame({"_line": [5, 9], "raw": ['{"a": 1}', '"x"']})
    with pytest.raises(CitationImportError) as caught:
        frame_lines(frame, "anthropic")
    assert caught.value.detail == "anthropic line 9: line must be a JSON object"
    deep = pl.DataFrame({"_line": [7], "raw": ["{" + '"a":[' * 40 + "]" * 40 + "}"]})
    with pytest.raises(CitationImportError) as caught:
        frame_lines(deep, "anthropic")
    assert caught.value.detail == "anthropic JSONL line 7 nests deeper than 32 levels"
