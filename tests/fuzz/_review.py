"""Shared pieces of the ``citelens.review`` fuzz tests (issue 10): hostile values, the
property every call must satisfy, one-field mutation of a valid structure, and the canary
scenario of ``tests/review/_scenario.py`` built once.

The property (:func:`check`): a call returns, or raises a ``SummaryReviewError`` with a fixed,
canary-free message, a category of the vocabulary and no cause or context; never an
``InternalError`` nor a foreign exception. Public outputs (request, import ``to_dict``, gate
checks, agreement, leakage and audit reports, every ``repr``) show no canary. Packets and the
sealed document are not checked for canaries: packets carry excerpts and candidate texts to
reviewers by design, and the sealed private document and the identity mapping are PRIVATE
(review.md §5.4, §12).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import citelens.review as rv
from citelens.errors import ERROR_CATEGORIES, CitelensError, InternalError, SummaryReviewError
from citelens.review._common import DOMAIN_SEAL, cj, keyed_digest
from gold._fuzz import HOSTILE  # tests/gold: the shared hostile values
from review import _scenario as sc  # tests/review: the canary scenario

from .strategies import EXAMPLES, values

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    database=None,
)
# The near-valid export, import and gate tests reach citation-support metrics, which costs
# about a tenth of a second per call: by default they run fewer examples so that `make test`
# stays fast; an explicit CITELENS_FUZZ_EXAMPLES (`make fuzz`) runs them all.
HEAVY = settings(
    FUZZ,
    max_examples=EXAMPLES if "CITELENS_FUZZ_EXAMPLES" in os.environ else min(EXAMPLES, 12),
)
MARK = "canary"  # every canary of the strategies and the scenario holds it (compared lowered)


# --------------------------------------------------------------------------------------------
# Hostile containers: subclasses pass isinstance checks, then raise when read


def _boom(*_args: object, **_kwargs: object) -> Any:
    raise RuntimeError("CANARY-review-boom")


class HostileTuple(tuple):  # type: ignore[type-arg]
    __iter__ = __len__ = __getitem__ = __eq__ = __hash__ = __contains__ = _boom

    def __repr__(self) -> str:
        return "HostileTuple()"


class HostileList(list):  # type: ignore[type-arg]
    __iter__ = __len__ = __getitem__ = __eq__ = __contains__ = _boom

    def __repr__(self) -> str:
        return "HostileList()"


class HostileDict(dict):  # type: ignore[type-arg]
    __iter__ = __len__ = __getitem__ = __eq__ = __contains__ = _boom
    keys = items = values = get = _boom

    def __repr__(self) -> str:
        return "HostileDict()"


class CitelensRaiser:
    """Caller code that raises a citelens error carrying the canary: still foreign
    (conventions.md §1.2), so it must be replaced by a fixed error, never passed through."""

    def _raise(self, *_args: object, **_kwargs: object) -> Any:
        raise SummaryReviewError("CANARY-review-citelens", "input")

    __iter__ = __len__ = __getitem__ = __eq__ = __hash__ = __str__ = _raise
    __contains__ = __bool__ = __index__ = __lt__ = _raise

    def __repr__(self) -> str:
        return "CitelensRaiser()"


_CONTAINERS = st.one_of(  # built per example: Hypothesis hashes the value of st.just
    st.builds(lambda: HostileTuple((1, 2))),
    st.builds(lambda: HostileList([1, 2])),
    st.builds(lambda: HostileDict({"a": 1})),
    st.builds(CitelensRaiser),
)
ANY = st.one_of(HOSTILE, values, _CONTAINERS)
"""Any hostile value: wrong types, huge ints, surrogates, deep and shared nesting, raisers."""

_NEAR = st.sampled_from(
    [
        "sha256:" + "0" * 64,
        "sha256:" + "A" * 64,
        "supports",
        "unclear",
        "other",
        "reviewer",
        "synthetic",
        "candidate-a",
        "CANARY-near",
        "",
        " ",
        0,
        1,
        -1,
        2**63,
        1.0,
        True,
        None,
        [],
        {},
    ]
)
JSONISH = st.recursive(
    st.one_of(
        _NEAR,
        st.text(max_size=6).map(lambda t: "CANARY-json" + t),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
"""JSON values (and near-valid words) for documents that are re-sealed or parsed as JSON."""


# --------------------------------------------------------------------------------------------
# The property


def _texts(error: BaseException) -> list[str]:
    return [str(error), repr(error), *(repr(arg) for arg in error.args)]


def _clean(*shown: str) -> None:
    for text in shown:
        assert MARK not in text.lower(), "an input value is shown"


def check(
    call: Callable[[], Any],
    public: Callable[[Any], list[str]] = lambda result: [repr(result)],
    message: str | None = None,
) -> Any:
    """Run ``call``: it returns (and ``public(result)`` shows no canary), or raises a fixed
    ``SummaryReviewError`` (``message`` when given) without cause or context. Returns the
    result or the error."""
    try:
        result = call()
    except InternalError as exc:  # a bug: report it without its text
        raise AssertionError("internal error: " + type(exc).__name__) from None
    except CitelensError as exc:
        assert type(exc) is SummaryReviewError
        _clean(*_texts(exc))
        assert exc.args == (str(exc),)
        assert exc.category in ERROR_CATEGORIES
        assert exc.__cause__ is None and exc.__context__ is None
        if message is not None:
            assert str(exc) == message
        return exc
    _clean(*public(result))
    return result


# --------------------------------------------------------------------------------------------
# Near-valid inputs: one nested field of a valid structure mutated


Route = tuple[Any, ...]


def _paths(value: Any, prefix: Route = ()) -> Iterator[Route]:
    yield prefix
    if type(value) is dict:
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif type(value) is list or type(value) is tuple:
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _edit(value: Any, path: Route, kind: str, new: Any) -> Any:
    """``value`` with the node at ``path`` replaced (``kind`` "replace"), removed ("drop"), or
    given a sibling: a new key / item ("add") or a repeated item ("repeat")."""
    if len(path) == 1 and kind != "replace" and type(value) in (dict, list, tuple):
        head = path[0]
        if type(value) is dict:
            out = dict(value)
            if kind == "drop":
                del out[head]
            else:
                out["CANARY-key" if kind == "add" else str(head) + "-CANARY"] = new
            return out
        items = list(value)
        if kind == "drop":
            del items[head]
        else:
            items.insert(head, new if kind == "add" else items[head])
        return type(value)(items)
    if not path:
        return new
    head, rest = path[0], path[1:]
    if type(value) is dict:
        out = dict(value)
        out[head] = _edit(value[head], rest, kind, new)
        return out
    items = list(value)
    items[head] = _edit(items[head], rest, kind, new)
    return type(value)(items)


@st.composite
def mutated(draw: st.DrawFn, base: Any, new: st.SearchStrategy[Any] = ANY) -> Any:
    """``base`` (a JSON-like structure) with one node replaced, dropped, added or repeated."""
    path = draw(st.sampled_from(list(_paths(base))))
    kind = draw(st.sampled_from(["replace", "replace", "drop", "add", "repeat"]))
    return _edit(base, path, kind, draw(new))


# --------------------------------------------------------------------------------------------
# The scenario (built once; every test copies what it changes)


@cache
def scenario() -> sc.Scenario:
    return sc.build("reviewer")


def _document() -> dict[str, Any]:
    """A return document with a resolved disagreement (reaches steps 7–9 of the import)."""
    s = scenario()
    return s.returned(
        labels={0: ("supports", "irrelevant")},
        reasons={0: "evidence_quality"},
        resolutions=[s.resolution(0, "supports", "evidence_quality")],
    )


@cache
def imported() -> rv.ImportedSummaryReview:
    s = scenario()
    return rv.import_summary_review(_document(), **s.import_kwargs(minimum_cell_size=2))


def _gate_kwargs() -> dict[str, Any]:
    s = scenario()
    return {
        **s.artifacts(),
        "thresholds": dict(sc.THRESHOLDS),
        "protected_surfaces": list(sc.PROTECTED),
        "review_import": imported(),
        "required_spans": {sc.CLAIMS[0]: [0, 9]},
    }


def _public_import(result: Any) -> list[str]:
    return [repr(result), cj(result.to_dict())]


def _public_export(result: Any) -> list[str]:
    request, sealed = result  # the sealed document is PRIVATE: only its repr is public
    return [cj(request), repr(sealed)]


def _public_render(result: Any) -> list[str]:
    packets, mapping = result  # packets carry texts to reviewers; the mapping is PRIVATE
    return [repr(packets), repr(mapping)]


def _public_checks(result: Any) -> list[str]:
    assert type(result) is tuple and result
    assert all(type(c) is rv.GateCheck for c in result)
    return [repr(result), cj([c.to_dict() for c in result])]


def _reseal(text: str) -> rv.SealedSummaryReview:
    """``text`` sealed with the scenario key when it parses and re-canonicalises (so the import
    gets past its seal check), else under the original commitment."""
    commitment = scenario().sealed.commitment
    with contextlib.suppress(ValueError, RecursionError):
        commitment = keyed_digest(sc.KEY, DOMAIN_SEAL, cj(json.loads(text)).encode())
    return rv.SealedSummaryReview(private_json=text, commitment=commitment)


# --------------------------------------------------------------------------------------------
# Functions with wholly hostile arguments, one or more replacing a valid argument


def _replaced(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(sorted(base)), ANY, min_size=1).map(
        lambda changes: {**base, **changes}
    )


def _request_of(document: Any) -> Any:
    """The request of a private document (``None`` when it has none). A re-sealed document
    whose bindings alone changed is authentic by its seal: only the request is checked
    against its own digest, so only a changed request must be refused."""
    return document.get("request") if type(document) is dict else None


_SPLICES = st.one_of(
    st.text(max_size=6),
    st.sampled_from(
        [
            '"bindings":[],',
            '"request":{},',
            '"review_ref":"sha256:' + "0" * 64 + '",',
            '"CANARY-dup":1,"CANARY-dup":2,',
            "\ufeff",
            "NaN",
            "-Infinity",
            "9" * 5000,
            '"\\ud800CANARY"',
            "\ud800",
            "[" * 3000,
            "]" * 3000,
            "\x00",
            "}",
        ]
    ),
)
