"""The self-contained HTML page: one file, inline CSS, inline SVG charts, no script, no link.

Nothing on the page comes from the input as text: labels are citelens's fixed words, values
are counts and rates, documents are named by keyed pseudonyms (:mod:`citelens.report._facts`).
Everything is HTML-escaped all the same.
"""

from __future__ import annotations

import html

from citelens.report._charts import chart_svg
from citelens.report._facts import Page

__all__ = ["render_page"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem;color:#1d1d1f;
background:#f7f7f9}
h1{font-size:1.5rem;margin:0 0 .5rem}
h2{font-size:1.1rem;margin:0 0 .5rem}
.badge{display:inline-block;padding:.15rem .6rem;border-radius:.4rem;color:#fff;font-weight:600}
.PASS{background:#1a7f37}.FAIL,.FLAGGED{background:#cf222e}
.card{background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1rem;margin:1rem 0}
table{border-collapse:collapse;font-size:.9rem}
th,td{border-bottom:1px solid #eaeef2;padding:.2rem .8rem .2rem 0;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
figure.chart{background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:.6rem;margin:0}
figure.chart svg{display:block;max-width:100%;height:auto}
code{font-size:.8rem;word-break:break-all}
.note{color:#57606a;font-size:.85rem}
"""

_NOTE = (
    "Counts, rates and fixed reason codes only: no identifier, claim text or source text. "
    "Documents are named by keyed pseudonyms. Evaluation evidence, not a clinical decision."
)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def render_page(page: Page) -> str:
    """The HTML document of ``page`` (deterministic: the same page gives the same bytes)."""
    verdict = ""
    if page.verdict is not None:
        verdict = f' <span class="badge {_e(page.verdict)}">{_e(page.verdict)}</span>'
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>citelens report — {_e(page.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>citelens report — {_e(page.title)}{verdict}</h1>",
        f'<p class="note">{_e(_NOTE)}</p>',
        '<section class="card"><h2>Figures</h2><table class="figures">',
    ]
    for label, value in page.figures:
        out.append(f'<tr><td>{_e(label)}</td><td class="num">{_e(value)}</td></tr>')
    out.append("</table></section>")
    out.append('<section class="card"><h2>Charts</h2><div class="charts">')
    for chart in page.charts:
        out.append(
            f'<figure class="chart" data-chart="{_e(chart.name)}">{chart_svg(chart)}</figure>'
        )
    out.append("</div></section>")
    for table in page.tables:
        out.append(f'<section class="card"><h2>{_e(table.caption)}</h2><table class="worst">')
        out.append("<tr>" + "".join(f"<th>{_e(h)}</th>" for h in table.header) + "</tr>")
        if not table.rows:
            out.append(f'<tr><td colspan="{len(table.header)}">none</td></tr>')
        for row in table.rows:
            first, *rest = row
            cells = "".join(f'<td class="num">{_e(cell)}</td>' for cell in rest)
            out.append(f"<tr><td><code>{_e(first)}</code></td>{cells}</tr>")
        out.append("</table></section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
