"""Parquet read straight into Polars, the identifier byte-range shortcut and the rules that run
on distinct values: each is checked against the path it shortcuts (literal cases, whose expected
values are worked out in the comments, and differential cases on generated columns)."""

from __future__ import annotations

import json
import pathlib
import random
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.io import ReadFailure, _files
from citelens.support import _fields
from citelens.support._cells import cell_of

from ._helpers import compute

# -- the Parquet reader --------------------------------------------------------------------------


def _arrow_frame(path: pathlib.Path) -> pl.DataFrame:
    """What the table route gives: the Arrow reader's table, then ``pl.from_arrow``."""
    frame = pl.from_arrow(_files.read_data_file(path))
    assert isinstance(frame, pl.DataFrame)
    return frame


PLAIN = pa.table(
    {
        "claim_id": pa.array(["c1", None, " c3 "], pa.string()),
        "big": pa.array(["x" * 300, "é", ""], pa.large_string()),
        "start": pa.array([1, None, -3], pa.int64()),
        "small": pa.array([1, 2, None], pa.int8()),
        "huge": pa.array([2**63, 0, None], pa.uint64()),
        "flag": pa.array([True, None, False], pa.bool_()),
        "ratio": pa.array([0.5, float("nan"), None], pa.float64()),
        "citations": pa.array([["e1", None], [], None], pa.list_(pa.string())),
        "offsets": pa.array([[1, 2], None, [3]], pa.large_list(pa.int32())),
    }
)


@pytest.mark.parametrize(
    ("rows", "row_group_size"),
    [(3, None), (0, None), (3, 1)],  # all rows; no row (types only); one row group per row
)
def test_plain_parquet_is_read_by_polars_as_the_arrow_route_reads_it(
    rows: int, row_group_size: int | None, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "plain.parquet"
    pq.write_table(PLAIN.slice(0, rows), path, row_group_size=row_group_size)
    frame = _files.read_data_frame(path)
    # every column type is plain (text, integers, booleans, floats, lists of them): Polars reads
    assert isinstance(frame, pl.DataFrame)
    expected = _arrow_frame(path)
    assert frame.schema == expected.schema
    assert frame.equals(expected, null_equal=True)
    assert frame["huge"].to_list() == [2**63, 0, None][:rows]  # uint64 stays unsigned


@pytest.mark.parametrize(
    "column",
    [
        pa.array(["a", "b", "a"]).dictionary_encode(),  # dictionary: Arrow reader
        pa.array([b"a", b"b", b"c"], pa.binary()),
        pa.array([1, 2, 3], pa.timestamp("us")),
        pa.array([[[1]], [], None], pa.list_(pa.list_(pa.int64()))),  # nested lists
        pa.array([{"a": 1}, None, {"a": 2}], pa.struct([("a", pa.int64())])),
        pa.array([None, None, None], pa.null()),
    ],
)
def test_other_parquet_types_keep_the_arrow_reader(
    column: pa.Array, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"claim_id": ["c1", "c2", "c3"], "x": column}), path)
    table = _files.read_data_frame(path)
    assert isinstance(table, pa.Table)  # exactly what read_data_file gives
    assert table.equals(_files.read_data_file(path))


def test_parquet_row_limit_and_odd_paths(tmp_path: pathlib.Path) -> None:
    # a folder named like a hive partition and a file name with glob characters: one file,
    # no partition column, no pattern matching
    folder = tmp_path / "year=2024"
    folder.mkdir()
    path = folder / "claims[1]*.parquet"
    pq.write_table(pa.table({"claim_id": [f"c{k}" for k in range(10)]}), path)
    frame = _files.read_data_frame(str(path), limit=3)
    assert isinstance(frame, pl.DataFrame)
    # limit 3 keeps limit + 1 = 4 rows, as read_data_file does
    assert frame["claim_id"].to_list() == ["c0", "c1", "c2", "c3"]
    assert frame.columns == ["claim_id"]


def test_unreadable_parquet_files_still_fail_as_before(tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really parquet")
    for target in (broken, tmp_path / "missing.parquet", tmp_path):
        with pytest.raises(_files.ReadFailure):
            _files.read_data_frame(target if target != tmp_path else str(tmp_path) + ".parquet")


def test_duplicate_parquet_names_are_refused(tmp_path: pathlib.Path) -> None:
    # one column name twice is no table of records (issue 10): refused before any reader
    # (it used to reach Polars, which raised DuplicateError: exit 3)
    path = tmp_path / "dup.parquet"
    table = pa.Table.from_arrays([pa.array(["a"]), pa.array(["b"])], names=["x", "x"])
    pq.write_table(table, path)
    with pytest.raises(ReadFailure) as caught:
        _files.read_data_frame(path)
    assert caught.value.cause == "columns"


def test_parquet_report_equals_the_arrow_table_report(tmp_path: pathlib.Path) -> None:
    # the same collections as a Parquet path (Polars reader) and as Arrow tables (table route)
    claims = pa.table(
        {
            "claim_id": ["c1", " c2", "c3"],
            "start": pa.array([0, 5, None], pa.int64()),
            "end": pa.array([4, 9, None], pa.int64()),
            "source_id": ["s", "s", "s"],
            "source_length": pa.array([20, 20, 20], pa.int64()),
            "citations": [["e1", "e2"], ["e2"], []],
        }
    )
    evidence = pa.table(
        {
            "evidence_id": ["e1", "e2"],
            "start": pa.array([0, 2], pa.int64()),
            "end": pa.array([3, 8], pa.int64()),
        }
    )
    adjudications = pa.table(
        {
            "claim_id": ["c1", "c2", "c1"],
            "evidence_id": ["e1", "e2", "e2"],
            "label": ["Supported", "contradicts", " Irrelevant "],
        }
    )
    paths = []
    for name, table in (("c", claims), ("e", evidence), ("a", adjudications)):
        paths.append(tmp_path / f"{name}.parquet")
        pq.write_table(table, paths[-1])
    from_files = compute(paths[0], paths[1], None, paths[2])
    from_tables = compute(claims, evidence, None, adjudications)
    assert from_files.to_json() == from_tables.to_json()
    data = json.loads(from_files.to_json())
    # c1 cites e1 and e2, c2 cites e2: 3 edges; c3 cites nothing (an orphan)
    assert data["citation_count"] == 3 and data["orphan_claim_count"] == 1


# -- identifiers: the byte-range shortcut --------------------------------------------------------


def _reference(values: list[str | None]) -> tuple[list[str | None], list[bool]]:
    """The identifier text rule in Python: strip ``str.isspace`` characters; empty, over 256
    code points or holding a control (U+0000-U+001F, U+007F) is bad. Null stays null (not bad:
    the kind check rejects it)."""
    stripped: list[str | None] = []
    bad: list[bool] = []
    for value in values:
        if value is None:
            stripped.append(None)
            bad.append(False)
            continue
        text = value.strip(_fields.whitespace())
        stripped.append(text)
        control = any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text)
        bad.append(not text or len(text) > 256 or control)
    return stripped, bad


@pytest.mark.parametrize(
    ("values", "expected_range"),
    [
        # "sha256:ab" is printable ASCII: '2' (0x32) is its smallest byte, 's' (0x73) its largest
        (["sha256:ab", None], (0x32, 0x73)),
        (["a b"], (0x20, 0x62)),  # the space 0x20 (edges still checked)
        (["a\x00"], (0x00, 0x61)),  # a control: the exact checks run
        (["é"], (0xA9, 0xC3)),  # U+00E9 is C3 A9 in UTF-8
        ([None, ""], None),  # no bytes at all: not known, exact path
    ],
)
def test_byte_range_literals(values: list[str | None], expected_range: Any) -> None:
    assert _fields._byte_range(pl.Series(values, dtype=pl.String)) == expected_range


@pytest.mark.parametrize(
    ("values", "stripped", "bad"),
    [
        # printable ASCII only (the shortcut): nothing stripped; "" is empty, 257 x's too long
        (["c1", "", "x" * 257, None], ["c1", "", "x" * 257, None], [False, True, True, False]),
        # a space: only the edges are stripped ("a b" keeps its inner space)
        ([" c1 ", "a b", "c2"], ["c1", "a b", "c2"], [False, False, False]),
        # a control and non-ASCII whitespace: the exact path
        (["a\x7fb", "\u3000c\u3000", "c3"], ["a\x7fb", "c", "c3"], [True, False, False]),
    ],
)
def test_identifier_text_literals(values: list[Any], stripped: list[Any], bad: list[bool]) -> None:
    out, failed = _fields._identifier_text(pl.Series(values, dtype=pl.String))
    assert out.to_list() == stripped
    assert failed.to_list() == bad


_ALPHABET = ["a", "Z", "0", ":", "~", "!", " ", "\t", "\x00", "\x1f", "\x7f", "é", "\u3000", "\x85"]


@pytest.mark.parametrize("seed", range(40))
def test_identifier_text_matches_the_python_rule(seed: int) -> None:
    rng = random.Random(seed)
    # most columns printable ASCII (the shortcut), some with one special character somewhere
    plain = rng.random() < 0.5
    alphabet = _ALPHABET[:6] if plain else _ALPHABET
    values: list[str | None] = []
    for _ in range(rng.randint(0, 30)):
        if rng.random() < 0.1:
            values.append(None)
            continue
        length = rng.choice([0, 1, 3, 12, 13, 71, 256, 257, 300])
        values.append("".join(rng.choice(alphabet) for _ in range(length)))
    column = pl.Series(values, dtype=pl.String)
    if rng.random() < 0.3 and len(column) > 2:
        column = column.slice(1, len(column) - 2)  # an offset Arrow array
        values = values[1:-1]
    stripped, bad = _fields._identifier_text(column)
    expected_stripped, expected_bad = _reference(values)
    assert stripped.to_list() == expected_stripped
    assert bad.to_list() == expected_bad


# -- labels and claim types on distinct values ---------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        # "Supported" normalises to the key "supported", a spelling of "supports";
        # "does not support" to "does_not_support", a spelling of "irrelevant" (_rules)
        (
            ["supports", "Supported", "supports", "does not support", "bogus", None],
            ["supports", "supports", "supports", "irrelevant", None, None],
        ),
        ([None, None], [None, None]),  # no text at all
    ],
)
def test_label_text_per_distinct_literals(labels: list[Any], expected: list[Any]) -> None:
    label, _, unsupported = _fields._normal_label(cell_of(pl.Series(labels, dtype=pl.String)))
    assert label.to_list() == expected
    # unsupported = a text without a label ("bogus" only)
    assert unsupported.to_list() == [v == "bogus" for v in labels]


@pytest.mark.parametrize("seed", range(20))
def test_per_distinct_equals_row_by_row(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = [" Supports ", "SUPPORTED", "irrelevant", "Unclear!", "x", "É", "", "ÉTAT-1"]
    size = rng.randint(0, 40)
    # low cardinality (distinct values) and high cardinality (row by row) columns
    pool = vocabulary if rng.random() < 0.7 else [f"v{k}" for k in range(100)]
    values = [None if rng.random() < 0.1 else rng.choice(pool) for _ in range(size)]
    column = pl.Series(values, dtype=pl.String)
    for function in (_fields._label_text, _fields._claim_type_text):
        assert _fields._per_distinct(column, function).to_list() == function(column).to_list()


# -- claim items: per-claim aggregates by scatter ------------------------------------------------


def _grouped_first(item_row: pl.Series, problem: pl.Series, n: int) -> list[Any]:
    """The group-by form: first non-null problem of each claim's items, null without one."""
    frame = pl.DataFrame({"r": item_row, "p": problem})
    agg = frame.group_by("r").agg(pl.col("p").filter(pl.col("p").is_not_null()).first())
    full = pl.DataFrame({"r": pl.Series(range(n), dtype=pl.UInt32)})
    return full.join(agg, on="r", how="left").sort("r")["p"].to_list()


def test_first_by_claim_literal() -> None:
    from citelens.support._normalize import _first_by_claim

    # claim 0 has items with problems None, 11, 10: the first non-null is 11; claim 1 has
    # no item; claim 2 has one item without a problem; claim 3 one item with problem 9
    rows = pl.Series([0, 0, 0, 2, 3], dtype=pl.UInt32)
    problem = pl.Series([None, 11, 10, None, 9], dtype=pl.UInt8)
    assert _first_by_claim(rows, problem, 4).to_list() == [11, None, None, 9]


@pytest.mark.parametrize("seed", range(25))
def test_first_by_claim_matches_the_group_by(seed: int) -> None:
    from citelens.support._normalize import _first_by_claim

    rng = random.Random(seed)
    n = rng.randint(0, 12)
    rows = sorted(rng.randrange(n) for _ in range(rng.randint(0, 30))) if n else []
    codes = [rng.choice([None, None, 9, 10, 11]) for _ in rows]
    item_row = pl.Series(rows, dtype=pl.UInt32)
    problem = pl.Series(codes, dtype=pl.UInt8)
    assert _first_by_claim(item_row, problem, n).to_list() == _grouped_first(item_row, problem, n)


def test_byte_range_spans_every_block() -> None:
    # 70,000 values are two blocks of the copy (65,536 rows each): a control character in
    # the second block alone still widens the range to 0x00, and a non-ASCII byte in the
    # first block alone to 0xC3 ("é" is C3 A9).
    values = ["id" + str(k) for k in range(70_000)]
    assert _fields._RANGE_BLOCK < 69_000
    values[69_000] = "a\x00"
    values[3] = "\u00e9"
    # Smallest byte: 0x00 (block 2); largest: 0xC3 (block 1).
    assert _fields._byte_range(pl.Series(values, dtype=pl.String)) == (0x00, 0xC3)
    # Without them every byte is "i", "d" or a digit: 0x30 ("0") to 0x69 ("i").
    plain = ["id" + str(k) for k in range(70_000)]
    assert _fields._byte_range(pl.Series(plain, dtype=pl.String)) == (0x30, 0x69)
