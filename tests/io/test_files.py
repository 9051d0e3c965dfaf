"""``citelens.io.read_data_file`` and ``read_table_object``: input failures become the
``ReadFailure`` marker; a bug inside a reader is not disguised as unreadable input."""

from __future__ import annotations

import pathlib
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from citelens.io import ReadFailure, _files, read_data_file, read_table_object


class Boom(Exception):
    """Stands for a bug."""


def test_formats(tmp_path: pathlib.Path) -> None:
    table = pa.table({"a": [1, 2, 3]})
    pq.write_table(table, tmp_path / "t.PARQUET")  # suffixes compare case-insensitively
    with ipc.new_stream(tmp_path / "t.arrow", table.schema) as writer:  # stream format
        writer.write_table(table)
    with ipc.new_file(tmp_path / "t.feather", table.schema) as file_writer:
        file_writer.write_table(table)
    (tmp_path / "t.json").write_text('{"a": [1, null]}')
    assert read_data_file(tmp_path / "t.PARQUET").equals(table)
    assert read_data_file(tmp_path / "t.arrow").equals(table)
    assert read_data_file(tmp_path / "t.feather").equals(table)
    assert read_data_file(str(tmp_path / "t.json")) == {"a": [1, None]}  # nulls kept in .json
    # limit + 1 rows at most: limit 1 takes 2 of the 3 rows.
    assert read_data_file(tmp_path / "t.PARQUET", 1).num_rows == 2


@pytest.mark.parametrize("name", ["missing.parquet", "bad.parquet", "bad.ipc", "x.txt", "dir.csv"])
def test_unreadable(tmp_path: pathlib.Path, name: str) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"garbage")
    (tmp_path / "bad.ipc").write_bytes(b"garbage")
    (tmp_path / "x.txt").write_text("a\n")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(ReadFailure):
        read_data_file(tmp_path / name)


def test_a_bug_inside_a_reader_propagates(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a\n1\n")

    def broken(_data: bytes) -> Any:
        raise Boom()

    monkeypatch.setattr(_files, "read_csv", broken)
    with pytest.raises(Boom):
        read_data_file(path)


def test_table_objects_and_failing_caller_streams() -> None:
    table = pa.table({"a": list(range(5))})
    assert read_table_object(table.to_batches()[0]).equals(table)
    assert read_table_object(table, 2).num_rows == 3  # limit 2: 3 rows kept

    class Stream:
        def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
            raise Boom()  # the caller's object raised: the contract's fixed error

    with pytest.raises(ReadFailure) as info:
        read_table_object(Stream())
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_jsonl_list_with_leading_null_is_read_exactly(tmp_path: pathlib.Path) -> None:
    # Arrow's JSON reader builds an invalid list array for [null, 0]; the reader must not
    # hand it on (Polars then fails), but decode the line: the span is [None, 0] exactly.
    path = tmp_path / "claims.jsonl"
    path.write_text('{"claim_id": "c0", "span": [null, 0]}\n', encoding="utf-8")
    content = read_data_file(path)
    rows = content.to_pylist() if isinstance(content, pa.Table) else content
    assert rows == [{"claim_id": "c0", "span": [None, 0]}]
