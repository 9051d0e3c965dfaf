"""Fuzzing every public entry point (issue 10): any input raises only ``citelens.errors``
classes, never an internal error, and no message, repr, cause or context shows an input value.

``CITELENS_FUZZ_EXAMPLES`` sets the examples per entry point (``make fuzz``: 100,000).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens import minimality, ordering, summary_citations, support
from citelens.errors import CitelensError, InternalError

from .strategies import CANARY, EXAMPLES, collections, texts, values

pytestmark = pytest.mark.fuzz


def _check(call: Callable[[], Any]) -> None:
    try:
        result = call()
    except InternalError as exc:  # a bug: show its type, never its message
        raise AssertionError(f"internal error: {exc}") from None
    except CitelensError as exc:
        for shown in (str(exc), repr(exc), repr(exc.args)):
            assert CANARY not in shown
        assert exc.__cause__ is None and exc.__context__ is None
        return
    assert CANARY not in repr(result)


ENTRY_POINTS: dict[str, Callable[..., Any]] = {
    "support": lambda c, e, x, a: support.compute_citation_support_metrics(c, e, x, a),
    "summary": lambda c, e, x, a: summary_citations.compute_summary_citation_metrics(c, e),
    "summary_sources": lambda c, e, x, a: summary_citations.compute_summary_citation_metrics(
        summary_claims=c, source_evidence=e, source_records=x
    ),
    "minimality": lambda c, e, x, a: minimality.check_citation_minimality(
        "The patient was given aspirin." if not isinstance(a, str) else a, c, e
    ),
    "minimality_batch": lambda c, e, x, a: minimality.check_citation_minimality_batch(c, e, x),
    "ordering": lambda c, e, x, a: ordering.order_citations(c),
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_only_citelens_errors(name: str) -> None:
    entry = ENTRY_POINTS[name]

    @settings(max_examples=EXAMPLES, database=None)
    @given(collections, collections, collections, st.one_of(collections, texts))
    def run(c: Any, e: Any, x: Any, a: Any) -> None:
        _check(lambda: entry(c, e, x, a))

    run()


@settings(max_examples=EXAMPLES, database=None)
@given(st.lists(values, min_size=7, max_size=7))
def test_typed_record_constructors(fields: list[Any]) -> None:
    for build in (
        lambda: support.AtomicClaim(*fields),
        lambda: support.EvidenceSpan(*fields[:5]),
        lambda: support.Citation(*fields[:5]),
        lambda: support.ClinicianAdjudication(*fields[:3]),
        lambda: support.AtomicClaim.from_mapping(fields[0]),
        lambda: support.Citation.from_mapping(fields[1]),
    ):
        _check(build)
