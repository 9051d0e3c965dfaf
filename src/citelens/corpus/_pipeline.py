"""Batches evaluated two at a time (an ordered map over a small thread pool), and the phases
a corpus run reports to its progress callback.

Polars, Arrow and ``hashlib`` release the GIL for their work, so two batches in two threads
use both cores where one batch leaves one of them idle (a batch alternates between
multi-threaded kernels and single-threaded steps). Results come back in input order, so
outputs stay byte-identical; at most ``workers`` batches are in flight, so memory stays
bounded by the batch size.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["BATCH_WORKERS", "PHASES", "PhaseProgress", "ProgressCallback", "ordered_map", "phase"]

T = TypeVar("T")
R = TypeVar("R")

BATCH_WORKERS = 2
"""Batches in flight at once (the machines this is measured on have two cores)."""

PHASES = ("reading", "evaluating", "writing")
"""The phases of a corpus run, in order: planning the inputs (staging JSON Lines and CSV,
listing the document refs), evaluating the batches, then writing (the steps ``parquet``,
``summary``, ``publish``, or ``files`` for a result written in one call)."""

ProgressCallback = Callable[[int, int], None]
"""``progress(done, total)``: documents evaluated so far, of the run's total."""


@runtime_checkable
class PhaseProgress(Protocol):
    """A progress callback that is also told the phases of the run (see :data:`PHASES`).

    A plain ``(done, total)`` callable keeps working: only an object with a ``phase`` method
    hears of phases. Every argument is a fixed word or a count, never a value of the input.
    """

    def __call__(self, done: int, total: int) -> None:
        """``done`` documents of ``total`` are evaluated."""

    def phase(self, name: str, total: int | None = None, step: str | None = None) -> None:
        """Phase ``name`` starts (``total`` documents when known) or, called again with the
        current name, moves on to its ``step``."""


def phase(
    progress: ProgressCallback | None,
    name: str,
    total: int | None = None,
    step: str | None = None,
) -> None:
    """Tell ``progress`` that phase ``name`` (at ``step``) has begun, if it listens to phases."""
    if isinstance(progress, PhaseProgress):
        progress.phase(name, total, step)


def ordered_map(function: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """``map(function, items)`` with up to ``workers`` calls running at once, in order.

    An exception raised by a call is re-raised here, at that item's position; batches not yet
    started are cancelled and running ones are waited for, also when the consumer stops early.
    """
    if workers <= 1:
        yield from map(function, items)
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="citelens-batch")
    pending: deque[Future[R]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
