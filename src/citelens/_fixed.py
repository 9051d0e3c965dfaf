"""The one place where foreign exceptions become citelens errors.

Contract failures are raised as the capability's own :class:`~citelens.errors.CitelensError`
subclass and pass through unchanged. Anything else that escapes a public entry point is a bug
or a broken environment: it becomes :class:`~citelens.errors.InternalError` (category
``internal``, CLI exit 3), raised outside the ``except`` block so that it is never chained and
no input value reaches a traceback. Nothing here turns an unexpected exception into an input
error or into a slower path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from citelens.errors import CitelensError, InternalError

__all__ = ["ContractFailure", "attempt"]

T = TypeVar("T")


def attempt(call: Callable[[], T]) -> T:
    """Run ``call``; a citelens error passes through, any other exception becomes
    :class:`InternalError` (unchained)."""
    internal: InternalError | None = None
    try:
        return call()
    except CitelensError:
        raise
    except _PASS_THROUGH:
        raise
    except Exception as exc:  # not an input error: a bug or the environment
        internal = InternalError.of(exc)
    raise internal


class ContractFailure(Exception):
    """Base of the private markers a capability raises for a contract failure before turning
    it into its own fixed error; :func:`attempt` lets them through."""


_PASS_THROUGH: tuple[type[BaseException], ...] = (ContractFailure,)
