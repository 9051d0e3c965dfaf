"""Columnar objects and data files (support-metrics.md §4, conventions.md §3).

Every suffix gives the same report as the equivalent Python records; CSV typing follows §4.2.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from ._helpers import compute

CLAIMS = [
    {"claim_id": "c1", "start": 0, "end": 5, "source_id": "summary", "source_length": 40},
    {"claim_id": "c2", "start": 6, "end": 9, "claim_type": "Dose"},
    {"claim_id": "c3"},
]
EVIDENCE = [
    {"evidence_id": "e1", "start": 0, "end": 10, "source_id": "doc", "source_length": 20},
    {"evidence_id": "e2", "start": 5, "end": 8},
    {"evidence_id": "e3", "start": 0, "end": 30, "source_length": 20},
]
CITATIONS = [
    {"claim_id": "c1", "evidence_id": "e1"},
    {"claim_id": "c1", "evidence_id": "e1", "start": 2, "end": 4},
    {"claim_id": "c2", "evidence_id": "e2", "source_id": "other"},
    {"claim_id": "c2", "evidence_id": "e3"},
    {"claim_id": "c9", "evidence_id": "e1"},
    {"claim_id": "c1", "evidence_id": "e1", "start": 2, "end": 4},
]
ADJUDICATIONS = [
    {"claim_id": "c1", "evidence_id": "e1", "label": "supports"},
    {"claim_id": "c2", "evidence_id": "e2", "supports": False, "contradicts": True},
    {"claim_id": "c3", "evidence_id": "e2", "label": "false"},
]
DATA = {
    "claims": CLAIMS,
    "evidence": EVIDENCE,
    "citations": CITATIONS,
    "adjudications": ADJUDICATIONS,
}


def expected_json() -> str:
    text: str = compute(CLAIMS, EVIDENCE, CITATIONS, ADJUDICATIONS).to_json()
    return text


def table_of(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_struct_array(pa.array(rows))


def csv_text(rows: list[dict[str, Any]]) -> str:
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    lines = [",".join(columns)]
    for row in rows:
        lines.append(
            ",".join(
                ""
                if row.get(c) is None
                else str(row[c]).lower()
                if isinstance(row.get(c), bool)
                else str(row[c])
                for c in columns
            )
        )
    return "\r\n".join(lines) + "\r\n"


def write(path: pathlib.Path, rows: list[dict[str, Any]]) -> pathlib.Path:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        pq.write_table(table_of(rows), path)
    elif suffix in (".arrow", ".feather"):
        feather.write_feather(table_of(rows), path)
    elif suffix == ".ipc":  # the IPC *stream* format: accepted as a fallback
        table = table_of(rows)
        with pa.OSFile(str(path), "wb") as sink, ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    elif suffix in (".jsonl", ".ndjson"):
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    elif suffix == ".csv":
        path.write_text(csv_text(rows), encoding="utf-8")
    elif suffix == ".json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "suffix",
    [
        ".parquet",
        ".arrow",
        ".feather",
        ".ipc",
        ".jsonl",
        ".ndjson",
        ".csv",
        ".json",
        ".PARQUET",
        ".JsonL",
        ".Csv",
    ],
)
@pytest.mark.parametrize("as_str", [False, True])
def test_every_suffix_gives_the_records_report(
    suffix: str, as_str: bool, tmp_path: pathlib.Path
) -> None:
    paths = {name: write(tmp_path / f"{name}{suffix}", rows) for name, rows in DATA.items()}
    args = [str(p) if as_str else p for p in paths.values()]
    assert compute(*args).to_json() == expected_json()


def test_table_objects(tmp_path: pathlib.Path) -> None:
    tables = [table_of(rows) for rows in DATA.values()]
    assert compute(*tables).to_json() == expected_json()
    assert compute(*[t.to_batches()[0] for t in tables]).to_json() == expected_json()
    assert compute(*[pl.from_arrow(t) for t in tables]).to_json() == expected_json()
    readers = [pa.RecordBatchReader.from_batches(t.schema, t.to_batches()) for t in tables]
    assert compute(*readers).to_json() == expected_json()


def test_duckdb_relation() -> None:
    con = duckdb.connect()
    relations = [con.from_arrow(table_of(rows)) for rows in DATA.values()]
    assert compute(*relations).to_json() == expected_json()


def test_mixed_inputs(tmp_path: pathlib.Path) -> None:
    claims = pl.from_arrow(table_of(CLAIMS))
    evidence = write(tmp_path / "e.parquet", EVIDENCE)
    citations = write(tmp_path / "c.csv", CITATIONS)
    assert compute(claims, evidence, citations, ADJUDICATIONS).to_json() == expected_json()


def test_nested_columns_in_tables() -> None:
    # list<string> and list<struct> citation columns, a struct span column.
    claims = pa.table(
        {
            "claim_id": ["c1", "c2"],
            "citations": pa.array(
                [[{"evidence_id": "e1", "start": 1, "end": 3}], []],
                type=pa.list_(
                    pa.struct(
                        [("evidence_id", pa.string()), ("start", pa.int64()), ("end", pa.int64())]
                    )
                ),
            ),
            "span": pa.array([{"begin": 0, "stop": 4}, None]),
        }
    )
    records = [
        {
            "claim_id": "c1",
            "citations": [{"evidence_id": "e1", "start": 1, "end": 3}],
            "span": {"begin": 0, "stop": 4},
        },
        {"claim_id": "c2", "citations": []},
    ]
    evidence = [{"evidence_id": "e1", "start": 0, "end": 5}]
    assert compute(claims, evidence).to_json() == compute(records, evidence).to_json()
    ids = pl.DataFrame({"claim_id": ["c1"], "citations": [["e1", "e2"]]})
    assert (
        compute(ids, evidence).to_json()
        == compute([{"claim_id": "c1", "citations": ["e1", "e2"]}], evidence).to_json()
    )


def test_string_types_and_dictionary_columns() -> None:
    expected = compute([{"claim_id": "a"}, {"claim_id": "b"}]).to_json()
    for array in (
        pa.array(["a", "b"], type=pa.large_string()),
        pa.array(["a", "b"], type=pa.string_view()),
        pa.array(["a", "b"]).dictionary_encode(),
    ):
        assert compute(pa.table({"claim_id": array})).to_json() == expected


def test_integer_identifier_columns_are_decimal_strings() -> None:
    table = pa.table({"claim_id": pa.array([2**64 - 1], type=pa.uint64())})
    report = compute(table)
    assert report.tables(raw_identifiers=True).claims["claim_id"].to_pylist() == [str(2**64 - 1)]


def error_of(*args: Any, **kwargs: Any) -> tuple[str, str]:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        compute(*args, **kwargs)
    assert info.value.__cause__ is None and info.value.__context__ is None
    return str(info.value), info.value.category


def test_arrow_value_conversion_errors() -> None:
    # uint64 above int64 as an offset; integral floats; binary identifiers.
    big = pa.table(
        {
            "claim_id": ["a"],
            "start": pa.array([2**63], type=pa.uint64()),
            "end": pa.array([2**63 + 1], type=pa.uint64()),
        }
    )
    assert error_of(big) == ("span offsets must be integers", "span")
    floats = pa.table({"claim_id": ["a"], "start": [1.0], "end": [2.0]})
    assert error_of(floats) == ("span offsets must be integers", "span")
    assert error_of(pa.table({"claim_id": pa.array([b"a"], type=pa.binary())})) == (
        "identifier must be a string",
        "identifier",
    )
    assert error_of(pa.table({"claim_id": [1.0]})) == ("identifier must be a string", "identifier")


def test_first_defective_row_wins() -> None:
    # Row 1 has an unknown label, row 2 a float offset: the adjudication collection is read
    # after everything else, and row order decides within a collection.
    claims = pa.table(
        {"claim_id": ["a", "b", "c"], "start": pa.array([0, None, 1.5], type=pa.float64())}
    )
    assert error_of(claims) == ("span offsets must be integers", "span")
    rows = pa.table({"claim_id": ["a", None, "c"], "start": pa.array([0, 1, None])})
    assert error_of(rows) == ("claim identifier is required", "record")


def test_null_cells_are_absent() -> None:
    # A null flag in a table is absent (a Python mapping with supports=None would fail).
    adjudications = pa.table(
        {
            "claim_id": ["c1"],
            "evidence_id": ["e1"],
            "label": ["supports"],
            "supports": pa.array([None], type=pa.bool_()),
        }
    )
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 2}],
        None,
        adjudications,
    )
    assert report.adjudication.supporting_citation_count == 1


def test_empty_tables() -> None:
    report = compute(
        pa.table({}),
        pa.table({"evidence_id": pa.array([], type=pa.string())}),
        pa.table({}),
        pa.table({}),
    )
    assert report.claim_count == 0
    # An empty adjudication table is "not supplied".
    assert report.adjudication.available is False


# --- CSV typing (§4.2) -------------------------------------------------------------------


def csv(tmp_path: pathlib.Path, name: str, text: str, encoding: str = "utf-8") -> pathlib.Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def raw_claims(report: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = report.tables(raw_identifiers=True).claims.to_pylist()
    return rows


def test_csv_offsets_and_lengths_are_int64(tmp_path: pathlib.Path) -> None:
    path = csv(tmp_path, "c.csv", "claim_id,start,end,source_length\n007,+1,4,-3\nx,,,\n")
    rows = raw_claims(compute(path))
    # Identifier columns stay text: "007" is not "7".
    assert [(r["claim_id"], r["start"], r["end"], r["source_length"]) for r in rows] == [
        ("007", 1, 4, -3),
        ("x", None, None, None),
    ]


def test_csv_other_offset_columns(tmp_path: pathlib.Path) -> None:
    path = csv(tmp_path, "c.csv", "claim_id,source_start,source_end,document_length\na,1,4,9\n")
    row = raw_claims(compute(path))[0]
    assert (row["start"], row["end"], row["source_length"]) == (1, 4, 9)
    path = csv(tmp_path, "d.csv", "claim_id,span_start,span_end,text_length\na,1,4,9\n")
    row = raw_claims(compute(path))[0]
    assert (row["start"], row["end"], row["source_length"]) == (1, 4, 9)
    path = csv(tmp_path, "e.csv", "claim_id,length\na,9\n")
    assert raw_claims(compute(path))[0]["source_length"] == 9


@pytest.mark.parametrize("cell", ["1.0", " 1", "1 ", "0x1", "one", "9223372036854775808", "1e3"])
def test_csv_bad_offset_cell(cell: str, tmp_path: pathlib.Path) -> None:
    path = csv(tmp_path, "c.csv", f'claim_id,start,end\na,"{cell}",5\n')
    assert error_of(path) == ("span offsets must be integers", "span")


def test_csv_bad_length_cell(tmp_path: pathlib.Path) -> None:
    path = csv(tmp_path, "c.csv", "claim_id,source_length\na,ten\n")
    assert error_of(path) == ("source lengths must be integers", "value")


def test_csv_flags_and_labels(tmp_path: pathlib.Path) -> None:
    claims = [{"claim_id": "c1", "citations": ["e1", "e2", "e3"]}]
    evidence = [{"evidence_id": e, "start": 0, "end": 2} for e in ("e1", "e2", "e3")]
    path = csv(
        tmp_path,
        "a.csv",
        "claim_id,evidence_id,label,supports,contradicts\n"
        "c1,e1,,TRUE,\n"  # flag True -> supports
        "c1,e2,false,,\n"  # the string "false" -> contradicts
        "c1,e3,,False,false\n",  # only False flags -> irrelevant
    )
    counts = dict(compute(claims, evidence, None, path).adjudication.label_counts)
    assert counts == {"supports": 1, "contradicts": 1, "irrelevant": 1, "unclear": 0}


def test_csv_bad_flag_cell(tmp_path: pathlib.Path) -> None:
    path = csv(tmp_path, "a.csv", "claim_id,evidence_id,label,supports\nc1,e1,supports,yes\n")
    assert error_of([], [], None, path) == ("adjudication flags must be boolean", "value")
    # Flags are read only where labels are read: an evidence row without a claim alias.
    evidence = csv(tmp_path, "e.csv", "evidence_id,supports\ne1,yes\n")
    assert compute([], evidence).evidence_count == 1


def test_csv_citations_cell_is_one_identifier(tmp_path: pathlib.Path) -> None:
    path = csv(tmp_path, "c.csv", 'claim_id,citations,span\nc1,e1,"[0, 4]"\n')
    evidence = [{"evidence_id": "e1", "start": 0, "end": 1}]
    expected = compute([{"claim_id": "c1", "citations": "e1"}], evidence).to_json()
    # The span column is a string and is ignored.
    assert compute(path, evidence).to_json() == expected


def test_csv_reading_rules(tmp_path: pathlib.Path) -> None:
    expected = compute([{"claim_id": "a, b", "start": 0, "end": 2}, {"claim_id": "x"}]).to_json()
    text = 'claim_id,start,end\n"a, b",0,2\n\nx,,\n'
    assert compute(csv(tmp_path, "a.csv", text)).to_json() == expected
    # A leading BOM is ignored.
    assert compute(csv(tmp_path, "b.csv", "\ufeff" + text)).to_json() == expected
    # Header only, and an empty file: zero records.
    assert compute(csv(tmp_path, "c.csv", "claim_id,start\n")).claim_count == 0
    assert compute(csv(tmp_path, "d.csv", "")).claim_count == 0


@pytest.mark.parametrize(
    "data",
    [
        b"claim_id,claim_id\na,b\n",  # repeated header
        b"claim_id,start\na,1,2\n",  # ragged row
        b"claim_id\n\xff\xfe\n",  # invalid UTF-8
    ],
)
def test_csv_unreadable(data: bytes, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    assert error_of(path) == ("claim collection must be an iterable of records", "collection")


# --- JSON and JSON Lines ------------------------------------------------------------------


def test_json_object_is_a_record_or_compact_mapping(tmp_path: pathlib.Path) -> None:
    one = tmp_path / "one.json"
    one.write_text('{"claim_id": "c1", "start": 0, "end": 3}', encoding="utf-8")
    assert compute(one).to_json() == compute({"claim_id": "c1", "start": 0, "end": 3}).to_json()
    compact = tmp_path / "compact.json"
    compact.write_text('{"c1": ["e1"], "c5": null, "c6": [0, 4]}', encoding="utf-8")
    expected = compute({"c1": ["e1"], "c5": None, "c6": [0, 4]}).to_json()
    assert compute(compact).to_json() == expected
    assert compute(compact).claim_count == 3


def test_json_nulls_dropped_and_last_key_wins(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(
        '[{"claim_id": "c1", "evidence_id": "e1", "label": "n/a", "label": "supports", '
        '"supports": null}]',
        encoding="utf-8",
    )
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 1}],
        None,
        path,
    )
    assert report.adjudication.supporting_citation_count == 1


@pytest.mark.parametrize("text", ['"claims"', "42", "true", "null", "[1, NaN]", "{", "[Infinity]"])
def test_json_top_level_errors(text: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(text, encoding="utf-8")
    assert error_of(path) == ("claim collection must be an iterable of records", "collection")


def test_jsonl_lines(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"claim_id": "c1"}\r\n\r\n   \t\n["c2", "e1"]\n')
    # A BOM is ignored, blank lines are skipped, a two-element array line is a citation pair.
    citations = tmp_path / "cit.jsonl"
    citations.write_bytes(
        b'\xef\xbb\xbf{"claim_id": "c1", "evidence_id": "e1"}\r\n\r\n \t\n["c2", "e1"]\n'
    )
    expected = compute(
        [{"claim_id": "c1"}, {"claim_id": "c2"}],
        [],
        [{"claim_id": "c1", "evidence_id": "e1"}, ["c2", "e1"]],
    )
    assert (
        compute([{"claim_id": "c1"}, {"claim_id": "c2"}], [], citations).to_json()
        == expected.to_json()
    )
    # For claims, a non-object line is not a record.
    assert error_of(path) == ("claim record must be a mapping", "record")


def test_jsonl_mixed_numbers_keep_python_types(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"claim_id": "a", "start": 0, "end": 2}\n{"claim_id": "b", "start": 1, "end": 2.0}\n',
        encoding="utf-8",
    )
    assert error_of(path) == ("span offsets must be integers", "span")
    path.write_text('{"claim_id": "a", "start": 0, "end": 2}\n{"claim_id": 7}\n', encoding="utf-8")
    # A column mixing text and integers: each value keeps its Python type (7 is the id "7").
    rows = raw_claims(compute(path))
    assert [(r["claim_id"], r["start"]) for r in rows] == [("7", None), ("a", 0)]
    path.write_text(
        '{"claim_id": "a", "start": 0, "end": 2}\n{"claim_id": 7.0}\n', encoding="utf-8"
    )
    assert error_of(path) == ("identifier must be a string", "identifier")


def test_jsonl_null_flag_is_absent(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.ndjson"
    path.write_text(
        '{"claim_id": "c1", "evidence_id": "e1", "label": "supports", "supports": null}\n',
        encoding="utf-8",
    )
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 1}],
        None,
        path,
    )
    assert report.adjudication.supporting_citation_count == 1


@pytest.mark.parametrize("text", ["{", '{"claim_id": "a"}\nnot json\n', "[NaN]\n"])
def test_jsonl_malformed(text: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(text, encoding="utf-8")
    assert error_of(path) == ("claim collection must be an iterable of records", "collection")


# --- paths that are not data files ------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "name"),
    [(0, "claim"), (1, "evidence"), (2, "citation"), (3, "adjudication")],
)
@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".jsonl", ".csv", ".json", ".IPC"])
def test_missing_files(position: int, name: str, suffix: str, tmp_path: pathlib.Path) -> None:
    args: list[Any] = [[], [], None, None]
    args[position] = tmp_path / f"missing{suffix}"
    assert error_of(*args) == (f"{name} collection must be an iterable of records", "collection")


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".feather"])
def test_corrupt_binary_files(suffix: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(b"this is not a binary table")
    assert error_of([], path) == (
        "evidence collection must be an iterable of records",
        "collection",
    )


def test_other_paths_and_strings(tmp_path: pathlib.Path) -> None:
    text = tmp_path / "claims.txt"
    text.write_text('[{"claim_id": "a"}]', encoding="utf-8")
    assert error_of(text) == ("claim collection must be an iterable of records", "collection")
    assert error_of(str(text)) == ("claim collection must be an iterable of records", "collection")
    assert error_of(b"[]") == ("claim collection must be an iterable of records", "collection")
    assert error_of(bytearray(b"[]")) == (
        "claim collection must be an iterable of records",
        "collection",
    )
    assert error_of([], [], "c1,e1") == (
        "citation collection must be an iterable of records",
        "collection",
    )
    # A directory named like a data file is not readable.
    folder = tmp_path / "dir.parquet"
    folder.mkdir()
    assert error_of(folder) == ("claim collection must be an iterable of records", "collection")


@pytest.mark.parametrize(
    "data_type", [pa.int8(), pa.int16(), pa.int32(), pa.uint8(), pa.uint32(), pa.uint64()]
)
def test_integer_offset_types(data_type: pa.DataType) -> None:
    table = pa.table(
        {"claim_id": ["a"], "start": pa.array([1], data_type), "end": pa.array([4], data_type)}
    )
    expected = compute([{"claim_id": "a", "start": 1, "end": 4}]).to_json()
    assert compute(table).to_json() == expected


@pytest.mark.parametrize(
    ("column", "array", "message", "category"),
    [
        ("start", pa.array([1], pa.date32()), "span offsets must be integers", "span"),
        ("start", pa.array([1], pa.decimal128(5, 0)), "span offsets must be integers", "span"),
        ("start", pa.array([True]), "span offsets must be integers", "span"),
        ("start", pa.array(["1"]), "span offsets must be integers", "span"),
        ("source_length", pa.array([1.0]), "source lengths must be integers", "value"),
        ("claim_id", pa.array([1], pa.date32()), "identifier must be a string", "identifier"),
        ("claim_id", pa.array([True]), "identifier must be a string", "identifier"),
        (
            "claim_id",
            pa.array([b"x"], pa.large_binary()),
            "identifier must be a string",
            "identifier",
        ),
    ],
)
def test_other_arrow_types_fail_their_rule(
    column: str, array: pa.Array, message: str, category: str
) -> None:
    columns: dict[str, Any] = {"claim_id": pa.array(["a"]), "end": pa.array([5])}
    columns[column] = array
    assert error_of(pa.table(columns)) == (message, category)


def test_null_type_and_empty_list_columns() -> None:
    table = pa.table(
        {
            "claim_id": ["a", "b"],
            "start": pa.array([None, None], pa.null()),
            "citations": pa.array([[], None], pa.list_(pa.null())),
        }
    )
    assert compute(table).to_json() == compute([{"claim_id": "a"}, {"claim_id": "b"}]).to_json()


def test_int_citation_lists_and_large_lists() -> None:
    evidence = [{"evidence_id": "7", "start": 0, "end": 1}]
    table = pa.table(
        {"claim_id": ["a"], "citations": pa.array([[7, 7]], pa.large_list(pa.int64()))}
    )
    expected = compute([{"claim_id": "a", "citations": [7, 7]}], evidence).to_json()
    assert compute(table, evidence).to_json() == expected
    assert compute(table, evidence).deterministic.duplicate_citation_count == 1


def test_polars_dtypes() -> None:
    frame = pl.DataFrame(
        {
            "claim_id": pl.Series(["a", "b"], dtype=pl.Categorical),
            "start": pl.Series([0, 2], dtype=pl.Int32),
            "end": pl.Series([3, 5], dtype=pl.UInt16),
        }
    )
    records = [{"claim_id": "a", "start": 0, "end": 3}, {"claim_id": "b", "start": 2, "end": 5}]
    assert compute(frame).to_json() == compute(records).to_json()


def test_struct_span_with_nulls_and_float_fields() -> None:
    spans = pa.array([{"start": 1, "end": None}, {"start": None, "end": None}])
    table = pa.table({"claim_id": ["a", "b"], "span": spans})
    records = [{"claim_id": "a", "span": {"start": 1}}, {"claim_id": "b", "span": {}}]
    assert compute(table).to_json() == compute(records).to_json()
    floats = pa.table({"claim_id": ["a"], "span": pa.array([{"start": 1.0, "end": 2.0}])})
    assert error_of(floats) == ("span offsets must be integers", "span")
