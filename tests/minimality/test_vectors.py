"""Conformance: every case of shared/vectors/minimality (M*, T*, B*, table variants)."""

from __future__ import annotations

import pathlib
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.minimality import (
    TOKENIZER_UNICODE_VERSION,
    check_citation_minimality,
    check_citation_minimality_batch,
    tokenize,
)
from conftest import (
    assert_fixed_error,
    expand_kwargs,
    expand_markers,
    load_vector,
    vector_params,
)


def _run_report(case: dict[str, Any], tmp_path: pathlib.Path, claims: Any, citations: Any) -> Any:
    data = case["input"]
    kwargs = expand_kwargs(data.get("kwargs", {}), tmp_path)
    return check_citation_minimality(data["source_text"], claims, citations, **kwargs)


def _check_report(case: dict[str, Any], report: Any) -> None:
    assert report.to_dict() == case["expected"]
    assert list(report.to_dict()) == list(case["expected"])
    if "expected_json" in case:
        assert report.to_json() == case["expected_json"]
    if "expected_markdown" in case:
        assert report.to_markdown() == case["expected_markdown"]


@pytest.mark.parametrize("path", vector_params("minimality", "M*.json"))
def test_report_vector(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    data = case["input"]
    claims = expand_markers(data.get("claims"), tmp_path)
    citations = expand_markers(data.get("citations"), tmp_path)
    if "expected_error" in case:
        with pytest.raises(Exception) as info:
            _run_report(case, tmp_path, claims, citations)
        assert_fixed_error(info.value, case)
        for text in (str(info.value), repr(info.value), repr(info.value.args)):
            assert "secret" not in text
        return
    _check_report(case, _run_report(case, tmp_path, claims, citations))


def _table_forms(value: list[dict[str, Any]], tmp_path: pathlib.Path, tag: str) -> list[Any]:
    table = pa.Table.from_struct_array(pa.array(value))
    parquet = tmp_path / f"{tag}.parquet"
    pq.write_table(table, parquet)
    jsonl = tmp_path / f"{tag}.jsonl"
    pl.from_arrow(table).write_ndjson(jsonl)
    return [table, pl.from_arrow(table), parquet, jsonl]


def _table_params() -> list[Any]:
    params = vector_params("minimality", "M*.json")
    kept = [
        p for p in params if p.values[0] is None or load_vector(p.values[0]).get("table_equivalent")
    ]
    return kept


@pytest.mark.parametrize("path", _table_params())
def test_table_equivalent(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    assert case["table_equivalent"] is True
    data = case["input"]
    claim_forms = _table_forms(data["claims"], tmp_path, "claims")
    citation_forms = _table_forms(data["citations"], tmp_path, "citations")
    for claims, citations in zip(claim_forms, citation_forms, strict=True):
        if "expected_error" in case:
            with pytest.raises(Exception) as info:
                _run_report(case, tmp_path, claims, citations)
            assert_fixed_error(info.value, case)
        else:
            _check_report(case, _run_report(case, tmp_path, claims, citations))


@pytest.mark.parametrize("path", vector_params("minimality", "T*.json"))
def test_tokenizer_vector(path: pathlib.Path) -> None:
    case = load_vector(path)
    if case.get("unicode_sensitive") and case.get("unicode_version") != TOKENIZER_UNICODE_VERSION:
        pytest.skip("Unicode version differs from the vector's")
    tokens = tokenize(case["input"]["tokenize"])
    assert [list(token) for token in tokens] == case["expected"]["tokens"]


@pytest.mark.parametrize("path", vector_params("minimality", "B*.json"))
def test_batch_vector(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    batch = case["input"]["batch"]
    documents = expand_markers(batch.get("documents"), tmp_path)
    claims = expand_markers(batch.get("claims"), tmp_path)
    citations = expand_markers(batch.get("citations"), tmp_path)
    kwargs = expand_kwargs(batch.get("kwargs", {}), tmp_path)
    if "expected_error" in case:
        with pytest.raises(Exception) as info:
            check_citation_minimality_batch(documents, claims, citations, **kwargs)
        assert_fixed_error(info.value, case)
        return
    result = check_citation_minimality_batch(documents, claims, citations, **kwargs)
    expected = case["expected"]
    assert {ref: report.to_dict() for ref, report in result.reports.items()} == expected["reports"]
    assert list(result.reports) == list(expected["reports"])
    assert result.table.to_pylist() == expected["table"]
    assert result.documents.to_pylist() == expected["documents"]
    assert result.errors.to_pylist() == expected["errors"]
