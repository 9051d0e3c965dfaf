"""Headless Chromium checks of a self-contained page: it renders offline, logs nothing to the
console, and a screenshot is taken (CI installs Debian's chromium; tests skip without it)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

__all__ = ["browser", "needs_browser", "render_offline"]


def browser() -> str | None:
    """The first headless-capable Chromium on PATH, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome", "headless_shell"):
        found = shutil.which(name)
        if found:
            return found
    return None


needs_browser = pytest.mark.skipif(
    browser() is None,
    reason="no headless Chromium on PATH (the CI step in .ci/run installs Debian's chromium "
    "and runs this test)",
)


def render_offline(html: str, tmp: pathlib.Path) -> str:
    """Load ``html`` in headless Chromium with networking disabled; assert that the console
    stays silent and a screenshot is taken; return the DOM as Chromium built it."""
    page = tmp / "page.html"
    page.write_text(html, encoding="utf-8")
    shot = tmp / "shot.png"
    common = [
        str(browser()),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=0",
        f"--user-data-dir={tmp / 'profile'}",
    ]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    # Chromium logs every console message (errors included) as an INFO:CONSOLE line
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    done = subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1200,2400", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert [line for line in done.stderr.splitlines() if ":CONSOLE" in line] == []
    assert shot.stat().st_size > 10_000  # a blank page compresses far below this
    return dom.stdout
