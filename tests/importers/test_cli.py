"""``citelens import FORMAT INPUT --out DIR``."""

from __future__ import annotations

from pathlib import Path

import pytest

from citelens.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "anthropic" / "exchanges.jsonl"


def test_import_writes_the_corpus_and_one_summary_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "corpus"
    assert main(["import", "anthropic", str(FIXTURE), "--out", str(out), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    # 5 non-blank lines; 7 cited text blocks, 10 citations, 7 sources with text (fixture)
    assert captured.err == (
        "citelens: imported 5 exchanges: 7 claims, 10 citations, 7 sources with text\n"
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "citations.parquet",
        "claims.parquet",
        "evidence.parquet",
        "sources.parquet",
    ]
    assert main(["corpus", "support", str(out), "--out", str(tmp_path / "s"), "--no-progress"]) == 0


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["import", "nope", "x.jsonl"],
            "citelens: error [policy]: import format is not supported\n",
        ),
        (
            ["import", "anthropic", "/no/such.jsonl"],
            "citelens: error [input]: anthropic file not found\n",
        ),
    ],
)
def test_fixed_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    assert main([*argv, "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    assert capsys.readouterr().err == line
    assert not (tmp_path / "o").exists()


def test_missing_parent_needs_mkdir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "a" / "b"
    assert main(["import", "anthropic", str(FIXTURE), "--out", str(out), "--no-progress"]) == 2
    assert capsys.readouterr().err == "citelens: error [io]: output directory does not exist\n"
    argv = ["import", "anthropic", str(FIXTURE), "--out", str(out), "--mkdir", "--no-progress"]
    assert main(argv) == 0
    assert (out / "sources.parquet").is_file()
