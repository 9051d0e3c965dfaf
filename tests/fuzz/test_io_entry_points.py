"""Fuzzing the readers of :mod:`citelens.io` (issue 10): hostile bytes behind every suffix the
readers accept, and hostile Python values for the value-level helpers.

Property of every file reader: it returns a value or raises :class:`citelens.io.ReadFailure`
(no message, a cause of :data:`citelens.io.READ_CAUSES`), never another exception, within a
bounded time. The files are small valid files (canaries in every text) that are truncated,
have bytes flipped or hostile fragments spliced in, or hostile fragments alone (deep nesting,
``null`` lines, repeated keys and columns, huge integers, invalid UTF-8, NUL bytes).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.ipc as pa_ipc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens.io import (
    DATA_SUFFIXES,
    MAX_DEPTH,
    READ_CAUSES,
    JsonScan,
    ReadFailure,
    boolean_cells,
    check_json,
    check_schema,
    csv_header,
    data_file_suffix,
    decode_utf8,
    drop_nulls,
    integer_cells,
    is_table_object,
    jsonl_blocks,
    jsonl_table,
    jsonl_values,
    loads_json,
    read_csv,
    read_data_file,
    read_jsonl,
    read_table_object,
    stage_jsonl,
    table_rows,
    type_csv_columns,
)
from citelens.io._files import read_data_frame

from .strategies import CANARY, EXAMPLES, values

pytestmark = pytest.mark.fuzz

C = CANARY.encode()
# One read of a file of at most a few kB: far below this unless a bound failed (the 700-level
# line the bounds now refuse took 18 s).
SECONDS = 5.0
FUZZ = settings(
    max_examples=EXAMPLES,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_TABLE = pa.table(
    {
        "document_ref": [CANARY + "-d", CANARY + "-e"],
        "claim_id": [CANARY, CANARY + "\x00"],
        "start": [0, 2**62],
        "end": [3, -1],
        "citations": [[CANARY], []],
        "supports": [True, None],
    }
)


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _ipc(table: pa.Table, *, stream: bool) -> bytes:
    sink = io.BytesIO()
    writer = pa_ipc.new_stream if stream else pa_ipc.new_file
    with writer(sink, table.schema) as out:
        out.write_table(table)
    return sink.getvalue()


def _jsonl(table: pa.Table) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in table.to_pylist())


def _csv() -> bytes:
    return (
        b"document_ref,claim_id,start,end\n"
        + C
        + b',"'
        + C
        + b' ""q"", x",0,3\n'
        + C
        + b"-e,"
        + C
        + b",+7,99999999999999999999\n"
    )


# suffix -> a small valid file of that format
SEEDS: dict[str, bytes] = {
    ".parquet": _parquet(_TABLE),
    ".arrow": _ipc(_TABLE, stream=False),
    ".feather": _ipc(_TABLE, stream=False),
    ".ipc": _ipc(_TABLE, stream=True),
    ".jsonl": _jsonl(_TABLE),
    ".ndjson": _jsonl(_TABLE),
    ".json": json.dumps(_TABLE.to_pylist()).encode(),
    ".csv": _csv(),
}

FRAGMENTS = [
    b"null\n",
    b"null",
    b"[" * 40 + b"1" + b"]" * 40,
    b'{"a":' * 40 + b"1" + b"}" * 40,
    b"[" * 5000,
    b'{"claim_id":"x","claim_id":"' + C + b'"}\n',
    b'{"start":' + b"9" * 400 + b"}\n",
    b'{"start":9223372036854775808}\n',
    b'{"start":1e400}\n',
    b"NaN\n",
    b"\xff\xfe" + C,
    b"\xed\xa0\x80",  # an encoded lone surrogate: invalid UTF-8
    b'"\\ud800' + C + b'"',
    b"\x00" * 7,
    b"\xef\xbb\xbf",
    b"\r\n\r\n",
    b'"' + C,
    b"\\",
    b"},{",
    b"document_ref,document_ref\n",
    b'"a\nb",c\n',
    b"PAR1",
    b"ARROW1\x00\x00",
    b"\xff\xff\xff\xff",
]


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """``seed`` after a few edits: truncation, byte flips, fragments spliced in."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        edit = draw(st.sampled_from(["truncate", "flip", "splice", "overwrite"]))
        at = draw(st.integers(0, len(data)))
        if edit == "truncate":
            del data[at:]
        elif edit == "flip" and at < len(data):
            data[at] ^= draw(st.integers(1, 255))
        elif edit == "splice":
            data[at:at] = draw(st.sampled_from(FRAGMENTS))
        else:
            chunk = draw(st.binary(min_size=1, max_size=8))
            data[at : at + len(chunk)] = chunk
    return bytes(data)


def contents(suffix: str) -> st.SearchStrategy[bytes]:
    """Hostile contents of a file named ``*suffix``."""
    valid = SEEDS[suffix]
    other = st.sampled_from(sorted(SEEDS.values()))  # another format behind this suffix
    return st.one_of(
        mutated(valid),
        mutated(valid),  # edits of the valid file, twice as often as the rest
        st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=6).map(b"".join),
        st.binary(max_size=64),
        other.flatmap(mutated),
    )


def _timed(call: Callable[[], Any]) -> Any:
    began = time.perf_counter()
    try:
        return call()
    finally:
        assert time.perf_counter() - began < SECONDS


def _readers(path: Path, folder: Path) -> list[Callable[[], Any]]:
    readers: list[Callable[[], Any]] = [
        lambda: read_data_file(path),
        lambda: read_data_file(str(path), 0),
        lambda: read_data_frame(path, 1),
    ]
    if path.suffix in (".jsonl", ".ndjson"):
        readers += [
            lambda: jsonl_table(path),
            lambda: stage_jsonl(path, folder),
            # blocks of 16 bytes: every line its own block, merged across blocks
            lambda: stage_jsonl(path, folder, block_bytes=16),
            lambda: list(jsonl_blocks(path, 7)),
        ]
    return readers


def _read_or_refused(read: Callable[[], Any]) -> None:
    try:
        _timed(read)
    except ReadFailure as refused:  # the one way a reader says no: no message, a fixed cause
        assert refused.args == ()
        assert refused.cause in READ_CAUSES
        assert refused.__cause__ is None and refused.__context__ is None


@pytest.mark.parametrize("suffix", sorted(SEEDS))
def test_file_readers_read_or_refuse(suffix: str, tmp_path: Path) -> None:
    @FUZZ
    @given(contents(suffix))
    def run(data: bytes) -> None:
        folder = tmp_path / "staged"
        folder.mkdir(exist_ok=True)
        path = tmp_path / f"input{suffix}"
        path.write_bytes(data)
        for read in _readers(path, folder):
            _read_or_refused(read)

    run()


def _depth(value: Any) -> int:
    """Nesting depth of arrays and objects (a scalar is 0)."""
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=6).map(lambda t: CANARY + t + '"\\'),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=60,
)


def _nest(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = [value]
    return value


@FUZZ
@given(json_values, st.integers(0, 40), st.integers(1, 9))
def test_json_scan_is_exact_on_valid_json(value: Any, levels: int, piece: int) -> None:
    # On valid JSON the pre-scan counts depth exactly: it refuses (cause depth) exactly the
    # documents nested beyond MAX_DEPTH, however the text is cut into pieces.
    document = _nest(value, levels)
    data = json.dumps(document).encode()
    deep = _depth(document) > MAX_DEPTH
    for lines in (False, True):
        scan = JsonScan(lines=lines)
        try:
            for start in range(0, len(data), piece):
                scan.feed(data[start : start + piece])
            scan.finish()
        except ReadFailure as refused:
            assert deep and refused.cause == "depth"
        else:
            assert not deep
    if not deep:
        assert loads_json(decode_utf8(data)) == document


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=6).map(b"".join), st.integers(1, 9))
def test_json_scan_pieces_agree_with_the_whole(data: bytes, piece: int) -> None:
    # Cutting the text into pieces (splitting escapes, lines, UTF-8 characters) never changes
    # what the pre-scan decides.
    def outcome(size: int) -> str | None:
        scan = JsonScan(lines=True)
        try:
            for start in range(0, len(data), size):
                scan.feed(data[start : start + size])
            scan.finish()
        except ReadFailure as refused:
            return refused.cause
        return None

    assert outcome(piece) == outcome(max(len(data), 1))


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=6).map(b"".join))
def test_text_helpers_raise_only_their_documented_errors(data: bytes) -> None:
    # decode_utf8/loads_json raise ValueError (or RecursionError); check_json and read_jsonl
    # add only ReadFailure; read_csv adds csv.Error (ArrowInvalid is a ValueError).
    for lines in (False, True):
        try:
            check_json(data, lines=lines)
        except ReadFailure as refused:
            assert refused.cause in READ_CAUSES
    for call in (
        lambda: loads_json(decode_utf8(data)),
        lambda: jsonl_values(decode_utf8(data)),
        lambda: read_jsonl(data),
        lambda: read_csv(data),
    ):
        # the documented refusals; any other exception fails the test
        with contextlib.suppress(ValueError, RecursionError, ReadFailure, csv.Error):
            _timed(call)


_INT64 = (-(2**63), 2**63 - 1)
cells = st.one_of(
    st.none(),
    st.from_regex(r"\A[+-]?[0-9]{1,25}\Z"),
    st.sampled_from(
        ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "١٢", "1_0"]
    ),
    st.text(max_size=6).map(lambda t: CANARY + t),
    st.sampled_from([" 1", "1 ", "0x1", "TRUE", "False", "tRuE", "yes", "", "\x00"]),
)


def _expected_integer(cell: str | None, plus_sign: bool) -> int | None:
    """The cell rule written out: ASCII digits with an optional sign, inside int64."""
    pattern = r"[+-]?[0-9]+" if plus_sign else r"-?[0-9]+"
    if cell is None or not re.fullmatch(pattern, cell, flags=re.ASCII):
        return None
    value = int(cell)
    return value if _INT64[0] <= value <= _INT64[1] else None


@FUZZ
@given(st.lists(cells, max_size=8), st.booleans())
def test_cell_rules_match_their_written_rule(column: list[str | None], plus_sign: bool) -> None:
    frame = pl.DataFrame({"c": column}, schema={"c": pl.String})
    got = frame.select(
        integer_cells(pl.col("c"), plus_sign=plus_sign).alias("i"),
        boolean_cells(pl.col("c")).alias("b"),
    )
    assert got["i"].to_list() == [_expected_integer(c, plus_sign) for c in column]
    booleans = [
        c.lower() == "true" if c and c.lower() in ("true", "false") else None for c in column
    ]
    assert got["b"].to_list() == booleans


@FUZZ
@given(st.lists(st.fixed_dictionaries({"n": cells, "t": cells, "x": cells}), max_size=6))
def test_type_csv_columns_types_or_keeps_text(rows: list[dict[str, Any]]) -> None:
    table = pa.Table.from_pylist(
        rows, schema=pa.schema({"n": pa.string(), "t": pa.string(), "x": pa.string()})
    )
    typed = type_csv_columns(table, ["n"], ["t"], plus_sign=True)
    rows_out = table_rows(typed) if isinstance(typed, pa.Table) else typed
    assert len(rows_out) == len(rows)
    for before, after in zip(rows, rows_out):
        assert after.get("x") == before["x"]  # an untyped column is never touched
        n = before["n"]
        if n is not None and _expected_integer(n, True) is not None:
            assert after["n"] == int(n)


@FUZZ
@given(st.text(max_size=30).map(lambda t: CANARY + t))
def test_csv_header_names_or_refuses(line: str) -> None:
    try:
        header = csv_header(line)
    except ReadFailure as refused:
        assert refused.cause == "columns"  # a name given twice
    except csv.Error:  # Python's csv module on a malformed line (documented)
        pass
    else:
        assert len(set(header)) == len(header)


def _nested_type(levels: int, struct_names: list[str]) -> pa.DataType:
    data_type: pa.DataType = pa.int64()
    for level in range(levels):
        if level % 3 == 0 and struct_names:
            data_type = pa.struct([pa.field(n, data_type) for n in struct_names])
        elif level % 3 == 1:
            data_type = pa.list_(data_type)
        else:
            data_type = pa.map_(pa.string(), data_type)
    return data_type


@FUZZ
@given(
    st.integers(0, 40),
    st.lists(st.sampled_from([CANARY, "a", "b"]), min_size=1, max_size=3),
    st.lists(st.sampled_from([CANARY, "a", "b"]), min_size=1, max_size=3),
)
def test_check_schema_refuses_only_with_a_cause(
    levels: int, names: list[str], columns: list[str]
) -> None:
    schema = pa.schema([pa.field(c, _nested_type(levels, names)) for c in columns])
    try:
        check_schema(schema)
    except ReadFailure as refused:
        assert refused.args == () and refused.cause in ("columns", "depth")
    else:
        # accepted: distinct columns, distinct struct fields (or no struct level at all)
        assert len(set(columns)) == len(columns)
        assert levels == 0 or len(set(names)) == len(names)


@FUZZ
@given(json_values)
def test_drop_nulls_removes_every_null_field(value: Any) -> None:
    def nulls_in_mappings(item: Any) -> bool:
        if isinstance(item, dict):
            return any(v is None or nulls_in_mappings(v) for v in item.values())
        if isinstance(item, list):
            return any(nulls_in_mappings(v) for v in item)
        return False

    assert not nulls_in_mappings(drop_nulls(value))


@FUZZ
@given(st.one_of(values, st.builds(Path, st.text(max_size=12)), st.just(_TABLE)))
def test_table_object_helpers_on_python_values(value: Any) -> None:
    # data_file_suffix and is_table_object answer for any value (a caller object that raises
    # included); read_table_object returns a table or refuses without a message
    suffix = data_file_suffix(value)
    assert suffix is None or suffix in DATA_SUFFIXES
    is_table = is_table_object(value)
    try:
        table = read_table_object(value, 0)
    except ReadFailure as refused:
        assert refused.args == () and refused.cause in READ_CAUSES
        assert value is not _TABLE
    else:
        assert is_table and isinstance(table, pa.Table) and table.num_rows <= 1
