"""Batches evaluated two at a time: an ordered map over a small thread pool.

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
from typing import TypeVar

__all__ = ["BATCH_WORKERS", "ordered_map"]

T = TypeVar("T")
R = TypeVar("R")

BATCH_WORKERS = 2
"""Batches in flight at once (the machines this is measured on have two cores)."""


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
