"""Hostile Python values (issue 10 item 1): deep nesting and shared references cost what
their first levels cost, and give the error the contract gives the shallow value.

The rules read at most four levels below a field (a claim's citation list, a mapping item, its
span, an offset), so whatever lies deeper is never walked: a citation item that is itself a
list fails the identifier rule however deep it goes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from citelens.errors import CitationSupportError
from citelens.support import compute_citation_support_metrics

EVIDENCE = [{"evidence_id": "e", "start": 0, "end": 4}]


def _nested(depth: int, wrap: Any) -> Any:
    value: Any = "e"
    for _ in range(depth):
        value = wrap(value)
    return value


def _error(claims: list[dict[str, Any]]) -> tuple[str, str, float]:
    started = time.perf_counter()
    with pytest.raises(CitationSupportError) as caught:
        compute_citation_support_metrics(claims, EVIDENCE)
    return str(caught.value), caught.value.category, time.perf_counter() - started


@pytest.mark.parametrize(
    "wrap", [lambda v: [v], lambda v: {"evidence_id": v}, lambda v: {"span": v}], ids=repr
)
@pytest.mark.parametrize("depth", [3, 40, 900])
def test_deep_values_fail_like_shallow_ones(wrap: Any, depth: int) -> None:
    # the citation item at depth 1 is a list or a mapping whose evidence id is not text (or
    # has no evidence id): the same error at every depth (checked at depth 3 by hand)
    shallow = _error([{"claim_id": "c", "citations": [_nested(3, wrap)]}])
    message, category, seconds = _error([{"claim_id": "c", "citations": [_nested(depth, wrap)]}])
    assert (message, category) == shallow[:2]
    assert seconds < 10  # before the bound: 73 s and a RecursionError at 700 levels


def test_shared_references_are_not_unfolded() -> None:
    # 7 lists of 1,000 slots each, every slot of a level the same list: 10**21 paths
    value: Any = ["e"] * 1000
    for _ in range(6):
        value = [value] * 1000
    message, category, seconds = _error([{"claim_id": "c", "citations": value}])
    assert (message, category) == ("identifier must be a string", "identifier")
    assert seconds < 10


def test_a_deep_value_under_an_unread_key_is_never_walked() -> None:
    # "notes" is no key of any support rule: its value is not converted at all
    report = compute_citation_support_metrics(
        [{"claim_id": "c", "start": 0, "end": 4, "citations": ["e"], "notes": _nested(5000, list)}],
        EVIDENCE,
    )
    assert report.claim_count == 1
