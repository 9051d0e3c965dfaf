"""Progress of a corpus run on stderr: its phases (reading, evaluating, writing).

On a terminal a live display drawn with `rich <https://rich.readthedocs.io>`_ shows one line
per phase: a spinner while the phase runs, a tick and its time once done, and while
documents are evaluated a bar, ``done/total``, the rate and the ETA. Every line is fitted to
the terminal's width at each refresh (the bar goes first, then the rate and the ETA), so a
narrow terminal never wraps a line. Off a terminal each phase ends with one plain line,
``citelens: reading done in 1.2 s``. ``--progress`` forces the live display (also into a
file or a pipe), ``--no-progress`` silences both.

Progress never goes to stdout (the live display leaves ``sys.stdout`` alone) and never shows
an identifier, a path or a value: only the fixed phase and step words of
:data:`citelens.corpus._pipeline.PHASES`, counts, sizes and times.

This module imports neither rich nor an engine at import time (``citelens --help`` stays
light): rich is imported when a live display starts.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # for annotations only: rich is imported when a live display starts
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.live import Live

__all__ = ["RunProgress", "add_progress_argument", "input_bytes", "open_progress"]

# Rate and ETA follow the last 30 s of batches, so they settle after a slow first batch.
_RATE_WINDOW_S = 30.0
_MIN_BAR = 10  # narrower than this a bar says nothing: the counts alone are shown
_MAX_BAR = 40
_REFRESH_PER_SECOND = 8


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--progress/--no-progress`` (default: live on a terminal, lines otherwise)."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="--progress always draws the live progress display on stderr, even off a "
        "terminal; --no-progress draws nothing. Default: the live display on a terminal, "
        "otherwise one line per phase with its elapsed time",
    )


def input_bytes(paths: Iterable[Path | None]) -> int | None:
    """The total size of the files at ``paths`` (files under a directory included), or
    ``None`` when nothing could be measured. A path that cannot be read is skipped: the run
    itself reports it with its fixed message."""
    total = 0
    measured = False
    for path in paths:
        if path is None:
            continue
        try:
            if path.is_dir():
                for root, _, names in os.walk(path):
                    for name in names:
                        total += _size_of(Path(root) / name)
            else:
                total += path.stat().st_size
            measured = True
        except (OSError, ValueError):  # unreadable or unrepresentable: the run says why
            continue
    return total if measured else None


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except (OSError, ValueError):
        return 0


def open_progress(
    choice: bool | None, *, size: int | None = None, stream: TextIO | None = None
) -> RunProgress:
    """The progress of one run on ``stream`` (stderr by default): silent for
    ``choice=False`` (``--no-progress``), the live display for ``True`` (``--progress``) or
    when ``stream`` is a terminal, one line per phase otherwise. ``size`` is the input size
    in bytes shown while reading, when known. Use it as a context manager and call
    :meth:`RunProgress.finish` once the run has written its outputs."""
    target = sys.stderr if stream is None else stream
    if choice is False:
        return RunProgress()
    if choice or _is_terminal(target):
        return _LiveProgress(target, size)
    return _LineProgress(target)


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    if isatty is None:
        return False
    try:
        return bool(isatty())
    except (OSError, ValueError):  # a closed or detached stream is not a terminal
        return False


class RunProgress:
    """The progress of one corpus run: a ``(done, total)`` callback that also hears the
    run's phases (:class:`citelens.corpus._pipeline.PhaseProgress`). This base class shows
    nothing (``--no-progress``)."""

    def __call__(self, done: int, total: int) -> None:
        """``done`` of ``total`` documents are evaluated."""

    def phase(self, name: str, total: int | None = None, step: str | None = None) -> None:
        """Phase ``name`` starts, or moves on to ``step`` (fixed words only)."""

    def finish(self) -> None:
        """The run completed: the current phase is done."""

    def close(self) -> None:
        """Stop showing progress; an unfinished phase is dropped, never reported done."""

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


@dataclass
class _Phase:
    """One phase of the run as the displays see it."""

    name: str
    started: float
    total: int | None = None
    done: int = 0
    step: str | None = None
    ended: float | None = None
    samples: deque[tuple[float, int]] = field(default_factory=deque)

    def advance(self, done: int, total: int, now: float) -> None:
        self.done, self.total = done, total
        if not self.samples:
            self.samples.append((self.started, 0))
        self.samples.append((now, done))
        # keep one sample older than the window, so the rate spans the whole window
        while len(self.samples) > 2 and self.samples[1][0] < now - _RATE_WINDOW_S:
            self.samples.popleft()

    def documents(self) -> int:
        """Documents evaluated (the phase's total when no batch ran: an empty corpus)."""
        return self.done if self.samples else self.total or 0

    def rate(self) -> float | None:
        """Documents per second over the last batches (``None`` before the first)."""
        if len(self.samples) < 2:
            return None
        (first_time, first_done), (last_time, last_done) = self.samples[0], self.samples[-1]
        if last_time <= first_time or last_done <= first_done:
            return None
        return (last_done - first_done) / (last_time - first_time)


class _PhaseTracker(RunProgress):
    """The phases seen so far; a display decides how they are shown."""

    def __init__(self) -> None:
        self._phases: list[_Phase] = []

    @property
    def _current(self) -> _Phase | None:
        if self._phases and self._phases[-1].ended is None:
            return self._phases[-1]
        return None

    def __call__(self, done: int, total: int) -> None:
        current = self._current
        if current is not None:
            current.advance(done, total, time.monotonic())

    def phase(self, name: str, total: int | None = None, step: str | None = None) -> None:
        current = self._current
        if current is not None and current.name == name:
            current.step = step
            return
        self._end_current()
        self._phases.append(_Phase(name, time.monotonic(), total=total, step=step))

    def finish(self) -> None:
        self._end_current()

    def _end_current(self) -> None:
        current = self._current
        if current is not None:
            current.ended = time.monotonic()
            current.step = None  # a done phase is done as a whole
            self._ended(current)

    def _ended(self, phase: _Phase) -> None:
        """Called once per phase, when it is done."""


class _LineProgress(_PhaseTracker):
    """Off a terminal: one line per phase, written when the phase is done."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def _ended(self, phase: _Phase) -> None:
        assert phase.ended is not None
        line = f"citelens: {phase.name} done in {phase.ended - phase.started:.1f} s"
        if phase.name == "evaluating":
            line += f" ({_documents(phase.documents())})"
        self._stream.write(line + "\n")
        self._stream.flush()

    def close(self) -> None:
        self._phases.clear()  # an unfinished phase is not done: no line for it


class _LiveProgress(_PhaseTracker):
    """On a terminal (or forced): a rich live display, one line per phase."""

    def __init__(self, stream: TextIO, size: int | None) -> None:
        super().__init__()
        from rich.console import Console
        from rich.live import Live

        # the choice of a live display is made above: rich's own terminal detection (and
        # FORCE_COLOR or TTY_COMPATIBLE in a CI environment) must not overrule it
        self._console = Console(file=stream, force_terminal=True, highlight=False)
        self._size = size
        self._live: Live | None = Live(
            _Board(self),
            console=self._console,
            refresh_per_second=_REFRESH_PER_SECOND,
            transient=False,
            # rich would otherwise route sys.stdout through its console, onto stderr
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def phases(self) -> list[_Phase]:
        """A snapshot of the phases (the display thread renders while the run updates)."""
        return list(self._phases)

    def close(self) -> None:
        if self._live is None:
            return
        current = self._current
        if current is not None:  # an unfinished phase is dropped, not shown as done
            self._phases.remove(current)
        live, self._live = self._live, None
        live.stop()  # draws the last state and restores the cursor

    def line_parts(self, phase: _Phase, now: float) -> tuple[list[tuple[str, int]], bool]:
        """The statistics of ``phase`` in display order, each with its rank (a narrow line
        drops the highest rank first), and whether it wants a bar."""
        elapsed = _clock((phase.ended if phase.ended is not None else now) - phase.started)
        if phase.ended is not None:
            if phase.name == "evaluating":
                return [(_documents(phase.documents()), 1), (elapsed, 0)], False
            return [(elapsed, 0)], False
        if phase.name == "evaluating" and phase.total is not None:
            pieces = [(f"{phase.done}/{phase.total}", 0)]
            rate = phase.rate()
            if rate is not None:
                remaining = max(phase.total - phase.done, 0) / rate
                pieces += [(f"eta {_clock(remaining)}", 1), (f"{_rate(rate)} docs/s", 2)]
            return pieces, phase.total > 0
        if phase.name == "reading" and self._size is not None:
            return [(_bytes(self._size), 1), (elapsed, 0)], False
        return [(elapsed, 0)], False


class _Board:
    """The rich renderable of the live display: re-laid out at every refresh for the width
    of the terminal at that moment, each phase on exactly one line."""

    def __init__(self, progress: _LiveProgress) -> None:
        self._progress = progress

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.progress_bar import ProgressBar
        from rich.segment import Segment
        from rich.spinner import Spinner
        from rich.text import Text

        width = max(options.max_width, 1)
        unicode = not options.ascii_only
        now = time.monotonic()
        for index, phase in enumerate(self._progress.phases()):
            if index:
                yield Segment.line()
            if phase.ended is not None:
                marker = Text("✓" if unicode else "+", style="green")
            else:
                # the spinner's frame follows the phase's own clock (no state to keep)
                spinner = Spinner("dots" if unicode else "line")
                frame = int((now - phase.started) * 1000 / spinner.interval)
                marker = Text(spinner.frames[frame % len(spinner.frames)], style="cyan")
            label = Text.assemble(marker, " ", (phase.name, "bold"))
            if phase.step:
                label.append(f" {phase.step}")
            pieces, wants_bar = self._progress.line_parts(phase, now)
            kept, bar_width = _layout(label.cell_len, pieces, wants_bar, width)
            line: list[Segment] = list(label.render(console))
            if bar_width:
                bar = ProgressBar(total=phase.total, completed=phase.done, width=bar_width)
                line.append(Segment(" "))
                drawn = list(console.render(bar, options.update(width=bar_width)))
                # without colours rich leaves the bar's unfilled part out: keep its width
                line += Segment.adjust_line_length(drawn, bar_width)
            if kept:
                line.append(Segment(" "))
                line += list(Text(" ".join(kept), style="dim").render(console))
            # a newline inside a part would break the one-line layout: never let one through
            line = [segment for segment in line if "\n" not in segment.text]
            yield from Segment.adjust_line_length(line, width, pad=False)


def _layout(
    label: int, pieces: list[tuple[str, int]], wants_bar: bool, width: int
) -> tuple[list[str], int]:
    """The pieces that fit beside a label ``label`` columns wide on a ``width``-column line
    (the highest rank dropped first; then the label is cropped) and the bar's width (0: no
    bar; the pieces come before the bar). The pieces are ASCII, one column a character."""
    kept = list(pieces)
    while True:
        texts = [text for text, _ in kept]
        used = label + (1 + len(" ".join(texts)) if texts else 0)
        room = width - used - 1
        if wants_bar and room >= _MIN_BAR:
            return texts, min(room, _MAX_BAR)
        if used <= width or not kept:
            return texts, 0
        kept.remove(max(kept, key=lambda piece: piece[1]))


def _documents(count: int) -> str:
    return f"{count} document" if count == 1 else f"{count} documents"


def _clock(seconds: float) -> str:
    """A short duration: ``4.2s``, ``3m04s``, ``2h05m``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _rate(per_second: float) -> str:
    return f"{per_second:.1f}" if per_second < 10 else f"{per_second:.0f}"


def _bytes(count: int) -> str:
    """A size in decimal units: ``512 B``, ``3.1 MB``."""
    value = float(count)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"
