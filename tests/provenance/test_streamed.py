"""``write_provenance_corpus``: the corpus checked and written batch by batch gives the rows,
summary and Markdown of ``run_provenance`` + ``write_provenance``."""

from __future__ import annotations

import json
import pathlib

import polars as pl
import pyarrow.parquet as pq
import pytest

from citelens.errors import ProvenanceError
from citelens.provenance import run_provenance, write_provenance, write_provenance_corpus

KEY = b"k" * 32
# three documents: d1 cites its source exactly and misquotes once, d2 quotes a text found
# elsewhere in its source, d3 has a quote but no source text
SOURCES = [
    {"document_ref": "d1", "source_id": "s0", "text": "The cat sat on the mat."},
    {"document_ref": "d2", "source_id": "s0", "text": "Dogs bark. Dogs bark loudly."},
]
EVIDENCE: list[dict[str, object]] = [
    {
        "document_ref": "d1",
        "evidence_id": "e0",
        "source_id": "s0",
        "quote": "cat",
        "start": 4,
        "end": 7,
    },
    {"document_ref": "d1", "evidence_id": "e1", "source_id": "s0", "quote": "nothing alike"},
    {
        "document_ref": "d2",
        "evidence_id": "e0",
        "source_id": "s0",
        "quote": "loudly",
        "start": 0,
        "end": 6,
    },
    {"document_ref": "d3", "evidence_id": "e0", "source_id": "s0", "quote": "x"},
]
CITATIONS = [
    {"document_ref": str(e["document_ref"]), "claim_id": "c0", "evidence_id": str(e["evidence_id"])}
    for e in EVIDENCE
]


def _corpus(folder: pathlib.Path) -> pathlib.Path:
    folder.mkdir()
    for role, rows in (("evidence", EVIDENCE), ("citations", CITATIONS), ("sources", SOURCES)):
        pl.DataFrame(rows, infer_schema_length=None).write_parquet(folder / f"{role}.parquet")
    return folder


@pytest.mark.parametrize("batch_documents", [1, 2, 20_000])
def test_the_same_outputs_as_the_result(tmp_path: pathlib.Path, batch_documents: int) -> None:
    corpus = _corpus(tmp_path / "corpus")
    result = run_provenance(corpus, pseudonym_key=KEY)
    write_provenance(result, tmp_path / "whole")
    out = tmp_path / f"streamed-{batch_documents}"
    summary = write_provenance_corpus(
        corpus, out, pseudonym_key=KEY, batch_documents=batch_documents
    )
    assert summary == result.summary
    # d1: exact + absent, d2: relocated ("loudly" at 21, not 0), d3: not_checkable
    assert summary["totals"]["counts"] == {
        "exact": 1,
        "offset_unit": 0,
        "relocated": 1,
        "misattributed": 0,
        "normalized": 0,
        "fuzzy": 0,
        "absent": 1,
        "not_checkable": 1,
    }
    for name in ("summary.json", "summary.md"):
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    assert json.loads((out / "summary.json").read_text())["document_count"] == 3
    streamed = pq.read_table(out / "provenance.parquet")
    assert streamed.equals(pq.read_table(tmp_path / "whole" / "provenance.parquet"))
    # one row group per batch of documents: 3 documents in batches of 1, 2 or all
    groups = {1: 3, 2: 2, 20_000: 1}[batch_documents]
    assert pq.ParquetFile(out / "provenance.parquet").num_row_groups == groups


def test_progress_counts_documents(tmp_path: pathlib.Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    seen: list[tuple[int, int]] = []
    write_provenance_corpus(
        corpus,
        tmp_path / "out",
        pseudonym_key=KEY,
        batch_documents=2,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(2, 3), (3, 3)]


def test_a_refused_corpus_leaves_the_old_outputs(tmp_path: pathlib.Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    out = tmp_path / "out"
    write_provenance_corpus(corpus, out, pseudonym_key=KEY)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(ProvenanceError) as caught:
        write_provenance_corpus(tmp_path / "missing", out, pseudonym_key=KEY)
    assert (str(caught.value), caught.value.category) == (
        "provenance input is not accessible",
        "input",
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(ProvenanceError) as caught:
        write_provenance_corpus(corpus, 3, pseudonym_key=KEY)
    assert (str(caught.value), caught.value.category) == (
        "provenance outputs could not be written",
        "io",
    )
