"""``citelens support`` (issue 2, item 5): outputs, exit codes, fixed-category errors on
stderr, atomic outputs; in-process through ``citelens.cli.main`` and once as a subprocess."""

from __future__ import annotations

import hashlib
import hmac
import json
import pathlib
import subprocess
import sys
from typing import Any

import pyarrow.parquet as pq
import pytest

from ._helpers import CANARY_ID, compute

ROOT = pathlib.Path(__file__).resolve().parents[2]
KEY = b"citelens-test-pseudonym-key-0001"

CLAIMS = [
    {"claim_id": "c1", "start": 0, "end": 12, "source_length": 40, "citations": ["e1"]},
    {"claim_id": "c2", "start": 13, "end": 25, "source_length": 40},
]
EVIDENCE = [
    {"evidence_id": "e1", "start": 4, "end": 10, "source_length": 24},
    {"evidence_id": "e2", "start": 12, "end": 18, "source_length": 24},
]
CITATIONS = [{"claim_id": "c2", "evidence_id": "e2", "start": 12, "end": 14}]
ADJUDICATIONS = [{"claim_id": "c1", "evidence_id": "e1", "label": "supports"}]


def write_jsonl(path: pathlib.Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.fixture()
def files(tmp_path: pathlib.Path) -> dict[str, str]:
    return {
        "claims": write_jsonl(tmp_path / "claims.jsonl", CLAIMS),
        "evidence": write_jsonl(tmp_path / "evidence.jsonl", EVIDENCE),
        "citations": write_jsonl(tmp_path / "citations.jsonl", CITATIONS),
        "adjudications": write_jsonl(tmp_path / "adjudications.jsonl", ADJUDICATIONS),
    }


def expected_report() -> Any:
    return compute(CLAIMS, EVIDENCE, CITATIONS, ADJUDICATIONS)


def base_args(files: dict[str, str]) -> list[str]:
    return [
        "support",
        "--claims",
        files["claims"],
        "--evidence",
        files["evidence"],
        "--citations",
        files["citations"],
        "--adjudications",
        files["adjudications"],
    ]


def cli(args: list[str]) -> int:
    from citelens.cli import main

    code: int = main(args)
    return code


def test_markdown_on_stdout(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(base_args(files)) == 0
    out, err = capsys.readouterr()
    assert out == expected_report().to_markdown()
    assert err == ""


def test_claims_only(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = write_jsonl(tmp_path / "c.jsonl", CLAIMS)
    assert cli(["support", "--claims", claims]) == 0
    assert capsys.readouterr().out == compute(CLAIMS).to_markdown()


def test_outputs(
    files: dict[str, str], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "nested"
    key_file = tmp_path / "pseudonym.key"
    key_file.write_bytes(KEY)
    args = [
        *base_args(files),
        "--json",
        str(out / "r.json"),
        "--markdown",
        str(out / "r.md"),
        "--parquet",
        str(out / "r.parquet"),
        "--tables",
        str(out / "tables"),
        "--pseudonym-key-file",
        str(key_file),
        "--mkdir",  # out/nested does not exist: without --mkdir that is an error (issue 11)
    ]
    assert cli(args) == 0
    assert capsys.readouterr().out == ""  # outputs named: nothing on stdout
    report = expected_report()
    assert (out / "r.json").read_bytes() == report.to_json().encode("utf-8")
    assert (out / "r.md").read_text(encoding="utf-8") == report.to_markdown()
    row = pq.read_table(out / "r.parquet")
    assert row.num_columns == 59 and row.num_rows == 1
    assert row.to_pylist() == report.to_arrow().to_pylist()
    names = sorted(p.name for p in (out / "tables").iterdir())
    assert names == ["adjudications.parquet", "claims.parquet", "edges.parquet", "evidence.parquet"]
    claims = pq.read_table(out / "tables" / "claims.parquet").to_pylist()
    # keyed pseudonyms: HMAC-SHA-256 under the key file's bytes (issue 10)
    pseudonyms = {
        "hmac-sha256:" + hmac.new(KEY, c.encode(), hashlib.sha256).hexdigest() for c in ("c1", "c2")
    }
    assert {r["claim_id"] for r in claims} == pseudonyms
    expected_tables = report.tables(pseudonym_key=KEY)
    for name in ("claims", "evidence", "edges", "adjudications"):
        assert (
            pq.read_table(out / "tables" / f"{name}.parquet").to_pylist()
            == getattr(expected_tables, name).to_pylist()
        )


def test_raw_identifiers(files: dict[str, str], tmp_path: pathlib.Path) -> None:
    assert cli([*base_args(files), "--tables", str(tmp_path / "t"), "--raw-identifiers"]) == 0
    claims = pq.read_table(tmp_path / "t" / "claims.parquet").to_pylist()
    assert sorted(r["claim_id"] for r in claims) == ["c1", "c2"]


def test_strict(
    files: dict[str, str], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # All spans valid, every edge valid: --strict passes.
    assert expected_report().deterministic.passed is True
    assert cli([*base_args(files), "--strict"]) == 0
    capsys.readouterr()
    # A citation outside its evidence: the checks fail; exit 1 only with --strict.
    bad = write_jsonl(
        tmp_path / "bad.jsonl", [{"claim_id": "c2", "evidence_id": "e2", "start": 0, "end": 30}]
    )
    args = [
        "support",
        "--claims",
        files["claims"],
        "--evidence",
        files["evidence"],
        "--citations",
        bad,
    ]
    assert cli(args) == 0
    assert cli([*args, "--strict"]) == 1
    out = capsys.readouterr().out
    assert "- Verdict: `review`" in out
    # --strict still writes the named outputs.
    assert cli([*args, "--strict", "--json", str(tmp_path / "s.json")]) == 1
    assert (tmp_path / "s.json").exists()


def test_bad_input(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = write_jsonl(tmp_path / f"{CANARY_ID}.jsonl", [{"start": 1, "text": CANARY_ID}])
    out_json = tmp_path / "r.json"
    assert cli(["support", "--claims", claims, "--json", str(out_json)]) == 2
    out, err = capsys.readouterr()
    assert err == "citelens: error [record]: claim identifier is required\n"
    assert out == ""
    assert CANARY_ID not in err
    assert not out_json.exists()
    assert list(tmp_path.iterdir()) == [pathlib.Path(claims)]


def test_missing_file(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / f"{CANARY_ID}" / "claims.parquet")
    assert cli(["support", "--claims", missing]) == 2
    err = capsys.readouterr().err
    # the CLI shows the reader's detail in place of the contract's message (issue 11)
    assert err == "citelens: error [collection]: claims file not found\n"


def test_limits_options(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli([*base_args(files), "--max-claims", "1"]) == 2
    assert (
        capsys.readouterr().err
        == "citelens: error [limit]: claim collection exceeds the record limit\n"
    )
    assert cli([*base_args(files), "--max-citations", "1"]) == 2
    assert (
        capsys.readouterr().err
        == "citelens: error [limit]: citation collection exceeds the record limit\n"
    )
    assert (
        cli(
            [
                *base_args(files),
                "--max-adjudications",
                "1",
                "--max-evidence",
                "2",
                "--max-claims",
                "2",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert cli([*base_args(files), "--max-evidence", "0"]) == 2
    assert (
        capsys.readouterr().err
        == "citelens: error [limit]: record limits must be positive integers\n"
    )


def test_usage_errors(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["support"]) == 2
    assert cli(["support", "--claims", files["claims"], "--max-claims", "many"]) == 2
    capsys.readouterr()


def test_failing_write_leaves_no_file(
    files: dict[str, str], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    out_json = tmp_path / "r.json"
    # The JSON can be written, the tables cannot (their directory is a file): a failing run
    # leaves no output behind.
    args = [*base_args(files), "--json", str(out_json), "--tables", str(blocker)]
    assert cli(args) == 2
    assert (
        capsys.readouterr().err
        == "citelens: error [io]: citation-support report could not be written\n"
    )
    assert not out_json.exists()
    assert blocker.read_text(encoding="utf-8") == "x"
    assert cli([*base_args(files), "--markdown", str(blocker / "r.md")]) == 2
    assert (
        capsys.readouterr().err
        == "citelens: error [io]: citation-support report could not be written\n"
    )


def test_subprocess(files: dict[str, str], tmp_path: pathlib.Path) -> None:
    exe = ROOT / ".venv" / "bin" / "citelens"
    if not exe.exists():
        pytest.skip("the citelens console script is not installed in .venv")
    done = subprocess.run(
        [str(exe), *base_args(files)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0
    assert done.stdout == expected_report().to_markdown()
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"claim_id": CANARY_ID + "\tx"}])
    done = subprocess.run(
        [str(exe), "support", "--claims", bad],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert (
        done.stderr
        == "citelens: error [identifier]: identifier is empty, bounded, and control-free\n"
    )
    assert "Traceback" not in done.stderr
    # python -m citelens works the same way.
    done = subprocess.run(
        [sys.executable, "-m", "citelens", *base_args(files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == expected_report().to_markdown()
