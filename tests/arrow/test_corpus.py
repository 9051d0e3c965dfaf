"""The corpus mode over table objects (a dataset is scanned lazily, a DuckDB relation read
once), and corpus results as Arrow and Polars (issue 11 item 3).

Two documents. doc-1: claim c1 cites e1 (adjudicated "supports"), claim c2 cites nothing
(orphan). doc-2: claim c3 cites e3 (adjudicated "contradicts"), e4 is unused. So per document
the precision is 1.0 and 0.0 and the recall 0.5 and 0.0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

from citelens.corpus import (
    run_minimality_corpus,
    run_summary_citations_corpus,
    run_support_corpus,
)

from ._forms import forms

KEY = b"citelens-arrow-test-key"  # a fixed pseudonym key: summaries comparable across runs
D1, D2 = "doc-1", "doc-2"
CLAIMS = [
    {"document_ref": D1, "claim_id": "c1", "start": 0, "end": 10},
    {"document_ref": D1, "claim_id": "c2", "start": 11, "end": 20},
    {"document_ref": D2, "claim_id": "c3", "start": 0, "end": 10},
]
EVIDENCE = [
    {"document_ref": D1, "evidence_id": "e1", "start": 0, "end": 5, "source_length": 40},
    {"document_ref": D2, "evidence_id": "e3", "start": 0, "end": 5, "source_length": 40},
    {"document_ref": D2, "evidence_id": "e4", "start": 6, "end": 9, "source_length": 40},
]
CITATIONS = [
    {"document_ref": D1, "claim_id": "c1", "evidence_id": "e1"},
    {"document_ref": D2, "claim_id": "c3", "evidence_id": "e3"},
]
ADJUDICATIONS = [
    {"document_ref": D1, "claim_id": "c1", "evidence_id": "e1", "label": "supports"},
    {"document_ref": D2, "claim_id": "c3", "evidence_id": "e3", "label": "contradicts"},
]
ROLES = {
    "claims": CLAIMS,
    "evidence": EVIDENCE,
    "citations": CITATIONS,
    "adjudications": ADJUDICATIONS,
}


def _support(tmp: Path, form: str) -> Any:
    inputs = {name: forms(rows, tmp, name)[form]() for name, rows in ROLES.items()}
    return run_support_corpus(**inputs, pseudonym_key=KEY)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _support(tmp_path_factory.mktemp("baseline"), "parquet")


def test_baseline_values(baseline: Any) -> None:
    rows = baseline.documents.select(
        ["document_ref", "claim_count", "citation_precision", "support_recall"]
    ).to_pylist()
    assert rows == [
        {"document_ref": D1, "claim_count": 2, "citation_precision": 1.0, "support_recall": 0.5},
        {"document_ref": D2, "claim_count": 1, "citation_precision": 0.0, "support_recall": 0.0},
    ]


@pytest.mark.parametrize(
    "form", ["pa.Table", "pl.DataFrame", "pl.LazyFrame", "pyarrow.dataset", "duckdb", "capsule"]
)
def test_every_table_form_gives_the_parquet_outputs(
    form: str, baseline: Any, tmp_path: Path
) -> None:
    result = _support(tmp_path, form)
    assert result.documents.equals(baseline.documents)
    assert result.summary_json() == baseline.summary_json()


def test_support_result_as_polars_and_arrow_stream(baseline: Any) -> None:
    assert baseline.to_arrow() is baseline.documents
    frame = baseline.to_polars()
    assert frame["document_ref"].to_list() == [D1, D2]
    assert pa.table(baseline).equals(baseline.documents)
    assert pl.DataFrame(baseline).equals(frame)


def test_summary_corpus_from_a_dataset(tmp_path: Path) -> None:
    claims = [
        {"document_ref": D1, "claim_id": "s1", "evidence_id": "x1"},
        {"document_ref": D2, "claim_id": "s2", "evidence_id": "x-missing"},
    ]
    evidence = [{"document_ref": D1, "id": "x1", "start": 0, "end": 4}]
    expected = run_summary_citations_corpus(
        forms(claims, tmp_path, "c")["parquet"](), forms(evidence, tmp_path, "e")["parquet"]()
    )
    result = run_summary_citations_corpus(
        forms(claims, tmp_path, "c")["pyarrow.dataset"](),
        forms(evidence, tmp_path, "e")["duckdb"](),
    )
    assert result.documents.equals(expected.documents)
    # doc-1's one claim cites an existing record; doc-2's cites none that exists
    assert result.to_polars()["passed"].to_list() == [True, False]
    assert pa.table(result).equals(result.documents)


def test_minimality_corpus_from_lazy_frames(tmp_path: Path) -> None:
    ref = "sha256:" + "e" * 64
    claim, cite = "sha256:" + "a" * 64, "sha256:" + "c" * 64
    documents = [{"document_ref": ref, "source_text": "Alpha beta gamma."}]
    claims = [{"document_ref": ref, "claim_id": claim, "start": 0, "end": 10}]
    citations = [
        {"document_ref": ref, "claim_id": claim, "citation_id": cite, "start": 0, "end": 17}
    ]
    built = [
        forms(rows, tmp_path, n) for n, rows in (("d", documents), ("c", claims), ("i", citations))
    ]
    expected = run_minimality_corpus(*(f["parquet"]() for f in built), pseudonym_key=KEY)
    result = run_minimality_corpus(*(f["pl.LazyFrame"]() for f in built), pseudonym_key=KEY)
    assert result.documents.equals(expected.documents)
    # 4 citation tokens against 2 required: one flagged record
    assert result.to_polars()["flagged_count"].to_list() == [1]
