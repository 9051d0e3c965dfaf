"""Gold HTML trends: axes, value labels, a baseline line, one y scale per metric family, and a
scorer card that never says PASS above REGRESSION rows (issue 11). Coordinates are checked by
hand: the plot of a 300 × 150 chart spans x 52 … 286 and y 12 (top of the scale) … 120
(bottom), so a rate v sits at y = 12 + 108 · (1 − v)."""

from __future__ import annotations

import io
import pathlib
import re
from typing import Any

from citelens.gold import run
from citelens.gold._render import card_status, render_html
from report._browser import needs_browser, render_offline  # shared with tests/report

from ._helpers import SAMPLES


def _card(results: list[dict[str, Any]], comparisons: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "run_id": "run-3",
        "timestamp": "2026-01-03T00:00:00.000Z",
        "evaluated": {"sha": None, "dirty": False, "source": "none"},
        "adapter": {"name": "lexical"},
        "run_model": None,
        "online": True,
        "repeats": 1,
        "cases": {"total": 2, "qa": 2, "grounding": 0, "ignored": {}},
        "case_count": 2,
        "dataset_digest": "sha256:" + "0" * 64,
        "results": results,
        "gate": {
            "enforced": False,
            "baseline": "baseline.lexical.json",
            "dataset_changed": False,
            "comparisons": comparisons,
            "scorer_failures": 0,
            "regressions": sum(1 for c in comparisons if c["status"] == "regression"),
            "unmeasured": 0,
            "passed": not any(c["status"] == "regression" for c in comparisons),
        },
    }


def _comp(scorer: str, metric: str, baseline: float, current: float, status: str) -> dict[str, Any]:
    return {
        "scorer": scorer,
        "metric": metric,
        "baseline": baseline,
        "current": current,
        "delta": current - baseline,
        "direction": "higher",
        "tolerance": "0",
        "status": status,
    }


def _svg(html: str, key: str) -> str:
    found = re.search(rf'<svg class="trend" data-metric="{re.escape(key)}".*?</svg>', html, re.S)
    assert found is not None
    return found.group(0)


def _points(svg: str) -> list[tuple[float, float]]:
    found = re.search(r'<polyline [^>]*points="([^"]+)"', svg)
    assert found is not None
    return [(float(x), float(y)) for x, y in (p.split(",") for p in found.group(1).split())]


RESULTS = [
    {
        "id": "claim-extraction",
        "status": "passed",
        "metrics": {"f1": 0.6, "precision": 0.51, "totalLeaked": 10, "splitErrors": 4},
        "failures": [],
        "detail": {},
    },
    {
        "id": "citation-detection",
        "status": "passed",
        "metrics": {"perClaim_exactSetRate": 1.0},
        "failures": [],
        "detail": {},
    },
]
HISTORY = {
    "claim-extraction.f1": [("run-2", 0.9), ("run-3", 0.6)],  # a 30-point drop
    "claim-extraction.precision": [("run-2", 0.5), ("run-3", 0.51)],  # a wobble
    "claim-extraction.totalLeaked": [("run-2", 0.0), ("run-3", 10.0)],
    "claim-extraction.splitErrors": [("run-2", 2.0), ("run-3", 4.0)],
    "citation-detection.perClaim_exactSetRate": [("run-1", 1.0)],
}


def _page(comparisons: list[dict[str, Any]] | None = None) -> str:
    if comparisons is None:
        comparisons = [
            _comp("claim-extraction", "f1", 0.75, 0.6, "regression"),
            _comp("claim-extraction", "precision", 0.5, 0.51, "improved"),
        ]
    return render_html(_card(RESULTS, comparisons), HISTORY)


def test_rates_share_one_scale() -> None:
    html = _page()
    # f1 0.9 → 0.6: y 12 + 108·0.1 = 22.8 → 12 + 108·0.4 = 55.2
    assert _points(_svg(html, "claim-extraction.f1")) == [(52.0, 22.8), (286.0, 55.2)]
    # precision 0.5 → 0.51: y 66.0 → 64.9 (a wobble stays a wobble; its own range would have
    # drawn it from the bottom to the top of the chart, like the drop above)
    assert _points(_svg(html, "claim-extraction.precision")) == [(52.0, 66.0), (286.0, 64.9)]


def test_counts_share_one_scale_from_zero_to_the_largest_count() -> None:
    html = _page()
    # the count family spans 0 … 10 (the largest count on the page): totalLeaked 0 → 10 runs
    # from the bottom (120) to the top (12); splitErrors 2 → 4 from 98.4 to 76.8
    assert _points(_svg(html, "claim-extraction.totalLeaked")) == [(52.0, 120.0), (286.0, 12.0)]
    assert _points(_svg(html, "claim-extraction.splitErrors")) == [(52.0, 98.4), (286.0, 76.8)]
    ticks = re.findall(
        r'<text class="tick"[^>]*>([^<]*)</text>', _svg(html, "claim-extraction.splitErrors")
    )
    assert ticks == ["0", "5", "10", "oldest", "latest", "last 2 runs"]


def test_axes_value_labels_and_baseline() -> None:
    svg = _svg(_page(), "claim-extraction.f1")
    ticks = re.findall(r'<text class="tick"[^>]*>([^<]*)</text>', svg)
    assert ticks == ["0.00%", "50.00%", "100.00%", "oldest", "latest", "last 2 runs"]
    assert svg.count('class="axis"') == 2 and svg.count('class="grid"') == 3
    # the first and the latest value are written at their points
    assert re.findall(r'<text class="value"[^>]*>([^<]*)</text>', svg) == ["90.00%", "60.00%"]
    # baseline 0.75: a dashed line at y = 12 + 108·0.25 = 39.0, labelled with its value
    line = re.search(r'<line class="baseline" x1="52" y1="([\d.]+)" x2="286" y2="([\d.]+)"', svg)
    assert line is not None and line.groups() == ("39.0", "39.0")
    assert ">baseline 75.00%</text>" in svg
    # a metric the gate did not compare has no baseline line
    assert 'class="baseline"' not in _svg(_page(), "claim-extraction.totalLeaked")
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 2


def test_all_zero_family_is_a_flat_mid_line() -> None:
    history = {"claim-extraction.totalLeaked": [("a", 0.0), ("b", 0.0), ("c", 0.0)]}
    html = render_html(_card(RESULTS, []), history)
    # an empty scale (0 … 0): the contract's flat mid line, y = 12 + 108 / 2 = 66
    assert _points(_svg(html, "claim-extraction.totalLeaked")) == [
        (52.0, 66.0),
        (169.0, 66.0),
        (286.0, 66.0),
    ]


def test_families_are_grouped_with_their_scale() -> None:
    html = _page()
    rates = html.index("Rates (one scale: 0–100%)")
    counts = html.index("Counts (one scale: 0 to the largest count shown)")
    assert rates < html.index('data-metric="claim-extraction.f1"') < counts
    assert counts < html.index('data-metric="claim-extraction.totalLeaked"')
    assert "not enough history yet" in html  # perClaim_exactSetRate has one point


def test_card_with_a_regression_does_not_say_pass() -> None:
    html = _page()
    card = re.search(
        r'<section class="card ([a-z]+)" id="claim-extraction">(.*?)</section>', html, re.S
    )
    assert card is not None
    assert card.group(1) == "regressed"
    assert "<h2>claim-extraction — REGRESSION</h2>" in card.group(2)
    assert "PASS" not in card.group(2) and "REGRESSION</td>" in card.group(2)
    assert "1 metric(s) regressed or went unmeasured" in card.group(2)
    # the scorer without a regression still says PASS
    assert '<section class="card passed" id="citation-detection">' in html
    assert "<h2>citation-detection — PASS</h2>" in html


def test_card_status_words() -> None:
    passed = {"status": "passed"}
    assert card_status(passed, []) == ("PASS", "passed")
    assert card_status(passed, [{"status": "improved"}, {"status": "worse"}]) == ("PASS", "passed")
    assert card_status(passed, [{"status": "unmeasured"}]) == ("UNMEASURED", "regressed")
    assert card_status(passed, [{"status": "unmeasured"}, {"status": "regression"}]) == (
        "REGRESSION",
        "regressed",
    )
    # a failed scorer says FAIL whatever its metrics did
    assert card_status({"status": "failed"}, [{"status": "regression"}]) == ("FAIL", "failed")


def _two_runs(tmp: pathlib.Path) -> str:
    results = tmp / "results"
    run(datasets=SAMPLES, results=results, online=True, baseline=True, stdout=io.StringIO())
    outcome = run(
        datasets=SAMPLES, results=results, online=True, format="html", stdout=io.StringIO()
    )
    assert outcome.report_path is not None
    return outcome.report_path.read_text(encoding="utf-8")


def test_real_report_has_baselines_and_family_scales(tmp_path: pathlib.Path) -> None:
    html = _two_runs(tmp_path)
    svgs = re.findall(r'<svg class="trend".*?</svg>', html, re.S)
    assert svgs and all(s.count("<polyline") == 1 for s in svgs)
    # the second run was compared with the first (the baseline): every chart has its line
    assert all('class="baseline"' in s for s in svgs)
    for svg in svgs:  # every point lies inside the plot
        assert all(52 <= x <= 286 and 12 <= y <= 120 for x, y in _points(svg))


@needs_browser
def test_gold_report_in_chromium(tmp_path: pathlib.Path) -> None:
    html = _two_runs(tmp_path)
    dom = render_offline(html, tmp_path)
    charts = html.count('<svg class="trend"')
    assert charts > 0 and dom.count('<svg class="trend"') == charts
    assert dom.count("<polyline") == charts
