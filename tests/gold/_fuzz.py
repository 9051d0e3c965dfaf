"""Shared pieces of the gold fuzz tests (issue 10, item 2): hostile values and the assertion.

``CITELENS_FUZZ_EXAMPLES`` sets the number of examples per entry point (default 200, the CI
bound; ``make fuzz`` can ask for 100,000 or more).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from citelens.errors import ERROR_CATEGORIES, CitelensError, InternalError

CANARY = "CANARY-7f3a"
EXAMPLES = int(os.environ.get("CITELENS_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,  # a rerun with the same seed is the reproduction; no state left behind
)


class Hostile:
    """A caller object every one of whose protocols raises an exception carrying the canary."""

    def _boom(self, *_args: object, **_kwargs: object) -> Any:
        raise RuntimeError(CANARY)

    __str__ = __iter__ = __len__ = __bool__ = __hash__ = _boom
    __eq__ = __lt__ = __fspath__ = __call__ = __index__ = __float__ = _boom
    __getitem__ = __contains__ = _boom

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # private and special names: plain absence (tools probe them)
            raise AttributeError(name)
        raise RuntimeError(CANARY)

    def __repr__(self) -> str:  # safe, so that a failing example can be printed
        return "Hostile()"


class HostileText(str):
    """A ``str`` subclass whose methods raise: only a copy of its characters may be used."""

    def _boom(self, *_args: object, **_kwargs: object) -> Any:
        raise RuntimeError(CANARY)

    strip = lower = casefold = split = encode = __iter__ = __getitem__ = _boom
    __eq__ = __hash__ = __contains__ = __len__ = _boom


def _deep(depth: int) -> object:
    value: object = CANARY
    for _ in range(depth):
        value = [value]
    return value


def _shared(depth: int) -> object:
    # Every level refers twice to the same child: 2**depth paths through depth + 1 objects.
    value: object = [CANARY]
    for _ in range(depth):
        value = [value, value]
    return value


def _cycle() -> object:
    items: list[object] = [CANARY]
    items.append(items)
    return items


_TEXT = st.one_of(
    st.text(max_size=30),
    st.text(max_size=20).map(lambda t: t + CANARY),
    st.sampled_from(
        [
            CANARY,
            "\ud800" + CANARY,  # a lone surrogate
            "\udcff",
            "\x00" + CANARY,
            " \x1c\x85\u00a0" + CANARY,
            "1",
            " 007 ",
            "Smith et al " * 50,
            "A-" * 200,
        ]
    ),
    st.sampled_from([5000]).map(lambda n: "9" * n),  # beyond the int digit limit
    st.sampled_from([5000]).map(lambda n: "[" + "1" * n + "]"),
)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    # int64 edges, beyond float range, beyond the 4,300-digit str() limit (built by map: the
    # strategy's repr must not print them)
    st.sampled_from([63, 64, 1024, 1330, 17000]).map(lambda bits: 2**bits),
    st.sampled_from([63, 17000]).map(lambda bits: -(2**bits) - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    _TEXT,
    st.binary(max_size=10).map(lambda b: b + CANARY.encode()),
    st.sampled_from([1j, object(), ..., NotImplemented, type, len]),
)
_ODD = st.one_of(
    st.builds(Hostile),
    _TEXT.map(HostileText),
    st.integers(min_value=300, max_value=3000).map(_deep),
    st.integers(min_value=10, max_value=40).map(_shared),
    st.builds(_cycle),
)


def _containers(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.one_of(_TEXT, st.integers()), children, max_size=4),
        st.frozensets(st.one_of(_TEXT, st.integers()), max_size=3),
    )


HOSTILE: st.SearchStrategy[object] = st.one_of(
    _ODD, st.recursive(st.one_of(_SCALAR, _ODD), _containers, max_leaves=12)
)
"""JSON-like values, wrong types, huge ints, surrogates, deep and shared nesting, raising
objects: every one carries the canary where it can carry text."""

TEXT = _TEXT


def _texts_of(error: BaseException) -> list[str]:
    return [str(error), repr(error), *(repr(arg) for arg in error.args)]


def check_call(call: Callable[[], object]) -> object:
    """Run ``call``: it returns, or raises a citelens error that is not an ``InternalError``
    (a bug) with a fixed message free of the canary, a category of the vocabulary and no
    cause or context. Returns the value or the error."""
    try:
        return call()
    except CitelensError as error:
        assert not isinstance(error, InternalError), str(error)
        for text in _texts_of(error):
            assert CANARY not in text
        assert error.args == (str(error),)
        assert getattr(error, "category", None) in ERROR_CATEGORIES
        assert error.__cause__ is None and error.__context__ is None
        return error
