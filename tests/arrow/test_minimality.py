"""check_citation_minimality (and the batch) over every table form, and the minimality
report as Arrow and Polars (issue 11 item 3).

Source "Alpha beta gamma. Delta epsilon zeta eta." (Unicode word and punctuation tokens):
claim A needs [0, 10) "Alpha beta" (2 tokens) and its citation [0, 17) "Alpha beta gamma."
has 4 tokens (Alpha, beta, gamma, "."): excess 2, the left piece none, the right [10, 17).
Claim B needs [18, 31) "Delta epsilon" and its citation is exactly that: minimal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pytest

from citelens.minimality import check_citation_minimality, check_citation_minimality_batch
from citelens.minimality._check import check_with_table

from ._forms import FORM_NAMES, forms

SOURCE = "Alpha beta gamma. Delta epsilon zeta eta."
A, B = "sha256:" + "a" * 64, "sha256:" + "b" * 64
CITE_A, CITE_B = "sha256:" + "c" * 64, "sha256:" + "d" * 64
REF = "sha256:" + "e" * 64
# the canary sits in a column the contract does not read: no output may show it
CLAIMS = [
    {"claim_id": A, "start": 0, "end": 10, "note": "CANARY-9b1e"},
    {"claim_id": B, "start": 18, "end": 31, "note": "CANARY-9b1e"},
]
CITATIONS = [
    {"claim_id": A, "citation_id": CITE_A, "start": 0, "end": 17},
    {"claim_id": B, "citation_id": CITE_B, "start": 18, "end": 31},
]


@pytest.fixture(scope="module")
def baseline() -> Any:
    return check_citation_minimality(SOURCE, CLAIMS, CITATIONS)


def test_baseline_values(baseline: Any) -> None:
    assert (baseline.claim_count, baseline.citation_count, baseline.flagged_count) == (2, 2, 1)
    first, second = baseline.records
    assert (first.citation_token_count, first.required_token_count) == (4, 2)
    assert first.excess_token_count == 2 and first.status.value == "excess_context"
    assert second.excess_token_count == 0 and second.status.value == "minimal"


@pytest.mark.parametrize("form", FORM_NAMES)
def test_every_form_gives_the_same_report_json(form: str, baseline: Any, tmp_path: Path) -> None:
    claims = forms(CLAIMS, tmp_path, "claims")[form]()
    citations = forms(CITATIONS, tmp_path, "citations")[form]()
    report = check_citation_minimality(SOURCE, claims, citations)
    assert report.to_json() == baseline.to_json()
    assert "CANARY" not in report.to_json() + report.to_markdown()


def test_report_to_arrow_is_the_cli_parquet_table(baseline: Any) -> None:
    _, table = check_with_table(SOURCE, CLAIMS, CITATIONS)  # what --parquet writes
    assert baseline.to_arrow().equals(table)
    assert baseline.to_arrow().schema.equals(table.schema)
    rows = baseline.to_arrow().to_pylist()
    assert [r["citation_start"] for r in rows] == [0, 18]
    # A's citation [0, 17) covers [0, 10): no left piece, the right piece [10, 17)
    assert (rows[0]["excess_left_start"], rows[0]["excess_left_end"]) == (None, None)
    assert (rows[0]["excess_right_start"], rows[0]["excess_right_end"]) == (10, 17)
    assert (rows[1]["excess_right_start"], rows[1]["status"]) == (None, "minimal")


def test_report_to_arrow_of_a_missed_span_has_no_pieces() -> None:
    # a citation [18, 31) for claim A's required [0, 10) does not cover it
    citations = [{"claim_id": A, "citation_id": CITE_A, "start": 18, "end": 31}]
    report = check_citation_minimality(SOURCE, CLAIMS[:1], citations)
    _, table = check_with_table(SOURCE, CLAIMS[:1], citations)
    assert report.to_arrow().equals(table)
    row = report.to_arrow().to_pylist()[0]
    assert row["status"] == "missing_required_span" and row["excess_left_start"] is None


def test_report_as_polars_and_arrow_stream(baseline: Any) -> None:
    frame = baseline.to_polars()
    assert frame.height == 2
    assert frame["excess_token_count"].to_list() == [2, 0]
    assert frame["review_required"].to_list() == [True, False]
    assert pa.table(baseline).equals(baseline.to_arrow())
    assert pl.DataFrame(baseline).equals(frame)
    connection = duckdb.connect()  # held: duckdb 1.2 closes an unreferenced connection
    relation = connection.from_arrow(baseline)
    assert relation.aggregate("sum(excess_token_count)").fetchall() == [(2,)]


def test_an_empty_report_has_the_columns() -> None:
    report = check_citation_minimality(SOURCE, [], [])
    assert report.to_arrow().num_rows == 0
    assert report.to_polars().columns == report.to_arrow().column_names
    assert len(report.to_polars().columns) == 15


@pytest.mark.parametrize("form", ["pl.LazyFrame", "pyarrow.dataset", "duckdb", "capsule"])
def test_batch_split_form_accepts_table_objects(form: str, tmp_path: Path) -> None:
    documents = [{"document_ref": REF, "source_text": SOURCE}]
    claims = [dict(row, document_ref=REF) for row in CLAIMS]
    citations = [dict(row, document_ref=REF) for row in CITATIONS]
    expected = check_citation_minimality_batch(documents, claims, citations)
    result = check_citation_minimality_batch(
        forms(documents, tmp_path, "documents")[form](),
        forms(claims, tmp_path, "claims")[form](),
        forms(citations, tmp_path, "citations")[form](),
    )
    assert result.table.equals(expected.table)
    assert result.reports[REF].to_json() == expected.reports[REF].to_json()
    assert result.to_arrow().equals(result.table)
    assert pa.table(result).equals(result.table)
    assert result.to_polars()["document_ref"].to_list() == [REF, REF]
