"""Differential tests: the columnar kernel and derivation against the record-by-record oracle
(``tests/oracle/summary_oracle.py``), on defective, nested inputs.

The generated claims hold items with several identifiers or spans (a citation record naming
one record by ``evidence_id`` and another through a nested ``citation``), unknown ids and
spans, duplicates inside a claim, invalid and duplicate evidence records: the shapes that the
deleted per-item Python path used to handle now run through the one kernel.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens import Limits
from citelens.summary_citations import build_summary_citation_report
from oracle.summary_oracle import oracle_metrics

IDS: list[Any] = ["e1", "e2", "e3", " e1 ", "7", 7, "", "zz", True, 1.5]
ID = st.sampled_from(IDS)
OFFSET = st.integers(min_value=-1, max_value=6)
PAIR = st.lists(OFFSET, min_size=2, max_size=2)
SPAN_MAP = st.fixed_dictionaries({"start": OFFSET, "end": OFFSET})
NESTED = st.one_of(ID, st.fixed_dictionaries({}, optional={"source_id": ID, "start": OFFSET}))
CITATION = st.one_of(
    ID,
    PAIR,
    st.fixed_dictionaries(
        {},
        optional={
            "evidence_id": ID,
            "id": ID,
            "start": OFFSET,
            "end": OFFSET,
            "span": SPAN_MAP,
            "citation": NESTED,  # a second reference in the same item
            "references": NESTED,
        },
    ),
)
CLAIM = st.fixed_dictionaries(
    {"claim": st.just("CANARY claim text")},
    optional={
        "citations": st.one_of(st.lists(CITATION, max_size=4), CITATION),
        "evidence_id": ID,
        "source_id": ID,
        "start": OFFSET,
        "end": OFFSET,
        "references": st.lists(CITATION, max_size=2),
    },
)
EVIDENCE = st.one_of(
    ID,
    PAIR,
    st.fixed_dictionaries(
        {},
        optional={"id": ID, "fact_id": ID, "start": OFFSET, "end": OFFSET, "span": SPAN_MAP},
    ),
)
LIMITS = Limits(claims=1000, evidence=1000, citations=10_000)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    claims=st.lists(CLAIM, max_size=8),
    evidence=st.lists(EVIDENCE, max_size=8),
)
def test_kernel_equals_oracle(claims: list[Any], evidence: list[Any]) -> None:
    got = build_summary_citation_report(claims, evidence, limits=LIMITS).metrics.to_dict()
    assert got == oracle_metrics(claims, evidence)


FLAT_CLAIMS = pa.schema(
    [
        ("citations", pa.list_(pa.string())),
        ("evidence_id", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
    ]
)
FLAT_EVIDENCE = pa.schema([("id", pa.string()), ("start", pa.int64()), ("end", pa.int64())])
TEXT_ID = st.one_of(st.none(), st.sampled_from(["e1", "e2", " e2", "", "zz", "7"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    claims=st.lists(
        st.fixed_dictionaries(
            {
                "citations": st.one_of(st.none(), st.lists(TEXT_ID, max_size=3)),
                "evidence_id": TEXT_ID,
                "start": st.one_of(st.none(), OFFSET),
                "end": st.one_of(st.none(), OFFSET),
            }
        ),
        max_size=8,
    ),
    evidence=st.lists(
        st.fixed_dictionaries(
            {
                "id": TEXT_ID,
                "start": st.one_of(st.none(), OFFSET),
                "end": st.one_of(st.none(), OFFSET),
            }
        ),
        max_size=8,
    ),
)
def test_flat_tables_equal_oracle(claims: list[Any], evidence: list[Any]) -> None:
    # The oracle reads records with None entries dropped: a table's null cells are absent.
    records = [{k: v for k, v in c.items() if v is not None} for c in claims]
    ev_records = [{k: v for k, v in e.items() if v is not None} for e in evidence]
    got = build_summary_citation_report(
        pa.Table.from_pylist(claims, schema=FLAT_CLAIMS),
        pa.Table.from_pylist(evidence, schema=FLAT_EVIDENCE),
        limits=LIMITS,
    ).metrics.to_dict()
    assert got == oracle_metrics(records, ev_records)


def test_oracle_hand_checked() -> None:
    # Evidence: e1 [0, 5) valid (index 0); e2 [6, 9) valid (index 1); a record repeating
    # span [0, 5) under id e3 is a duplicate, so e3 stays unknown. Claims:
    #   c1 cites e1 and e1 again -> 2 items, both valid, 1 duplicate; supported.
    #   c2 cites one item naming e1 and, nested, e2 -> refs resolve to 2 records: invalid,
    #      no missing record; unsupported.
    #   c3 cites e3 -> unknown id: invalid, 1 missing source record; unsupported.
    # citation_count = 2 + 1 + 1 = 4, valid = 2, invalid = 2; coverage 0.0 (duplicate
    # evidence fails closed), abstention_rate = 2 / 3.
    evidence = [
        {"id": "e1", "start": 0, "end": 5},
        {"id": "e2", "start": 6, "end": 9},
        {"id": "e3", "start": 0, "end": 5},
    ]
    claims = [
        {"citations": ["e1", "e1"]},
        {"citations": [{"evidence_id": "e1", "citation": "e2"}]},
        {"citations": ["e3"]},
    ]
    expected = oracle_metrics(claims, evidence)
    assert expected["citation_count"] == 4
    assert (expected["valid_citation_count"], expected["invalid_citation_count"]) == (2, 2)
    assert expected["duplicate_citation_count"] == 1
    assert expected["missing_source_record_count"] == 1
    assert expected["duplicate_evidence_record_count"] == 1
    assert (expected["coverage"], expected["abstention_rate"]) == (0.0, 2 / 3)
    assert expected["referenced_evidence_count"] == 1  # only e1 is cited by a valid item
    assert expected["failure_reasons"] == [
        "duplicate_citation",
        "duplicate_source_evidence",
        "invalid_citation",
        "missing_source_record",
        "unsupported_claim",
    ]
    assert build_summary_citation_report(claims, evidence).metrics.to_dict() == expected
