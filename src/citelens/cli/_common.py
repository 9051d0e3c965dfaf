"""Helpers shared by the CLI subcommands."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from ..errors import CitelensError

__all__ = ["EXIT_FAILED", "EXIT_INPUT", "EXIT_OK", "fail", "progress", "progress_callback"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2

T = TypeVar("T")


def fail(error: CitelensError) -> int:
    """Print a fixed-category error line on stderr and return exit code 2."""
    sys.stderr.write(f"citelens: error [{error.category}]: {error.args[0]}\n")
    return EXIT_INPUT


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
