"""The GitHub Action (action.yml) and its run script (ci/action-run.sh), exercised locally.

action.yml only sets up Python, installs citelens and calls the script with the inputs in the
environment, so running the script here with the same variables runs the action's commands.
A stub ``citelens`` (records its arguments, exits with a chosen code) checks the command lines
and exit-code handling quickly; two real runs on the bundled samples check exits 1 and 0.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "ci" / "action-run.sh"
CITELENS = pathlib.Path(sys.executable).with_name("citelens")
CANARY = "CANARY-9b1e"

STUB = """#!/usr/bin/env bash
# a stand-in for citelens: --help prints $STUB_HELP; a run records its arguments
if [ "${@: -1}" = "--help" ]; then printf '%s\\n' "${STUB_HELP:-}"; exit 0; fi
printf '%s\\n' "$@" > "$STUB_ARGV"
[ -z "${STUB_SUMMARY:-}" ] || echo "# stub summary" > "$STUB_SUMMARY"
exit "${STUB_CODE:-0}"
"""


def _env(tmp_path: pathlib.Path, **inputs: str) -> dict[str, str]:
    """A clean environment holding the INPUT_* variables action.yml would set."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("INPUT_", "GITHUB_", "STUB_", "CITELENS"))
    }
    env["GITHUB_OUTPUT"] = str(tmp_path / "github_output")
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "step_summary.md")
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    return env


def _script(
    tmp_path: pathlib.Path, env: dict[str, str], verb: str = "run"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), verb],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _outputs(tmp_path: pathlib.Path) -> dict[str, str]:
    lines = (tmp_path / "github_output").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def _stub(tmp_path: pathlib.Path, env: dict[str, str], code: int = 0, help_text: str = "") -> None:
    stub = tmp_path / "stub-citelens"
    stub.write_text(STUB)
    stub.chmod(0o755)
    env.update(
        CITELENS_BIN=str(stub),
        STUB_ARGV=str(tmp_path / "argv"),
        STUB_CODE=str(code),
        STUB_HELP=help_text,
    )


def _argv(tmp_path: pathlib.Path) -> list[str]:
    return (tmp_path / "argv").read_text().splitlines()


# --- action.yml -----------------------------------------------------------------------------


def _declared_inputs(text: str) -> list[str]:
    """Input names from the lines of the `inputs:` block (two-space-indented keys)."""
    block = text.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
    return re.findall(r"^  ([a-z][a-z-]*):$", block, flags=re.MULTILINE)


def test_action_lines_wire_every_input_through_the_environment() -> None:
    # A tiny line check that needs no YAML parser: every declared input is used, every used
    # input is declared, and no `${{ }}` expression is spliced into a shell `run:` line.
    text = ACTION.read_text()
    declared = _declared_inputs(text)
    used = re.findall(r"\$\{\{ inputs\.([a-z-]+) \}\}", text)
    assert sorted(set(used)) == sorted(declared)
    assert "using: composite" in text
    run_lines = [line for line in text.splitlines() if line.strip().startswith("run:")]
    assert run_lines == [
        '      run: bash "$CITELENS_ACTION_PATH/ci/action-run.sh" install',
        '      run: bash "$CITELENS_ACTION_PATH/ci/action-run.sh" run',
    ]
    # each input except python-version (a `with:` of setup-python) reaches the script as env
    for name in declared:
        if name != "python-version":
            env_name = "INPUT_" + name.upper().replace("-", "_")
            assert f"        {env_name}: ${{{{ inputs.{name} }}}}" in text


def test_action_structure() -> None:
    yaml = pytest.importorskip("yaml")
    action: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    steps = action["runs"]["steps"]
    assert action["runs"]["using"] == "composite"
    assert steps[0]["uses"].startswith("actions/setup-python@")
    assert steps[0]["with"]["python-version"] == "${{ inputs.python-version }}"
    install, run = steps[1], steps[2]
    # citelens is installed from the action's own checkout
    assert install["env"]["CITELENS_ACTION_PATH"] == "${{ github.action_path }}"
    assert run["id"] == "run" and run["shell"] == "bash"
    assert {name: out["value"] for name, out in action["outputs"].items()} == {
        "exit-code": "${{ steps.run.outputs.exit-code }}",
        "summary": "${{ steps.run.outputs.summary }}",
        "out": "${{ steps.run.outputs.out }}",
    }
    # every INPUT_* variable the script reads is set by the step that runs it
    script_reads = set(re.findall(r"\$\{(INPUT_[A-Z_]+)", SCRIPT.read_text()))
    assert script_reads - {"INPUT_EXTRA"} == set(run["env"]) - {"CITELENS_ACTION_PATH"}
    assert "INPUT_EXTRA" in install["env"]
    for name, spec in action["inputs"].items():
        assert spec["description"] and "default" in spec, name


# --- real runs on the bundled samples ---------------------------------------------------------


def test_corpus_check_fails_on_the_sample_corpus(tmp_path: pathlib.Path) -> None:
    # the sample corpus has 2 failing documents and 154 not passing their span checks: exit 1
    env = _env(tmp_path, input=str(ROOT / "data-samples" / "corpus"), out="report")
    env["CITELENS_BIN"] = str(CITELENS)
    result = _script(tmp_path, env)
    assert result.returncode == 1, result.stderr
    assert _outputs(tmp_path) == {
        "exit-code": "1",
        "summary": "report/summary.md",
        "out": "report",
    }
    assert (tmp_path / "report" / "documents.parquet").is_file()
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert summary.startswith("# Corpus citation support summary")
    assert (tmp_path / "step_summary.md").read_text() == summary


def test_gold_gate_passes_on_the_sample_gold_set(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path, command="gold", datasets=str(ROOT / "data-samples" / "gold"))
    env["CITELENS_BIN"] = str(CITELENS)
    result = _script(tmp_path, env)
    assert result.returncode == 0, result.stderr
    assert _outputs(tmp_path) == {
        "exit-code": "0",
        "summary": "citelens-out/summary.md",
        "out": "citelens-out",
    }
    summary = (tmp_path / "citelens-out" / "summary.md").read_text()
    assert summary.startswith("# citelens gold — lexical — PASS")
    assert (tmp_path / "step_summary.md").read_text() == summary
    # the scorecard goes to the results directory (default: out)
    assert len(list((tmp_path / "citelens-out").glob("*.json"))) == 1


# --- command lines and exit codes (stub citelens) ---------------------------------------------


@pytest.mark.parametrize(
    ("help_text", "flag"),
    [
        ("  --ci                  exit 1 when any document fails", "--ci"),
        ("  --strict              exit 1 when any document fails", "--strict"),
    ],
)
def test_corpus_command_line(tmp_path: pathlib.Path, help_text: str, flag: str) -> None:
    env = _env(
        tmp_path,
        mode="support",
        input="corpus dir",  # a space stays inside one argument
        claims="c.parquet",
        evidence="e.parquet",
        citations="x.parquet",
        adjudications="a.parquet",
        out="o",
        args="--edges  --max-claims 9",
    )
    _stub(tmp_path, env, help_text=help_text)
    assert _script(tmp_path, env).returncode == 0
    assert _argv(tmp_path) == [
        "corpus", "support", "corpus dir", "--out", "o", "--claims", "c.parquet",
        "--evidence", "e.parquet", "--citations", "x.parquet", "--adjudications", "a.parquet",
        flag, "--edges", "--max-claims", "9",
    ]  # fmt: skip


def test_minimality_command_line(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path, mode="minimality", documents="d", claims="c", citations="x", args="*")
    _stub(tmp_path, env, help_text="[--ci]")
    assert _script(tmp_path, env).returncode == 0
    # "*" is passed as it is: the extra arguments are never glob-expanded
    assert _argv(tmp_path) == [
        "corpus", "minimality", "--out", "citelens-out", "--claims", "c", "--citations", "x",
        "--documents", "d", "--ci", "*",
    ]  # fmt: skip


def test_gold_command_line(tmp_path: pathlib.Path) -> None:
    env = _env(
        tmp_path,
        command="gold",
        datasets="gold-set",
        results="results",
        adapter="my_adapter.py",
        online="true",
        args="--repeats 3",
    )
    _stub(tmp_path, env)
    assert _script(tmp_path, env).returncode == 0
    assert _argv(tmp_path) == [
        "gold", "run", "--ci", "--results", "results", "--format", "markdown",
        "--out", "citelens-out/summary.md", "--datasets", "gold-set",
        "--adapter", "my_adapter.py", "--online", "--repeats", "3",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("code", "fail_on_check", "step_exit"),
    [
        (0, "true", 0),
        (1, "true", 1),
        (1, "false", 0),  # the failed check is reported in exit-code, the step passes
        (2, "false", 2),  # bad input always fails the step
        (3, "false", 3),  # so does an internal error
    ],
)
def test_exit_codes(tmp_path: pathlib.Path, code: int, fail_on_check: str, step_exit: int) -> None:
    env = _env(tmp_path, fail_on_check=fail_on_check)
    _stub(tmp_path, env, code=code)
    env["STUB_SUMMARY"] = str(tmp_path / "citelens-out" / "summary.md")
    assert _script(tmp_path, env).returncode == step_exit
    outputs = _outputs(tmp_path)
    assert outputs["exit-code"] == str(code)
    # after exit 2 or 3 a summary.md is not this run's result, so none is named or appended
    expected = "citelens-out/summary.md" if code <= 1 else ""
    assert outputs["summary"] == expected
    assert (tmp_path / "step_summary.md").exists() is (code <= 1)


def test_step_summary_can_be_turned_off(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path, step_summary="false")
    _stub(tmp_path, env)
    env["STUB_SUMMARY"] = str(tmp_path / "citelens-out" / "summary.md")
    assert _script(tmp_path, env).returncode == 0
    assert _outputs(tmp_path)["summary"] == "citelens-out/summary.md"
    assert not (tmp_path / "step_summary.md").exists()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"command": CANARY}, "input command must be corpus or gold"),
        ({"mode": CANARY}, "input mode must be support, summary-citations or minimality"),
        ({"fail_on_check": CANARY}, "input fail-on-check must be true or false"),
        ({"command": "gold", "online": CANARY}, "input online must be true or false"),
    ],
)
def test_bad_inputs_exit_2_without_echoing(
    tmp_path: pathlib.Path, inputs: dict[str, str], message: str
) -> None:
    env = _env(tmp_path, **inputs)
    _stub(tmp_path, env)
    result = _script(tmp_path, env)
    assert result.returncode == 2
    assert result.stderr == f"citelens-action: error [policy]: {message}\n"
    assert CANARY not in result.stdout
    assert not (tmp_path / "argv").exists()  # citelens never ran
    assert not (tmp_path / "citelens-out").exists()  # and nothing was created


# --- install ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("extra", "spec"), [("", ""), ("spark", "[spark]"), ("a,b-c", "[a,b-c]")])
def test_install_from_the_action_checkout(tmp_path: pathlib.Path, extra: str, spec: str) -> None:
    python = tmp_path / "python"
    python.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "$STUB_ARGV"\n')
    python.chmod(0o755)
    env = _env(tmp_path, extra=extra)
    env.update(CITELENS_PYTHON=str(python), STUB_ARGV=str(tmp_path / "argv"))
    assert _script(tmp_path, env, "install").returncode == 0
    assert _argv(tmp_path) == [
        "-m", "pip", "install", "--disable-pip-version-check", "--quiet", f"{ROOT}{spec}",
    ]  # fmt: skip


def test_install_refuses_an_extra_that_is_not_a_name(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path, extra=f"spark] {CANARY} [")
    env.update(CITELENS_PYTHON="/nonexistent", STUB_ARGV=str(tmp_path / "argv"))
    result = _script(tmp_path, env, "install")
    assert result.returncode == 2
    assert (
        result.stderr
        == "citelens-action: error [policy]: input extra must name extras of citelens\n"
    )


# --- pre-commit hooks --------------------------------------------------------------------------


def test_pre_commit_hooks_run_existing_commands() -> None:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [hook["id"] for hook in hooks] == ["citelens", "citelens-gold"]
    for hook in hooks:
        # citelens reads the paths in `args`: staged file names would be taken as arguments
        assert hook["pass_filenames"] is False and hook["language"] == "python"
        command = hook["entry"].split()
        assert command[0] == "citelens"
        # the entry's subcommand and flags exist (argparse exits 2 on an unknown option)
        result = subprocess.run(
            [str(CITELENS), *command[1:], "--help"], capture_output=True, timeout=60, check=False
        )
        assert result.returncode == 0
