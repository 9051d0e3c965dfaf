"""``citelens minimality`` on the sample data: outputs, exit codes, fixed errors."""

from __future__ import annotations

import json
import pathlib

import pyarrow.parquet as pq
import pytest

from citelens.cli import main

from ._helpers import CANARY

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples" / "minimality"
ARGS = [
    "minimality",
    "--source",
    str(SAMPLES / "source.txt"),
    "--claims",
    str(SAMPLES / "claims.json"),
    "--citations",
    str(SAMPLES / "citations.jsonl"),
]


def test_markdown_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Citation Minimality Report\n")
    assert "Flagged: 3" in out
    assert "amoxicillin" not in out and "Blood pressure" not in out


def test_files_written(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "nested" / "out"
    code = main(
        [
            *ARGS,
            "--max-excess-tokens",
            "1",
            "--json",
            str(target / "r.json"),
            "--markdown",
            str(target / "r.md"),
            "--parquet",
            str(target / "r.parquet"),
            "--mkdir",  # nested/out is missing: an error without --mkdir (issue 11)
        ]
    )
    assert code == 0
    report = json.loads((target / "r.json").read_text())
    # allowance 1: the one-comma excess becomes minimal, 2 of 4 citations stay flagged
    assert report["flagged_count"] == 2 and report["max_excess_tokens"] == 1
    assert (target / "r.md").read_text().startswith("# Citation Minimality Report")
    table = pq.read_table(target / "r.parquet")
    assert table.num_rows == 4
    assert table.column("status").to_pylist().count("minimal") == 2
    assert "2 flagged" in capsys.readouterr().out
    assert not list(target.glob(".citelens-*"))


def test_fail_on_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGS, "--fail-on-flagged"]) == 1


def test_bad_input_exit_2(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / f"{CANARY}.csv"
    code = main([*ARGS[:5], "--citations", str(missing)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "citelens: error [input]: citations file could not be read\n"
    assert CANARY not in err
    bad_source = tmp_path / "bad.txt"
    bad_source.write_bytes(b"\xff\xfe" + CANARY.encode())
    assert main(["minimality", "--source", str(bad_source), *ARGS[3:]]) == 2
    assert "source_text must be text" in capsys.readouterr().err
    assert main([*ARGS, "--max-excess-tokens", "-1"]) == 2


def test_write_failure_is_io_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main([*ARGS, "--json", str(blocker / "sub" / "r.json")]) == 2
    assert capsys.readouterr().err == (
        "citelens: error [io]: citation minimality report could not be written\n"
    )
