"""Helpers shared by the CLI subcommands, light enough for parser modules: importing this
module loads no engine (neither Polars, PyArrow, NumPy nor DuckDB)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import NoReturn, TypeVar

from citelens.errors import CitelensError, InternalError
from citelens.limits import Limits

__all__ = [
    "COMMAND_HELP",
    "EXIT_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "SIGNALLED",
    "Terminated",
    "fail",
    "limits_from_args",
    "on_signal",
    "progress",
    "progress_callback",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM

SIGNALLED: list[int] = []
"""The signals (SIGINT, SIGTERM) this run received, set by :func:`on_signal`."""


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread so that staged outputs are removed on the way out
    (not an ``Exception``: no handler of input errors can catch it)."""


def on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`, after noting the
    signal: a library that turns the exception into its own error (DuckDB, Arrow) cannot
    make the run report an input error instead (:func:`fail` re-raises)."""
    SIGNALLED.append(signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(EXIT_TERMINATED)


T = TypeVar("T")

# The one-line help of every subcommand, in the order ``citelens --help`` lists them. The
# top-level parser shows these without importing any command module; each module's
# ``register`` passes its own entry as ``help=`` so the text exists once.
COMMAND_HELP: dict[str, str] = {
    "support": "citation support metrics: span checks, reason codes, precision and recall",
    "review": "blinded summary review: render packets, export, sealed import, gate",
    "gold": "gold-set evaluation harness: adapters, scorers, scorecards, regression gate",
    "minimality": "check that each citation is no broader than its claim's required span",
    "summary-citations": "check that every summary claim cites existing evidence exactly once",
    "corpus": "evaluate many documents (keyed by document_ref) in one pass",
    "sql": "SQL over corpus outputs: documents, reasons, edges, scorecards views",
}


def limits_from_args(args: argparse.Namespace) -> Limits:
    """A :class:`Limits` from the ``--max-claims/--max-evidence/--max-citations/
    --max-adjudications`` options a subcommand defines (absent ones keep the default).
    Raises ``LimitsError`` (exit 2 through :func:`fail`) for a bound below 1."""
    return Limits(
        claims=getattr(args, "max_claims", None),
        evidence=getattr(args, "max_evidence", None),
        citations=getattr(args, "max_citations", None),
        adjudications=getattr(args, "max_adjudications", None),
    )


def fail(error: CitelensError) -> int:
    """Print a fixed-category error line on stderr; return exit code 2 (3 for an internal
    error: a bug or a broken environment, never bad input). After a signal the error is what
    a library made of the interrupt: the interrupt is raised again instead."""
    if SIGNALLED:
        if SIGNALLED[0] == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(EXIT_TERMINATED)
    sys.stderr.write(f"citelens: error [{error.category}]: {error.args[0]}\n")
    return EXIT_INTERNAL if isinstance(error, InternalError) else EXIT_INPUT


def progress(items: Iterable[T], total: int | None, label: str) -> Iterator[T]:
    """Yield ``items``, drawing a progress bar on stderr only when it is a terminal.

    ``label`` must be fixed text: a progress display never shows evaluated content.
    """
    stream = sys.stderr
    if not stream.isatty():
        yield from items
        return
    width = 30
    for done, item in enumerate(items, start=1):
        yield item
        if total:
            filled = int(width * done / total)
            stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        else:
            stream.write(f"\r{label} {done}")
        stream.flush()
    stream.write("\n")
    stream.flush()


def progress_callback(label: str) -> Callable[[int, int], None] | None:
    """A ``(done, total)`` callback drawing a bar on stderr, or ``None`` off a terminal.

    ``label`` must be fixed text: a progress display never shows evaluated content.
    """
    stream = sys.stderr
    if not stream.isatty():
        return None
    width = 30

    def draw(done: int, total: int) -> None:
        filled = int(width * done / total) if total else width
        stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return draw
