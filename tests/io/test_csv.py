"""CSV reading and typing, written once in ``citelens.io`` (conventions §3,
support-metrics.md §4.2, summary-citations.md §4.3, minimality.md §6). Literal cases."""

from __future__ import annotations

import pathlib
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

from citelens.io import (
    ReadFailure,
    boolean_cells,
    integer_cells,
    read_csv,
    read_data_file,
    type_csv_columns,
)

SUPPORT = {"plus_sign": True, "int64_only": True}  # support-metrics.md §4.2
SUMMARY: dict[str, Any] = {}  # summary citations and minimality: '-' only, any size


def _csv(text: str) -> pa.Table:
    return read_csv(text.encode("utf-8"))


def test_read_csv_is_all_text_and_empty_cells_are_null() -> None:
    table = _csv("\ufeffclaim_id,start\n007,\n\nc2,5\n")  # BOM ignored, empty line skipped
    assert table.schema.types == [pa.string(), pa.string()]
    assert table.to_pylist() == [
        {"claim_id": "007", "start": None},
        {"claim_id": "c2", "start": "5"},
    ]


def test_read_csv_without_header_is_zero_records() -> None:
    assert _csv("").num_rows == 0
    assert _csv("\n\n").num_columns == 0


def test_repeated_header_and_ragged_rows_are_unreadable(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ReadFailure):
        _csv("a,a\n1,2\n")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2,3\n", encoding="utf-8")
    with pytest.raises(ReadFailure):
        read_data_file(ragged)
    invalid = tmp_path / "invalid.csv"
    invalid.write_bytes(b"a\n\xff\n")  # invalid UTF-8
    with pytest.raises(ReadFailure):
        read_data_file(invalid)


def test_support_typing_parses_every_cell() -> None:
    table = _csv(
        "claim_id,start,end,source_length,supports\n007,+5,12,-3,TRUE\nc2,0,007,40,false\n"
    )
    typed = type_csv_columns(table, {"start", "end", "source_length"}, {"supports"}, **SUPPORT)
    assert isinstance(typed, pa.Table)
    assert typed.schema.field("start").type == pa.int64()
    assert typed.schema.field("supports").type == pa.bool_()
    # "+5" → 5 (sign allowed), "007" → 7 in an integer column but stays "007" as an
    # identifier; "TRUE"/"false" any case.
    assert typed.to_pylist() == [
        {"claim_id": "007", "start": 5, "end": 12, "source_length": -3, "supports": True},
        {"claim_id": "c2", "start": 0, "end": 7, "source_length": 40, "supports": False},
    ]


def test_untyped_columns_and_all_null_columns() -> None:
    table = _csv("label,start\nfalse,\ntrue,\n")
    typed = type_csv_columns(table, {"start"}, {"supports"}, **SUPPORT)
    assert isinstance(typed, pa.Table)
    # A label cell "false" is text (label is not a flag column); an all-null integer
    # column is an int64 column of nulls (every row has no start).
    assert typed.column("label").to_pylist() == ["false", "true"]
    assert typed.schema.field("start").type == pa.int64()
    assert typed.column("start").to_pylist() == [None, None]


def test_mixed_column_becomes_rows_keeping_unparsed_text() -> None:
    table = _csv("claim_id,start,end,supports\nc1,1,2,yes\nc2,x,3,true\nc3,,4,\n")
    rows = type_csv_columns(table, {"start", "end"}, {"supports"}, **SUPPORT)
    # start mixes 1 and "x"; supports mixes "yes" and true: Python rows, nulls left out.
    assert rows == [
        {"claim_id": "c1", "start": 1, "end": 2, "supports": "yes"},
        {"claim_id": "c2", "start": "x", "end": 3, "supports": True},
        {"claim_id": "c3", "end": 4},
    ]


def test_plus_sign_only_where_the_contract_allows_it() -> None:
    table = _csv("start,end\n+5,1\n3,2\n")
    assert type_csv_columns(table, {"start", "end"}, **SUMMARY) == [
        {"start": "+5", "end": 1},
        {"start": 3, "end": 2},
    ]
    typed = type_csv_columns(table, {"start", "end"}, **SUPPORT)
    assert isinstance(typed, pa.Table)
    assert typed.column("start").to_pylist() == [5, 3]


def test_beyond_int64() -> None:
    # 2**63 = 9223372036854775808 does not fit int64 (max 9223372036854775807).
    table = _csv("start,end\n9223372036854775808,1\n-9223372036854775808,2\n")
    # Support: the cell keeps its text (rejected later as "span offsets must be integers").
    assert type_csv_columns(table, {"start", "end"}, **SUPPORT) == [
        {"start": "9223372036854775808", "end": 1},
        {"start": -(2**63), "end": 2},
    ]
    # Summary citations / minimality: any size becomes an int.
    assert type_csv_columns(table, {"start", "end"}, **SUMMARY) == [
        {"start": 2**63, "end": 1},
        {"start": -(2**63), "end": 2},
    ]


@pytest.mark.parametrize(
    ("cell", "plus", "expected"),
    [
        ("12", False, 12),
        ("-0", False, 0),
        ("007", False, 7),
        ("+1", False, None),
        ("+1", True, 1),
        (" 1", True, None),
        ("1 ", True, None),
        ("1.0", True, None),
        ("1e3", True, None),
        ("1_000", True, None),
        ("\u0663", True, None),  # ARABIC-INDIC DIGIT THREE: ASCII digits only
        ("", True, None),
        (None, True, None),
    ],
)
def test_integer_cells(cell: str | None, plus: bool, expected: int | None) -> None:
    frame = pl.DataFrame({"c": [cell]}, schema={"c": pl.String})
    out = frame.select(integer_cells(pl.col("c"), plus_sign=plus))["c"].to_list()
    assert out == [expected]


@pytest.mark.parametrize(
    ("cell", "expected"),
    [("true", True), ("FALSE", False), ("True", True), ("yes", None), ("1", None), (None, None)],
)
def test_boolean_cells(cell: str | None, expected: bool | None) -> None:
    frame = pl.DataFrame({"c": [cell]}, schema={"c": pl.String})
    assert frame.select(boolean_cells(pl.col("c")))["c"].to_list() == [expected]
