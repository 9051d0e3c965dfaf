"""The self-contained HTML report (§9.10) and a headless-browser rendering check."""

from __future__ import annotations

import io
import json
import pathlib
import re
import shutil

from citelens.gold import METRICS, run
from report._browser import needs_browser, render_offline  # shared with tests/report

from ._helpers import SAMPLES


def _dataset_with_markup(tmp: pathlib.Path) -> pathlib.Path:
    ds = tmp / "ds"
    shutil.copytree(SAMPLES, ds)
    case = json.loads((ds / "cases" / "clinical-statin.json").read_text(encoding="utf-8"))
    case["id"] = "<b>bold</b>"
    case["goldClaims"][0]["citations"] = [1, 9]  # a detection failure naming the case id
    (ds / "cases" / "clinical-statin.json").write_text(json.dumps(case), encoding="utf-8")
    return ds


def _report(tmp: pathlib.Path) -> tuple[str, dict[str, object]]:
    ds = _dataset_with_markup(tmp)
    results = tmp / "results"
    run(datasets=ds, results=results, online=True, stdout=io.StringIO())
    outcome = run(datasets=ds, results=results, online=True, format="html", stdout=io.StringIO())
    assert outcome.report_path is not None
    return outcome.report_path.read_text(encoding="utf-8"), outcome.scorecard


def test_html_requirements(tmp_path: pathlib.Path) -> None:
    html, card = _report(tmp_path)
    assert html.startswith("<!doctype html>") and '<meta charset="utf-8">' in html
    assert html.count("<style>") == 1
    lowered = html.lower()
    for forbidden in ("<script", "<link", "@import", "url("):
        assert forbidden not in lowered
    for attr in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert attr.startswith("#")
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    # confusion heatmap: 6 × 6 data-count cells equal to the scorecard matrix
    table = re.search(r'<table class="confusion">(.*?)</table>', html, re.S)
    assert table is not None
    counts = [int(x) for x in re.findall(r'data-count="(\d+)"', table.group(1))]
    va = next(r for r in card["results"] if r["id"] == "verdict-accuracy")  # type: ignore[attr-defined]
    matrix = va["detail"]["confusion"]["matrix"]
    assert counts == [c for row in matrix for c in row]
    assert table.group(1).count('class="diag"') == 6
    assert "<caption>" in table.group(1)
    # one trend SVG per gated metric of every scorer that ran, now that two runs exist
    gated = {
        m.qualified
        for m in METRICS
        if m.gate == "yes"
        and m.name in next(r for r in card["results"] if r["id"] == m.scorer).get("metrics", {})  # type: ignore[attr-defined]
    }
    svgs = set(re.findall(r'<svg class="trend" data-metric="([^"]+)"', html))
    assert svgs == gated
    assert html.count("<polyline") == len(gated)
    assert "PASS" in html or "NOT ENFORCED" in html


def test_single_run_has_not_enough_history(tmp_path: pathlib.Path) -> None:
    outcome = run(results=tmp_path / "r", format="html", stdout=io.StringIO())
    assert outcome.report_path is not None
    html = outcome.report_path.read_text(encoding="utf-8")
    assert "not enough history yet" in html and "<svg" not in html


@needs_browser
def test_report_renders_in_headless_chromium_offline(tmp_path: pathlib.Path) -> None:
    html, _ = _report(tmp_path)
    # offline, a silent console and a non-blank screenshot (tests/report/_browser.py)
    dom = render_offline(html, tmp_path)
    assert '<svg class="trend"' in dom and "<polyline" in dom
    assert 'class="confusion"' in dom
