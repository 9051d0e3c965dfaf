"""``citelens gold …``: exit codes, diagnostics, precedence, console and report formats (§9)."""

from __future__ import annotations

import io
import json
import pathlib
from typing import Any

import pytest

from citelens.cli import main
from citelens.errors import GoldError
from citelens.gold import report, run

from ._helpers import qa_case, write_case


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    for name in (
        "CITELENS_ADAPTER",
        "CITELENS_DATASETS",
        "CITELENS_RESULTS",
        "CITELENS_EVAL_REPEATS",
        "CITELENS_EVAL_SHA",
        "CITELENS_HTTP_CONFIG",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CITELENS_EVAL_MODEL", "x")
    monkeypatch.delenv("CITELENS_EVAL_MODEL")
    monkeypatch.chdir(tmp_path)


def _gold(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["gold", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_offline_console_layout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _gold(capsys, "run")
    assert code == 0
    lines = out.split("\n")
    assert lines[0] == ""
    assert lines[1].startswith(
        "citelens gold — 19 case(s), online=false, adapter=lexical, model=lexical-1, sha="
    )
    assert lines[1].endswith(", repeats=1")
    assert lines[2] == ""
    assert lines[3] == "  ✓ citation-detection   PASS"
    assert lines[4] == "      perClaim_exactSetRate      100.00%"
    assert "  ⊘ claim-extraction     SKIPPED — online scorer (pass --online)" in lines
    assert any(line.startswith("  scorecard: results/") for line in lines)
    assert "  vs baseline: none for adapter lexical (save one with --baseline)" in lines
    assert lines[-2] == "  gate: not enforced (pass --ci to enforce)"
    assert (pathlib.Path("results") / "history").is_dir()


def test_ignored_note(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    write_case(tmp_path / "ds", "a.json", qa_case("a"))
    # redaction and retrieval are supported since issue 13: two unknown kinds instead
    write_case(tmp_path / "ds", "b.json", {"id": "b", "kind": "later-b"})
    write_case(tmp_path / "ds", "c.json", {"id": "c", "kind": "later-a"})
    code, out, _ = _gold(capsys, "run", "--datasets", "ds")
    assert code == 0
    assert "  note: 2 case(s) ignored (kind not supported): later-a 1, later-b 1" in out


def test_json_and_markdown_go_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _gold(capsys, "run", "--format", "json")
    assert code == 0
    card = json.loads(out)
    assert card["schema"] == "citelens.gold.scorecard/1"
    assert "citelens gold — " in err and "gate:" in err
    code, out, _ = _gold(capsys, "run", "--format", "markdown", "--ci")
    assert out.startswith("# citelens gold — lexical — PASS\n")
    assert "| metric | value | baseline | Δ | status |" in out
    assert "## citation-detection — passed" in out
    code, out, err = _gold(capsys, "run", "--format", "markdown", "--out", "summary.md")
    assert out.rstrip().endswith("gate: not enforced (pass --ci to enforce)")
    assert "  report: summary.md" in out
    assert pathlib.Path("summary.md").read_text(encoding="utf-8").startswith("# citelens gold")


def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for bad in ("abc", "0", "-1", "2.5", "101"):
        code, _, err = _gold(capsys, "run", f"--repeats={bad}")
        assert code == 2
        assert err == "--repeats must be an integer from 1 to 100\n"  # the value is not echoed
    monkeypatch.setenv("CITELENS_EVAL_REPEATS", "zero")
    assert _gold(capsys, "run")[0] == 2
    assert _gold(capsys, "run", "--repeats", "2")[0] == 0  # the option wins over the env
    monkeypatch.delenv("CITELENS_EVAL_REPEATS")
    for spec in ("nope=0.1", "n_claims=1", "f1=-1", "f1=abc", "-0.5", "latency_p95_ms=1x"):
        code, _, err = _gold(capsys, "run", "--tolerance", spec)
        assert code == 2 and "--tolerance" in err
    assert (
        _gold(
            capsys,
            "run",
            "--tolerance",
            "0.01",
            "--tolerance",
            "latency_p95_ms=50",
            "--tolerance",
            "claim-extraction.f1=off",
        )[0]
        == 0
    )
    code, _, err = _gold(capsys, "run", "--format", "pdf")
    assert code == 2 and "--format" in err
    code, _, err = _gold(capsys, "run", "--bogus-CANARY")
    # the fixed usage form: what was typed is never echoed (issue 10)
    assert code == 2 and "unrecognized arguments" in err and "CANARY" not in err
    code, _, err = _gold(capsys, "run", "--results")
    assert code == 2 and "--results" in err
    monkeypatch.setenv("CITELENS_EVAL_SHA", "xyz")
    assert _gold(capsys, "run")[0] == 2


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert _gold(capsys, "run", "--help")[0] == 0
    code, out, _ = _gold(capsys, "run", "--version")
    assert code == 0 and out.startswith("citelens 0.")


def test_dataset_and_adapter_diagnostics(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    code, _, err = _gold(capsys, "run", "--datasets", "empty")
    assert code == 2
    assert err == (
        f"No gold cases found in {pathlib.Path('empty') / 'cases'} (add a case file; "
        'files starting with "_" are ignored).\n'
    )
    write_case(tmp_path / "bad", "x.json", {"id": ""})
    code, _, err = _gold(capsys, "run", "--datasets", "bad")
    assert code == 2
    assert err == "Invalid dataset (bad):\n  - cases/x.json: id: must be a non-empty string\n"
    code, _, err = _gold(capsys, "validate", "--datasets", "bad")
    assert code == 2 and err.startswith("Invalid dataset (bad):")
    code, _, err = _gold(capsys, "run", "--adapter", "no_such_adapter_mod")
    assert code == 2
    assert err.startswith("Could not load adapter from no_such_adapter_mod: ModuleNotFoundError: ")
    code, _, err = _gold(capsys, "run", "--adapter", "gold._test_adapters:Broken")
    assert code == 2
    assert err.startswith(
        "Invalid adapter (gold._test_adapters:Broken):\n"
        "  - missing required export: online_available()\n"
    )
    assert err.endswith("See the adapter section of the citelens gold contract.\n")
    code, out, _ = _gold(capsys, "validate")
    expected = "ok: 19 case(s) (12 qa, 4 grounding, 1 redaction, 1 simplification, 1 retrieval, "
    assert (code, out) == (0, expected + "0 ignored)\n")
    code, out, _ = _gold(capsys, "validate", "--adapter", "lexical")
    assert code == 0


def test_adapter_env_precedence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITELENS_ADAPTER", "gold._test_adapters:GroundingOnly")
    code, out, _ = _gold(capsys, "run")
    assert code == 0 and "adapter=grounding-only" in out and "model=none" in out
    code, out, _ = _gold(capsys, "run", "--adapter", "lexical", "--model", "m-9")
    assert "adapter=lexical, model=m-9," in out


def test_unreadable_baseline_and_unwritable_results(capsys: pytest.CaptureFixture[str]) -> None:
    pathlib.Path("results").mkdir()
    pathlib.Path("results/baseline.lexical.json").write_text("{broken", encoding="utf-8")
    code, _, err = _gold(capsys, "run")
    assert (code, err) == (2, "citelens: error [io]: gold baseline could not be read\n")
    pathlib.Path("blocked").write_text("a file, not a directory", encoding="utf-8")
    code, _, err = _gold(capsys, "run", "--results", "blocked")
    assert (code, err) == (2, "citelens: error [io]: gold results could not be written\n")


def test_report_options_before_and_after(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _gold(capsys, "report", "--results", "nothing")
    assert code == 2
    assert err == (
        "No scorecard to report in nothing. Run citelens gold run first, or pass a path.\n"
    )
    assert _gold(capsys, "run", "--results", "res")[0] == 0
    card = next(pathlib.Path("res").glob("2*.json"))
    code, out, _ = _gold(capsys, "report", "--results", "res", str(card), "--format", "json")
    assert code == 0 and json.loads(out)["run_id"] == card.stem
    code, out, _ = _gold(capsys, "report", str(card), "--results", "res", "--format", "markdown")
    assert code == 0 and out.startswith("# citelens gold — lexical")
    code, out, _ = _gold(capsys, "report", "--results", "res")
    assert code == 0 and out.startswith("  report: ")
    assert (pathlib.Path("res") / f"report-{card.stem}.html").is_file()


def _error(**kwargs: Any) -> GoldError:
    with pytest.raises(GoldError) as info:
        run(stdout=io.StringIO(), stderr=io.StringIO(), **kwargs)
    err = info.value
    assert err.__cause__ is None and err.__context__ is None
    assert err.args == (str(err),)
    return err


def test_every_gold_error_from_the_api(tmp_path: pathlib.Path) -> None:
    cases = [
        (dict(datasets=tmp_path / "none"), "gold dataset has no cases", "input"),
        (dict(adapter="no_such_adapter_mod"), "gold adapter could not be loaded", "input"),
        (dict(adapter="gold._test_adapters:Broken"), "gold adapter is invalid", "input"),
        (dict(repeats="0"), "gold run options are invalid", "policy"),
        (dict(tolerance=["bogus=1"]), "gold run options are invalid", "policy"),
        (dict(format="pdf"), "gold run options are invalid", "policy"),
        (dict(env={"CITELENS_EVAL_SHA": "zz"}), "gold run options are invalid", "policy"),
    ]
    write_case(tmp_path / "bad", "x.json", [])
    cases.append((dict(datasets=tmp_path / "bad"), "gold dataset is invalid", "input"))
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "baseline.lexical.json").write_text("[]", encoding="utf-8")
    cases.append((dict(results=tmp_path / "r"), "gold baseline could not be read", "io"))
    (tmp_path / "f").write_text("x", encoding="utf-8")
    cases.append((dict(results=tmp_path / "f"), "gold results could not be written", "io"))
    for kwargs, message, category in cases:
        err = _error(**kwargs)
        assert (str(err), err.category) == (message, category), kwargs
    with pytest.raises(GoldError) as info:
        report(results=tmp_path / "empty-results", stdout=io.StringIO())
    assert (str(info.value), info.value.category) == ("gold scorecard not found", "input")
