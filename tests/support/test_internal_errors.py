"""An unexpected exception inside the engine is an internal error, never an input error.

A polars operation made to raise inside the kernel must surface as ``InternalError``
(category ``internal``, message naming the exception type only, unchained) from the library and
as exit code 3 from the CLI; it must not turn into ``citation-support input cannot be
normalized`` (exit 2) or a silently different path.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import polars as pl
import pytest

import citelens
import citelens.corpus
from citelens.cli import main
from citelens.errors import InternalError
from citelens.support import _api, _batch, _kernel

CLAIMS = [{"claim_id": "c1", "start": 0, "end": 4, "citations": ["e1"]}]
EVIDENCE = [{"evidence_id": "e1", "start": 0, "end": 4, "source_length": 9}]


def _explode(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("secret-value-7f3a")


def test_kernel_failure_is_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_api, "run_kernel", _explode)
    with pytest.raises(InternalError) as info:
        citelens.compute_citation_support_metrics(CLAIMS, EVIDENCE)
    error = info.value
    assert error.args == ("internal error (RuntimeError)",)
    assert error.category == "internal"
    assert error.__cause__ is None and error.__context__ is None
    assert "secret" not in repr(error)


def test_polars_operation_failing_inside_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    # A Polars join raises only when the kernel module calls it: the call must end as an
    # internal error, not "input cannot be normalized" and not another path.
    original = pl.DataFrame.join
    calls = {"kernel": 0}

    def join(self: pl.DataFrame, *args: Any, **kwargs: Any) -> pl.DataFrame:
        if sys._getframe(1).f_globals.get("__name__") == _kernel.__name__:
            calls["kernel"] += 1
            raise pl.exceptions.ComputeError("secret-value-7f3a")
        return original(self, *args, **kwargs)

    report = citelens.compute_citation_support_metrics(CLAIMS, EVIDENCE)  # works unpatched
    assert report.citation_count == 1
    monkeypatch.setattr(pl.DataFrame, "join", join)
    with pytest.raises(InternalError) as info:
        citelens.compute_citation_support_metrics(CLAIMS, EVIDENCE)
    assert calls["kernel"] == 1  # the first kernel join raised, and nothing retried it
    assert info.value.args == ("internal error (ComputeError)",)
    assert "secret" not in repr(info.value)


def test_corpus_kernel_failure_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_batch, "run_kernel", _explode)
    claims = [{"document_ref": "d1", **CLAIMS[0]}]
    with pytest.raises(InternalError):
        citelens.corpus.run_support_corpus(pl.DataFrame(claims))


def test_cli_exit_3_on_internal_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text("\n".join(json.dumps(r) for r in CLAIMS) + "\n", encoding="utf-8")
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("\n".join(json.dumps(r) for r in EVIDENCE) + "\n", encoding="utf-8")
    assert main(["support", "--claims", str(claims), "--evidence", str(evidence)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(_api, "run_kernel", _explode)
    code = main(["support", "--claims", str(claims), "--evidence", str(evidence)])
    captured = capsys.readouterr()
    assert code == 3
    assert captured.err == "citelens: error [internal]: internal error (RuntimeError)\n"
    assert "secret" not in captured.out + captured.err
