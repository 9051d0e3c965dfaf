"""No silent fallback: a failure inside the kernel is an internal error, never bad input.

Each test makes one Polars or NumPy operation that only the counting kernel uses raise, then
checks that the public API raises ``InternalError`` (category ``internal``, message naming
the exception type only, not chained) and that the CLI exits with code 3.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from citelens.cli import main
from citelens.errors import InternalError, SummaryCitationError
from citelens.summary_citations import (
    _kernel,
    build_summary_citation_report,
    compute_summary_citation_metrics,
)

CANARY = "CANARY-internal-7d1c"
# Enough claims that the kernel takes its Polars path for distinct (claim, record) pairs
# (below _kernel._SMALL values it uses NumPy): _SMALL + 1 claims, each citing e1 once.
CLAIMS = [{"claim": f"{CANARY} claim", "citations": [f"{CANARY}-e1"]}] * (_kernel._SMALL + 1)
EVIDENCE = [{"id": f"{CANARY}-e1", "start": 0, "end": 5}]


def _raise_compute(*args: Any, **kwargs: Any) -> Any:
    raise pl.exceptions.ComputeError(f"{CANARY} polars failed")


def _raise_numpy(*args: Any, **kwargs: Any) -> Any:
    raise FloatingPointError(f"{CANARY} numpy failed")


def _break_polars(monkeypatch: pytest.MonkeyPatch) -> None:
    # Series.unique counts the distinct (claim, record) pairs of the kernel's duplicate rule
    # (Step E); nothing else on the path uses it, so the failure is inside the kernel.
    monkeypatch.setattr(pl.Series, "unique", _raise_compute)


def _break_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # _kernel.np is numpy itself: the per-document bincount group-by fails.
    monkeypatch.setattr(_kernel.np, "bincount", _raise_numpy)


def _assert_internal(exc: BaseException, type_name: str) -> None:
    assert isinstance(exc, InternalError)
    assert not isinstance(exc, SummaryCitationError)  # never reported as bad input
    assert exc.category == "internal"
    assert exc.args == (f"internal error ({type_name})",)
    assert exc.__cause__ is None and exc.__context__ is None
    assert CANARY not in str(exc) + repr(exc)


@pytest.mark.parametrize(
    ("breaker", "type_name"),
    [(_break_polars, "ComputeError"), (_break_numpy, "FloatingPointError")],
    ids=["polars", "numpy"],
)
@pytest.mark.parametrize("form", ["records", "arrow", "polars"])
def test_kernel_failure_is_internal_error(
    monkeypatch: pytest.MonkeyPatch, breaker: Any, type_name: str, form: str
) -> None:
    claims: Any = CLAIMS
    evidence: Any = EVIDENCE
    if form != "records":
        claims = pa.Table.from_pylist(CLAIMS)
        evidence = pa.Table.from_pylist(EVIDENCE)
    if form == "polars":
        claims = pl.from_arrow(claims)
        evidence = pl.from_arrow(evidence)
    # Sanity: without the breakage the call works (every claim cites the 1 record: passes).
    assert build_summary_citation_report(claims, evidence).passed
    breaker(monkeypatch)
    for call in (build_summary_citation_report, compute_summary_citation_metrics):
        with pytest.raises(InternalError) as info:
            call(claims, evidence)
        _assert_internal(info.value, type_name)


def test_numpy_itself_is_untouched_after_the_test() -> None:
    # The monkeypatch above is undone: bincount of [0, 0, 2] is [2, 0, 1].
    assert np.bincount(np.array([0, 0, 2])).tolist() == [2, 0, 1]


def _write(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps(c) + "\n" for c in CLAIMS), encoding="utf-8")
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("".join(json.dumps(e) + "\n" for e in EVIDENCE), encoding="utf-8")
    return claims, evidence


@pytest.mark.parametrize(
    ("breaker", "type_name"),
    [(_break_polars, "ComputeError"), (_break_numpy, "FloatingPointError")],
    ids=["polars", "numpy"],
)
def test_cli_exit_code_three(
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    breaker: Any,
    type_name: str,
) -> None:
    claims, evidence = _write(tmp_path)
    args = ["summary-citations", "--claims", str(claims), "--evidence", str(evidence)]
    assert main(args) == 0
    capsys.readouterr()
    breaker(monkeypatch)
    assert main(args) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"citelens: error [internal]: internal error ({type_name})\n"
