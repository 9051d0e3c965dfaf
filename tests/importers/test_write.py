"""Writing an import: one atomic set of four Parquet files, sources private, same bytes."""

from __future__ import annotations

import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from citelens.errors import CitationImportError
from citelens.importers import FORMATS, import_corpus, import_exchanges, write_corpus

FIXTURE = Path(__file__).parent / "fixtures" / "anthropic" / "exchanges.jsonl"


def test_four_files_sources_private_and_byte_identical(tmp_path: Path) -> None:
    tables = import_exchanges("anthropic", FIXTURE)
    first = write_corpus(tables, tmp_path / "a")
    second = write_corpus(import_exchanges("anthropic", FIXTURE), tmp_path / "b")
    names = ["claims.parquet", "evidence.parquet", "citations.parquet", "sources.parquet"]
    assert [path.name for path in first] == names
    for one, two in zip(first, second, strict=True):
        assert one.read_bytes() == two.read_bytes()
    sources = tmp_path / "a" / "sources.parquet"
    assert stat.S_IMODE(sources.stat().st_mode) == 0o600
    assert pq.read_schema(sources).metadata == {b"citelens.privacy": b"PRIVATE"}
    assert pq.read_table(tmp_path / "a" / "claims.parquet").num_rows == 7  # the fixture's 7 claims
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(names)  # no staging left


def test_missing_parent_needs_mkdir(tmp_path: Path) -> None:
    tables = import_exchanges("anthropic", [])
    with pytest.raises(CitationImportError) as caught:
        write_corpus(tables, tmp_path / "no" / "out")
    assert (str(caught.value), caught.value.category) == (
        "import output directory does not exist",
        "io",
    )
    written = write_corpus(tables, tmp_path / "no" / "out", mkdir=True)
    assert len(written) == 4


def test_unwritable_target_is_a_fixed_io_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(CitationImportError) as caught:
        write_corpus(import_exchanges("anthropic", []), tmp_path / "file", mkdir=True)
    assert (str(caught.value), caught.value.category) == (
        "import output could not be written",
        "io",
    )


def test_a_streamed_import_writes_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = write_corpus(import_exchanges("anthropic", FIXTURE), tmp_path / "whole")
    summary = import_corpus("anthropic", FIXTURE, tmp_path / "one")
    # the fixture: 6 lines, line 2 blank, so 5 exchanges; 7 claims, 10 citations, 7 texts
    assert summary.exchanges == 5
    assert dict(summary.rows) == {"claims": 7, "evidence": 10, "citations": 10, "sources": 7}
    assert [p.name for p in summary.paths] == [p.name for p in whole]
    # one batch: one row group, the same bytes as write_corpus of the whole tables
    for streamed, written in zip(summary.paths, whole, strict=True):
        assert streamed.read_bytes() == written.read_bytes()
    # a batch per line: the same rows in one row group per batch, the same bytes again
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BLOCK_BYTES", 16)
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BATCH_BYTES", 1)
    first = import_corpus("anthropic", FIXTURE, tmp_path / "many").paths
    second = import_corpus("anthropic", FIXTURE, tmp_path / "again").paths
    for streamed, written, repeated in zip(first, whole, second, strict=True):
        assert pq.read_table(streamed).equals(pq.read_table(written))
        assert pq.ParquetFile(streamed).num_row_groups == 5  # one per exchange
        assert streamed.read_bytes() == repeated.read_bytes()
    sources = tmp_path / "many" / "sources.parquet"
    assert stat.S_IMODE(sources.stat().st_mode) == 0o600
    assert pq.read_schema(sources).metadata == {b"citelens.privacy": b"PRIVATE"}


def test_a_refused_streamed_import_leaves_the_old_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    old = {path.name: path.read_bytes() for path in import_corpus("anthropic", FIXTURE, out).paths}
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BLOCK_BYTES", 16)
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BATCH_BYTES", 1)
    bad = tmp_path / "bad.jsonl"
    # lines 1 and 2 convert (and are written) before line 3 is refused
    bad.write_text('{"content": []}\n{"content": []}\n{"content": 3}\n', encoding="utf-8")
    with pytest.raises(CitationImportError) as caught:
        import_corpus("anthropic", bad, out)
    assert caught.value.detail == "anthropic line 3: content must be a list"
    assert {path.name: path.read_bytes() for path in out.iterdir()} == old


def test_an_interrupt_between_batches_leaves_the_old_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a Ctrl-C arriving while the third batch converts (the writer thread holds the second):
    # the interrupt propagates, the old set stays, no staging file is left
    out = tmp_path / "out"
    old = {path.name: path.read_bytes() for path in import_corpus("anthropic", FIXTURE, out).paths}
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BLOCK_BYTES", 16)
    monkeypatch.setattr("citelens.importers._lines.DEFAULT_BATCH_BYTES", 1)
    convert = FORMATS["anthropic"]
    calls = []

    def interrupted(raw):  # type: ignore[no-untyped-def]
        calls.append(raw.height)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return convert(raw)

    monkeypatch.setattr("citelens.importers._converter", lambda fmt: interrupted)
    with pytest.raises(KeyboardInterrupt):
        import_corpus("anthropic", FIXTURE, out)
    assert calls == [1, 1, 1]  # one exchange per batch, the third interrupted
    assert {path.name: path.read_bytes() for path in out.iterdir()} == old  # no staging left
