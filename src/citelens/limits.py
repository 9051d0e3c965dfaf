"""The package-wide :class:`Limits` bounds (conventions §2)."""

from __future__ import annotations

from dataclasses import dataclass

from citelens.errors import LimitsError

__all__ = ["Limits"]


def _check(value: object) -> None:
    if value is not None and (type(value) is not int or value < 1):
        raise LimitsError("record limits must be positive integers", "limit")


@dataclass(frozen=True)
class Limits:
    """Collection bounds for one call.

    A field left ``None`` means the calling module's default bound. A set field must be an
    exact ``int`` >= 1 (``bool`` is rejected). There is no upper ceiling: raising a bound is the
    caller's explicit opt-in to bulk work. For every bound L, exactly L items are accepted and
    at most L + 1 items are consumed from an iterable or stream.
    """

    claims: int | None = None
    evidence: int | None = None
    citations: int | None = None
    adjudications: int | None = None

    def __post_init__(self) -> None:
        for value in (self.claims, self.evidence, self.citations, self.adjudications):
            _check(value)

    def resolve(self, field: str, default: int) -> int:
        """The bound for ``field``: the set value, else the calling module's ``default``."""
        value = getattr(self, field)
        return default if value is None else int(value)
