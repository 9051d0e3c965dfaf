"""``citelens minimality`` on the sample data: outputs, exit codes, fixed errors."""

from __future__ import annotations

import json
import os
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
    # the contract's message is "citations file could not be read"; the CLI shows the detail
    assert err == "citelens: error [input]: citations file not found\n"
    assert CANARY not in err
    bad_source = tmp_path / "bad.txt"
    bad_source.write_bytes(b"\xff\xfe" + CANARY.encode())
    assert main(["minimality", "--source", str(bad_source), *ARGS[3:]]) == 2
    # the contract's message is "source_text must be text"; the CLI shows the detail
    assert capsys.readouterr().err == "citelens: error [input]: source file is not valid UTF-8\n"
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


def _err(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert CANARY not in err
    return err


def test_every_input_shows_the_readers_detail(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11, item 2: the message stays the contract's (source_text must be text, claims /
    # citations file could not be read, category input); stderr shows the detail instead
    source, claims, citations = ARGS[2], ARGS[4], ARGS[6]
    missing = str(tmp_path / CANARY / "source.txt")
    folder = tmp_path / f"{CANARY}-dir"
    folder.mkdir()
    not_utf8 = tmp_path / f"{CANARY}.jsonl"
    not_utf8.write_bytes(b"\xff" + CANARY.encode())
    no_suffix = tmp_path / CANARY  # from the CLI a path is always a path
    no_suffix.write_text("[]")
    bad_line = tmp_path / "citations.jsonl"
    bad_line.write_text((SAMPLES / "citations.jsonl").read_text().splitlines()[0] + "\n[\n")
    cases = [
        (missing, claims, citations, "source file not found"),
        (str(folder), claims, citations, "source path is a directory"),
        (str(not_utf8), claims, citations, "source file is not valid UTF-8"),
        (source, str(not_utf8), citations, "claims file is not valid UTF-8"),
        (source, str(no_suffix), citations, "claims file type is not supported"),
        (source, claims, str(tmp_path / "nope.csv"), "citations file not found"),
        # line 1 is the sample's first citation, line 2 an unclosed array
        (source, claims, str(bad_line), "citations JSONL line 2 is not valid JSON"),
    ]
    for s, c, x, detail in cases:
        argv = ["minimality", "--source", s, "--claims", c, "--citations", x]
        assert _err(argv, capsys) == f"citelens: error [input]: {detail}\n"


def test_a_fifo_source_is_refused_without_blocking(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "source.txt"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer
    argv = ["minimality", "--source", str(fifo), *ARGS[3:]]
    assert _err(argv, capsys) == "citelens: error [input]: source path is not a regular file\n"
