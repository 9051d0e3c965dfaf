"""``citelens summary-citations``: exit codes, outputs, atomic writes, no echo of input."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from citelens.cli import main
from citelens.summary_citations import build_summary_citation_report

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data-samples" / "summary_citations"
CANARY = "CANARY-cli-51f0"


def _write_inputs(tmp_path: pathlib.Path, *, complete: bool) -> tuple[pathlib.Path, pathlib.Path]:
    claims = tmp_path / "claims.jsonl"
    lines = [
        json.dumps({"claim": f"{CANARY} claim", "citations": [f"{CANARY}-e1"]}),
        json.dumps({"claim": f"{CANARY} claim", "evidence_id": f"{CANARY}-e2"}),
    ]
    if not complete:
        lines.append(json.dumps({"claim": f"{CANARY} uncited"}))
    claims.write_text("\n".join(lines) + "\n", encoding="utf-8")
    evidence = tmp_path / "evidence.csv"
    evidence.write_text(
        f"id,start,end,value\n{CANARY}-e1,0,5,{CANARY} text\n{CANARY}-e2,6,9,{CANARY} text\n",
        encoding="utf-8",
    )
    return claims, evidence


def test_markdown_on_stdout_and_exit_zero(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claims, evidence = _write_inputs(tmp_path, complete=False)
    code = main(["summary-citations", "--claims", str(claims), "--evidence", str(evidence)])
    out, err = capsys.readouterr()
    assert code == 0  # no --gate: a failing verdict is still exit 0
    expected = build_summary_citation_report(claims, evidence).to_markdown()
    assert out == expected
    assert "| Verdict | fail |" in out
    assert err == ""
    assert CANARY not in out + err


def test_gate_exit_codes(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims, evidence = _write_inputs(tmp_path, complete=False)
    code = main(
        ["summary-citations", "--claims", str(claims), "--evidence", str(evidence), "--gate"]
    )
    out, err = capsys.readouterr()
    assert code == 1
    assert "gate failed: missing_citation, unsupported_claim" in err
    assert CANARY not in out + err
    good = tmp_path / "good"
    good.mkdir()
    claims, evidence = _write_inputs(good, complete=True)
    code = main(
        ["summary-citations", "--claims", str(claims), "--evidence", str(evidence), "--gate"]
    )
    out, err = capsys.readouterr()
    assert code == 0 and "| Verdict | pass |" in out


def test_all_outputs_written(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims, evidence = _write_inputs(tmp_path, complete=True)
    out_dir = tmp_path / "out" / "nested"
    code = main(
        [
            "summary-citations",
            "--claims",
            str(claims),
            "--evidence",
            str(evidence),
            "--json",
            str(out_dir / "r.json"),
            "--markdown",
            str(out_dir / "r.md"),
            "--parquet",
            str(out_dir / "r.parquet"),
            "--mkdir",  # out/nested is missing: an error without --mkdir (issue 11)
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0 and out == "" and err == ""
    report = build_summary_citation_report(claims, evidence)
    assert (out_dir / "r.json").read_text(encoding="utf-8") == report.to_json(indent=2) + "\n"
    assert (out_dir / "r.md").read_text(encoding="utf-8") == report.to_markdown()
    row = pq.read_table(out_dir / "r.parquet").to_pylist()[0]
    assert row["claim_count"] == 2 and row["passed"] is True
    assert sorted(p.name for p in out_dir.iterdir()) == ["r.json", "r.md", "r.parquet"]
    for path in out_dir.iterdir():
        assert CANARY.encode() not in path.read_bytes()


@pytest.mark.parametrize(
    ("claims_name", "message"),
    [
        ("claims.txt", "citelens: error [input]: claims file type is not supported\n"),
        # the reader's detail in place of "claims file could not be read" (issue 11)
        ("missing.jsonl", "citelens: error [input]: claims file not found\n"),
    ],
)
def test_bad_input_exit_two(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], claims_name: str, message: str
) -> None:
    _, evidence = _write_inputs(tmp_path, complete=True)
    bad = tmp_path / f"{CANARY}-{claims_name}"
    if claims_name.endswith(".txt"):
        bad.write_text(CANARY, encoding="utf-8")
    code = main(["summary-citations", "--claims", str(bad), "--evidence", str(evidence)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err == message
    assert CANARY not in err


def test_limit_options(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims, evidence = _write_inputs(tmp_path, complete=True)
    code = main(
        [
            "summary-citations",
            "--claims",
            str(claims),
            "--evidence",
            str(evidence),
            "--max-claims",
            "1",
        ]
    )
    assert code == 2
    assert capsys.readouterr().err == (
        "citelens: error [limit]: claims collection exceeds the configured limit\n"
    )
    code = main(
        [
            "summary-citations",
            "--claims",
            str(claims),
            "--evidence",
            str(evidence),
            "--max-citations",
            "0",
        ]
    )
    assert code == 2  # argparse usage error


def test_write_failure_leaves_target_untouched(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claims, evidence = _write_inputs(tmp_path, complete=True)
    blocker = tmp_path / "blocker"
    blocker.write_text("keep", encoding="utf-8")
    code = main(
        [
            "summary-citations",
            "--claims",
            str(claims),
            "--evidence",
            str(evidence),
            "--json",
            str(blocker / f"{CANARY}.json"),
        ]
    )
    _, err = capsys.readouterr()
    assert code == 2
    assert err == "citelens: error [io]: summary citation report could not be written\n"
    assert blocker.read_text(encoding="utf-8") == "keep"
    existing = tmp_path / "existing.json"
    existing.write_text("old", encoding="utf-8")
    code = main(
        [
            "summary-citations",
            "--claims",
            str(claims),
            "--evidence",
            str(evidence),
            "--json",
            str(existing),
        ]
    )
    assert code == 0
    assert json.loads(existing.read_text(encoding="utf-8"))["passed"] is True
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".citelens-")] == []


def test_sample_data_through_console_script() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "citelens",
            "summary-citations",
            "--claims",
            str(SAMPLES / "claims.jsonl"),
            "--evidence",
            str(SAMPLES / "evidence.csv"),
            "--gate",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "| Duplicate citations | 1 |" in result.stdout
    assert "brief-" not in result.stdout + result.stderr
    complete = subprocess.run(
        [
            sys.executable,
            "-m",
            "citelens",
            "summary-citations",
            "--gate",
            "--claims",
            str(SAMPLES / "claims_complete.jsonl"),
            "--evidence",
            str(SAMPLES / "evidence.csv"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert complete.returncode == 0, complete.stderr


def test_failing_output_leaves_no_other_output(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --json can be written, --parquet cannot (its parent is a regular file): the run fails
    # with the io error and leaves neither file behind.
    claims, evidence = _write_inputs(tmp_path, complete=True)
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    out_json = tmp_path / "r.json"
    args = ["summary-citations", "--claims", str(claims), "--evidence", str(evidence)]
    assert main([*args, "--json", str(out_json), "--parquet", str(blocker / "r.parquet")]) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [io]: summary citation report could not be written\n"
    assert not out_json.exists()
