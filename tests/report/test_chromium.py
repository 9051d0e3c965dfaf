"""The report pages in headless Chromium, offline: every chart is drawn, the console is
silent, a screenshot is taken."""

from __future__ import annotations

import pathlib

import pytest

from citelens.report import render_report

from ._browser import needs_browser, render_offline
from .conftest import needs_extra


def test_console_messages_are_caught(tmp_path: pathlib.Path) -> None:
    """The check itself: a page that logs to the console fails it."""
    if needs_browser.args[0]:
        pytest.skip(needs_browser.kwargs["reason"])
    page = "<!doctype html><p>x</p><script>console.error('boom')</script>"
    with pytest.raises(AssertionError):
        render_offline(page, tmp_path)


@needs_extra
@needs_browser
def test_corpus_report_in_chromium(
    corpus_outputs: dict[str, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    html = render_report(corpus_outputs["support"])
    dom = render_offline(html, tmp_path)
    # the four charts (documents, reasons, precision, recall), each an inline SVG with marks
    assert dom.count("<svg") == html.count("<svg") == 4
    for name in ("documents", "reasons", "precision", "recall"):
        assert f'data-chart="{name}"' in dom
    assert dom.count('class="mark-rect') >= 4


@needs_extra
@needs_browser
def test_single_report_in_chromium(
    single_outputs: dict[str, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    # one single-document page (each Chromium start takes seconds; the other kinds are
    # built by the same page code and checked as HTML in test_pages.py)
    dom = render_offline(render_report(single_outputs["support"]), tmp_path)
    assert dom.count("<svg") == 3
    for name in ("outcome", "reasons", "labels"):
        assert f'data-chart="{name}"' in dom
