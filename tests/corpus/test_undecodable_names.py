"""Regressions found by the corpus fuzz tests (issue 10): names that are not UTF-8.

* A Parquet or Arrow IPC file whose column name is not UTF-8: Arrow raises
  ``UnicodeDecodeError`` while opening it, which the corpus scan took for a bug (internal
  error, exit 3). It is an unreadable input: ``<role> input could not be read``.
* A path whose bytes are not UTF-8 (Python keeps them as lone surrogates): Arrow and Polars
  cannot encode it. As an input (Parquet, IPC, CSV) it is unreadable; JSON Lines is read by
  Python and works. As the output directory of ``write_support_corpus`` it is written, as
  any other directory (the documents are read back through a Python file object).
"""

from __future__ import annotations

import io
import os
import pathlib
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as pa_ipc
import pyarrow.parquet as pq
import pytest

from citelens import corpus
from citelens.errors import CorpusError

CANARY = "CANARY-7f3a"
# a column name of eight bytes, unique in the file, so that one byte of it can be replaced
NAME = "zzzzzzzz"
BROKEN = b"\x80zzzzzzz"  # 0x80 cannot start a UTF-8 character
TABLE = pa.table({"document_ref": [CANARY], NAME: [CANARY], "claim_id": [CANARY]})


def _parquet(*, arrow_schema: bool) -> bytes:
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, store_schema=arrow_schema)
    return sink.getvalue()


def _ipc(*, stream: bool) -> bytes:
    sink = io.BytesIO()
    writer = pa_ipc.new_stream if stream else pa_ipc.new_file
    with writer(sink, TABLE.schema) as out:
        out.write_table(TABLE)
    return sink.getvalue()


FILES = {
    "thrift.parquet": lambda: _parquet(arrow_schema=False),
    "arrow.parquet": lambda: _parquet(arrow_schema=True),
    "file.arrow": lambda: _ipc(stream=False),
    "stream.ipc": lambda: _ipc(stream=True),
}

CALLS: dict[str, Callable[[pathlib.Path], Any]] = {
    "support": lambda p: corpus.run_support_corpus(p),
    "evaluate": lambda p: corpus.evaluate_support_tables(p),
    "summary": lambda p: corpus.run_summary_citations_corpus(p),
    "minimality": lambda p: corpus.run_minimality_corpus(p, p, p),
}
# the first role each mode reads
ROLE = {"support": "claims", "evaluate": "claims", "summary": "claims", "minimality": "documents"}


def _assert_unreadable(call: str, path: pathlib.Path) -> None:
    with pytest.raises(CorpusError) as info:
        CALLS[call](path)
    error = info.value
    assert (str(error), error.category) == (f"{ROLE[call]} input could not be read", "input")
    assert error.__cause__ is None and error.__context__ is None
    assert CANARY not in repr(error)


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("name", sorted(FILES))
def test_column_name_not_utf8_is_unreadable(tmp_path: pathlib.Path, name: str, call: str) -> None:
    data = FILES[name]()
    assert data.count(NAME.encode()) >= 1
    path = tmp_path / name
    path.write_bytes(data.replace(NAME.encode(), BROKEN))  # same length: offsets unchanged
    _assert_unreadable(call, path)
    # the same file as a directory of one file (the directory scan checks each file alike)
    folder = tmp_path / "folder"
    folder.mkdir()
    os.replace(path, folder / name)
    _assert_unreadable(call, folder)


def _undecodable(folder: pathlib.Path, suffix: str) -> pathlib.Path:
    return folder / os.fsdecode(b"\xff" + suffix.encode())


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".csv"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_input_path_not_utf8_is_unreadable(tmp_path: pathlib.Path, suffix: str, call: str) -> None:
    plain = tmp_path / f"plain{suffix}"
    if suffix == ".parquet":
        pq.write_table(TABLE, plain)
    elif suffix == ".arrow":
        feather.write_feather(TABLE, plain)
    else:
        plain.write_text(f"document_ref,claim_id\n{CANARY},{CANARY}\n")
    path = _undecodable(tmp_path, suffix)
    os.replace(plain, path)  # Arrow cannot even write to such a path: renamed by Python
    _assert_unreadable(call, path)
    _assert_unreadable(call, tmp_path)  # the directory holding it


def test_jsonl_path_not_utf8_is_read(tmp_path: pathlib.Path) -> None:
    path = _undecodable(tmp_path, ".jsonl")
    path.write_text(f'{{"document_ref": "{CANARY}", "claim_id": "c", "citations": []}}\n')
    result = corpus.run_support_corpus(path)
    # one document, one claim without citations: evaluated, not an error row
    assert result.documents["document_ref"].to_pylist() == [CANARY]
    assert result.documents["status"].to_pylist() == ["ok"]


@pytest.mark.parametrize("edges", [False, True])
def test_output_directory_not_utf8_is_written(tmp_path: pathlib.Path, edges: bool) -> None:
    out = tmp_path / os.fsdecode(b"out\xff")
    claims = pa.table({"document_ref": ["d1"], "claim_id": ["c"], "citations": [["e"]]})
    summary = corpus.write_support_corpus(claims, out_dir=out, edges=edges)
    expected = {"documents.parquet", "summary.json", "summary.md"}
    if edges:
        expected.add("edges.parquet")
    assert set(os.listdir(out)) == expected
    # one document, its one citation names evidence that does not exist: evaluated (not
    # failed), one invalid citation (missing_evidence)
    assert (summary["evaluated_document_count"], summary["invalid_citation_count"]) == (1, 1)
    assert summary["invalid_citation_reasons"]["missing_evidence"] == 1
    with (out / "documents.parquet").open("rb") as handle:
        assert pq.read_table(handle)["status"].to_pylist() == ["ok"]
