"""The seed document's examples run as written, with the import path changed to citelens."""

from __future__ import annotations

from typing import Any

import pytest

from citelens.errors import SummaryCitationGateError
from conftest import shared_dir


def _seed_text() -> str:
    return (shared_dir("seeds") / "001_f86faf7459a53eeb.txt").read_text(encoding="utf-8")


def test_seed_report_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = _seed_text()
    start = text.index("from openmed.clinical.summary_citations import (")
    end = text.index("print(report.metrics.failure_reasons)") + len(
        "print(report.metrics.failure_reasons)"
    )
    code = text[start:end].replace(
        "openmed.clinical.summary_citations", "citelens.summary_citations"
    )
    namespace: dict[str, Any] = {}
    exec(compile(code, "seed-001", "exec"), namespace)
    report = namespace["report"]
    assert report.passed is True
    assert report.metrics.coverage == 1.0
    assert capsys.readouterr().out == ""  # the failure branch did not print


def test_seed_gate_example_runs() -> None:
    text = _seed_text()
    line = "from openmed.clinical.summary_citations import assert_summary_citation_gate"
    assert line in text
    code = (
        line.replace("openmed.clinical", "citelens")
        + "\n\nassert_summary_citation_gate(claims, evidence)\n"
    )
    good = {
        "claims": [{"claim": "synthetic claim", "citations": [{"evidence_id": "evidence-1"}]}],
        "evidence": [{"id": "evidence-1", "start": 0, "end": 12}],
    }
    exec(compile(code, "seed-001-gate", "exec"), dict(good))
    bad = {"claims": [{"claim": "synthetic claim"}], "evidence": good["evidence"]}
    with pytest.raises(SummaryCitationGateError):
        exec(compile(code, "seed-001-gate", "exec"), dict(bad))
