"""The bounds of citelens.io checked before any engine reads a file (issue 10, item 1):
the JSON nesting pre-scan, the line and file byte bounds, and the schema checks."""

from __future__ import annotations

import pathlib
import random
import time

import pyarrow as pa
import pytest

from citelens.io import (
    MAX_DEPTH,
    JsonScan,
    ReadFailure,
    _bounds,
    check_json,
    check_schema,
    read_bounded,
)


def _cause(data: bytes, *, lines: bool, step: int | None = None) -> str | None:
    """The scan's verdict: ``None`` (accepted) or the cause; fed ``step`` bytes at a time."""
    scan = JsonScan(lines=lines)
    try:
        if step is None:
            scan.feed(data)
        else:
            for start in range(0, len(data), step):
                scan.feed(data[start : start + step])
        scan.finish()
    except ReadFailure as refused:
        assert refused.args == ()  # the marker carries no message, only a fixed cause
        return refused.cause
    return None


def _reference(data: bytes, *, lines: bool) -> str | None:
    """The scan's rule byte by byte: a backslash escapes the next byte (anywhere), a quote
    that is not escaped opens or closes a string, brackets outside strings nest. With
    ``lines`` a newline ends the line, which must close everything it opened; no text closes
    more than it opened."""
    depth, inside, escaped, length = 0, False, False, 0
    for byte in data:
        char = chr(byte)
        if char == "\n":
            if lines:
                if depth or inside:
                    return "unreadable"
                depth, inside = 0, False
            escaped, length = False, 0
            continue
        length += 1
        if lines and length > _bounds.MAX_LINE_BYTES:
            return "size"
        if char == "\\":
            escaped = not escaped
            continue
        if char == '"' and not escaped:
            inside = not inside
        elif char in "[{" and not inside:
            depth += 1
            if depth > MAX_DEPTH:
                return "depth"
        elif char in "]}" and not inside:
            depth -= 1
            if depth < 0:
                return "unreadable"
        escaped = False
    if lines and (depth or inside):
        return "unreadable"
    return None


def test_depth_bound_is_exact() -> None:
    # 32 levels are accepted, 33 refused: one object and 31 lists is depth 32.
    at_bound = b'{"a":' + b"[" * 31 + b"]" * 31 + b"}\n"
    beyond = b'{"a":' + b"[" * 32 + b"]" * 32 + b"}\n"
    for lines in (True, False):
        assert _cause(at_bound, lines=lines) is None
        assert _cause(beyond, lines=lines) == "depth"


def test_brackets_inside_strings_do_not_nest() -> None:
    # 40 brackets inside a string are text; so are brackets after an escaped quote (\"),
    # while after an escaped backslash (\\) the quote closes the string again.
    assert _cause(b'{"a":"' + b"[" * 40 + b'"}\n', lines=True) is None
    assert _cause(b'{"a":"\\"' + b"[" * 40 + b'"}\n', lines=True) is None
    assert _cause(b'{"a":"\\\\"' + b"[" * 40 + b"]" * 40 + b"}\n", lines=True) == "depth"
    # three backslashes: one escaped backslash, then an escaped quote: still inside
    assert _cause(b'{"a":"\\\\\\"' + b"{" * 40 + b'"}\n', lines=True) is None


def test_every_split_gives_the_same_verdict() -> None:
    # a backslash run and a string cut between two pieces carry over (step 1 cuts everywhere);
    # the object and 30 lists are depth 31
    text = b'{"a":"x\\\\\\"[[[","b":' + b"[" * 30 + b"]" * 30 + b"}\n"
    assert _cause(text, lines=True) is None
    for step in (1, 2, 3, 7):
        assert _cause(text, lines=True, step=step) is None
    # the object and 32 lists are depth 33 (the brackets in the string do not count)
    deeper = text.replace(b"[" * 30, b"[" * 32).replace(b"]" * 30, b"]" * 32)
    for cut in (None, 1, 5):
        assert _cause(deeper, lines=True, step=cut) == "depth"


@pytest.mark.parametrize(
    "line",
    [
        b'{"a":1\n',  # an object not closed on its line
        b'{"a":\n1}\n',  # one value over two lines (Arrow would read it as one row)
        b'{"a":"x\n',  # a string not closed on its line
        b"]]][[[\n",  # closes before it opens
        b'{"a":1}',  # the last line, without a newline, not closed either way: accepted
    ],
)
def test_lines_must_close_what_they_open(line: bytes) -> None:
    expected = None if line == b'{"a":1}' else "unreadable"
    assert _cause(line, lines=True) == expected


def test_one_document_spans_lines() -> None:
    # A .json document may span lines: its depth runs over the whole text.
    document = b"[\n" * 32 + b"1" + b"\n]" * 32
    assert _cause(document, lines=False) is None
    assert _cause(b"[\n" + document + b"\n]", lines=False) == "depth"


def test_scan_agrees_with_the_byte_rule() -> None:
    # 1,000 random texts over the scan's alphabet, cut at random places, against the
    # byte-by-byte rule: the same verdict and the same (first) cause.
    rng = random.Random(20261201)
    alphabet = b'"\\[]{}\nab '
    for _ in range(1000):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
        if rng.random() < 0.3:
            data = b"[" * rng.randint(25, 40) + data
        for lines in (True, False):
            assert _cause(data, lines=lines, step=rng.randint(1, 12)) == _reference(
                data, lines=lines
            ), data


def test_hostile_nesting_is_refused_quickly() -> None:
    # 100,000 levels on one line (the line that crashed Arrow's reader): refused, fast.
    started = time.perf_counter()
    assert _cause(b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", lines=True) == "depth"
    # 8 MB of brackets nested 32 deep, on 125,000 lines: every byte structural, accepted
    line = b"[" * 32 + b"]" * 32
    assert _cause((line + b"\n") * 125_000, lines=True) is None
    assert time.perf_counter() - started < 5.0


def test_line_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bounds, "MAX_LINE_BYTES", 16)
    # 16 bytes on a line are accepted, 17 refused, also when the line is cut into pieces
    assert _cause(b'{"a":"0123456"}\n', lines=True) is None  # 15 bytes
    assert _cause(b'{"a":"01234567"}\n', lines=True) is None  # 16 bytes
    assert _cause(b'{"a":"012345678"}\n', lines=True) == "size"  # 17 bytes
    assert _cause(b'{"a":"012345678"}', lines=True, step=4) == "size"
    # one document (.json) has no line bound (the file bound applies)
    assert _cause(b'{"a":"' + b"x" * 40 + b'"}', lines=False) is None


def test_check_json_raises_a_value_error() -> None:
    # The pre-scan's refusal is also the ValueError a JSON parser raises on malformed text.
    with pytest.raises(ValueError):
        check_json(b"[" * 40, lines=False)


def test_file_bound(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_bytes(b"x" * 10)
    assert read_bounded(path, 10) == b"x" * 10
    with pytest.raises(ReadFailure) as info:
        read_bounded(path, 9)
    assert info.value.cause == "size"
    monkeypatch.setattr(_bounds, "MAX_FILE_BYTES", 9)
    with pytest.raises(ReadFailure):
        read_bounded(path)


def _nested_list(levels: int) -> pa.DataType:
    data_type: pa.DataType = pa.int64()
    for _ in range(levels):
        data_type = pa.list_(data_type)
    return data_type


def test_schema_checks() -> None:
    # 31 nested lists in a column are depth 32 (the row is level 1, as a JSON Lines record).
    check_schema(pa.schema([("a", _nested_list(31))]))
    with pytest.raises(ReadFailure) as info:
        check_schema(pa.schema([("a", _nested_list(32))]))
    assert info.value.cause == "depth"
    with pytest.raises(ReadFailure) as info:
        check_schema(pa.schema([("id", pa.string()), ("id", pa.string())]))
    assert info.value.cause == "columns"
    nested = pa.struct([("x", pa.int64()), ("x", pa.int64())])
    with pytest.raises(ReadFailure) as info:
        check_schema(pa.schema([("a", pa.list_(nested))]))
    assert info.value.cause == "columns"
    check_schema(pa.schema([("a", pa.struct([("x", pa.int64()), ("y", pa.string())]))]))
