"""The signals a CLI run received, kept where the atomic writer can see them.

The CLI's handlers (``citelens.cli``) note SIGINT and SIGTERM here before raising. Python runs
a handler at the next bytecode of the main thread, which may be inside a finaliser or a
callback of a compiled extension (Polars' data-type classes on 1.43): an exception raised
there is "unraisable", printed and dropped, and the run would go on as if no signal had come.
:func:`raise_pending` raises it again at the next safe point: before an output set is
committed, and when a command returns.
"""

from __future__ import annotations

import signal

__all__ = ["RECEIVED", "Terminated", "interrupt_for", "raise_pending"]

EXIT_TERMINATED = 143  # 128 + SIGTERM

RECEIVED: list[int] = []
"""The signals (SIGINT, SIGTERM) this run received, in order (the CLI clears it per run)."""


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread so that staged outputs are removed on the way out
    (not an ``Exception``: no handler of input errors can catch it)."""


def interrupt_for(signum: int) -> BaseException:
    """What a signal raises: ``KeyboardInterrupt`` for SIGINT, :class:`Terminated` else."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(EXIT_TERMINATED)


def raise_pending() -> None:
    """Raise what the first received signal raises (:func:`interrupt_for`); return when no
    signal was received."""
    if RECEIVED:
        raise interrupt_for(RECEIVED[0])
