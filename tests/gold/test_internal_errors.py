"""No silent fallback: a bug inside citelens is an internal error, never a scorer result or an
input error.

Each test makes one internal step raise ``RuntimeError("secret")`` and checks that the public
entry point raises :class:`citelens.errors.InternalError` (category ``internal``, message naming
the exception type only, never chained), and that ``citelens gold run`` exits 3 for it without
printing the exception text. Adapter errors stay scorer failures (gold-harness.md §6.0).
"""

from __future__ import annotations

import io
import pathlib
from collections.abc import Callable
from typing import Any

import pytest

import citelens.cli._gold as gold_cli
import citelens.gold._dataset as dataset_module
import citelens.gold._run as run_module
import citelens.gold.scorers.citation_detection as detection_module
from citelens.cli import main
from citelens.errors import GoldError, InternalError
from citelens.gold import check_dataset, load_adapter, load_dataset, report, run, run_scorers

# The one message for a RuntimeError: "internal error (" + type name + ")".
INTERNAL = "internal error (RuntimeError)"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    for name in (
        "CITELENS_ADAPTER",
        "CITELENS_DATASETS",
        "CITELENS_RESULTS",
        "CITELENS_EVAL_REPEATS",
        "CITELENS_EVAL_SHA",
        "CITELENS_EVAL_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _boom(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("secret")


def _assert_internal(call: Callable[[], Any]) -> None:
    with pytest.raises(InternalError) as info:
        call()
    error = info.value
    assert str(error) == INTERNAL and error.args == (INTERNAL,)
    assert error.category == "internal"
    assert "secret" not in str(error)
    assert error.__cause__ is None and error.__context__ is None
    assert not isinstance(error, GoldError)


def _quiet_run(**kwargs: Any) -> Any:
    return run(stdout=io.StringIO(), stderr=io.StringIO(), **kwargs)


def test_scorer_bug_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    # without the fault the offline run completes with exit code 0
    assert _quiet_run().exit_code == 0
    monkeypatch.setattr(detection_module, "detect_citations", _boom)
    _assert_internal(_quiet_run)
    dataset = load_dataset()
    adapter = load_adapter("lexical")
    _assert_internal(lambda: run_scorers(dataset, adapter, online=False))


def test_history_bug_is_internal_not_unwritable_results(monkeypatch: pytest.MonkeyPatch) -> None:
    # building the Parquet history table breaks: not "gold results could not be written"
    monkeypatch.setattr(run_module, "history_table", _boom)
    _assert_internal(_quiet_run)


def test_dataset_bug_is_internal_not_invalid_dataset(monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_dataset().ok
    monkeypatch.setattr(dataset_module, "parse_qa", _boom)
    _assert_internal(check_dataset)
    _assert_internal(load_dataset)


def test_report_bug_is_internal_not_scorecard_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _quiet_run().exit_code == 0
    # rendering the saved scorecard as Markdown works without the fault
    assert report(format="markdown", stdout=io.StringIO()) == 0
    monkeypatch.setattr(run_module, "render_markdown", _boom)
    _assert_internal(lambda: report(format="markdown", stdout=io.StringIO()))


def test_cli_run_exit_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(detection_module, "detect_citations", _boom)
    assert main(["gold", "run"]) == 3
    _, err = capsys.readouterr()
    assert err.endswith(f"citelens: error [internal]: {INTERNAL}\n")
    assert "secret" not in err


def test_cli_formats_match_the_runner() -> None:
    # the CLI declares the --format choices without importing the runner (no engine at import)
    assert gold_cli.FORMATS == run_module.FORMATS == ("console", "json", "markdown", "html")
