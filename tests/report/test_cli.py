"""``citelens report OUT --html FILE``: exit codes, atomic byte-identical output, fixed
messages that name neither a path nor a value."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from citelens.report import render_report

from .conftest import CANARY, needs_extra, run_report


@needs_extra
def test_writes_the_page(
    single_outputs: dict[str, pathlib.Path],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = tmp_path / "report.html"
    assert run_report([str(single_outputs["support"]), "--html", str(target)], monkeypatch) == 0
    first = target.read_bytes()
    assert first == render_report(single_outputs["support"]).encode("utf-8")
    assert run_report([str(single_outputs["support"]), "--html", str(target)], monkeypatch) == 0
    assert target.read_bytes() == first
    # written atomically: no staging file is left beside it
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".citelens")) == []


@needs_extra
def test_dash_writes_to_stdout(
    single_outputs: dict[str, pathlib.Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_report([str(single_outputs["summary"]), "--html", "-"], monkeypatch) == 0
    assert capsys.readouterr().out == render_report(single_outputs["summary"])


@needs_extra
def test_byte_identical_across_processes(single_outputs: dict[str, pathlib.Path]) -> None:
    """vl-convert's SVG does not depend on the process (no random ids, no clock)."""
    code = (
        "import sys; from citelens.report import render_report; "
        "sys.stdout.write(render_report(sys.argv[1]))"
    )
    path = str(single_outputs["minimality"])
    child = subprocess.run([sys.executable, "-c", code, path], capture_output=True, check=True)
    assert child.stdout == render_report(path).encode("utf-8")


@needs_extra
def test_missing_input_is_exit_2_without_the_path(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / f"{CANARY}.json"
    assert run_report([str(missing), "--html", str(tmp_path / "r.html")], monkeypatch) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [input]: report input not found\n"


@needs_extra
def test_tampered_input_is_exit_2_without_the_value(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(f'{{"suite": "{CANARY}"}}', encoding="utf-8")
    assert run_report([str(bad), "--html", str(tmp_path / "r.html")], monkeypatch) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [input]: report input is not a citelens output\n"
    assert not (tmp_path / "r.html").exists()


@needs_extra
def test_missing_output_directory_is_exit_2(
    single_outputs: dict[str, pathlib.Path],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / CANARY / "r.html"
    assert run_report([str(single_outputs["support"]), "--html", str(target)], monkeypatch) == 2
    assert capsys.readouterr().err == (
        "citelens: error [io]: report output directory does not exist\n"
    )
    assert not target.parent.exists()


def test_missing_extra_names_it(
    single_outputs: dict[str, pathlib.Path],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # import vl_convert raises ImportError
    target = tmp_path / "r.html"
    assert run_report([str(single_outputs["support"]), "--html", str(target)], monkeypatch) == 2
    assert capsys.readouterr().err == (
        "citelens: error [input]: citelens report needs the report extra: "
        "pip install 'citelens[report]'\n"
    )
    assert not target.exists()


@needs_extra
def test_a_bug_is_exit_3(
    single_outputs: dict[str, pathlib.Path],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from citelens.report import _html

    def broken(chart: object) -> str:
        raise ZeroDivisionError(CANARY)

    monkeypatch.setattr(_html, "chart_svg", broken)
    target = tmp_path / "r.html"
    assert run_report([str(single_outputs["support"]), "--html", str(target)], monkeypatch) == 3
    err = capsys.readouterr().err
    assert err == "citelens: error [internal]: internal error (ZeroDivisionError)\n"
    assert not target.exists()


def test_help_loads_no_engine() -> None:
    code = (
        "import sys; import citelens.report; import citelens.cli._report as r; import argparse; "
        "p = argparse.ArgumentParser(); r.register(p.add_subparsers()); "
        "heavy = {'polars', 'pyarrow', 'duckdb', 'altair', 'vl_convert'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@needs_extra
def test_unwritable_target_is_exit_2(
    single_outputs: dict[str, pathlib.Path],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / f"{CANARY}-dir"
    target.mkdir()  # a directory cannot be replaced by the page
    assert run_report([str(single_outputs["support"]), "--html", str(target)], monkeypatch) == 2
    assert capsys.readouterr().err == "citelens: error [io]: report could not be written\n"
    assert target.is_dir() and list(target.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".citelens")] == []
