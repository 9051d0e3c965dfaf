"""Literal, hand-checked cases of each record rule (summary-citations.md §5–§7) on Python
records, through the public API (the adapter and the column rules); each is also checked
against the oracle."""

from __future__ import annotations

from typing import Any

import pytest

from citelens.summary_citations import compute_summary_citation_metrics
from oracle.summary_oracle import oracle_metrics
from summary_citations.test_records import IntId, Pair, Record, Slotted, SpanObject, StrId

SPAN = {"start": 0, "end": 5}
E1 = [{"id": "e1", "start": 0, "end": 5}]


def _wrap(depth: int, key: str, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {key: leaf}
    return leaf


def _metrics(claims: Any, evidence: Any) -> dict[str, Any]:
    got = compute_summary_citation_metrics(claims, evidence).to_dict()
    assert got == oracle_metrics(claims, evidence)
    return got


def _evidence_counts(record: Any) -> tuple[int, int]:
    m = _metrics([], [record])
    return m["valid_evidence_record_count"], m["invalid_evidence_record_count"]


# -- IDENT (§5) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cited", "valid"),
    [
        ("e1", 1),
        (" e1 ", 1),  # surrounding whitespace is removed
        ("\u001ce1\u3000", 1),  # U+001C and U+3000 are str.isspace() whitespace
        (Slotted(" e1 "), 1),  # a str subclass without vars(): IDENT strips it
        ("e1x", 0),  # unknown identifier
    ],
)
def test_ident_of_strings(cited: Any, valid: int) -> None:
    m = _metrics([{"citations": [cited]}], E1)
    assert m["valid_citation_count"] == valid
    assert m["missing_source_record_count"] == 1 - valid


@pytest.mark.parametrize(
    ("cited", "valid", "missing"),
    [
        (7, 1, 0),  # 7 and "7" are the same identifier
        # An int subclass with vars() has a record view (empty) where an item is read:
        # one item without references.
        (IntId(7), 0, 0),
        (True, 0, 0),  # bool is never an identifier: an item without references
        (7.0, 0, 0),  # float neither
        (b"7", 0, 0),  # bytes neither
        ("", 0, 0),  # empty after stripping: none
        (2**70, 0, 1),  # beyond int64 still an identifier ("1180591620717411303424")
    ],
)
def test_ident_of_other_values(cited: Any, valid: int, missing: int) -> None:
    m = _metrics([{"evidence_id": cited}], [{"id": "7"}])
    assert (m["citation_count"], m["valid_citation_count"]) == (1, valid)
    assert m["missing_source_record_count"] == missing


# -- SPAN (§5) --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "valid"),
    [
        ({"start": 0, "end": 5}, 1),
        ({"start_char": 0, "end_char": 5}, 1),
        ({"start": None, "start_char": 0, "end": 5}, 1),  # None is absent: falls back
        ({"start": "x", "start_char": 0, "end": 5}, 0),  # present non-int blocks fallback
        ({"start": True, "end": 5}, 0),  # bool is not an offset
        ({"start": 5, "end": 5}, 0),  # empty span
        ({"start": -1, "end": 5}, 0),  # negative start
        ({"start": IntId(0), "end": 5}, 0),  # offsets must be exact ints
        ([0, 5], 1),  # a bare int pair is a span record
        ((0, 5), 1),
        ([0, 5, 6], 0),  # three items: not a pair
        (SpanObject(0, 5), 1),  # no record view: start / end attributes
        (Pair(0, 5), 1),  # a non-list sequence of two ints
        (Record(start=0, end=5), 1),  # record view vars()
        (_wrap(4, "span", SPAN), 1),  # 4 container levels below the record work ...
        (_wrap(5, "span", SPAN), 0),  # ... 5 do not
        ({"offsets": [0, 5]}, 1),  # an int pair under a container key
        ({"span": [9, 1], "evidence": [0, 5]}, 1),  # first container *with* a span wins
        ({"span": {"span": [0, 5]}}, 1),
    ],
)
def test_span_of_evidence(record: Any, valid: int) -> None:
    assert _evidence_counts(record) == (valid, 1 - valid)


def test_span_containers_in_citations_restart_at_depth_zero() -> None:
    # Without a direct key a citation reads SPAN(m[k], 0) of its containers: the span may
    # sit 4 levels below the container value (5 below the item). With a direct key present
    # it reads SPAN(m, 0): only 4 levels below the item.
    five = {"span": _wrap(4, "span", SPAN)}
    assert _metrics([{"citations": [five]}], E1)["valid_citation_count"] == 1
    direct = {"start": "x", **five}
    m = _metrics([{"citations": [direct]}], E1)
    # No reference at all: invalid, neither unavailable nor missing.
    assert (m["valid_citation_count"], m["unavailable_span_count"]) == (0, 0)
    four = {"start": "x", "span": _wrap(3, "span", SPAN)}
    assert _metrics([{"citations": [four]}], E1)["valid_citation_count"] == 1


# -- SOURCE_REFS (§6) -------------------------------------------------------------------------


def test_source_refs() -> None:
    # id beats evidence_id: e2 is not registered, so citing it is a missing record.
    m = _metrics([{"citations": ["e2"]}], [{"id": "e1", "evidence_id": "e2"}])
    assert m["missing_source_record_count"] == 1
    # Bare strings and ints are identifiers; a bare int pair is a span.
    m = _metrics([{"citations": ["e1", "7", [0, 5]]}], ["e1", 7, [0, 5]])
    assert (m["valid_evidence_record_count"], m["valid_citation_count"]) == (3, 3)
    # In an identifier key an int subclass is read by IDENT only: "7".
    m = _metrics([{"citations": ["7"]}], [{"id": IntId(7)}])
    assert m["valid_citation_count"] == 1
    # A str subclass with vars() has a record view (empty): an invalid record (§4.5).
    assert _evidence_counts(StrId("e1")) == (0, 1)
    # A second record repeating only the span of an earlier one is a duplicate; its id e2
    # stays unknown.
    m = _metrics([{"citations": ["e2"]}], [E1[0], {"id": "e2", "start": 0, "end": 5}])
    assert m["duplicate_evidence_record_count"] == 1
    assert m["missing_source_record_count"] == 1
    # Non-str keys are ignored; None values are absent.
    assert _evidence_counts({1: "e1", "id": None}) == (0, 1)


# -- CIT_REFS / CIT_ITEMS / CLAIM_CITATIONS (§7) ----------------------------------------------

WORKED = [
    # (claim, citation_count, valid) — the worked shapes of §7 against evidence e1 [0, 5).
    ({"claim": "t", "citations": [{"evidence_id": "e1"}]}, 1, 1),
    ({"evidence_id": "e1"}, 1, 1),
    ({"start": 0, "end": 5}, 1, 1),  # one direct item {span (0, 5)}
    ({"id": "c1", "start": 0, "end": 5}, 1, 1),  # the claim's id is ignored
    ({"evidence_id": "e1", "start": 0, "end": 5}, 1, 1),  # one item: id and span agree
    ({"evidence_id": "e1", "citations": ["e1"]}, 2, 2),  # two items (a duplicate)
    ({"id": "e1"}, 0, 0),  # no items: missing citation
    ({"span": {"start": 0, "end": 5}}, 0, 0),  # claim-level containers are not citations
    ({"start": 0}, 1, 0),  # one direct item without references
    ({"evidence_id": None, "citations": []}, 0, 0),
    ({"citations": [None]}, 1, 0),
    ({"citations": ""}, 1, 0),
    ({"citations": {"citations": ["e1", "e2"]}}, 2, 1),  # the wrapper splits
    ({"citations": [{"citations": [{"evidence_id": "e1"}]}]}, 1, 0),  # lists not walked
    ({"citations": [1, 2]}, 2, 0),  # collection positions are never spans (D2)
    ({"citations": [[0, 5]]}, 1, 1),  # one pair per element is a span
    ({"citations": [[[0, 5]]]}, 1, 0),
    ({"citations": ({"evidence_id": "e1"}, "e1")}, 2, 2),  # tuples split like lists
    ({"citations": [{"evidence_id": "zz", "citation": "e1"}]}, 1, 0),  # two refs, one unknown
    (Record(citations=["e1"]), 1, 1),  # a plain object's vars()
    (["e1"], 0, 0),  # no record view: no items
]


@pytest.mark.parametrize(("claim", "count", "valid"), WORKED)
def test_claim_citations_worked_shapes(claim: Any, count: int, valid: int) -> None:
    m = _metrics([claim], E1)
    assert (m["citation_count"], m["valid_citation_count"]) == (count, valid)


def test_direct_item_merges_identifier_and_span() -> None:
    # k* is the first claim identifier key with an IDENT; the direct item is {id, span}: e2
    # names another record than [0, 5) → one invalid item, no missing record (both resolve).
    evidence = [*E1, {"id": "e2", "start": 6, "end": 9}]
    m = _metrics([{"evidence_id": "e2", "start": 0, "end": 5}], evidence)
    assert (m["citation_count"], m["valid_citation_count"]) == (1, 0)
    assert m["missing_source_record_count"] == 0
    # evidence_id (k*) merges; source_id is a second, separate item.
    m = _metrics([{"evidence_id": "e1", "source_id": "e2", "start": 0, "end": 5}], evidence)
    assert (m["citation_count"], m["valid_citation_count"]) == (2, 2)


@pytest.mark.parametrize(("wrappers", "valid"), [(10, 1), (11, 0)])
def test_wrapper_chain_cap(wrappers: int, valid: int) -> None:
    # {"citations": …} chains under claim.citations: followed through 10 wrappers, lost at 11
    # (CIT_ITEMS depth 0..5, then CIT_REFS restarts at 0 and follows 5 more).
    m = _metrics([{"citations": _wrap(wrappers, "citations", "e1")}], E1)
    assert (m["citation_count"], m["valid_citation_count"]) == (1, valid)


@pytest.mark.parametrize(("wrappers", "valid"), [(5, 1), (6, 0)])
def test_wrapper_chain_cap_inside_a_list_item(wrappers: int, valid: int) -> None:
    # Inside a list item only CIT_REFS follows the chain: 5 wrappers work, 6 do not.
    m = _metrics([{"citations": [_wrap(wrappers, "citations", "e1")]}], E1)
    assert (m["citation_count"], m["valid_citation_count"]) == (1, valid)
