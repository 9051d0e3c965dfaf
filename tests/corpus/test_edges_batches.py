"""The compact edge batches of ``edges.parquet`` (``citelens.corpus._edges``): identifiers
pseudonymised once per distinct value, export order by the pseudonyms' ranks, text
materialised slice by slice; the file equals the in-memory table and a per-edge reference."""

from __future__ import annotations

import hashlib
import hmac
import pathlib
from typing import Any

import polars as pl
import pyarrow.parquet as pq
import pytest

from citelens import corpus
from citelens._pseudonym import pseudonymise
from citelens.corpus import _edges

from .test_support_corpus import dirty_corpus, dirty_tables

ORDER = ("document_ref", "claim_id", "evidence_id", "start", "end", "source_id")
KEY = b"citelens-test-pseudonym-key-0001"  # 32 bytes


def _pseudonym(value: str | None) -> str | None:
    # the documented form: "hmac-sha256:" + hex HMAC-SHA-256(KEY, UTF-8 identifier); "" stays ""
    if value is None or value == "":
        return value
    return "hmac-sha256:" + hmac.new(KEY, value.encode("utf-8"), hashlib.sha256).hexdigest()


def _key(edge: dict[str, Any]) -> tuple[Any, ...]:
    def part(value: Any) -> tuple[int, Any]:  # nulls first, text in UTF-8 byte order
        if value is None:
            return (0, b"")
        return (1, value.encode("utf-8") if isinstance(value, str) else value)

    return tuple(part(edge[name]) for name in ORDER)


def _reference(raw_edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pseudonymised export computed edge by edge from the raw one."""
    shown = [
        {
            k: _pseudonym(v) if k in ("claim_id", "evidence_id", "source_id") else v
            for k, v in e.items()
        }
        for e in raw_edges
    ]
    return sorted(shown, key=_key)


def test_hand_checked_pseudonymised_order() -> None:
    # One document, claim "c" citing "a" and "b" (both unknown evidence: invalid edges). Under
    # KEY the pseudonyms are hmac-sha256:83428129... ("a") and hmac-sha256:61b9dd58... ("b")
    # (computed once with Python's hmac module), so the export lists "b" first although "a"
    # sorts first raw.
    claims = pl.DataFrame(
        {"document_ref": ["d1"], "claim_id": ["c"], "start": [0], "end": [1]}
    ).with_columns(pl.Series("citations", [["a", "b"]]))
    raw = corpus.run_support_corpus(claims, edges=True, raw_identifiers=True).edges
    pseudonymised = corpus.run_support_corpus(claims, edges=True, pseudonym_key=KEY).edges
    assert raw is not None and pseudonymised is not None
    assert raw.column("evidence_id").to_pylist() == ["a", "b"]
    assert _pseudonym("a") == (
        "hmac-sha256:8342812965f16c9c4d9152f61987a482f39b7f896bc3b61e0cdccb1a6851890e"
    )
    assert _pseudonym("b") == (
        "hmac-sha256:61b9dd582dac74266e336075a2ece3da7630c87bdd4d9b5d16df3feae1ae7739"
    )
    assert pseudonymised.column("evidence_id").to_pylist() == [_pseudonym("b"), _pseudonym("a")]
    assert pseudonymised.column("claim_id").to_pylist() == [_pseudonym("c")] * 2


@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.2])
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("batch", [3, 1000])
def test_pseudonymised_export_equals_the_per_edge_reference(
    seed: int, fraction: float, batch: int
) -> None:
    # Dirty corpora (defective documents have no edges): hashing each distinct identifier
    # once and sorting by ranks gives exactly the per-edge pseudonyms in byte order.
    tables = dirty_tables(dirty_corpus(seed, fraction, documents=50))
    raw = corpus.run_support_corpus(
        *tables.values(), batch_documents=batch, edges=True, raw_identifiers=True
    ).edges
    shown = corpus.run_support_corpus(
        *tables.values(), batch_documents=batch, edges=True, pseudonym_key=KEY
    ).edges
    assert raw is not None and shown is not None
    assert raw.num_rows > 0
    assert shown.schema == _edges.EDGE_TABLE_SCHEMA
    assert shown.to_pylist() == _reference(raw.to_pylist())
    assert raw.to_pylist() == sorted(raw.to_pylist(), key=_key)


@pytest.mark.parametrize("raw", [True, False])
def test_streamed_file_equals_the_in_memory_table_in_small_slices(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, raw: bool
) -> None:
    # Slices of 5 edges: each is one row group; the file's content is the in-memory table.
    monkeypatch.setattr(_edges, "SLICE_ROWS", 5)
    tables = dirty_tables(dirty_corpus(3, 0.2, documents=30))
    expected = corpus.run_support_corpus(
        *tables.values(), batch_documents=4, edges=True, raw_identifiers=raw, pseudonym_key=KEY
    ).edges
    assert expected is not None
    out = tmp_path / "out"
    corpus.write_support_corpus(
        *tables.values(),
        out_dir=out,
        batch_documents=4,
        edges=True,
        raw_identifiers=raw,
        pseudonym_key=KEY,
    )
    written = pq.read_table(out / "edges.parquet")
    assert written.schema == _edges.EDGE_TABLE_SCHEMA
    assert written.equals(expected)
    rows = pq.ParquetFile(out / "edges.parquet").metadata.num_row_groups
    assert rows >= expected.num_rows // 5


def test_each_distinct_identifier_is_hashed_once_per_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two documents in one batch, each with claim "c" citing "e" twice over (embedded and
    # explicit, different spans): 3 edges per document, but the batch makes one pseudonym
    # call over its distinct identifiers of all three columns: "c", "e" and "" (the kernel's
    # source id of an edge without a source, which stays "").
    hashed: list[list[str]] = []
    original = pseudonymise

    def spy(frame: pl.DataFrame, columns: list[str], key: bytes) -> pl.DataFrame:
        hashed.append(frame.get_column(columns[0]).to_list())
        return original(frame, columns, key)

    monkeypatch.setattr(_edges, "pseudonymise", spy)
    claims = pl.DataFrame(
        {"document_ref": ["d1", "d2"], "claim_id": ["c", "c"], "start": [0, 0], "end": [1, 1]}
    ).with_columns(pl.Series("citations", [["e"], ["e"]]))
    citations = pl.DataFrame(
        {
            "document_ref": ["d1", "d1", "d2", "d2"],
            "claim_id": ["c"] * 4,
            "evidence_id": ["e"] * 4,
            "start": [0, 1, 0, 1],
            "end": [1, 2, 1, 2],
        }
    )
    result = corpus.run_support_corpus(claims, None, citations, edges=True)
    assert result.edges is not None and result.edges.num_rows == 6
    assert [sorted(values) for values in hashed] == [["", "c", "e"]]


def test_a_batch_in_flight_holds_codes_not_text() -> None:
    tables = dirty_tables(dirty_corpus(2, 0.0, documents=10))
    edges = corpus.run_support_corpus(*tables.values(), edges=True, raw_identifiers=True).edges
    assert edges is not None
    exported = pl.from_arrow(edges)
    claims = pl.from_arrow(tables["claims"])
    assert isinstance(exported, pl.DataFrame) and isinstance(claims, pl.DataFrame)
    # the kernel's form: each edge's document as its code in the batch, not its reference
    refs = claims.select("document_ref").unique().sort("document_ref")
    batch = refs.with_row_index("_d").with_columns(pl.col("_d").cast(pl.UInt32))
    kernel = exported.join(batch, on="document_ref", how="left", maintain_order="left")
    coded = _edges.edge_batch(kernel.drop("document_ref"), batch, raw_identifiers=False, key=KEY)
    assert not any(dtype == pl.String for dtype in coded.codes.dtypes)
    assert coded.num_rows == edges.num_rows
    shown = corpus.run_support_corpus(*tables.values(), edges=True, pseudonym_key=KEY).edges
    assert shown is not None
    assert coded.table().equals(shown)
