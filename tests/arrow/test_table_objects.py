"""The readers of table objects (citelens.io._values): which objects are tables, how far a
bounded read goes, and what a failing object gives (issue 11 item 3)."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pa_dataset
import pyarrow.parquet as pq
import pytest

from citelens.io import _values
from citelens.io._values import (
    ReadFailure,
    is_table_object,
    read_table_object,
    table_object_frame,
)

from ._forms import TABLE_FORMS, CapsuleOnly, CountingStream, forms

# Three rows: a bound of 1 must give exactly 2 rows (limit + 1), no bound all 3.
ROWS = [
    {"claim_id": "claim-1", "start": 0, "end": 4},
    {"claim_id": "claim-2", "start": 5, "end": 9},
    {"claim_id": "claim-3", "start": 10, "end": 14},
]


@pytest.mark.parametrize("form", TABLE_FORMS)
def test_every_table_form_is_read_whole_and_bounded(form: str, tmp_path: Path) -> None:
    build = forms(ROWS, tmp_path, "rows")[form]
    assert is_table_object(build())
    whole = read_table_object(build())
    assert whole.num_rows == 3
    assert whole.column("claim_id").to_pylist() == ["claim-1", "claim-2", "claim-3"]
    assert read_table_object(build(), limit=1).num_rows == 2  # limit + 1, never more


@pytest.mark.parametrize(
    "value",
    [None, "claims.parquet", b"x", 3, [{"claim_id": "a"}], {"claim_id": "a"}, object()],
    ids=["none", "path", "bytes", "int", "records", "mapping", "object"],
)
def test_other_values_are_not_table_objects(value: object) -> None:
    assert not is_table_object(value)


def test_a_stream_is_consumed_only_to_limit_plus_one() -> None:
    stream = CountingStream(pa.Table.from_pylist(ROWS * 10))  # 30 one-row batches
    table = read_table_object(stream.reader(), limit=2)
    assert table.num_rows == 3
    assert stream.pulled == 3  # the 4th..30th batches are never pulled


def test_a_lazy_frame_collects_only_limit_plus_one(tmp_path: Path) -> None:
    path = tmp_path / "many.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS * 100), path)  # 300 rows
    assert read_table_object(pl.scan_parquet(path), limit=4).num_rows == 5


def test_a_duckdb_relation_gets_the_limit_in_its_query() -> None:
    relation = duckdb.sql("SELECT range AS start FROM range(1000)")
    assert read_table_object(relation, limit=9).num_rows == 10


def test_a_failing_lazy_plan_is_a_read_failure() -> None:
    # the plan names a column the frame lacks: Polars raises at collect(), inside the read
    plan = pl.LazyFrame({"claim_id": ["CANARY-9b1e"]}).select(pl.col("CANARY-9b1e-missing"))
    with pytest.raises(ReadFailure) as caught:
        read_table_object(plan)
    assert caught.value.args == ()  # the marker carries no message, so no value of the input
    assert "CANARY" not in repr(caught.value)


def test_a_raising_stream_is_a_read_failure() -> None:
    class Broken:
        def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
            raise RuntimeError("CANARY-9b1e")

    assert is_table_object(Broken())
    with pytest.raises(ReadFailure) as caught:
        read_table_object(Broken())
    assert caught.value.args == ()


class Boom(Exception):
    """Stands for a bug in citelens' own code."""


def test_a_bug_after_the_callers_read_is_not_a_read_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Only the steps that run the caller's code are guarded: the stream is opened fine, then
    # citelens' own batch assembly (_bounded) fails. That is a bug, and it must propagate as
    # itself (the public entry points report it as InternalError), never as a refused input.
    def broken_bounded(*args: object, **kwargs: object) -> pa.Table:
        raise Boom

    stream = CapsuleOnly(pa.Table.from_pylist(ROWS))
    monkeypatch.setattr(_values, "_bounded", broken_bounded)
    with pytest.raises(Boom):
        read_table_object(stream)


def test_a_stream_raising_midway_is_a_read_failure() -> None:
    # the first batch is read, the second raises inside the caller's generator
    schema = pa.schema([("claim_id", pa.string())])

    def batches() -> object:
        yield pa.record_batch([pa.array(["claim-1"])], schema=schema)
        raise RuntimeError("CANARY-77c1")

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    with pytest.raises(ReadFailure) as caught:
        read_table_object(reader)
    assert caught.value.args == ()


def test_a_repeated_column_name_is_refused_for_every_object() -> None:
    table = pa.table([pa.array([1]), pa.array([2])], names=["start", "start"])
    with pytest.raises(ReadFailure) as caught:
        read_table_object(CapsuleOnly(table))
    assert caught.value.cause == "columns"


def test_a_dataset_frame_stays_lazy(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), path)
    frame = table_object_frame(pa_dataset.dataset(path))
    assert isinstance(frame, pl.LazyFrame)
    # a filter on the lazy frame reads the rows it keeps only
    kept = frame.filter(pl.col("start") >= 5).collect()
    assert kept["claim_id"].to_list() == ["claim-2", "claim-3"]


@pytest.mark.parametrize("form", TABLE_FORMS)
def test_every_table_form_becomes_the_same_frame(form: str, tmp_path: Path) -> None:
    build = forms(ROWS, tmp_path, "rows")[form]
    frame = table_object_frame(build()).collect()
    assert frame.select("claim_id", "start", "end").rows() == [
        ("claim-1", 0, 4),
        ("claim-2", 5, 9),
        ("claim-3", 10, 14),
    ]


def test_detection_imports_neither_duckdb_nor_pyarrow_dataset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A dataset or relation can only exist once its library is imported, so detection
    # looks in sys.modules and never imports either library itself: with both removed from
    # sys.modules (as in a process that never imported them), detection leaves them out.
    monkeypatch.delitem(sys.modules, "duckdb", raising=False)
    monkeypatch.delitem(sys.modules, "pyarrow.dataset", raising=False)
    assert not is_table_object(object())
    assert not is_table_object([{"claim_id": "a"}])
    assert is_table_object(pa.table({"a": [1]}))
    assert "duckdb" not in sys.modules
    assert "pyarrow.dataset" not in sys.modules
