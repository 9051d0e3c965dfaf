"""Property tests of the result renderers: CSV and JSON round-trip the cells of any small
table, and the text table has one line per row plus header, rule and count."""

from __future__ import annotations

import csv
import io
import json

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.sql import render

_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
_COLUMNS = st.sampled_from(
    [
        ("i", pa.int64(), st.one_of(st.none(), st.integers(-(2**62), 2**62))),
        ("s", pa.large_string(), st.one_of(st.none(), _TEXT)),
        ("b", pa.bool_(), st.one_of(st.none(), st.booleans())),
        ("f", pa.float64(), st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))),
    ]
)


@st.composite
def tables(draw: st.DrawFn) -> pa.Table:
    specs = draw(st.lists(_COLUMNS, min_size=1, max_size=4))
    rows = draw(st.integers(0, 6))
    arrays = {}
    for index, (name, data_type, values) in enumerate(specs):
        cells = draw(st.lists(values, min_size=rows, max_size=rows))
        arrays[f"{name}{index}"] = pa.array(cells, data_type)
    return pa.table(arrays)


@settings(max_examples=60, deadline=None)
@given(tables())
def test_json_round_trip(table: pa.Table) -> None:
    text = render(table, "json")
    assert isinstance(text, str) and text.endswith("\n")
    assert json.loads(text) == table.to_pylist()


@settings(max_examples=60, deadline=None)
@given(tables())
def test_csv_round_trip(table: pa.Table) -> None:
    text = render(table, "csv")
    assert isinstance(text, str)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == table.column_names
    expected = [
        [
            ""
            if v is None
            else ("true" if v else "false")
            if isinstance(v, bool)
            else repr(v)
            if isinstance(v, float)
            else str(v)
            for v in row.values()
        ]
        for row in table.to_pylist()
    ]
    assert rows[1:] == expected


@settings(max_examples=60, deadline=None)
@given(tables())
def test_text_table_shape(table: pa.Table) -> None:
    text = render(table, "table")
    assert isinstance(text, str)
    lines = text.split("\n")
    assert lines[-1] == ""
    n = table.num_rows
    assert lines[-2] == f"({n} row{'' if n == 1 else 's'})"
    if all("\n" not in str(v) for col in table.columns for v in col.to_pylist()):
        assert len(lines) == n + 4
