"""The lazy command line: ``import citelens``, ``citelens --help``, ``citelens COMMAND --help``
and ``citelens --version`` load no engine (neither Polars, PyArrow, NumPy nor DuckDB).

Each check runs in a fresh interpreter, so nothing imported by the test session leaks in."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

import citelens
from citelens.cli import _COMMAND_MODULES, main
from citelens.cli._common import COMMAND_HELP

ENGINES = ("duckdb", "numpy", "polars", "pyarrow")

_REPORT = (
    "import json, sys\n"
    f"print(json.dumps(sorted(m for m in {ENGINES!r} if m in sys.modules)), file=sys.stderr)\n"
)


def _child(code: str) -> tuple[int, str, list[str]]:
    """Run ``code`` in a fresh interpreter; return its exit code, stdout and the engines it
    left in ``sys.modules`` (the last stderr line)."""
    done = subprocess.run(
        [sys.executable, "-c", code + _REPORT],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1]
    return done.returncode, done.stdout, json.loads(last)


def _cli(*argv: str) -> str:
    return (
        "import sys\n"
        "from citelens.cli import main\n"
        f"code = main({list(argv)!r})\n"
        "print('EXIT', code)\n"
    )


def test_import_citelens_loads_no_engine() -> None:
    code, _, engines = _child("import citelens\n")
    assert (code, engines) == (0, [])


def test_help_loads_no_engine() -> None:
    code, out, engines = _child(_cli("--help"))
    assert (code, engines) == (0, [])
    assert "usage: citelens" in out
    # The exit codes, 3 included, are documented in the top-level help.
    assert "3 internal error" in " ".join(out.split())
    assert out.rstrip().endswith("EXIT 0")


# Every command's parser module is light: its engine is imported only when it runs.
@pytest.mark.parametrize(
    "argv",
    [
        ("support", "--help"),
        ("review", "--help"),
        ("review", "gate", "--help"),
        ("gold", "--help"),
        ("gold", "run", "--help"),
        ("summary-citations", "--help"),
        ("corpus", "--help"),
        ("corpus", "support", "--help"),
        ("corpus", "minimality", "--help"),
        ("corpus", "summary-citations", "--help"),
        ("sql", "--help"),
        ("minimality", "--help"),
    ],
)
def test_command_help_loads_no_engine(argv: tuple[str, ...]) -> None:
    code, out, engines = _child(_cli(*argv))
    assert (code, engines) == (0, [])
    assert out.startswith(f"usage: citelens {' '.join(argv[:-1])}")


def test_version_loads_no_engine() -> None:
    code, out, engines = _child(_cli("--version"))
    assert (code, engines) == (0, [])
    assert out == f"citelens {citelens.__version__}\nEXIT 0\n"


def test_version_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("citelens 0.1.0\n", "")


def test_python_m_citelens_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "citelens", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "citelens 0.1.0\n", "")


def test_listing_names_every_command_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    # Command lines are indented by 4; wrapped help lines by more.
    listed = [
        line.split()[0] for line in out.splitlines() if line[:5].lstrip() and line[:4] == "    "
    ]
    assert listed[:7] == [
        "support",
        "review",
        "gold",
        "minimality",
        "summary-citations",
        "corpus",
        "sql",
    ]


def test_python_m_citelens_help_imports_no_engine() -> None:
    # The real entry point (runpy of citelens.__main__): -X importtime lists every module
    # imported on stderr, one per line, as "import time: ... | <module>".
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "citelens", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("usage: citelens")
    imported = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "citelens" in imported
    assert imported.isdisjoint(ENGINES)


def test_each_command_registers_the_help_line_the_listing_shows() -> None:
    # `citelens --help` lists COMMAND_HELP without importing the commands; each command's
    # own parser must carry the same line.
    assert list(_COMMAND_MODULES) == list(COMMAND_HELP)
    for name, module in _COMMAND_MODULES.items():
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(subparsers)
        assert [a.dest for a in subparsers._choices_actions] == [name]
        assert [a.help for a in subparsers._choices_actions] == [COMMAND_HELP[name]]
