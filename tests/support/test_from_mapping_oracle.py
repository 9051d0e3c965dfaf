"""``from_mapping`` (the record rule on a collection of one, through the columnar stages)
against the scalar record rules of the oracle (``tests/oracle/support_scalar.py``).

Each case is one record with awkward values in the fields its rule reads, aliases and nesting
included; the typed record's fields, or the error, must be what the oracle gives.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from citelens.errors import CitationSupportError
from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan
from citelens.support._records import typed_claims, typed_evidence
from citelens.support._rules import SupportFailure
from oracle.support_scalar import (
    adjudication_record_fields,
    citation_record_fields,
    claim_record_fields,
    evidence_record_fields,
    record_conversion,
)

_VALUES: list[Any] = [" e1 ", "", 7, 2**64, True, 1.5, None, ["e2", 3], {"evidence_id": "e3"}]
_OFFSETS: list[Any] = [None, 0, 5, -1, 2**63, "3", [1, 2], {"start": 1, "stop": 4}, (1,)]


def _oracle(rule: Any, value: Any, *args: Any) -> Any:
    try:
        return rule(record_conversion(value, args[0]), *args[1:])
    except SupportFailure as exc:
        return (exc.message, exc.category)


def _typed(call: Any, value: Any) -> Any:
    try:
        record = call(value)
    except CitationSupportError as exc:
        return (str(exc), exc.category)
    return tuple(getattr(record, name) for name in type(record).FIELDS)


def _claim_records() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for value, other in itertools.product(_VALUES, _VALUES[:4]):
        out.append({"claim_id": value, "citations": other})
        out.append({"id": "c", "key": value, "type": other})
        out.append({"fact_id": "c", "sources": [value, {"id": other}], "length": other})
    for start, end in itertools.product(_OFFSETS, _OFFSETS[:5]):
        out.append({"claim_id": "c", "span": start, "end": end, "source_text": "abcdef"})
    return out


@pytest.mark.parametrize("record", _claim_records(), ids=repr)
def test_claim_from_mapping_matches_the_oracle(record: dict[str, Any]) -> None:
    expected = _oracle(claim_record_fields, record, "claim", None, 500_000)
    if len(expected) != 2:
        # the oracle's fields: id, start, end, source, length, type, raw value, own ids
        expected = (*expected[:3], expected[7], *expected[3:6])
    assert _typed(AtomicClaim.from_mapping, record) == expected


def _evidence_records() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for value, other in itertools.product(_VALUES, _VALUES[:4]):
        out.append({"evidence_id": value, "record_id": other})
        out.append({"span_id": value, "document_length": other, "label": "bogus"})
    for start, end in itertools.product(_OFFSETS, _OFFSETS[:5]):
        out.append({"id": "e", "source_span": start, "stop": end, "offset_end": end})
    return out


@pytest.mark.parametrize("record", _evidence_records(), ids=repr)
def test_evidence_from_mapping_matches_the_oracle(record: dict[str, Any]) -> None:
    expected = _oracle(evidence_record_fields, record, "evidence", None)
    assert _typed(EvidenceSpan.from_mapping, record) == expected


def _edge_records() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for value, other in itertools.product(_VALUES, _VALUES[:5]):
        out.append({"claim": value, "evidence": other, "label": "Supported"})
        out.append({"claim_id": "c", "citation_id": value, "document_id": other, "refutes": 1})
        out.append({"fact_id": other, "source_id": value, "verdict": value, "supports": other})
    return out


@pytest.mark.parametrize("record", _edge_records(), ids=repr)
def test_citation_and_adjudication_from_mapping_match_the_oracle(record: dict[str, Any]) -> None:
    assert _typed(Citation.from_mapping, record) == _oracle(
        citation_record_fields, record, "citation"
    )
    assert _typed(ClinicianAdjudication.from_mapping, record) == _oracle(
        adjudication_record_fields, record, "adjudication"
    )


def test_bulk_conversion_is_from_mapping_of_each_and_names_the_first_defect() -> None:
    claims = [{"claim_id": " a ", "citations": ["e1", {"id": "e2"}]}, {"key": 5}]
    assert typed_claims(claims) == [AtomicClaim.from_mapping(c) for c in claims]
    assert [c.citations for c in typed_claims(claims)] == [("e1", "e2"), ()]
    evidence = [{"evidence_id": "e", "span": [0, 3]}, {"id": "f", "length": 9}]
    assert typed_evidence(evidence) == [EvidenceSpan.from_mapping(e) for e in evidence]
    # the second and third records are defective: the second's first failing step decides
    # (its span is not integers; the third has no identifier at all)
    defective = [{"claim_id": "a"}, {"claim_id": "b", "start": "x"}, {"citations": []}]
    with pytest.raises(CitationSupportError) as caught:
        typed_claims(defective)
    assert (str(caught.value), caught.value.category) == (
        "span offsets must be integers",
        "span",
    )
    assert caught.value.__cause__ is None


def test_from_mapping_of_a_typed_record_is_not_a_mapping() -> None:
    # typed records are slotted with no to_dict: even of the same kind, not a mapping (§3.5)
    with pytest.raises(CitationSupportError, match="claim record must be a mapping"):
        AtomicClaim.from_mapping(AtomicClaim("c"))
    with pytest.raises(CitationSupportError, match="citation record must be a mapping"):
        Citation.from_mapping(Citation("c", "e"))
    with pytest.raises(CitationSupportError, match="citation record must be a mapping"):
        Citation.from_mapping(("c", "e"))  # a pair is a citation item, not a record


def test_from_mapping_builds_the_subclass() -> None:
    class Mine(EvidenceSpan):
        __slots__ = ()

    assert type(Mine.from_mapping({"evidence_id": "e"})) is Mine
