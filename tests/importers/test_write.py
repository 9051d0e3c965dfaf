"""Writing an import: one atomic set of four Parquet files, sources private, same bytes."""

from __future__ import annotations

import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from citelens.errors import CitationImportError
from citelens.importers import import_exchanges, write_corpus

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
