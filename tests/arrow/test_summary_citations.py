"""build_summary_citation_report over every table form, and the summary report as Arrow and
Polars (issue 11 item 3).

Three claims: claim-1 cites ev-1 and claim-3 cites ev-2 (both exist), claim-2 cites an id no
evidence record has. So 2 of 3 claims are supported (coverage 2/3), one citation is invalid
and its claim unsupported, and the gate fails on those three reasons.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pytest

from citelens import Limits, build_summary_citation_report
from citelens.errors import SummaryCitationError

from ._forms import FORM_NAMES, forms

CLAIMS = [
    {"claim_id": "claim-CANARY-9b1e", "evidence_id": "ev-1"},
    {"claim_id": "claim-2", "evidence_id": "ev-CANARY-9b1e-missing"},
    {"claim_id": "claim-3", "evidence_id": "ev-2"},
]
EVIDENCE = [{"id": "ev-1", "start": 0, "end": 10}, {"id": "ev-2", "start": 10, "end": 20}]


@pytest.fixture(scope="module")
def baseline() -> Any:
    return build_summary_citation_report(CLAIMS, EVIDENCE)


def test_baseline_values(baseline: Any) -> None:
    metrics = baseline.metrics
    assert metrics.claim_count == 3 and metrics.supported_claim_count == 2
    assert baseline.coverage == pytest.approx(2 / 3)
    assert metrics.invalid_citation_count == 1 and metrics.unsupported_claim_count == 1
    assert not baseline.passed
    assert list(metrics.failure_reasons) == [
        "invalid_citation",
        "missing_source_record",
        "unsupported_claim",
    ]


@pytest.mark.parametrize("form", FORM_NAMES)
def test_every_form_gives_the_same_report_json(form: str, baseline: Any, tmp_path: Path) -> None:
    claims = forms(CLAIMS, tmp_path, "claims")[form]()
    evidence = forms(EVIDENCE, tmp_path, "evidence")[form]()
    assert build_summary_citation_report(claims, evidence).to_json() == baseline.to_json()


@pytest.mark.parametrize("form", ["pl.LazyFrame", "pyarrow.dataset", "duckdb", "capsule"])
def test_the_limit_holds_for_lazy_and_stream_forms(form: str, tmp_path: Path) -> None:
    claims = forms(CLAIMS, tmp_path, "claims")[form]()  # 3 claims, bound 2
    with pytest.raises(SummaryCitationError) as caught:
        build_summary_citation_report(claims, EVIDENCE, limits=Limits(claims=2))
    assert caught.value.category == "limit"
    assert "CANARY" not in str(caught.value)


def test_a_failing_lazy_frame_is_the_table_error() -> None:
    plan = pl.LazyFrame({"claim_id": ["CANARY-9b1e"]}).select(pl.col("CANARY-9b1e-missing"))
    with pytest.raises(SummaryCitationError) as caught:
        build_summary_citation_report(plan, EVIDENCE)
    error = caught.value
    assert error.category == "input"
    assert error.__cause__ is None and error.__context__ is None
    assert "CANARY" not in str(error) and "CANARY" not in repr(error)


def test_report_as_polars_and_arrow_stream(baseline: Any) -> None:
    table = baseline.to_arrow()
    assert table.num_rows == 1
    frame = baseline.to_polars()
    assert frame.height == 1
    assert frame["claim_count"].to_list() == [3]
    assert frame["supported_claim_count"].to_list() == [2]
    assert frame["passed"].to_list() == [False]
    assert pa.table(baseline).equals(table)
    assert pl.DataFrame(baseline).equals(frame)
    connection = duckdb.connect()  # held: duckdb 1.2 closes an unreferenced connection
    relation = connection.from_arrow(baseline)
    assert relation.select("claim_count", "invalid_citation_count").fetchall() == [(3, 1)]
