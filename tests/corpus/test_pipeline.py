"""``ordered_map``: batches evaluated two at a time come back in input order."""

from __future__ import annotations

import threading
import time

import pytest

from citelens.corpus._pipeline import ordered_map


def test_results_in_input_order_whatever_finishes_first() -> None:
    # item 0 sleeps longest, so with two workers item 1 finishes first; order is still 0, 1, ...
    def slow_first(item: int) -> int:
        time.sleep(0.05 if item == 0 else 0.0)
        return item * 10

    assert list(ordered_map(slow_first, range(6), 2)) == [0, 10, 20, 30, 40, 50]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_an_exception_is_raised_at_its_item(workers: int) -> None:
    def fail_on_three(item: int) -> int:
        if item == 3:
            raise ValueError("three")
        return item

    seen: list[int] = []
    with pytest.raises(ValueError, match="three"):
        for value in ordered_map(fail_on_three, range(10), workers):
            seen.append(value)
    assert seen == [0, 1, 2]


def test_at_most_workers_calls_in_flight_and_early_stop_cancels_the_rest() -> None:
    running = 0
    peak = 0
    started: list[int] = []
    lock = threading.Lock()

    def tracked(item: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
            started.append(item)
        time.sleep(0.01)
        with lock:
            running -= 1
        return item

    results = ordered_map(tracked, range(100), 2)
    assert [next(results), next(results)] == [0, 1]
    results.close()  # the consumer stops: items not yet started never run
    assert peak <= 2
    # submitted: items 0 and 1, then item 2 before item 1 was handed out; nothing after that
    assert set(started) <= {0, 1, 2}
