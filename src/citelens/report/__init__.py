"""HTML reports of citelens outputs (``citelens report OUT --html report.html``).

:func:`render_report` reads the output of ``citelens support --json``,
``summary-citations --json``, ``minimality --json`` or a ``citelens corpus ...`` output
directory (the kind is detected from the files) and returns one self-contained HTML page:
reason distributions, pass/fail counts, per-document histograms, the worst documents by keyed
pseudonym and the minimality excess-token distribution, as inline SVG charts (Altair specs
rendered by vl-convert-python: the ``report`` extra). :func:`write_report` writes it
atomically. The page holds no identifier, claim text or source text, and no script.
"""

from __future__ import annotations

from pathlib import Path

from citelens.report._read import KINDS

__all__ = ["KINDS", "render_report", "write_report"]


def render_report(output: str | Path) -> str:
    """The HTML page of the citelens output at ``output`` (a JSON file or a corpus output
    directory). Raises ``CorpusError`` (category ``input``) for anything that is not a
    readable citelens output, or when the ``report`` extra is not installed."""
    from citelens.report._charts import renderer
    from citelens.report._facts import build_page
    from citelens.report._html import render_page
    from citelens.report._read import load_output

    renderer()  # name the missing extra before reading anything
    return render_page(build_page(load_output(Path(output))))


def write_report(output: str | Path, html_path: str | Path) -> Path:
    """Render the report of ``output`` and write it to ``html_path`` atomically (its
    directory must exist); returns the path written."""
    from citelens._atomic import WriteFailure, write_text_atomic
    from citelens.report._read import ReportError

    page = render_report(output)
    target = Path(html_path)
    if not target.parent.is_dir():
        raise ReportError("report output directory does not exist", "io")
    written: Path | None = None
    try:
        written = write_text_atomic(target, page)
    except WriteFailure:
        written = None
    if written is None:
        raise ReportError("report could not be written", "io")
    return written
