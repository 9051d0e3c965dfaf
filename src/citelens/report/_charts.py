"""Charts as Altair (Vega-Lite) specifications, rendered to static SVG by vl-convert.

Both libraries are the ``report`` extra and are imported only here, when a page is rendered.
vl-convert renders in-process (no browser, no network) and gives the same SVG bytes for the
same specification; the data of a chart is a handful of (fixed label, count) bars.
"""

from __future__ import annotations

from typing import Any

from citelens.report._facts import Chart
from citelens.report._read import ReportError

__all__ = ["EXTRA_MISSING", "chart_spec", "chart_svg", "renderer"]

EXTRA_MISSING = "citelens report needs the report extra: pip install 'citelens[report]'"

_BLUE = "#0969da"
_INK = "#1d1d1f"


def renderer() -> tuple[Any, Any]:
    """The ``altair`` and ``vl_convert`` modules, or the input error naming the extra."""
    modules: tuple[Any, Any] | None = None
    try:
        import altair
        import vl_convert

        modules = (altair, vl_convert)
    except ImportError:
        modules = None
    if modules is None:
        raise ReportError(EXTRA_MISSING, "input")
    return modules


def chart_spec(chart: Chart) -> dict[str, Any]:
    """The Vega-Lite specification of ``chart`` (a dictionary, built with Altair)."""
    alt, _ = renderer()
    labels = [label for label, _ in chart.bars]
    values = [{"label": label, "count": number} for label, number in chart.bars]
    base = alt.Chart(alt.Data(values=values))
    category = alt.X if chart.histogram else alt.Y
    amount = alt.Y if chart.histogram else alt.X
    # bars keep the given order (reason codes as listed, bins low to high): sort by it
    cat = category(
        "label:N",
        sort=labels,
        title=chart.category_title,
        axis=alt.Axis(labelAngle=-40 if chart.histogram else 0, labelLimit=220),
    )
    num = amount("count:Q", title=chart.value_title, axis=alt.Axis(tickMinStep=1))
    bars = base.mark_bar(color=_BLUE).encode(cat, num)
    # the value of every bar is written beside it, so the chart reads without the axis
    if chart.histogram:
        text = base.mark_text(dy=-6, color=_INK, fontSize=11).encode(cat, num, text="count:Q")
    else:
        text = base.mark_text(align="left", dx=4, color=_INK, fontSize=11).encode(
            cat, num, text="count:Q"
        )
    width, height = (420, 220) if chart.histogram else (360, max(60, 24 * len(labels)))
    layered = alt.layer(bars, text).properties(title=chart.title, width=width, height=height)
    layered = layered.configure_view(stroke=None).configure_axis(grid=True, gridColor="#eaeef2")
    spec: dict[str, Any] = layered.to_dict()
    return spec


def chart_svg(chart: Chart) -> str:
    """``chart`` as one static ``<svg>`` element (no script, no external reference)."""
    _, vlc = renderer()
    svg: str = vlc.vegalite_to_svg(chart_spec(chart))
    return svg
