"""JSON Lines and JSON, read once in ``citelens.io`` (conventions §3). Literal cases."""

from __future__ import annotations

import pathlib

import pyarrow as pa
import pytest

from citelens.io import ReadFailure, jsonl_table, jsonl_values, read_data_file, read_jsonl


def test_exact_columns_are_read_by_arrow() -> None:
    content = read_jsonl(b'{"claim_id": "c1", "start": 0}\n{"claim_id": "c2", "start": 7}\n')
    assert isinstance(content, pa.Table)
    assert content.to_pylist() == [{"claim_id": "c1", "start": 0}, {"claim_id": "c2", "start": 7}]


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n{"a": 1.5}\n',  # int and float: the distinction is kept
        b'{"a": null}\n',  # all null: the field is absent, not a null column
        b'{"a": "2024-01-01"}\n',  # Arrow would read a timestamp; the value is text
    ],
)
def test_inexact_columns_are_decoded_as_values(data: bytes) -> None:
    content = read_jsonl(data)
    assert isinstance(content, list)
    assert content == jsonl_values(data.decode("utf-8"))


def test_jsonl_values_rules() -> None:
    text = '\ufeff{"a": 1, "b": null}\r\n \t\r\n[1, 2]\n"x"\n\n{"c": {"d": null}}'
    # BOM is stripped by the decoder only; here it would be part of the first line.
    assert jsonl_values(text.removeprefix("\ufeff")) == [{"a": 1}, [1, 2], "x", {"c": {}}]
    with pytest.raises(ValueError):
        jsonl_values('{"a": NaN}\n')
    with pytest.raises(ValueError):
        jsonl_values("{not json}\n")


def test_bom_and_repeated_keys(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1, "a": 2.5}\n')
    assert read_data_file(path) == [{"a": 2.5}]  # last key wins; 2.5 stays a float


@pytest.mark.parametrize(
    "data", [b'{"a": Infinity}\n', b"\xff\n", b'{"a": 1}\n{"a": -NaN}\n', b'{"a": 1\n']
)
def test_malformed_files_are_unreadable(tmp_path: pathlib.Path, data: bytes) -> None:
    path = tmp_path / "bad.ndjson"
    path.write_bytes(data)
    with pytest.raises(ReadFailure):
        read_data_file(path)
    with pytest.raises(ReadFailure):
        jsonl_table(path)


def test_jsonl_table(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text('{"document_ref": "d1", "x": 1}\n{"document_ref": "d2", "x": 1.5}\n')
    table = jsonl_table(path)
    assert table.to_pylist() == [
        {"document_ref": "d1", "x": 1.0},
        {"document_ref": "d2", "x": 1.5},
    ]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert jsonl_table(empty).num_rows == 0
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text('{"document_ref": "d1"}\n"not a record"\n')
    with pytest.raises(ReadFailure):
        jsonl_table(mixed)
    with pytest.raises(ReadFailure):
        jsonl_table(tmp_path / "missing.jsonl")
