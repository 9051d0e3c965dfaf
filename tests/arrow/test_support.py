"""compute_citation_support_metrics over every table form, and the support report as Arrow
and Polars (issue 11 item 3). The rows are README's example: claim-001 cites evidence-001
(adjudicated "supports"), claim-002 cites nothing, evidence-unused is cited by no claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pytest

from citelens import Limits, compute_citation_support_metrics
from citelens.errors import CitationSupportError

from ._forms import FORM_NAMES, forms

CLAIMS = [
    {"claim_id": "claim-001", "start": 0, "end": 12, "citations": ["evidence-001"]},
    {"claim_id": "claim-002", "start": 13, "end": 25, "citations": []},
]
EVIDENCE = [
    {"evidence_id": "evidence-001", "start": 4, "end": 10, "source_length": 24},
    {"evidence_id": "evidence-unused", "start": 12, "end": 18, "source_length": 24},
]
ADJUDICATIONS = [{"claim_id": "claim-001", "evidence_id": "evidence-001", "label": "supports"}]


def _report(claims: Any, evidence: Any, adjudications: Any) -> Any:
    return compute_citation_support_metrics(claims, evidence, adjudications=adjudications)


@pytest.fixture(scope="module")
def baseline() -> Any:
    return _report(CLAIMS, EVIDENCE, ADJUDICATIONS)


def test_baseline_values(baseline: Any) -> None:
    # 1 supporting edge / 1 adjudicated edge; 1 of 2 claims has a supporting pair
    assert baseline.citation_precision == 1.0
    assert baseline.support_recall == 0.5
    assert baseline.claim_count == 2 and baseline.evidence_count == 2
    assert baseline.citation_count == 1  # one de-duplicated edge
    assert baseline.orphan_claim_count == 1  # claim-002
    assert baseline.unused_evidence_count == 1  # evidence-unused


@pytest.mark.parametrize("form", FORM_NAMES)
def test_every_form_gives_the_same_report_json(form: str, baseline: Any, tmp_path: Path) -> None:
    claims = forms(CLAIMS, tmp_path, "claims")[form]()
    evidence = forms(EVIDENCE, tmp_path, "evidence")[form]()
    adjudications = forms(ADJUDICATIONS, tmp_path, "adjudications")[form]()
    assert _report(claims, evidence, adjudications).to_json() == baseline.to_json()


@pytest.mark.parametrize("form", ["pl.LazyFrame", "pyarrow.dataset", "duckdb", "capsule"])
def test_the_limit_holds_for_lazy_and_stream_forms(form: str, tmp_path: Path) -> None:
    claims = forms(CLAIMS, tmp_path, "claims")[form]()  # 2 claims, bound 1
    with pytest.raises(CitationSupportError) as caught:
        compute_citation_support_metrics(claims, [], limits=Limits(claims=1))
    assert str(caught.value) == "claim collection exceeds the record limit"
    assert caught.value.category == "limit"


def test_a_failing_lazy_frame_is_the_collection_error() -> None:
    plan = pl.LazyFrame({"claim_id": ["CANARY-9b1e"]}).select(pl.col("CANARY-9b1e-missing"))
    with pytest.raises(CitationSupportError) as caught:
        compute_citation_support_metrics(plan, [])
    error = caught.value
    assert str(error) == "claim collection must be an iterable of records"
    assert error.category == "collection"
    assert error.__cause__ is None and error.__context__ is None
    assert "CANARY" not in repr(error)


def test_report_as_polars_and_arrow_stream(baseline: Any) -> None:
    table = baseline.to_arrow()
    assert table.num_rows == 1 and table.num_columns == 59  # one flat row of 59 leaves
    frame = baseline.to_polars()
    assert isinstance(frame, pl.DataFrame)
    assert frame.shape == (1, 59)
    assert frame["citation_precision"].to_list() == [1.0]
    assert frame["support_recall"].to_list() == [0.5]
    # the PyCapsule stream is the same one row
    assert pa.table(baseline).equals(table)
    assert pl.DataFrame(baseline).equals(frame)
    assert pa.RecordBatchReader.from_stream(baseline).read_all().equals(table)


def test_duckdb_reads_the_report(baseline: Any) -> None:
    connection = duckdb.connect()
    relation = connection.from_arrow(baseline)
    assert relation.select("claim_count", "orphan_claim_count").fetchall() == [(2, 1)]


def test_tables_as_polars(baseline: Any) -> None:
    tables = baseline.tables(raw_identifiers=True)
    assert tables is not None
    frames = tables.to_polars()
    assert sorted(frames) == ["adjudications", "claims", "edges", "evidence"]
    assert frames["claims"].height == 2 and frames["evidence"].height == 2
    assert frames["edges"].height == 1  # claim-001 → evidence-001
    assert frames["adjudications"].height == 1
    for name, frame in frames.items():
        assert frame.equals(pl.from_arrow(getattr(tables, name)))
    assert pl.DataFrame(tables.edges).equals(frames["edges"])  # each table streams itself
