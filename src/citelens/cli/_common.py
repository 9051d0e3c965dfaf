"""Helpers shared by the CLI subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import pyarrow as pa

from citelens._atomic import WriteFailure, parquet_bytes, write_many_atomic
from citelens.errors import CitelensError, InternalError
from citelens.limits import Limits

__all__ = [
    "EXIT_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "fail",
    "limits_from_args",
    "progress",
    "progress_callback",
    "write_outputs",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3

T = TypeVar("T")


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
    error: a bug or a broken environment, never bad input)."""
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


def write_outputs(outputs: list[tuple[object, str | pa.Table]], error: CitelensError) -> None:
    """Write every output of one run as a unit: text as UTF-8, tables as Parquet, all staged
    beside their targets before any is renamed, so a failing run leaves none behind.
    ``error`` is the command's fixed ``io`` error, raised (unchained) on any failure."""
    failed = False
    try:
        files = [
            (path, content.encode("utf-8") if isinstance(content, str) else parquet_bytes(content))
            for path, content in outputs
        ]
        write_many_atomic(files)
    except WriteFailure:
        failed = True
    if failed:
        raise error
