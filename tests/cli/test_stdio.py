"""``-`` for one input (stdin) and one JSON/Markdown output (stdout); ``--mkdir`` (issue 11,
item 2). Stdin needs a real process: the commands run as subprocesses."""

from __future__ import annotations

import gzip
import io
import json
import pathlib
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from citelens.cli import main
from citelens.cli._common import sniff_format
from citelens.io import read_data_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data-samples" / "support"
CANARY = "CANARY-9b1e"


def _run(
    args: list[str], stdin: bytes = b"", cwd: pathlib.Path | None = None
) -> tuple[int, bytes, str]:
    done = subprocess.run(
        [sys.executable, "-m", "citelens", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
        cwd=cwd,
    )
    return done.returncode, done.stdout, done.stderr.decode()


def _support(claims: str, *extra: str) -> list[str]:
    return ["support", "--claims", claims, "--evidence", str(SAMPLES / "evidence.csv"), *extra]


def test_sniffing() -> None:
    assert sniff_format(b"PAR1\x15\x04") == ".parquet"
    assert sniff_format(b"ARROW1\x00\x00") == ".arrow"
    assert sniff_format(b"\xff\xff\xff\xff\x10\x00") == ".arrow"  # the IPC stream format
    assert sniff_format(b'\xef\xbb\xbf  [{"a": 1}]') == ".json"
    assert sniff_format(b'\n{"a": 1}\n{"a": 2}\n') == ".jsonl"
    assert sniff_format(b"claim_id\tstart\nc1\t3\n") == ".tsv"
    assert sniff_format(b"claim_id,start\nc1,3\n") == ".csv"
    assert sniff_format(gzip.compress(b'{"a": 1}\n')) == ".jsonl.gz"
    assert sniff_format(gzip.compress(b"a,b\n1,2\n")) == ".csv.gz"


def test_jsonl_from_stdin_and_json_to_stdout(tmp_path: pathlib.Path) -> None:
    claims = (SAMPLES / "claims.jsonl").read_bytes()
    code, out, err = _run(_support("-", "--json", "-"), claims)
    assert (code, err) == (0, "")
    # byte-identical to the report of the same file read from disk
    code, _, _ = _run(_support(str(SAMPLES / "claims.jsonl"), "--json", str(tmp_path / "r.json")))
    assert code == 0
    assert out == (tmp_path / "r.json").read_bytes()
    assert json.loads(out)["claim_count"] == 10  # the sample's 10 claims
    assert not (tmp_path / "-").exists() and not pathlib.Path("-").exists()


def test_parquet_and_gzip_from_stdin(tmp_path: pathlib.Path) -> None:
    table = read_data_file(SAMPLES / "claims.jsonl")
    sink = io.BytesIO()
    pq.write_table(table, sink)
    expected = _run(_support(str(SAMPLES / "claims.jsonl"), "--json", "-"))[1]
    for data in (sink.getvalue(), gzip.compress((SAMPLES / "claims.jsonl").read_bytes())):
        code, out, err = _run(_support("-", "--json", "-"), data)
        assert (code, err) == (0, "")
        assert out == expected  # the magic bytes chose the reader


def test_stdin_format_flag() -> None:
    # one claim as a JSON document on one line: sniffed as JSON Lines, read as JSON when told
    record = json.dumps([{"claim_id": CANARY, "start": 0, "end": 3, "citations": []}]).encode()
    code, out, err = _run(_support("-", "--stdin-format", "json", "--json", "-"), record)
    assert (code, err) == (0, "")
    assert json.loads(out)["claim_count"] == 1
    assert CANARY.encode() not in out


def test_markdown_to_stdout_keeps_stdout_clean() -> None:
    code, out, err = _run(_support(str(SAMPLES / "claims.jsonl"), "--markdown", "-"))
    assert code == 0 and err == ""
    assert out.startswith(b"#")  # the Markdown report alone (it opens with its heading)


def test_usage_errors() -> None:
    two = ["support", "--claims", "-", "--evidence", "-"]
    assert _run(two) == (
        2,
        b"",
        "citelens: error [policy]: only one input may be read from stdin\n",
    )
    claims = str(SAMPLES / "claims.jsonl")
    assert _run(_support(claims, "--json", "-", "--markdown", "-")) == (
        2,
        b"",
        "citelens: error [policy]: only one output may be written to stdout\n",
    )
    assert _run(_support(claims, "--parquet", "-")) == (
        2,
        b"",
        "citelens: error [policy]: only JSON and Markdown outputs may be written to stdout\n",
    )


@pytest.mark.parametrize(
    "command",
    [
        ["support", "--claims", str(SAMPLES / "claims.jsonl")],
        [
            "summary-citations",
            "--claims",
            str(ROOT / "data-samples/summary_citations/claims.jsonl"),
            "--evidence",
            str(ROOT / "data-samples/summary_citations/evidence.csv"),
        ],
    ],
)
def test_missing_output_directory(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    target = tmp_path / f"missing-{CANARY}" / "deeper" / "report.json"
    assert main([*command, "--json", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [io]: output directory does not exist\n"
    assert not target.parent.parent.exists()  # nothing created
    assert main([*command, "--json", str(target), "--mkdir"]) == 0
    report = json.loads(target.read_text())
    # support's sample has 10 claims (top level), summary-citations' 5 (under "metrics")
    assert report.get("claim_count") == 10 or report["metrics"]["claim_count"] == 5


def test_corpus_out_parent_must_exist(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = ROOT / "data-samples" / "corpus"
    out = tmp_path / "no" / "out"
    assert main(["corpus", "support", str(corpus), "--out", str(out)]) == 2
    assert capsys.readouterr().err == "citelens: error [io]: output directory does not exist\n"
    # the directory output itself may be missing when its parent exists
    assert main(["corpus", "support", str(corpus), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "summary.json").is_file()
