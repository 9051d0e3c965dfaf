"""What the report page shows for each kind of output: hand-checked bars, figures and tables,
and nothing of the input's identifiers or texts."""

from __future__ import annotations

import json
import pathlib
import re

import polars as pl
import pytest

from citelens.errors import CorpusError
from citelens.report import render_report
from citelens.report._facts import EXCESS_BINS, RATE_BINS, Page, build_page
from citelens.report._read import load_output

from .conftest import CANARY, minimality_json, needs_extra, write_json

PSEUDONYM = "hmac-sha256:" + "0123456789abcdef" * 4

pytestmark = needs_extra


def _page(path: pathlib.Path) -> Page:
    return build_page(load_output(path))


def _bars(page: Page, name: str) -> dict[str, int]:
    chart = next(c for c in page.charts if c.name == name)
    return dict(chart.bars)


def assert_self_contained(html: str, charts: int) -> None:
    """One page, one style element, no script, no link, no reference outside the page, and
    one inline ``<svg>`` per chart."""
    assert html.startswith("<!doctype html>") and '<meta charset="utf-8">' in html
    assert html.count("<style>") == 1
    lowered = html.lower()
    for forbidden in ("<script", "<link", "@import", "<iframe", "<img", "http://w", "https://"):
        assert forbidden not in lowered.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
            'xmlns:xlink="http://www.w3.org/1999/xlink"', ""
        )
    for attr in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert attr.startswith("#")
    assert "url(" not in lowered.replace("url(#", "")
    assert html.count("<svg") == charts == html.count('<figure class="chart"')


def test_support_report(single_outputs: dict[str, pathlib.Path]) -> None:
    page = _page(single_outputs["support"])
    assert page.verdict == "FAIL"  # two of the three edges are invalid
    assert _bars(page, "outcome") == {"valid": 1, "invalid": 2}
    # one edge to an unknown id, one with a span outside its evidence; the other four are 0
    assert _bars(page, "reasons") == {
        "citation_outside_evidence": 1,
        "invalid_citation_span": 0,
        "invalid_evidence_span": 0,
        "missing_claim": 0,
        "missing_evidence": 1,
        "source_mismatch": 0,
    }
    assert _bars(page, "labels") == {"supports": 1, "contradicts": 0, "irrelevant": 0, "unclear": 0}
    figures = dict(page.figures)
    # precision: 1 supporting / 1 adjudicated valid edge; recall: 1 of 2 claims supported
    assert figures["citation precision"] == "100.00%" and figures["support recall"] == "50.00%"
    html = render_report(single_outputs["support"])
    assert_self_contained(html, charts=3)
    assert CANARY not in html


def test_summary_report(single_outputs: dict[str, pathlib.Path]) -> None:
    page = _page(single_outputs["summary"])
    assert page.verdict == "FAIL"
    # b1 cites n1 (supported); b2 cites nothing (missing citation, an abstention, unsupported)
    assert _bars(page, "claims") == {"supported": 1, "unsupported": 1, "abstention": 1}
    assert _bars(page, "citations") == {"valid": 1, "invalid": 0, "duplicate": 0, "missing": 1}
    figures = dict(page.figures)
    assert figures["coverage"] == "50.00%"
    assert figures["failure reasons"] == "missing_citation, unsupported_claim"
    html = render_report(single_outputs["summary"])
    assert_self_contained(html, charts=2)
    assert CANARY not in html


def test_minimality_report(single_outputs: dict[str, pathlib.Path]) -> None:
    page = _page(single_outputs["minimality"])
    assert page.verdict == "FLAGGED"
    assert _bars(page, "statuses") == {
        "minimal": 1,
        "excess_context": 1,
        "missing_required_span": 0,
    }
    # the exact citation has 0 excess tokens; the broad one adds "gamma delta epsilon" = 3
    excess = _bars(page, "excess-tokens")
    assert excess == {label: (1 if label in ("0", "3–5") else 0) for label in EXCESS_BINS}
    html = render_report(single_outputs["minimality"])
    assert_self_contained(html, charts=2)
    _, source = minimality_json()
    assert CANARY not in html and source not in html
    assert "b" * 64 not in html and "a" * 64 not in html  # citation and claim ids


def _support_summary(**changes: object) -> dict[str, object]:
    summary: dict[str, object] = {
        "suite": "citation_support_corpus",
        "schema_version": 1,
        "document_count": 6,
        "evaluated_document_count": 5,
        "failed_document_count": 1,
        "passed_document_count": 2,
        "claim_count": 10,
        "citation_count": 12,
        "invalid_citation_count": 3,
        "invalid_citation_reasons": {"missing_claim": 2, "source_mismatch": 1},
        "micro_citation_precision": 0.5,
        "macro_citation_precision": 0.625,
        "micro_support_recall": None,
        "macro_support_recall": 0.25,
        "worst_documents": [
            {"document_ref": PSEUDONYM, "invalid_citation_count": 2},
            {"document_ref": f"{CANARY}-raw-ref", "invalid_citation_count": 1},
        ],
        "errors": [{"category": "reference", "documents": 1, "message": f"{CANARY} message"}],
    }
    summary.update(changes)
    return summary


def _support_corpus(tmp: pathlib.Path, precision: list[float | None]) -> pathlib.Path:
    out = tmp / "corpus"
    out.mkdir()
    write_json(out / "summary.json", _support_summary())
    rows = len(precision)
    pl.DataFrame(
        {
            "document_ref": [f"{CANARY}-doc-{i}" for i in range(rows)],
            "status": ["ok"] * (rows - 1) + ["error"],
            "citation_precision": precision,
            "support_recall": [None] * (rows - 2) + [0.3, 0.7],
        },
        schema={
            "document_ref": pl.String,
            "status": pl.String,
            "citation_precision": pl.Float64,
            "support_recall": pl.Float64,
        },
    ).write_parquet(out / "documents.parquet")
    return out


def test_corpus_histograms_and_worst_documents(tmp_path: pathlib.Path) -> None:
    # the last row is an error row: its value (0.5) is left out of the histogram
    out = _support_corpus(tmp_path, [0.0, 0.05, 0.1, 0.95, 1.0, 0.5])
    page = _page(out)
    precision = _bars(page, "precision")
    # 0.0 and 0.05 fall in [0, 10%); 0.1 in [10, 20%); 0.95 and 1.0 (closed end) in the last
    assert precision == {label: {0: 2, 1: 1, 9: 2}.get(i, 0) for i, label in enumerate(RATE_BINS)}
    # support recall: four nulls, 0.3 in [30, 40%); 0.7 sits on the error row
    assert _bars(page, "recall") == {label: int(i == 3) for i, label in enumerate(RATE_BINS)}
    assert _bars(page, "documents") == {"passing": 2, "not passing": 3, "failed (error)": 1}
    worst, errors = page.tables
    assert worst.rows == ((PSEUDONYM, "2"), ("withheld (not a pseudonym)", "1"))
    assert errors.rows == (("reference", "1"),)  # the message itself is not shown
    assert dict(page.figures)["support recall (micro)"] == "—"
    html = render_report(out)
    assert_self_contained(html, charts=4)
    assert CANARY not in html and PSEUDONYM in html


@pytest.mark.parametrize(
    "change",
    [
        {"invalid_citation_reasons": {f"{CANARY}_reason": 1}},  # a word not of citelens
        {"claim_count": -1},
        {"claim_count": True},
        {"micro_citation_precision": 1.5},
        {"worst_documents": [{"document_ref": PSEUDONYM, "invalid_citation_count": "3"}]},
        {"errors": [{"category": CANARY, "documents": 1}]},
        {"suite": f"{CANARY}-suite"},
    ],
)
def test_tampered_summary_is_refused_without_echo(
    tmp_path: pathlib.Path, change: dict[str, object]
) -> None:
    out = _support_corpus(tmp_path, [0.5, 0.5])
    write_json(out / "summary.json", _support_summary(**change))
    with pytest.raises(CorpusError) as caught:
        render_report(out)
    assert str(caught.value) == "report input is not a citelens output"
    assert caught.value.category == "input"
    assert CANARY not in repr(caught.value) and caught.value.__context__ is None


def test_rates_outside_the_unit_interval_are_refused(tmp_path: pathlib.Path) -> None:
    out = _support_corpus(tmp_path, [0.5, 1.5, 0.2])
    with pytest.raises(CorpusError, match=r"^report input is not a citelens output$"):
        render_report(out)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"[1, 2]",
        b"{not json",
        b'{"suite": "citation_support_corpus"}',
        b"\xff\xfe" + b"[" * 100,
    ],
)
def test_files_that_are_not_outputs(tmp_path: pathlib.Path, content: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=r"^report input is not a citelens output$"):
        render_report(path)  # a corpus summary alone is refused too: it needs its directory


def test_missing_input(tmp_path: pathlib.Path) -> None:
    with pytest.raises(CorpusError, match=r"^report input not found$"):
        render_report(tmp_path / f"{CANARY}.json")


def test_directory_without_parquet_is_refused(tmp_path: pathlib.Path) -> None:
    write_json(tmp_path / "summary.json", _support_summary())
    with pytest.raises(CorpusError, match=r"^report input is not a citelens output$"):
        render_report(tmp_path)


def test_real_corpus_outputs(corpus_outputs: dict[str, pathlib.Path]) -> None:
    expected = {"support": 4, "summary": 4, "minimality": 2}
    for name, out in corpus_outputs.items():
        html = render_report(out)
        assert_self_contained(html, charts=expected[name])
        refs = pl.read_parquet(out / "documents.parquet", columns=["document_ref"])
        assert not any(ref in html for ref in refs["document_ref"].to_list())
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        for entry in summary["worst_documents"]:  # keyed pseudonyms, shown as they are
            assert entry["document_ref"] in html
        if name == "minimality":  # deterministic (the smallest page: each render costs time)
            assert html == render_report(out)


def test_corpus_minimality_excess_tokens(corpus_outputs: dict[str, pathlib.Path]) -> None:
    out = corpus_outputs["minimality"]
    page = _page(out)
    excess = pl.read_parquet(out / "citations.parquet")["excess_token_count"]
    bars = _bars(page, "excess-tokens")
    # the bins partition the citations, and "0" holds exactly the citations with no excess
    assert sum(bars.values()) == len(excess)
    assert bars["0"] == int((excess == 0).sum())
    totals = json.loads((out / "summary.json").read_text(encoding="utf-8"))["totals"]
    statuses = _bars(page, "statuses")
    assert statuses["minimal"] == totals["minimal"]
    assert sum(statuses.values()) == totals["citations"]


def test_vocabularies_are_the_packages() -> None:
    """The report keeps its own copy of the fixed words (so that importing it loads no
    engine); they must stay the words the checks write."""
    from citelens.minimality._batch import _STATUS_NAMES
    from citelens.report._read import (
        MINIMALITY_STATUSES,
        SUMMARY_REASONS,
        SUPPORT_LABELS,
        SUPPORT_REASONS,
    )
    from citelens.summary_citations import REASON_CODES as SUMMARY_CODES
    from citelens.support._kernel import LABELS, REASON_CODES

    assert SUPPORT_REASONS == REASON_CODES
    assert set(SUPPORT_LABELS) == set(LABELS)
    assert SUMMARY_REASONS == SUMMARY_CODES
    assert MINIMALITY_STATUSES == _STATUS_NAMES
