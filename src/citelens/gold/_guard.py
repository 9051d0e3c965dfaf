"""Argument checks at the public boundary of :mod:`citelens.gold` (issue 10, item 2).

Every public gold function raises only :mod:`citelens.errors` classes on bad input of any type:
an argument of the wrong type, a path that no file system can name, or a caller object that raises
while it is read becomes ``GoldError("gold input is invalid")`` (category ``input``), fixed and
value-free and never chained (conventions.md §1.2). Everything else that escapes stays a bug
(:func:`citelens._fixed.attempt` turns it into ``InternalError``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

from citelens.errors import GoldError

__all__ = [
    "INVALID_INPUT",
    "as_flag",
    "as_items",
    "as_number",
    "as_optional_path",
    "as_optional_text",
    "as_path",
    "as_text",
    "as_text_items",
    "as_text_mapping",
    "caller",
    "invalid",
    "key_text",
]

T = TypeVar("T")

INVALID_INPUT = "gold input is invalid"
"""The one message for an unusable argument of a public gold function."""


def invalid() -> GoldError:
    """A fresh ``GoldError`` for an unusable argument (category ``input``)."""
    return GoldError(INVALID_INPUT, "input")


def caller(call: Callable[[], T]) -> T:
    """Run code that belongs to the caller (its ``__iter__``, ``__str__``, ``__fspath__``,
    mapping methods, a ``match`` callable); whatever it raises becomes :func:`invalid`, raised
    outside the ``except`` block so that nothing of it is chained."""
    failed = False
    try:
        return call()
    except Exception:  # caller code only (see the docstring): its failure is an input error
        failed = True
    if failed:
        raise invalid()
    raise AssertionError("unreachable")  # pragma: no cover


_TEXT_DEPTH = 32
_TEXT_ITEMS = 10_000


def _children(
    item: list[object] | tuple[object, ...] | set[object] | frozenset[object],
) -> Iterator[object]:
    # the base class's iterator: a subclass's own __iter__ is the caller's code
    if isinstance(item, list):
        return list.__iter__(item)
    if isinstance(item, tuple):
        return tuple.__iter__(item)
    if isinstance(item, set):
        return set.__iter__(item)
    return frozenset.__iter__(item)


def _str_is_bounded(value: object) -> bool:
    # str() of a container walks every path through it: shared references make that exponential
    # (2**depth paths through depth objects), deep nesting exhausts the recursion limit. Count
    # items along every path, stopping at the budget, so that the walk itself stays bounded.
    stack: list[tuple[object, int]] = [(value, 0)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > _TEXT_ITEMS or depth > _TEXT_DEPTH:
            return False
        if isinstance(item, dict):
            for pair in dict.items(item):
                stack.extend((part, depth + 1) for part in pair)
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend((child, depth + 1) for child in _children(item))
        elif isinstance(item, int) and not isinstance(item, bool) and int.bit_length(item) > 14000:
            return False  # beyond str()'s 4,300-digit limit for int
    return True


def key_text(value: object) -> str | None:
    """``str(value)`` for a citation key that is not text (the adapter-side rule of
    gold-harness.md §2.5); ``None`` when its containers are more than 32 deep or hold more than
    10,000 items along all paths, or when the caller's ``__str__`` raises."""
    if not _str_is_bounded(value):
        return None
    failed = False
    text = ""
    try:
        text = str(value)
    except Exception:  # the caller's __str__/__repr__ (an adapter's or a user's object)
        failed = True
    return None if failed or not isinstance(text, str) else str.__getitem__(text, slice(None))


def as_text(value: object) -> str:
    """``value`` as an exact ``str`` (a subclass is copied, so none of its methods run later)."""
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__getitem__(value, slice(None))
    raise invalid()


def as_optional_text(value: object) -> str | None:
    """``None`` or :func:`as_text`."""
    return None if value is None else as_text(value)


def as_flag(value: object) -> bool:
    """An exact ``bool`` (``0``/``1`` and other truthy objects are not flags)."""
    if value is True or value is False:
        return value
    raise invalid()


def as_number(value: object) -> float:
    """A finite real number as a float: an ``int`` (not ``bool``) within float range or a finite
    ``float``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid()
    if isinstance(value, int):
        if int.bit_length(value) > 1023:
            raise invalid()  # float() would overflow
        return float(int.__index__(value))
    number = float.__float__(value)
    if not math.isfinite(number):
        raise invalid()
    return number


def _fspath(value: object) -> str:
    if isinstance(value, str):
        return as_text(value)
    if isinstance(value, os.PathLike):
        path = caller(lambda: os.fspath(value))
        if isinstance(path, str):
            return as_text(path)
    raise invalid()


def as_path(value: object) -> str:
    """A path argument (``str`` or ``os.PathLike`` giving ``str``) that the OS can name: no NUL,
    encodable with the file-system encoding."""
    path = _fspath(value)
    if "\x00" in path:
        raise invalid()
    encodable = True
    try:
        os.fsencode(path)
    except UnicodeError:  # a lone surrogate outside the surrogateescape range
        encodable = False
    if not encodable:
        raise invalid()
    return path


def as_optional_path(value: object) -> str | None:
    """``None`` or :func:`as_path`."""
    return None if value is None else as_path(value)


def as_items(value: object) -> list[object]:
    """The items of a collection argument as a list; text is not a collection of items."""
    if isinstance(value, str | bytes | bytearray) or not isinstance(value, Iterable):
        raise invalid()
    return caller(lambda: list(value))


def as_text_items(value: object) -> list[str]:
    """A collection of texts (every item a ``str``)."""
    return [as_text(item) for item in as_items(value)]


def as_text_mapping(value: object) -> dict[str, str]:
    """A mapping of texts to texts (an environment) as a plain ``dict``."""
    if not isinstance(value, Mapping):
        raise invalid()
    pairs = caller(lambda: list(value.items()))
    out: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise invalid()
        out[as_text(pair[0])] = as_text(pair[1])
    return out
