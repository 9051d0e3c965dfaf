"""Property tests: the columnar path equals the record walker; order never matters; the
reference implementation (openmed 3.1.0, black box) agrees where the contract keeps its
behaviour."""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens import Limits
from citelens.summary_citations import build_summary_citation_report
from citelens.summary_citations._schema import flat_claims_ok, flat_evidence_ok

IDS = ["e1", "e2", "e3", " e1 ", "", "  ", "7", "-1", "e4"]
ID = st.one_of(st.none(), st.sampled_from(IDS))
OFFSET = st.one_of(st.none(), st.integers(min_value=-1, max_value=12))
SETTINGS_SMALL = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

CITATION_STRUCT = st.fixed_dictionaries(
    {},
    optional={
        "evidence_id": ID,
        "id": ID,
        "source_id": ID,
        "start": OFFSET,
        "end": OFFSET,
        "start_char": OFFSET,
        "end_char": OFFSET,
        "quote": st.just("CANARY quote text"),
    },
)


@st.composite
def claim_sets(draw: Any, *, direct: bool = True, nulls: bool = True) -> list[dict[str, Any]]:
    shape = draw(st.sampled_from(["ids", "structs", "struct", "id"]))
    element = {"ids": ID, "structs": CITATION_STRUCT, "struct": ID, "id": ID}[shape]
    if shape in ("ids", "structs"):
        citations: Any = st.one_of(st.none(), st.lists(element, max_size=4))
    elif shape == "struct":
        citations = st.one_of(st.none(), CITATION_STRUCT)
    else:
        citations = ID
    keys: dict[str, Any] = {
        "claim": st.just("CANARY claim text"),
        "citations": citations,
        "evidence_id": ID,
        "source_id": ID,
        "citation": ID,
        "references": st.one_of(st.none(), st.lists(ID, max_size=3)),
    }
    if direct:
        keys.update({"start": OFFSET, "end": OFFSET, "start_char": OFFSET})
    claims = draw(st.lists(st.fixed_dictionaries({}, optional=keys), max_size=8))
    if not nulls:
        claims = [_drop_none(c) for c in claims]
    return claims


INT_ID = st.one_of(st.none(), st.sampled_from([1, 2, 7, -1, 0]))


@SETTINGS_SMALL
@given(
    claims=st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "citations": st.one_of(st.none(), st.lists(INT_ID, max_size=3)),
                "evidence_id": INT_ID,
                "start": OFFSET,
                "end": OFFSET,
            },
        ),
        max_size=6,
    ),
    evidence=st.lists(
        st.fixed_dictionaries({}, optional={"id": INT_ID, "start": OFFSET, "end": OFFSET}),
        max_size=6,
    ),
)
def test_integer_identifier_tables(
    claims: list[dict[str, Any]], evidence: list[dict[str, Any]]
) -> None:
    walked = build_summary_citation_report(claims, evidence).to_json()
    claims_table, evidence_table = _table(claims), _table(evidence)
    assert flat_claims_ok(claims_table.schema) and flat_evidence_ok(evidence_table.schema)
    assert build_summary_citation_report(claims_table, evidence_table).to_json() == walked


@st.composite
def evidence_sets(draw: Any, *, nulls: bool = True) -> list[dict[str, Any]]:
    keys = {
        "id": ID,
        "evidence_id": ID,
        "record_id": ID,
        "start": OFFSET,
        "end": OFFSET,
        "end_char": OFFSET,
        "value": st.just("CANARY source value"),
    }
    records = draw(st.lists(st.fixed_dictionaries({}, optional=keys), max_size=8))
    if not nulls:
        records = [_drop_none(r) for r in records]
    return records


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _table(records: list[dict[str, Any]]) -> pa.Table:
    if not records:
        return pa.table({"claim": pa.array([], pa.string())})
    return pa.Table.from_struct_array(pa.array(records))


LIMITS = Limits(claims=1000, evidence=1000, citations=10_000)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(claims=claim_sets(), evidence=evidence_sets())
def test_columnar_equals_walker(claims: list[dict[str, Any]], evidence: list[dict[str, Any]]):
    walked = build_summary_citation_report(claims, evidence, limits=LIMITS).to_json()
    claims_table = _table(claims)
    evidence_table = _table(evidence)
    # Generated shapes are flat: the columnar path (not the walker) handles them.
    assert flat_claims_ok(claims_table.schema)
    assert flat_evidence_ok(evidence_table.schema)
    columnar = build_summary_citation_report(claims_table, evidence_table, limits=LIMITS)
    assert columnar.to_json() == walked
    polars_form = build_summary_citation_report(
        pl.from_arrow(claims_table), pl.from_arrow(evidence_table), limits=LIMITS
    )
    assert polars_form.to_json() == walked


@SETTINGS
@given(claims=claim_sets(), evidence=evidence_sets(), seed=st.integers(0, 2**32 - 1))
def test_reordering_gives_identical_bytes(
    claims: list[dict[str, Any]], evidence: list[dict[str, Any]], seed: int
) -> None:
    rng = random.Random(seed)
    report = build_summary_citation_report(claims, evidence, limits=LIMITS)
    shuffled_claims = [dict(c) for c in claims]
    rng.shuffle(shuffled_claims)
    for claim in shuffled_claims:
        if isinstance(claim.get("citations"), list):
            claim["citations"] = rng.sample(claim["citations"], len(claim["citations"]))
        keys = list(claim)
        rng.shuffle(keys)
        claim_copy = {k: claim[k] for k in keys}
        claim.clear()
        claim.update(claim_copy)
    shuffled_evidence = list(evidence)
    if report.metrics.duplicate_evidence_record_count == 0:
        # Which of two duplicate records registers first is order-dependent by contract
        # (§6); every other evidence order gives the same report.
        rng.shuffle(shuffled_evidence)
    again = build_summary_citation_report(shuffled_claims, shuffled_evidence, limits=LIMITS)
    assert again.to_json() == report.to_json()
    assert again.to_json(indent=2) == report.to_json(indent=2)
    assert again.to_markdown() == report.to_markdown()
    table_again = build_summary_citation_report(
        _table(shuffled_claims), _table(shuffled_evidence), limits=LIMITS
    )
    assert table_again.to_json() == report.to_json()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    claims=claim_sets(direct=False, nulls=False),
    evidence=evidence_sets(nulls=False),
)
def test_agrees_with_reference(
    claims: list[dict[str, Any]], evidence: list[dict[str, Any]]
) -> None:
    reference = pytest.importorskip("openmed.clinical.summary_citations")
    # Shapes where the contract keeps the reference behaviour: no None values (D3), no
    # claim-level direct span keys (D1), no two-int lists (D2), no file-like strings (D6).
    ours = build_summary_citation_report(claims, evidence)
    theirs = reference.build_summary_citation_report(claims, evidence)
    assert ours.to_json() == theirs.to_json()
    assert ours.metrics.to_json() == theirs.metrics.to_json()
    assert ours.to_markdown() == theirs.to_markdown()


def test_walker_handles_several_identifiers_in_one_item() -> None:
    # One citation record naming e1 by evidence_id and e2 through a nested "citation" key:
    # two id references that resolve to two records -> one invalid item (no missing record).
    claims = [{"citations": [{"evidence_id": "e1", "citation": "e2"}]}]
    evidence = [{"id": "e1"}, {"id": "e2"}]
    m = build_summary_citation_report(claims, evidence).metrics
    assert (m.citation_count, m.valid_citation_count, m.invalid_citation_count) == (1, 0, 1)
    assert m.missing_source_record_count == 0
    # The same complex item twice in one claim is one duplicate (same reference set).
    m2 = build_summary_citation_report(
        [{"citations": [{"evidence_id": "e1", "citation": "e2"}] * 2}], evidence
    ).metrics
    assert m2.duplicate_citation_count == 1
    # One id resolves (e1), one does not (zz): invalid, a missing record, and keyed by the
    # record e1, so it duplicates the plain citation of e1 in the same claim.
    m3 = build_summary_citation_report(
        [{"citations": [{"evidence_id": "e1", "citation": "zz"}, "e1"]}], evidence
    ).metrics
    assert (m3.valid_citation_count, m3.invalid_citation_count) == (1, 1)
    assert (m3.duplicate_citation_count, m3.missing_source_record_count) == (1, 1)
