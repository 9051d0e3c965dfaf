"""The lazy corpus scan (``citelens.corpus._scan``): only the readers' failures on malformed
input become ``<role> input could not be read``; batches read only their own documents."""

from __future__ import annotations

import pathlib
from typing import Any

import polars as pl
import pytest

from citelens.corpus import _scan
from citelens.errors import CorpusError


class Boom(Exception):
    """Stands for a bug."""


def _error(info: pytest.ExceptionInfo[CorpusError]) -> tuple[str, str]:
    assert info.value.__cause__ is None and info.value.__context__ is None
    return info.value.args[0], info.value.category


def test_malformed_files_are_input_errors(tmp_path: pathlib.Path) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"garbage")
    # Arrow reads every Parquet schema when the scan is made, before Polars may touch the
    # file (issue 10), so the garbage file is refused there, with the same error.
    with pytest.raises(CorpusError) as info:
        _scan._lazy(tmp_path / "bad.parquet", "claims")
    assert _error(info) == ("claims input could not be read", "input")
    # A CSV file is staged to Parquet when its scan is made (so that the refusal keeps its
    # cause on every supported Polars), so a ragged row is refused there too.
    (tmp_path / "ragged.csv").write_text("document_ref,start\nd1,1,2\n")
    with pytest.raises(CorpusError) as info:
        _scan._lazy(tmp_path / "ragged.csv", "evidence")
    assert _error(info) == ("evidence input could not be read", "input")
    assert info.value.detail == "evidence file is not valid CSV"


@pytest.mark.parametrize(
    "content", ['{"document_ref": "d1"}\n"text"\n', '{"document_ref": "d1"}\n{bad\n']
)
def test_jsonl_that_forms_no_table(tmp_path: pathlib.Path, content: str) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text(content)
    with pytest.raises(CorpusError) as info:
        _scan._lazy(path, "claims")
    assert _error(info) == ("claims input could not be read", "input")


def test_directory_mixing_formats(tmp_path: pathlib.Path) -> None:
    pl.DataFrame({"document_ref": ["d1"]}).write_parquet(tmp_path / "a.parquet")
    (tmp_path / "b.csv").write_text("document_ref\nd2\n")
    with pytest.raises(CorpusError) as info:
        _scan._lazy(tmp_path, "claims")
    assert _error(info) == ("claims input could not be read", "input")


def test_a_raising_caller_stream_is_an_input_error() -> None:
    class Stream:
        def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
            raise Boom()

    with pytest.raises(CorpusError) as info:
        _scan._lazy(Stream(), "citations")
    assert _error(info) == ("citations input could not be read", "input")


def test_a_bug_during_collect_propagates(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pl.LazyFrame({"document_ref": ["d1"]})

    def broken(self: pl.LazyFrame, *args: Any, **kwargs: Any) -> pl.DataFrame:
        raise Boom()

    monkeypatch.setattr(pl.LazyFrame, "collect", broken)
    with pytest.raises(Boom):
        _scan._collect(frame, "claims")


def test_csv_columns_typed_by_the_one_cell_rule(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "evidence.csv"
    path.write_text(
        "document_ref,evidence_id,start,end,supports\nd1,007,+5,9,TRUE\nd2,e2,0,1,yes\n"
    )
    frame = _scan._lazy(path, "evidence")
    assert frame is not None
    typed = _scan._check_schema(frame, "evidence", csv=True).collect()
    # "+5" → 5, "007" stays an identifier; "TRUE" → true, and "yes" (no flag) → null.
    assert typed.to_dicts() == [
        {"document_ref": "d1", "evidence_id": "007", "start": 5, "end": 9, "supports": True},
        {"document_ref": "d2", "evidence_id": "e2", "start": 0, "end": 1, "supports": None},
    ]
    path.write_text("document_ref,start\nd1,1\nd2,x\n")
    frame = _scan._lazy(path, "evidence")
    assert frame is not None
    with pytest.raises(CorpusError) as info:
        _scan._check_schema(frame, "evidence", csv=True)
    assert _error(info) == ("evidence column start must be an integer column", "input")


def test_document_ref_checks() -> None:
    with pytest.raises(CorpusError) as info:
        _scan._check_ref_column(pl.LazyFrame({"claim_id": ["c"]}), "claims")
    assert _error(info) == ("claims input requires a document_ref column", "input")
    with pytest.raises(CorpusError) as info:
        _scan._check_ref_column(pl.LazyFrame({"document_ref": [1]}), "claims")
    assert _error(info) == ("claims column document_ref must be text", "input")
    with pytest.raises(CorpusError) as info:
        _scan._plan({"claims": pl.LazyFrame({"document_ref": ["d1", None]})})
    assert _error(info) == ("claims column document_ref must not be null", "record")


def test_plan_and_batches_read_only_their_documents(tmp_path: pathlib.Path) -> None:
    claims = pl.DataFrame(
        {"document_ref": ["d3", "d1", "d2", "d3", "d1"], "claim_id": ["a", "b", "c", "d", "e"]}
    )
    claims.write_parquet(tmp_path / "claims.parquet", row_group_size=2)
    evidence = pl.LazyFrame({"document_ref": ["d2", "d4"], "evidence_id": ["x", "y"]})
    frame = _scan._lazy(tmp_path / "claims.parquet", "claims")
    assert frame is not None
    frames = {"claims": frame, "evidence": evidence}
    refs = _scan._plan(frames)
    # d1..d4 sorted, codes 0..3, whatever role they come from.
    assert refs.to_dicts() == [
        {_scan.DOC: 0, "document_ref": "d1"},
        {_scan.DOC: 1, "document_ref": "d2"},
        {_scan.DOC: 2, "document_ref": "d3"},
        {_scan.DOC: 3, "document_ref": "d4"},
    ]
    batches = _scan._batches(refs, 2)
    assert [b["document_ref"].to_list() for b in batches] == [["d1", "d2"], ["d3", "d4"]]
    second = _scan._batch_frames(frames, batches[1])
    assert sorted(second["claims"]["claim_id"].to_list()) == ["a", "d"]  # d3's claims only
    assert second["evidence"]["evidence_id"].to_list() == ["y"]  # d4's evidence only


@pytest.mark.parametrize(
    "content", [b"document_ref,a,a\nd1,1,2\n", b"\xff\xfe,a\nd1,1\n", b"\n\ndocument_ref,x,x\n"]
)
def test_csv_header_follows_the_csv_rule(tmp_path: pathlib.Path, content: bytes) -> None:
    # A repeated header name (Polars would rename it a_duplicated_0) or an invalid UTF-8
    # header makes the file unreadable, as for a single-document CSV file.
    path = tmp_path / "claims.csv"
    path.write_bytes(content)
    with pytest.raises(CorpusError) as info:
        _scan._lazy(path, "claims")
    assert _error(info) == ("claims input could not be read", "input")
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "part-0.csv").write_bytes(content)
    with pytest.raises(CorpusError):
        _scan._lazy(folder, "claims")


def test_csv_with_bom_keeps_document_ref(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "claims.csv"
    path.write_bytes(b"\xef\xbb\xbfdocument_ref,claim_id\nd1,c1\n")
    frame = _scan._lazy(path, "claims")
    assert frame is not None
    assert _scan._check_ref_column(frame, "claims").collect().to_dicts() == [
        {"document_ref": "d1", "claim_id": "c1"}
    ]
