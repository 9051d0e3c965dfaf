"""Canary identifiers and texts never appear in any output, repr or error (conventions §5.4)."""

from __future__ import annotations

import logging
import pathlib
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.errors import SummaryCitationGateError
from citelens.summary_citations import (
    assert_summary_citation_gate,
    build_summary_citation_report,
)
from citelens.summary_citations._node_rules import Rules, claim_stage
from citelens.summary_citations._nodes import MODE_CLAIM, MODE_EVIDENCE, shred

CANARY = "CANARY-priv-93ab"


def _inputs(suffix: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    claims = [
        {
            "claim_id": f"{CANARY}-claim-{suffix}",
            "claim": f"{CANARY} claim text {suffix}",
            "citations": [{"evidence_id": f"{CANARY}-ev-{suffix}", "quote": f"{CANARY} q"}],
        },
        {
            "claim": f"{CANARY} uncited",
            "citations": [{"evidence_id": f"{CANARY}-unknown-{suffix}"}],
        },
        {"claim": f"{CANARY} span", "start": 3, "end": 9},
    ]
    evidence = [
        {"id": f"{CANARY}-ev-{suffix}", "start": 3, "end": 9, "value": f"{CANARY} source"},
        {"id": f"{CANARY}-ev-{suffix}", "value": f"{CANARY} duplicate"},
        {"value": f"{CANARY} no reference"},
    ]
    return claims, evidence


def _all_text(report: Any, tmp_path: pathlib.Path) -> str:
    parts = [
        report.to_json(),
        report.to_json(indent=2),
        report.metrics.to_json(),
        report.to_markdown(),
        repr(report),
        repr(report.metrics),
        str(report.to_dict()),
        str(report.to_arrow().to_pylist()),
    ]
    for writer, name in (
        (report.write_json, "r.json"),
        (report.write_markdown, "r.md"),
        (report.write_parquet, "r.parquet"),
    ):
        parts.append(writer(tmp_path / name).read_bytes().decode("latin-1"))
    return "\n".join(parts)


@settings(max_examples=25, deadline=None)
@given(suffix=st.text(min_size=1, max_size=8))
def test_canaries_absent_from_every_output(suffix: str, tmp_path_factory: Any) -> None:
    tmp_path = tmp_path_factory.mktemp("privacy")
    claims, evidence = _inputs(suffix)
    for form in ("python", "arrow", "polars"):
        if form == "python":
            c: Any = claims
            e: Any = evidence
        else:
            c = pa.Table.from_struct_array(pa.array(claims))
            e = pa.Table.from_struct_array(pa.array(evidence))
            if form == "polars":
                c, e = pl.from_arrow(c), pl.from_arrow(e)
        report = build_summary_citation_report(c, e)
        text = _all_text(report, tmp_path)
        assert CANARY not in text
        with pytest.raises(SummaryCitationGateError) as info:
            assert_summary_citation_gate(c, e)
        assert CANARY not in str(info.value) + repr(info.value) + repr(info.value.args)


def test_nothing_logged(caplog: pytest.LogCaptureFixture) -> None:
    claims, evidence = _inputs("log")
    with caplog.at_level(logging.DEBUG):
        build_summary_citation_report(claims, evidence)
    assert CANARY not in caplog.text


def test_internal_reprs_redacted() -> None:
    claims, evidence = _inputs("repr")
    # The adapter's node tables and the rule stage carry values only as columns.
    claim_nodes = shred(list(claims), range(len(claims)), MODE_CLAIM)
    evidence_nodes = shred(list(evidence), range(len(evidence)), MODE_EVIDENCE)
    assert CANARY not in repr(claim_nodes)
    assert CANARY not in repr(evidence_nodes)
    assert CANARY not in repr(claim_stage(Rules(claim_nodes), len(claims)))
