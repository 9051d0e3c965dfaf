"""The staged, streamed corpus outputs (``citelens.corpus._outputs.OutputSet``) and the atomic
multi-file write beneath them (``citelens._atomic``): batches stream into Parquet writers on
temporary files; commit renames the whole set; any failure leaves no file behind."""

from __future__ import annotations

import os
import pathlib

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens._atomic import StagedFiles, WriteFailure, write_many_atomic
from citelens.corpus._outputs import OutputSet, _write_outputs
from citelens.errors import CorpusError

SCHEMA = pa.schema([("document_ref", pa.large_string()), ("claim_count", pa.int64())])
BATCHES = [
    pa.table({"document_ref": ["d1", "d2"], "claim_count": [3, 0]}, schema=SCHEMA),
    pa.table({"document_ref": ["d3"], "claim_count": [7]}, schema=SCHEMA),
    pa.table({"document_ref": ["d4", "d5", "d6"], "claim_count": [1, 2, 5]}, schema=SCHEMA),
]


def _leftovers(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_three_batches_read_back_as_their_concatenation(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out"
    with OutputSet(out) as staged:
        for batch in BATCHES:
            staged.write_batch("documents.parquet", batch)
        staged.write_text("summary.json", '{"document_count":6}\n')
        written = staged.commit()
    assert written == [out / "documents.parquet", out / "summary.json"]
    assert _leftovers(out) == ["documents.parquet", "summary.json"]  # no .citelens-*.tmp
    back = pq.read_table(out / "documents.parquet")
    assert back.equals(pa.concat_tables(BATCHES))
    # Batches of 2, 1 and 3 documents: one row group each, 6 rows in all.
    metadata = pq.ParquetFile(out / "documents.parquet").metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [2, 1, 3]
    assert (out / "summary.json").read_text(encoding="utf-8") == '{"document_count":6}\n'


def test_tables_are_cast_to_the_declared_schema(tmp_path: pathlib.Path) -> None:
    narrow = pa.table({"document_ref": ["d1"], "claim_count": pa.array([1], pa.int32())})
    with OutputSet(tmp_path) as staged:
        staged.write_batch("documents.parquet", narrow, SCHEMA)
        staged.open_table("edges.parquet", SCHEMA)  # declared, no batch: an empty file
        staged.commit()
    assert pq.read_schema(tmp_path / "documents.parquet") == SCHEMA
    assert pq.read_table(tmp_path / "documents.parquet").to_pylist() == [
        {"document_ref": "d1", "claim_count": 1}
    ]
    edges = pq.read_table(tmp_path / "edges.parquet")
    assert (edges.num_rows, edges.schema) == (0, SCHEMA)


def test_a_finished_file_can_be_scanned_before_commit(tmp_path: pathlib.Path) -> None:
    with OutputSet(tmp_path) as staged:
        for batch in BATCHES:
            staged.write_batch("documents.parquet", batch)
        staged_path = staged.finish_table("documents.parquet")
        assert staged_path.name.startswith(".citelens-") and staged_path.suffix == ".tmp"
        # 3 + 0 + 7 + 1 + 2 + 5 = 18 claims, computed lazily from the staged file.
        total = pl.scan_parquet(staged_path).select(pl.col("claim_count").sum()).collect()
        assert total.item() == 18
        staged.write_text("summary.json", '{"claim_count":18}\n')
        staged.commit()
    assert _leftovers(tmp_path) == ["documents.parquet", "summary.json"]


@pytest.mark.parametrize("interrupt", [RuntimeError, KeyboardInterrupt])
def test_an_exception_midway_leaves_nothing(
    tmp_path: pathlib.Path, interrupt: type[BaseException]
) -> None:
    out = tmp_path / "new" / "out"
    with pytest.raises(interrupt), OutputSet(out) as staged:
        staged.write_batch("documents.parquet", BATCHES[0])
        staged.write_batch("edges.parquet", BATCHES[1])
        staged.write_text("summary.md", "# partial\n")
        raise interrupt()
    # No target, no temporary file, and the directories the set created are gone again.
    assert not (tmp_path / "new").exists()


def test_an_aborted_set_keeps_the_previous_outputs(tmp_path: pathlib.Path) -> None:
    (tmp_path / "documents.parquet").write_bytes(b"previous run")
    staged = OutputSet(tmp_path)
    staged.write_batch("documents.parquet", BATCHES[0])
    staged.abort()
    staged.abort()  # idempotent
    assert _leftovers(tmp_path) == ["documents.parquet"]
    assert (tmp_path / "documents.parquet").read_bytes() == b"previous run"


def test_leaving_the_block_without_commit_aborts(tmp_path: pathlib.Path) -> None:
    with OutputSet(tmp_path) as staged:
        staged.write_batch("documents.parquet", BATCHES[0])
    assert _leftovers(tmp_path) == []


def _assert_io_error(info: pytest.ExceptionInfo[CorpusError]) -> None:
    assert info.value.args == ("corpus report could not be written",)
    assert info.value.category == "io"
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_write_failures_are_the_fixed_io_error(tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CorpusError) as info:
        OutputSet(blocker).write_batch("documents.parquet", BATCHES[0])  # parent is a file
    _assert_io_error(info)
    with pytest.raises(CorpusError) as info:
        OutputSet(42)
    _assert_io_error(info)
    staged = OutputSet(tmp_path / "out")
    staged.write_text("summary.json", "{}")
    with pytest.raises(CorpusError) as info:
        staged.write_text("summary.json", "{}")  # one name once
    _assert_io_error(info)
    assert _leftovers(tmp_path / "out") == []  # the failure aborted the whole set


def test_names_are_file_names_inside_the_directory(tmp_path: pathlib.Path) -> None:
    with pytest.raises(CorpusError) as info:
        OutputSet(tmp_path / "out").write_text("../escape.json", "{}")
    _assert_io_error(info)
    assert _leftovers(tmp_path) == []


def test_write_outputs_stages_every_file(tmp_path: pathlib.Path) -> None:
    documents = pa.concat_tables(BATCHES)
    written = _write_outputs(
        tmp_path, documents, "{}\n", "# s\n", (("edges.parquet", None), ("x.parquet", BATCHES[1]))
    )
    assert [p.name for p in written] == [
        "documents.parquet",
        "summary.json",
        "summary.md",
        "x.parquet",
    ]
    assert pq.read_table(tmp_path / "documents.parquet").equals(documents)
    with pytest.raises(CorpusError) as info:
        _write_outputs(tmp_path / "documents.parquet", documents, "{}", "#")
    _assert_io_error(info)


def test_write_many_atomic_failing_midway_touches_no_target(tmp_path: pathlib.Path) -> None:
    (tmp_path / "a.txt").write_text("old")
    (tmp_path / "blocker").write_text("x")
    with pytest.raises(WriteFailure):
        write_many_atomic([(tmp_path / "a.txt", b"new"), (tmp_path / "blocker" / "b.txt", b"b")])
    assert _leftovers(tmp_path) == ["a.txt", "blocker"]
    assert (tmp_path / "a.txt").read_text() == "old"


def test_staged_files_mode_and_commit(tmp_path: pathlib.Path) -> None:
    with StagedFiles() as staged:
        staged.open(tmp_path / "a.bin").write(b"\x00\x01")
        staged.open(tmp_path / "sub" / "b.bin").write(b"")
        assert staged.commit() == [tmp_path / "a.bin", tmp_path / "sub" / "b.bin"]
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    # Created with the process umask applied, like any new file (not mkstemp's 0600).
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "a.bin").stat().st_mode & 0o777 == 0o666 & ~mask
