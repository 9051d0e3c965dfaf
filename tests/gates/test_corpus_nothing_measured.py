"""Corpus ``--strict`` fails when nothing was measured (issue 10 item 6): a corpus whose
documents hold evidence but no claim (or no citation) is not a pass."""

from __future__ import annotations

import json
import pathlib

import pytest

from citelens.cli import main


def _jsonl(path: pathlib.Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def evidence_only(tmp_path: pathlib.Path) -> pathlib.Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _jsonl(corpus / "claims.jsonl", [])
    _jsonl(
        corpus / "evidence.jsonl",
        [{"document_ref": "d1", "evidence_id": "e", "start": 0, "end": 3}],
    )
    return corpus


def test_corpus_support_strict_fails_on_no_claims(
    evidence_only: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    # without --strict the run succeeds: one document, evaluated, nothing to check
    assert main(["corpus", "support", str(evidence_only), "--out", str(out)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "corpus",
                "support",
                str(evidence_only),
                "--out",
                str(out),
                "--strict",
                "--no-progress",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "citelens: corpus citation-support gate failed: no claims evaluated, no citations evaluated"
    ]
