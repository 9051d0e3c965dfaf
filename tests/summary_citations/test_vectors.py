"""Every vector of shared/vectors/summary_citations/, plus the table-equivalent variants."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.errors import SummaryCitationGateError
from citelens.summary_citations import (
    assert_summary_citation_gate,
    build_summary_citation_report,
)
from conftest import (
    assert_fixed_error,
    expand_kwargs,
    expand_markers,
    load_vector,
    vector_files,
    vector_params,
)

VECTORS = vector_params("summary_citations")
TABLE_VECTORS = [
    pytest.param(path, id=path.stem)
    for path in vector_files("summary_citations")
    if load_vector(path).get("table_equivalent")
] or [pytest.param(None, marks=pytest.mark.skip(reason="../shared/vectors absent"))]
GATE_VECTORS = [
    pytest.param(path, id=path.stem)
    for path in vector_files("summary_citations")
    if "expected_gate" in load_vector(path)
] or [pytest.param(None, marks=pytest.mark.skip(reason="../shared/vectors absent"))]


def _call(case: dict[str, Any], tmp_path: pathlib.Path, func: Any = build_summary_citation_report):
    inp = case["input"]
    kwargs = expand_kwargs(inp.get("kwargs", {}), tmp_path)
    args = []
    for key in ("claims", "evidence"):
        if key in inp:
            kwargs[key] = expand_markers(inp[key], tmp_path)
    return func(*args, **kwargs)


def _check_report(report: Any, case: dict[str, Any]) -> None:
    assert report.to_dict() == case["expected"]
    assert report.to_json() == case["expected_json"]
    if "expected_json_indent2" in case:
        assert report.to_json(indent=2) == case["expected_json_indent2"]
    assert report.metrics.to_json() == case["expected_metrics_json"]
    assert report.to_markdown() == case["expected_markdown"]


@pytest.mark.parametrize("path", VECTORS)
def test_vector(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    if "expected_error" in case:
        with pytest.raises(Exception) as info:
            _call(case, tmp_path)
        assert_fixed_error(info.value, case)
        for text in ("secret", "upstream"):
            assert text not in str(info.value)
            assert text not in repr(info.value)
            assert all(text not in str(arg) for arg in info.value.args)
        return
    report = _call(case, tmp_path)
    _check_report(report, case)


@pytest.mark.parametrize("path", GATE_VECTORS)
def test_vector_gate(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    gate = case["expected_gate"]
    if gate.get("passed"):
        report = _call(case, tmp_path, assert_summary_citation_gate)
        assert report.passed
        return
    with pytest.raises(SummaryCitationGateError) as info:
        _call(case, tmp_path, assert_summary_citation_gate)
    exc = info.value
    assert type(exc).__name__ == gate["error_class"]
    assert exc.category == gate["category"]
    assert str(exc) == gate["message"]
    assert exc.args == (gate["message"],)
    assert isinstance(exc, AssertionError)
    assert exc.failure_reasons == tuple(case["expected"]["metrics"]["failure_reasons"])
    assert exc.report.to_dict() == case["expected"]
    assert exc.__cause__ is None and exc.__context__ is None


def _as_table(value: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_struct_array(pa.array(value))


def _variants(value: Any, tmp_path: pathlib.Path, name: str) -> dict[str, Any]:
    table = _as_table(value)
    parquet = tmp_path / f"{name}.parquet"
    pq.write_table(table, parquet)
    jsonl = tmp_path / f"{name}.jsonl"
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in table.to_pylist()), encoding="utf-8")
    return {
        "arrow": table,
        "polars": pl.from_arrow(table),
        "parquet": parquet,
        "jsonl": jsonl,
        "record_batch_reader": pa.RecordBatchReader.from_batches(table.schema, table.to_batches()),
    }


@pytest.mark.parametrize("form", ["arrow", "polars", "parquet", "jsonl", "record_batch_reader"])
@pytest.mark.parametrize("path", TABLE_VECTORS)
def test_vector_table_equivalent(path: pathlib.Path, form: str, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    inp = case["input"]
    claims = _variants(inp["claims"], tmp_path, "claims")[form]
    evidence = _variants(inp["evidence"], tmp_path, "evidence")[form]
    kwargs = expand_kwargs(inp.get("kwargs", {}), tmp_path)
    report = build_summary_citation_report(claims, evidence, **kwargs)
    _check_report(report, case)
