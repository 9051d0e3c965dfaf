"""JSON Lines read block by block (``citelens.io.stage_jsonl``): the staged Parquet files hold
exactly what one reading of the whole file (``citelens.io.jsonl_table``) holds. Literal cases
with small blocks, then a differential property test over random files and block sizes."""

from __future__ import annotations

import json
import pathlib
import random
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citelens.io import ReadFailure, jsonl_blocks, jsonl_table, read_jsonl, stage_jsonl
from citelens.io._jsonl_blocks import conform_table, merge_types


def _whole(path: pathlib.Path) -> pl.DataFrame | None:
    """The whole-file reading as a frame (``None`` when the file forms no table)."""
    try:
        frame = pl.from_arrow(jsonl_table(path))
    except ReadFailure:
        return None
    assert isinstance(frame, pl.DataFrame)
    return frame


def _staged(path: pathlib.Path, folder: pathlib.Path, block_bytes: int) -> pl.DataFrame | None:
    """The staged reading as a frame (``None`` when the file forms no table)."""
    folder.mkdir(exist_ok=True)
    try:
        staged = stage_jsonl(path, folder, block_bytes)
    except ReadFailure:
        return None
    if staged is None:  # a schema Parquet cannot hold: the corpus reads such a file whole
        return _whole(path)
    if not staged.files:
        frame = pl.from_arrow(pa.Table.from_pylist([], schema=staged.schema))
        assert isinstance(frame, pl.DataFrame)
        return frame
    return pl.scan_parquet(staged.files).collect()


def _kind(dtype: Any) -> object:
    """A dtype with record fields in name order: field order is not part of a reading (the
    whole-file reading orders fields by their first non-null value, or by their first key
    when Arrow reads the file; tables are read by column name)."""
    if isinstance(dtype, pl.Struct):
        return ("struct", sorted((f.name, _kind(f.dtype)) for f in dtype.fields))
    if isinstance(dtype, pl.List):
        return ("list", _kind(dtype.inner))
    return repr(dtype)


def _same(path: pathlib.Path, folder: pathlib.Path, block_bytes: int) -> pl.DataFrame | None:
    """Assert that the staged reading equals the whole-file one: the same failure, or the same
    columns, types and rows (rows compared as mappings, column and field order aside)."""
    whole, staged = _whole(path), _staged(path, folder, block_bytes)
    if whole is None or staged is None:
        assert whole is None and staged is None, (whole, staged)
        return None
    assert sorted(staged.columns) == sorted(whole.columns)
    assert staged.height == whole.height
    for name in whole.columns:
        assert _kind(staged.schema[name]) == _kind(whole.schema[name]), name
        assert staged[name].to_list() == whole[name].to_list(), name
    return staged


def _write(tmp_path: pathlib.Path, text: str) -> pathlib.Path:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("text", ["", "\n", " \t", "\n \r\n\t\n"])
def test_a_file_of_blank_lines_has_no_records(tmp_path: pathlib.Path, text: str) -> None:
    # Arrow reads a file of blank lines as a table of no columns; it is a file without
    # records, read whole or staged alike: the empty document_ref table (found by the
    # differential test below on " \t")
    frame = _same(_write(tmp_path, text), tmp_path / "stage", 1)
    assert frame is not None
    assert (frame.columns, frame.height) == (["document_ref"], 0)


def test_keys_that_differ_across_blocks(tmp_path: pathlib.Path) -> None:
    # One line per block (block_bytes=1): "a" is absent from the second block and "b" from
    # the first; each takes the other block's type, absent cells are null, and the columns
    # keep their first appearance order (a, then b) as in one reading of the whole file.
    path = _write(tmp_path, '{"a": 1}\n{"b": "x"}\n{"a": 3, "b": "y"}\n')
    frame = _same(path, tmp_path / "stage", 1)
    assert frame is not None
    assert frame.schema == pl.Schema({"a": pl.Int64, "b": pl.String})
    assert frame.to_dicts() == [{"a": 1, "b": None}, {"a": None, "b": "x"}, {"a": 3, "b": "y"}]


def test_integers_stay_integers_across_blocks(tmp_path: pathlib.Path) -> None:
    # Every block holds integers only: int64, never a float, even beyond 2**53.
    big = 2**62 + 1
    path = _write(tmp_path, f'{{"a": {big}}}\n{{"a": -7}}\n{{"a": null}}\n')
    frame = _same(path, tmp_path / "stage", 1)
    assert frame is not None
    assert frame.schema == pl.Schema({"a": pl.Int64})
    assert frame["a"].to_list() == [big, -7, None]


def test_integers_and_floats_make_a_float_column(tmp_path: pathlib.Path) -> None:
    # 1 (block 1) and 1.5 (block 2): the whole file is a float column, 1 -> 1.0.
    path = _write(tmp_path, '{"a": 1}\n{"a": 1.5}\n')
    frame = _same(path, tmp_path / "stage", 1)
    assert frame is not None
    assert frame["a"].to_list() == [1.0, 1.5]
    assert frame.schema["a"] == pl.Float64
    # 2**53 + 1 has no exact double: with a float elsewhere the file forms no table, as
    # pyarrow refuses the whole file; 2**53 itself is exact and is accepted.
    assert (
        _same(_write(tmp_path, f'{{"a": {2**53 + 1}}}\n{{"a": 0.5}}\n'), tmp_path / "s", 1) is None
    )
    exact = _same(_write(tmp_path, f'{{"a": {-(2**53)}}}\n{{"a": 0.5}}\n'), tmp_path / "t", 1)
    assert exact is not None and exact["a"].to_list() == [-(2.0**53), 0.5]


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 2**70])
def test_integers_beyond_int64_form_no_table(tmp_path: pathlib.Path, value: int) -> None:
    # No Arrow integer type holds them (Arrow's reader would make a float): unreadable, in the
    # first block and in a late one alike.
    lines = '{"a": 1}\n' * 50 + f'{{"a": {value}}}\n'
    path = _write(tmp_path, lines)
    with pytest.raises(ReadFailure):
        jsonl_table(path)
    with pytest.raises(ReadFailure):
        stage_jsonl(path, tmp_path, 64)


def test_nulls_empty_lines_and_a_bom(tmp_path: pathlib.Path) -> None:
    # Blank lines (spaces, tabs, \r) are skipped in every block; the BOM of the first block
    # is removed; "\r\n" endings are lines; a null cell is null; a line "null" is a row of
    # nulls; a field null everywhere in a block takes its type from another block.
    text = '\ufeff{"a": null, "b": [1, null]}\r\n\n \t\r\nnull\n\n{"a": "x", "b": []}\n'
    frame = _same(_write(tmp_path, text), tmp_path / "stage", 1)
    assert frame is not None
    assert frame.to_dicts() == [
        {"b": [1, None], "a": None},
        {"b": None, "a": None},
        {"b": [], "a": "x"},
    ]


def test_nested_records_and_lists_unify(tmp_path: pathlib.Path) -> None:
    # {"x": 1} then {"y": "t"} inside "r": one record type {x: int64, y: string}; a list of
    # integers then of floats: a list of floats.
    text = '{"r": {"x": 1}, "l": [1, 2]}\n{"r": {"y": "t"}, "l": [0.5]}\n{"r": null, "l": null}\n'
    frame = _same(_write(tmp_path, text), tmp_path / "stage", 1)
    assert frame is not None
    assert frame.schema == pl.Schema(
        {"r": pl.Struct({"x": pl.Int64, "y": pl.String}), "l": pl.List(pl.Float64)}
    )
    assert frame["l"].to_list() == [[1.0, 2.0], [0.5], None]


@pytest.mark.parametrize(
    "late",
    [
        "{bad",  # not JSON
        '{"a": NaN}',  # a constant no contract accepts
        '"text"',  # not a record
        '{"a": "x"}',  # text in an integer column
        '{"a": [1]}',  # a list in an integer column
        '{"a": 1} {"a": 2}',  # two values on one line
    ],
)
def test_a_malformed_line_in_a_late_block(tmp_path: pathlib.Path, late: str) -> None:
    # 200 good lines, then the defect: the reading stops at the defect's block with the same
    # failure as the whole-file reading, whatever the block size.
    path = _write(tmp_path, '{"a": 1}\n' * 200 + late + "\n" + '{"a": 2}\n' * 5)
    with pytest.raises(ReadFailure):
        jsonl_table(path)
    for block_bytes in (16, 100, 10**6):
        with pytest.raises(ReadFailure):
            stage_jsonl(path, tmp_path, block_bytes)


def test_invalid_utf8_in_a_late_block(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 100 + b'{"a": "\xff"}\n')
    with pytest.raises(ReadFailure):
        stage_jsonl(path, tmp_path, 32)


def test_blocks_hold_whole_lines_only(tmp_path: pathlib.Path) -> None:
    # 1,000 lines of 9 bytes in blocks of 90 bytes: each block holds 10 lines (it is extended
    # to the end of its last line only); no block ever holds the file.
    path = _write(tmp_path, '{"a": 1}\n' * 1000)
    rows = [block.table.num_rows for block in jsonl_blocks(path, 90)]
    assert rows == [10] * 100
    # A block that ends inside a line is extended to the line's end: 85 bytes + the rest.
    rows = [block.table.num_rows for block in jsonl_blocks(path, 85)]
    assert max(rows) == 10 and sum(rows) == 1000


def test_files_without_records(tmp_path: pathlib.Path) -> None:
    # No line: no staged file, a document_ref column of no rows (as jsonl_table).
    staged = stage_jsonl(_write(tmp_path, "\n  \n"), tmp_path, 4)
    assert staged is not None and staged.files == []
    assert staged.schema == pa.schema([pa.field("document_ref", pa.string())])
    # Every line null: no record, as the whole-file reading.
    path = _write(tmp_path, "null\nnull\n")
    with pytest.raises(ReadFailure):
        jsonl_table(path)
    with pytest.raises(ReadFailure):
        stage_jsonl(path, tmp_path, 1)
    # Records without any non-null field: Parquet holds no such table; the caller reads it
    # whole.
    assert stage_jsonl(_write(tmp_path, '{}\n{"a": null}\n'), tmp_path, 1) is None


def test_merge_types_rules() -> None:
    assert merge_types(pa.null(), pa.string()) == pa.string()
    assert merge_types(pa.int64(), pa.float64()) == pa.float64()
    assert merge_types(pa.list_(pa.null()), pa.list_(pa.int64())) == pa.list_(pa.int64())
    assert merge_types(
        pa.struct([("b", pa.int64())]), pa.struct([("a", pa.string()), ("b", pa.float64())])
    ) == pa.struct([("b", pa.float64()), ("a", pa.string())])
    for first, second in [
        (pa.string(), pa.int64()),
        (pa.bool_(), pa.int64()),  # a boolean is no number (pyarrow refuses [1, True])
        (pa.bool_(), pa.float64()),
        (pa.list_(pa.int64()), pa.int64()),
        (pa.struct([("a", pa.int64())]), pa.string()),
    ]:
        with pytest.raises(ReadFailure):
            merge_types(first, second)
        with pytest.raises(ReadFailure):
            merge_types(second, first)


def test_conform_table_keeps_nulls_and_offsets() -> None:
    lists = pa.array([[1], None, [2, 3]]).slice(1)  # sliced: offsets do not start at 0
    table = pa.table({"l": lists})
    schema = pa.schema([("l", pa.list_(pa.float64())), ("n", pa.string())])
    assert conform_table(table, schema).to_pylist() == [
        {"l": None, "n": None},
        {"l": [2.0, 3.0], "n": None},
    ]


# -- differential: random files, the whole-file reading is the oracle ------------------------

_KEYS = ("document_ref", "n", "s", "flag", "l", "r")


def _value(rng: random.Random, key: str) -> object:
    """A value of the key's family (numbers, text, booleans, lists, records); now and then a
    value of another family (the file then forms no table) or null."""
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.13:
        return rng.choice(["conflict", [1], {"z": 1}])
    if key in ("document_ref", "s"):
        return rng.choice(["d1", "d2", "2024-01-01", "é", ""])
    if key == "n":
        return rng.choice([0, -3, 2**40, 0.5, 1e300, 2**53, 2**53 + 1, 2**63])
    if key == "flag":
        return rng.random() < 0.5
    if key == "l":
        return [rng.choice([1, 2.5, None, 7]) for _ in range(rng.randrange(3))]
    return {k: _value(rng, k) for k in rng.sample(["n", "s"], rng.randrange(3))}


def _line(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(["", " \t", "\r", "null"])
    if roll < 0.06:
        return rng.choice(["{bad", "[1]", "1"])
    record = {k: _value(rng, k) for k in rng.sample(_KEYS, rng.randrange(1, len(_KEYS)))}
    return json.dumps(record) + ("\r" if rng.random() < 0.1 else "")


@given(
    seed=st.integers(0, 2**32),
    lines=st.integers(0, 60),
    block_bytes=st.sampled_from([1, 40, 300, 10**6]),
)
def test_staged_equals_whole_file(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    lines: int,
    block_bytes: int,
) -> None:
    rng = random.Random(seed)
    folder = tmp_path_factory.mktemp("diff")
    text = "\n".join(_line(rng) for _ in range(lines))
    path = _write(folder, text)
    _same(path, folder / "stage", block_bytes)


@pytest.mark.parametrize("seed", range(40))
def test_staged_equals_whole_file_mostly_clean(tmp_path: pathlib.Path, seed: int) -> None:
    # Files of one key family each (no conflicting value): these form tables, so the
    # comparison covers typed rows, not only failures.
    rng = random.Random(seed)
    keys = ["document_ref", rng.choice(["n", "l", "r", "flag"])]
    rows = []
    for _ in range(rng.randrange(1, 80)):
        record: dict[str, object] = {}
        for key in rng.sample(keys, rng.randrange(1, 3)):
            value = _value(rng, key)
            if value not in ("conflict", [1], {"z": 1}):
                record[key] = value
        rows.append(json.dumps(record))
    path = _write(tmp_path, "\n".join(rows) + "\n")
    for block_bytes in (1, 50, 10**6):
        _same(path, tmp_path / f"stage-{block_bytes}", block_bytes)


def test_arrow_reads_one_record_per_line_only() -> None:
    # Arrow reads JSON values, not lines: two objects on one line, or one object over two
    # lines, are malformed JSON Lines (conventions §3), so the values decide (ValueError).
    with pytest.raises(ValueError):
        read_jsonl(b'{"a": 1} {"a": 2}\n')
    with pytest.raises(ValueError):
        read_jsonl(b'{"a":\n1}\n')
    # Blank lines are no rows: Arrow's reading of 2 records over 4 lines is kept.
    table = read_jsonl(b'{"a": 1}\n\n \t\r\n{"a": 2}\n')
    assert isinstance(table, pa.Table) and table.to_pylist() == [{"a": 1}, {"a": 2}]
    # A first line that is not an object is left to the values (pyarrow's reader crashes the
    # process on a first line null): null is a value of the list.
    assert read_jsonl(b'null\n{"a": 1}\n') == [None, {"a": 1}]
