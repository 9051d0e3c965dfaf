"""Citelens outputs for the report tests: real single-document reports with canaries in every
identifier and text, and corpus output directories built by the corpus commands."""

from __future__ import annotations

import importlib.util
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from citelens import build_summary_citation_report, compute_citation_support_metrics
from citelens.cli import main
from citelens.minimality import check_citation_minimality

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data-samples"
CANARY = "CANARY-9b1e"

needs_extra = pytest.mark.skipif(
    importlib.util.find_spec("altair") is None or importlib.util.find_spec("vl_convert") is None,
    reason="the report extra is not installed (pip install -e '.[dev,report]'; make test "
    "installs it)",
)


def run_report(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """``citelens report …`` through :func:`citelens.cli.main` (registered in the command
    table)."""
    return main(["report", *argv])


def support_json() -> str:
    """A support report of 2 claims and 3 edges: c1 → e1 valid (and adjudicated supports),
    c2 → an unknown id (missing_evidence), c2 → e1 with the span 1..9 reaching outside the
    evidence span 2..8 (citation_outside_evidence)."""
    claims = [
        {"claim_id": f"{CANARY}-c1", "start": 0, "end": 10, "citations": [f"{CANARY}-e1"]},
        {"claim_id": f"{CANARY}-c2", "start": 11, "end": 20, "citations": [f"{CANARY}-gone"]},
    ]
    evidence = [{"evidence_id": f"{CANARY}-e1", "start": 2, "end": 8, "source_length": 30}]
    citations = [{"claim_id": f"{CANARY}-c2", "evidence_id": f"{CANARY}-e1", "start": 1, "end": 9}]
    adjudications = [
        {"claim_id": f"{CANARY}-c1", "evidence_id": f"{CANARY}-e1", "label": "supports"}
    ]
    report = compute_citation_support_metrics(
        claims, evidence, citations=citations, adjudications=adjudications
    )
    return report.to_json()


def summary_json() -> str:
    claims = [
        {
            "claim_id": f"{CANARY}-b1",
            "claim": f"{CANARY} text one",
            "citations": [{"evidence_id": f"{CANARY}-n1"}],
        },
        {"claim_id": f"{CANARY}-b2", "claim": f"{CANARY} text two", "citations": []},
    ]
    evidence = [{"id": f"{CANARY}-n1", "start": 0, "end": 5, "value": f"{CANARY} source"}]
    return build_summary_citation_report(claims=claims, evidence=evidence).to_json()


def minimality_json() -> tuple[str, str]:
    """A minimality report over a source text holding the canary; returns (json, source)."""
    source = f"{CANARY} alpha beta gamma delta epsilon zeta eta theta"
    digest = "sha256:" + "a" * 64
    claims = [{"claim_id": digest, "required_span": [12, 22]}]  # "alpha beta"
    citations = [
        {"claim_id": digest, "citation_id": "sha256:" + "b" * 64, "start": 12, "end": 22},
        {"claim_id": digest, "citation_id": "sha256:" + "c" * 64, "start": 12, "end": 39},
    ]
    report = check_citation_minimality(source, claims, citations)
    return report.to_json(), source


@pytest.fixture(scope="session")
def corpus_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    """The three corpus output directories of the bundled samples (built once)."""
    base = tmp_path_factory.mktemp("corpus-outputs")
    runs = {
        "support": ["corpus", "support", str(SAMPLES / "corpus")],
        "summary": ["corpus", "summary-citations", str(SAMPLES / "corpus_summary")],
        "minimality": ["corpus", "minimality", str(SAMPLES / "corpus_minimality")],
    }
    out = {}
    for name, argv in runs.items():
        target = base / name
        assert main([*argv, "--out", str(target)]) in (0, 1)
        out[name] = target
    return out


@pytest.fixture
def single_outputs(tmp_path: pathlib.Path) -> Iterator[dict[str, pathlib.Path]]:
    """The three single-document JSON reports, as files."""
    files = {}
    mini, _ = minimality_json()
    for name, text in (
        ("support", support_json()),
        ("summary", summary_json()),
        ("minimality", mini),
    ):
        path = tmp_path / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        files[name] = path
    yield files


def write_json(path: pathlib.Path, value: Any) -> pathlib.Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path
