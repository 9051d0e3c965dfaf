"""Console, Markdown and self-contained HTML renderings of a scorecard (§9.4, §9.10)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from citelens.gold._cases import VERDICT_SCALE
from citelens.gold._metrics import display_delta, display_value
from citelens.gold._registry import metric_spec
from citelens.gold._ws import trim_ws

__all__ = [
    "console_comparison",
    "console_gate_line",
    "console_header",
    "console_scorer",
    "render_html",
    "render_markdown",
]

_MARK = {"passed": "✓", "failed": "✗", "skipped": "⊘"}
_WORD = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIPPED"}


def _kind(scorer: str, metric: str) -> str:
    spec = metric_spec(scorer, metric)
    return spec.kind if spec is not None else "count"


def console_header(card: Mapping[str, Any]) -> list[str]:
    """The header lines (starting with an empty line)."""
    sha = card["evaluated"]["sha"]
    cases = card["cases"]
    lines = [
        "",
        f"citelens gold — {card['case_count']} case(s), "
        f"online={'true' if card['online'] else 'false'}, adapter={card['adapter']['name']}, "
        f"model={card['run_model'] or 'none'}, sha={sha[:12] if sha else 'unknown'}, "
        f"repeats={card['repeats']}",
    ]
    ignored: Mapping[str, int] = cases.get("ignored") or {}
    if ignored:
        total = sum(ignored.values())
        parts = ", ".join(f"{k} {v}" for k, v in sorted(ignored.items()))
        lines.append(f"  note: {total} case(s) ignored (kind not supported): {parts}")
    lines.append("")
    return lines


def console_scorer(entry: Mapping[str, Any]) -> list[str]:
    """One scorer block: status line, metrics, notes and at most 20 failures."""
    status = entry["status"]
    head = f"  {_MARK[status]} {entry['id']:<20} {_WORD[status]}"
    if status == "skipped":
        return [f"{head} — {entry['reason']}"]
    lines = [head]
    for name, value in (entry.get("metrics") or {}).items():
        lines.append(f"      {name:<26} {display_value(value, _kind(entry['id'], name))}")
    for note in entry.get("notes") or []:
        lines.append(f"      note: {note}")
    failures: Sequence[str] = entry.get("failures") or []
    for failure in failures[:20]:
        lines.append(f"      ✗ {failure}")
    if len(failures) > 20:
        lines.append(f"      … and {len(failures) - 20} more failure(s) (see the scorecard)")
    return lines


def _status_word(comp: Mapping[str, Any]) -> str:
    status = comp["status"]
    if status == "worse":
        tol = comp.get("tolerance")
        return f"worse (within tolerance {_plain_number(tol)})"
    if status == "regression":
        return "REGRESSION"
    if status == "unmeasured":
        return "UNMEASURED"
    return str(status)


def _plain_number(value: object) -> str:
    if not isinstance(value, int | float):
        return "0"
    text = format(Decimal(repr(value)).normalize(), "f")
    return text


def _delta_text(comp: Mapping[str, Any]) -> str:
    d = comp.get("delta")
    if comp["status"] == "unmeasured" or d is None:
        return "unmeasured"
    dec = Decimal(repr(comp["current"])) - Decimal(repr(comp["baseline"]))
    arrow = "▲" if dec > 0 else "▼" if dec < 0 else "="
    return f"{arrow} {display_delta(dec, _kind(comp['scorer'], comp['metric']))}"


def console_comparison(gate: Mapping[str, Any], adapter_name: str) -> list[str]:
    """The ``vs baseline`` block."""
    lines = [""]
    if gate.get("baseline") is None:
        lines.append(f"  vs baseline: none for adapter {adapter_name} (save one with --baseline)")
        return lines
    lines.append(f"  vs baseline ({gate['baseline']}):")
    if gate.get("dataset_changed"):
        lines.append("  note: dataset changed since the baseline")
    for comp in gate.get("comparisons") or []:
        if comp["status"] in ("unchanged", "new"):
            continue
        name = f"{comp['scorer']}.{comp['metric']}"
        lines.append(f"      {name:<40} {_delta_text(comp)}  {_status_word(comp)}")
    return lines


def _counts(gate: Mapping[str, Any]) -> str:
    return (
        f"{gate['scorer_failures']} scorer failure(s), {gate['regressions']} regression(s), "
        f"{gate['unmeasured']} unmeasured"
    )


def console_gate_line(gate: Mapping[str, Any]) -> str:
    """The final gate line."""
    if gate["enforced"]:
        return "  gate: PASS" if gate["passed"] else f"  gate: FAIL — {_counts(gate)}"
    line = "  gate: not enforced (pass --ci to enforce)"
    if not gate["passed"]:
        line += f" — would fail: {_counts(gate)}"
    return line


def overall(card: Mapping[str, Any]) -> str:
    """``PASS``, ``FAIL`` or ``NOT ENFORCED``."""
    gate = card.get("gate") or {}
    if not gate.get("enforced"):
        return "NOT ENFORCED"
    return "PASS" if gate.get("passed") else "FAIL"


def _comparisons(card: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    gate = card.get("gate") or {}
    return {(c["scorer"], c["metric"]): c for c in gate.get("comparisons") or []}


def _baseline_text(card: Mapping[str, Any]) -> str:
    gate = card.get("gate") or {}
    name = gate.get("baseline")
    if not name:
        return "none"
    return f"{name} (dataset changed)" if gate.get("dataset_changed") else str(name)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _delta_cell(comp: Mapping[str, Any] | None) -> tuple[str, str, str]:
    """(baseline display, delta display, status word) for a metric row."""
    if comp is None:
        return "—", "—", ""
    kind = _kind(comp["scorer"], comp["metric"])
    base = display_value(comp.get("baseline"), kind)
    if comp["status"] == "unchanged":
        return base, "±0", "unchanged"
    if comp.get("delta") is None:
        return base, "—", _status_word(comp)
    dec = Decimal(repr(comp["current"])) - Decimal(repr(comp["baseline"]))
    return base, display_delta(dec, kind), _status_word(comp)


def render_markdown(card: Mapping[str, Any]) -> str:
    """The Markdown rendering (for ``$GITHUB_STEP_SUMMARY``)."""
    sha = card["evaluated"]["sha"]
    lines = [
        f"# citelens gold — {_md_escape(card['adapter']['name'])} — {overall(card)}",
        "",
        "| field | value |",
        "| --- | --- |",
        f"| run id | {card['run_id']} |",
        f"| timestamp | {card['timestamp']} |",
        f"| evaluated sha | {sha or 'unknown'} |",
        f"| run model | {_md_escape(str(card['run_model'] or 'none'))} |",
        f"| online | {'true' if card['online'] else 'false'} |",
        f"| repeats | {card['repeats']} |",
        f"| cases | {card['case_count']} |",
        f"| dataset digest | {card['dataset_digest']} |",
        f"| baseline | {_md_escape(_baseline_text(card))} |",
    ]
    comps = _comparisons(card)
    for entry in card["results"]:
        lines += ["", f"## {entry['id']} — {entry['status']}", ""]
        if entry["status"] == "skipped":
            lines.append(f"Skipped: {_md_escape(str(entry.get('reason', '')))}")
            continue
        lines += ["| metric | value | baseline | Δ | status |", "| --- | --- | --- | --- | --- |"]
        for name, value in (entry.get("metrics") or {}).items():
            base, dlt, word = _delta_cell(comps.get((entry["id"], name)))
            lines.append(
                f"| {name} | {display_value(value, _kind(entry['id'], name))} | {base} | "
                f"{dlt} | {word} |"
            )
        failures: Sequence[str] = entry.get("failures") or []
        if failures:
            lines.append("")
            for failure in failures[:50]:
                lines.append(f"- {_md_escape(failure)}")
            if len(failures) > 50:
                lines.append(f"- … and {len(failures) - 50} more failure(s)")
    gate = card.get("gate") or {}
    if gate:
        lines += ["", f"**gate**: {trim_ws(console_gate_line(gate))[len('gate: ') :]}"]
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem;color:#1d1d1f;
background:#f7f7f9}
h1{font-size:1.5rem;margin:0 0 .5rem}
.badge{display:inline-block;padding:.15rem .6rem;border-radius:.4rem;color:#fff;font-weight:600}
.PASS{background:#1a7f37}.FAIL{background:#cf222e}.NOT-ENFORCED{background:#6e7781}
.meta{border-collapse:collapse;margin:.5rem 0 1rem}
.meta td{padding:.15rem .8rem .15rem 0;font-size:.9rem}
.card{background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1rem;margin:1rem 0}
.card h2{font-size:1.1rem;margin:0 0 .5rem}
.passed h2{color:#1a7f37}.failed h2,.regressed h2{color:#cf222e}.skipped h2{color:#6e7781}
.status-note{color:#cf222e;font-size:.85rem;margin:0 0 .5rem}
table.metrics{border-collapse:collapse;font-size:.9rem}
table.metrics th,table.metrics td{border-bottom:1px solid #eaeef2;padding:.2rem .7rem;
text-align:left}
.regression,.unmeasured{color:#cf222e;font-weight:600}.improved{color:#1a7f37}
table.confusion{border-collapse:collapse;margin-top:.8rem;font-size:.85rem}
table.confusion caption{caption-side:top;text-align:left;font-weight:600;padding-bottom:.3rem}
table.confusion th,table.confusion td{border:1px solid #d0d7de;padding:.3rem .5rem;
text-align:center}
table.confusion td.diag{outline:2px solid #1a7f37;outline-offset:-2px}
.failures{color:#cf222e;font-size:.85rem}
.trends{display:flex;flex-wrap:wrap;gap:1rem}
.trend-box{background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:.6rem;width:310px}
h3.family{font-size:.9rem;margin:.8rem 0 .4rem}
svg.trend text{font-size:10px;fill:#57606a}svg.trend text.value{fill:#0969da;font-weight:600}
svg.trend text.baseline-label{fill:#bf8700}
.trend-box h3{font-size:.8rem;margin:0 0 .3rem;word-break:break-all}
svg.trend{display:block;background:#fbfbfc}
.latest{font-size:.85rem}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _confusion_html(detail: Mapping[str, Any]) -> str:
    conf = detail.get("confusion")
    if not isinstance(conf, Mapping):
        return ""
    matrix: list[list[int]] = conf.get("matrix") or []
    off_scale: Mapping[str, int] = conf.get("off_scale") or {}
    largest = max([max(row) for row in matrix] + [0]) if matrix else 0
    if off_scale:
        largest = max(largest, max(off_scale.values()))
    parts = [
        '<table class="confusion">',
        "<caption>Verdict confusion: rows are gold labels, columns are predicted labels</caption>",
        "<tr><th>gold \\ predicted</th>",
    ]
    for label in VERDICT_SCALE:
        parts.append(f"<th>{_e(label)}</th>")
    if off_scale:
        parts.append("<th>other</th>")
    parts.append("</tr>")

    def cell(count: int, diag: bool) -> str:
        opacity = 0.0 if largest == 0 else round(count / largest, 2)
        cls = ' class="diag"' if diag else ""
        ink = ";color:#fff" if opacity >= 0.6 else ""
        return (
            f'<td{cls} data-count="{count}" '
            f'style="background-color:rgba(9,105,218,{opacity}){ink}">{count}</td>'
        )

    for gi, label in enumerate(VERDICT_SCALE):
        row = matrix[gi] if gi < len(matrix) else [0] * len(VERDICT_SCALE)
        parts.append(f"<tr><th>{_e(label)}</th>")
        parts.extend(cell(int(row[pi]), gi == pi) for pi in range(len(VERDICT_SCALE)))
        if off_scale:
            parts.append('<td data-count="0">0</td>')
        parts.append("</tr>")
    parts.append("</table>")
    if off_scale:
        listed = ", ".join(f"{_e(k)}: {v}" for k, v in sorted(off_scale.items()))
        parts.append(f"<p>Off-scale predictions: {listed}</p>")
    return "".join(parts)


# One y scale per metric family (kind), so that equal distances mean equal changes across
# the charts of a family: a rate always spans 0–100 %, a count, ms or per-claim value spans 0
# to the largest value of that kind on the page (trend points and baselines alike). A scale
# per line made a wobble and a 30-point drop look the same (issue 11).
_FAMILY_TITLE = {
    "rate": "Rates (one scale: 0–100%)",
    "count": "Counts (one scale: 0 to the largest count shown)",
    "ms": "Latencies in ms (one scale: 0 to the largest latency shown)",
    "per_claim": "Per-claim values (one scale: 0 to the largest value shown)",
}
_FAMILY_ORDER = ("rate", "count", "ms", "per_claim")

_W, _H = 300, 150  # chart size
_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 14, 12, 30  # plot margins: y labels left, x labels below


def _family_scales(
    history: Mapping[str, Sequence[tuple[str, float]]], baselines: Mapping[str, float]
) -> dict[str, tuple[float, float]]:
    """The (low, high) y range of every family on the page."""
    highs: dict[str, float] = {}
    for key, points in history.items():
        kind = _kind(*_split(key))
        values = [v for _, v in points]
        if key in baselines:
            values.append(baselines[key])
        highs[kind] = max([highs.get(kind, 0.0), *values])
    return {kind: (0.0, 1.0 if kind == "rate" else max(high, 0.0)) for kind, high in highs.items()}


def _split(key: str) -> tuple[str, str]:
    scorer, _, metric = key.partition(".")
    return scorer, metric


def _trend_svg(
    key: str,
    points: Sequence[tuple[str, float]],
    kind: str,
    scale: tuple[float, float],
    baseline: float | None,
) -> str:
    """One trend chart: y axis with the family's scale, x axis oldest → latest, the line with
    a dot per run, the first and latest values written at their points, and the baseline as a
    dashed line with its value."""
    lo, hi = scale
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    n = len(points)

    def y_of(value: float) -> float:
        if hi == lo:  # an empty scale (every value 0): a flat mid line
            return _TOP + plot_h / 2
        return _TOP + plot_h * (1 - (min(max(value, lo), hi) - lo) / (hi - lo))

    def x_of(i: int) -> float:
        return _LEFT + plot_w * (i / (n - 1) if n > 1 else 0.5)

    coords = [(x_of(i), y_of(v)) for i, (_, v) in enumerate(points)]
    title = "; ".join(f"{run}: {display_value(v, kind)}" for run, v in points)
    parts = [
        f'<svg class="trend" data-metric="{_e(key)}" width="{_W}" height="{_H}" '
        f'viewBox="0 0 {_W} {_H}" role="img"><title>{_e(title)}</title>',
    ]
    # y axis: three ticks (low, middle, high) with grid lines and the family's display
    for frac in (0.0, 0.5, 1.0):
        value = lo + (hi - lo) * frac
        y = _TOP + plot_h * (1 - frac)
        label = display_value(value if kind != "count" else round(value), kind)
        parts.append(
            f'<line class="grid" x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" y2="{y:.1f}" '
            'stroke="#eaeef2"/>'
            f'<text class="tick" x="{_LEFT - 4}" y="{y + 3:.1f}" text-anchor="end">'
            f"{_e(label)}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_TOP + plot_h}" '
        'stroke="#57606a"/>'
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP + plot_h}" x2="{_W - _RIGHT}" '
        f'y2="{_TOP + plot_h}" stroke="#57606a"/>'
        f'<text class="tick" x="{_LEFT}" y="{_H - 16}" text-anchor="start">oldest</text>'
        f'<text class="tick" x="{_W - _RIGHT}" y="{_H - 16}" text-anchor="end">latest</text>'
        f'<text class="tick" x="{_LEFT + plot_w / 2:.1f}" y="{_H - 4}" text-anchor="middle">'
        f"last {n} runs</text>"
    )
    if baseline is not None:
        y = y_of(baseline)
        parts.append(
            f'<line class="baseline" x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" y2="{y:.1f}" '
            'stroke="#bf8700" stroke-width="1.5" stroke-dasharray="5 3"/>'
            # in the middle: the first and latest value labels sit at the two ends
            f'<text class="baseline-label" x="{_LEFT + plot_w / 2:.1f}" y="{y - 3:.1f}" '
            'text-anchor="middle">'
            f"baseline {_e(display_value(baseline, kind))}</text>"
        )
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    parts.append(f'<polyline fill="none" stroke="#0969da" stroke-width="2" points="{line}"/>')
    parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="#0969da"/>' for x, y in coords)
    # value labels at the first and the latest point (every point is in the <title>)
    for index, anchor in ((0, "start"), (n - 1, "end")):
        x, y = coords[index]
        above = y - 6 if y - 6 > _TOP + 4 else y + 14
        parts.append(
            f'<text class="value" x="{x:.1f}" y="{above:.1f}" text-anchor="{anchor}">'
            f"{_e(display_value(points[index][1], kind))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _trends_html(
    history: Mapping[str, Sequence[tuple[str, float]]], baselines: Mapping[str, float]
) -> list[str]:
    """The trend section: one group per metric family, each group on one scale."""
    scales = _family_scales(
        {k: p for k, p in history.items() if len(p) >= 2},
        {k: b for k, b in baselines.items() if len(history.get(k, ())) >= 2},
    )
    out = ['<section class="card"><h2>Trends</h2>']
    by_kind: dict[str, list[str]] = {}
    for key in history:
        by_kind.setdefault(_kind(*_split(key)), []).append(key)
    for kind in sorted(by_kind, key=lambda k: _FAMILY_ORDER.index(k) if k in _FAMILY_ORDER else 9):
        out.append(f'<h3 class="family">{_e(_FAMILY_TITLE.get(kind, kind))}</h3>')
        out.append('<div class="trends">')
        for key in by_kind[kind]:
            points = history[key]
            out.append(f'<div class="trend-box"><h3>{_e(key)}</h3>')
            if len(points) < 2:
                out.append("<p>not enough history yet</p></div>")
                continue
            out.append(_trend_svg(key, points, kind, scales[kind], baselines.get(key)))
            out.append(
                f'<p class="latest">latest: {_e(display_value(points[-1][1], kind))}</p></div>'
            )
        out.append("</div>")
    out.append("</section>")
    return out


def _baselines(card: Mapping[str, Any]) -> dict[str, float]:
    """``<scorer>.<metric>`` → the baseline's (rounded) value, where the gate compared one."""
    out: dict[str, float] = {}
    for (scorer, metric), comp in _comparisons(card).items():
        value = comp.get("baseline")
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[f"{scorer}.{metric}"] = float(value)
    return out


def card_status(entry: Mapping[str, Any], comps: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(status word, CSS class) of a scorer card. A scorer without failures is ``PASS`` only
    when none of its metrics regressed or went unmeasured against the baseline: otherwise
    the card says ``REGRESSION`` (or ``UNMEASURED``) in red, so that no green PASS stands
    above red rows (issue 11). A failed or skipped scorer keeps its word."""
    status = entry["status"]
    if status != "passed":
        return _WORD[status], status
    statuses = {comp["status"] for comp in comps}
    if "regression" in statuses:
        return "REGRESSION", "regressed"
    if "unmeasured" in statuses:
        return "UNMEASURED", "regressed"
    return _WORD[status], status


def render_html(card: Mapping[str, Any], history: Mapping[str, Sequence[tuple[str, float]]]) -> str:
    """A single self-contained HTML document (no scripts, no external assets).

    ``history`` maps ``<scorer>.<metric>`` to ``(run_id, value)`` points, oldest first.
    """
    status = overall(card)
    sha = card["evaluated"]["sha"]
    results = card["results"]
    n_pass = sum(1 for r in results if r["status"] == "passed")
    n_fail = sum(1 for r in results if r["status"] == "failed")
    n_skip = sum(1 for r in results if r["status"] == "skipped")
    cases = card["cases"]
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>citelens gold — {_e(card['adapter']['name'])} — {status}</title>",
        f"<style>{_CSS}</style></head><body>",
        f'<h1>citelens gold <span class="badge {status.replace(" ", "-")}">{status}</span></h1>',
        '<table class="meta">',
        f"<tr><td>adapter</td><td>{_e(card['adapter']['name'])}</td></tr>",
        f"<tr><td>run model</td><td>{_e(card['run_model'] or 'none')}</td></tr>",
        f"<tr><td>evaluated sha</td><td>{_e(sha or 'unknown')}</td></tr>",
        f"<tr><td>timestamp</td><td>{_e(card['timestamp'])}</td></tr>",
        f"<tr><td>dataset digest</td><td>{_e(str(card['dataset_digest'])[7:19])}</td></tr>",
        f"<tr><td>cases</td><td>{card['case_count']} ({cases.get('qa', 0)} qa, "
        f"{cases.get('grounding', 0)} grounding, {cases.get('redaction', 0)} redaction, "
        f"{cases.get('simplification', 0)} simplification, {cases.get('retrieval', 0)} "
        f"retrieval, {sum((cases.get('ignored') or {}).values())} ignored)</td></tr>",
        f"<tr><td>mode</td><td>{'online' if card['online'] else 'offline'}, repeats "
        f"{card['repeats']}</td></tr>",
        f"<tr><td>scorers</td><td>{n_pass} passed · {n_fail} failed · {n_skip} skipped</td></tr>",
        f"<tr><td>baseline</td><td>{_e(_baseline_text(card))}</td></tr>",
        "</table>",
    ]
    comps = _comparisons(card)
    for entry in results:
        sid = entry["id"]
        mine = [c for c in comps.values() if c["scorer"] == sid]
        word, css = card_status(entry, mine)
        out.append(f'<section class="card {_e(css)}" id="{_e(sid)}">')
        out.append(f"<h2>{_e(sid)} — {_e(word)}</h2>")
        if css == "regressed":
            bad = sum(1 for c in mine if c["status"] in ("regression", "unmeasured"))
            out.append(
                '<p class="status-note">scorer checks passed (no failures), but '
                f"{bad} metric(s) regressed or went unmeasured against the baseline</p>"
            )
        if entry["status"] == "skipped":
            out.append(f"<p>Skipped: {_e(entry.get('reason', ''))}</p></section>")
            continue
        out.append(
            '<table class="metrics"><tr><th>metric</th><th>value</th><th>baseline</th>'
            "<th>Δ</th><th>status</th></tr>"
        )
        for name, value in (entry.get("metrics") or {}).items():
            comp = comps.get((sid, name))
            base, dlt, word = _delta_cell(comp)
            cls = _e(comp["status"]) if comp is not None else ""
            out.append(
                f"<tr><td>{_e(name)}</td><td>{_e(display_value(value, _kind(sid, name)))}</td>"
                f'<td>{_e(base)}</td><td>{_e(dlt)}</td><td class="{cls}">{_e(word)}</td></tr>'
            )
        out.append("</table>")
        if sid == "verdict-accuracy":
            out.append(_confusion_html(entry.get("detail") or {}))
        failures: Sequence[str] = entry.get("failures") or []
        if failures:
            out.append('<ul class="failures">')
            out.extend(f"<li>{_e(f)}</li>" for f in failures[:50])
            if len(failures) > 50:
                out.append(f"<li>… and {len(failures) - 50} more failure(s)</li>")
            out.append("</ul>")
        out.append("</section>")
    out.extend(_trends_html(history, _baselines(card)))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
