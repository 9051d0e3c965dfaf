"""Conformance: every case of ../shared/vectors/support/ (support-metrics.md §12).

Each case runs on the row path as written, and every non-error case runs again with each of
its collections that is a list of mappings Arrow can type (one type per column) given through
the columnar path instead (Arrow table, Polars frame, Parquet and JSON Lines files); the other
collections stay as written. The report must be identical (§4.1).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import assert_fixed_error, load_vector, vector_files, vector_params

from ._helpers import assert_report_matches, call_input, columnar_inputs

CASES = vector_params("support")
# Report cases only: the columnar variants compare reports (error cases run on the row path).
REPORT_CASES = [
    pytest.param(path, id=path.stem)
    for path in vector_files("support")
    if "expected_error" not in load_vector(path)
] or vector_params("support")


@pytest.mark.parametrize("path", CASES)
def test_vector(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    import citelens

    case = load_vector(path)
    if "expected_error" in case:
        with pytest.raises(citelens.CitelensError) as info:
            call_input(case["input"], tmp_path)
        assert_fixed_error(info.value, case)
        for text in (str(info.value), repr(info.value), repr(info.value.args)):
            assert "secret" not in text
        return
    report = call_input(case["input"], tmp_path)
    assert_report_matches(report, case)
    # to_json is the canonical serialisation of to_dict (§7.2).
    expected_json = (
        json.dumps(report.to_dict(), ensure_ascii=True, separators=(",", ":"), sort_keys=True)
        + "\n"
    )
    assert report.to_json() == expected_json


def _arrow(_: str, table: pa.Table, __: pathlib.Path) -> Any:
    return table


def _polars(_: str, table: pa.Table, __: pathlib.Path) -> Any:
    return pl.from_arrow(table)


def _parquet(name: str, table: pa.Table, tmp_path: pathlib.Path) -> Any:
    path = tmp_path / f"{name}.parquet"
    pq.write_table(table, path)
    return path


def _jsonl(name: str, table: pa.Table, tmp_path: pathlib.Path) -> Any:
    path = tmp_path / f"{name}.jsonl"
    lines = [json.dumps(row) for row in table.to_pylist()]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


VARIANTS = {"arrow": _arrow, "polars": _polars, "parquet": _parquet, "jsonl": _jsonl}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("path", REPORT_CASES)
def test_vector_columnar(path: pathlib.Path, variant: str, tmp_path: pathlib.Path) -> None:
    case = load_vector(path)
    convert = VARIANTS[variant]
    try:
        inp = columnar_inputs(case["input"], lambda name, table: convert(name, table, tmp_path))
    except Exception:  # e.g. Parquet cannot store an Arrow type of this case
        pytest.skip(f"{variant} cannot hold this case's records")
    if inp is None:
        pytest.skip("no collection is a list of records that Arrow types with one type each")
    report = call_input(inp)
    assert_report_matches(report, case)


ERROR_CASES = [
    pytest.param(path, id=path.stem)
    for path in vector_files("support")
    if "expected_error" in load_vector(path)
] or vector_params("support")


@pytest.mark.parametrize("variant", ["arrow", "jsonl"])
@pytest.mark.parametrize("path", ERROR_CASES)
def test_error_vector_columnar(path: pathlib.Path, variant: str, tmp_path: pathlib.Path) -> None:
    """An error case whose records Arrow types faithfully fails the same way (§4.1: the first
    defective row in input order, its first failing check)."""
    import citelens

    case = load_vector(path)
    convert = VARIANTS[variant]
    try:
        limits_ok = "limits" not in case["input"] or citelens.Limits(**case["input"]["limits"])
    except citelens.LimitsError:
        limits_ok = False
    if not limits_ok:
        pytest.skip("the error is raised by Limits(...) before any collection is read")
    inp = columnar_inputs(case["input"], lambda name, table: convert(name, table, tmp_path))
    if inp is None:
        pytest.skip("no collection is a list of records that Arrow types with one type each")
    with pytest.raises(citelens.CitelensError) as info:
        call_input(inp)
    assert_fixed_error(info.value, case)
