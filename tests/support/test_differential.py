"""Randomised differential tests that include invalid inputs.

* Row path vs columnar path: records that Arrow types with one type per column (no ``None``
  values, so a null cell means exactly an absent key) must give the same report or the same
  error (first defective row, first failing step) as an Arrow table, a Polars frame and a JSON
  Lines file (support-metrics.md §4.1).
* citelens vs openmed 3.1.0 (black box): on inputs outside the §2 decisions, the same report
  values (provenance aside) or the same error message.
"""

from __future__ import annotations

import json
import pathlib
import tempfile
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ._helpers import compute, faithful_table, without_provenance

IDS = ["c1", "c2", "e1", "e2", " c1 ", "7", "", "  ", "a\tb", "x" * 257, "é"]
LABELS = ["supports", "Supported", "contradicts", "false", "n/a", "unclear", "Does not support", ""]
SOURCES = ["s1", "s2", "", " s1", "a\nb"]
TYPES = ["dose", "Medication Dose!", "_x", "!!!", ""]

small_ints = st.integers(min_value=-3, max_value=40)


def maybe(draw: st.DrawFn, record: dict[str, Any], key: str, strategy: Any, p: int = 2) -> None:
    """Add ``key`` with probability 1/p (absent otherwise; never a None value)."""
    if draw(st.integers(0, p - 1)) == 0:
        record[key] = draw(strategy)


@st.composite
def typed_rows(draw: st.DrawFn) -> dict[str, list[dict[str, Any]]]:
    # Per-dataset column types: int claim ids, float offsets, nested span columns, citation
    # records inside the claims' list column.
    int_ids = draw(st.integers(0, 4)) == 0
    offsets = st.floats(-2, 30).map(float) if draw(st.integers(0, 6)) == 0 else small_ints
    span_form = draw(st.sampled_from(["none", "none", "struct", "list"]))
    record_citations = draw(st.integers(0, 3)) == 0
    claims = []
    for _ in range(draw(st.integers(0, 4))):
        r: dict[str, Any] = {}
        claim_ids = st.sampled_from([1, 2, 7, -3]) if int_ids else st.sampled_from(IDS)
        maybe(draw, r, "claim_id", claim_ids, 1 if draw(st.integers(0, 9)) else 2)
        maybe(draw, r, "start", offsets)
        maybe(draw, r, "end", offsets)
        if span_form == "struct":
            maybe(draw, r, "span", st.fixed_dictionaries({"begin": small_ints, "stop": small_ints}))
        elif span_form == "list":
            maybe(draw, r, "span", st.lists(small_ints, min_size=1, max_size=3))
        maybe(draw, r, "source_id", st.sampled_from(SOURCES), 3)
        maybe(draw, r, "source_length", small_ints, 3)
        maybe(draw, r, "claim_type", st.sampled_from(TYPES), 4)
        maybe(draw, r, "source_text", st.sampled_from(["abc", "abcdefghij" * 3]), 5)
        if record_citations:
            item = st.fixed_dictionaries(
                {
                    "evidence_id": st.sampled_from([*IDS[:6], "a\tb"]),
                    "start": small_ints,
                    "end": small_ints,
                }
            )
            maybe(draw, r, "citations", st.lists(item, max_size=3))
        else:
            maybe(draw, r, "citations", st.lists(st.sampled_from([*IDS[:6], "a\tb"]), max_size=3))
        claims.append(r)
    evidence = []
    for _ in range(draw(st.integers(0, 4))):
        r = {}
        maybe(draw, r, "evidence_id", st.sampled_from(IDS), 1 if draw(st.integers(0, 9)) else 2)
        maybe(draw, r, "start", small_ints)
        maybe(draw, r, "end", small_ints)
        maybe(draw, r, "source_id", st.sampled_from(SOURCES), 3)
        maybe(draw, r, "source_length", small_ints, 3)
        maybe(draw, r, "claim_id", st.sampled_from(IDS[:6]), 3)
        maybe(draw, r, "label", st.sampled_from(LABELS), 3)
        maybe(draw, r, "supports", st.booleans(), 5)
        evidence.append(r)
    citations = []
    for _ in range(draw(st.integers(0, 4))):
        r = {}
        maybe(
            draw,
            r,
            "claim_id",
            st.sampled_from([*IDS[:6], "a\tb"]),
            1 if draw(st.integers(0, 9)) else 2,
        )
        maybe(
            draw,
            r,
            "evidence_id",
            st.sampled_from([*IDS[:6], "a\tb"]),
            1 if draw(st.integers(0, 9)) else 2,
        )
        maybe(draw, r, "start", small_ints)
        maybe(draw, r, "end", small_ints)
        maybe(draw, r, "source_id", st.sampled_from(SOURCES), 3)
        citations.append(r)
    adjudications = []
    for _ in range(draw(st.integers(0, 4))):
        r = {}
        maybe(draw, r, "claim_id", st.sampled_from(IDS[:6]), 1 if draw(st.integers(0, 9)) else 2)
        maybe(draw, r, "evidence_id", st.sampled_from(IDS[:6]), 1 if draw(st.integers(0, 9)) else 2)
        maybe(draw, r, "label", st.sampled_from(LABELS), 1 if draw(st.integers(0, 5)) else 2)
        maybe(draw, r, "supports", st.booleans(), 4)
        maybe(draw, r, "contradicts", st.booleans(), 5)
        adjudications.append(r)
    return {
        "claims": claims,
        "evidence": evidence,
        "citations": citations,
        "adjudications": adjudications,
    }


def outcome(*args: Any) -> tuple[Any, ...]:
    import citelens

    try:
        report = compute(*args)
    except citelens.CitelensError as exc:
        assert exc.__cause__ is None and exc.__context__ is None
        return ("error", str(exc), exc.category)
    return ("ok", report.to_json(), report.to_markdown())


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_rows())
def test_rows_and_columnar_agree(data: dict[str, list[dict[str, Any]]]) -> None:
    tables = {name: faithful_table(rows) for name, rows in data.items()}
    assume(all(table is not None for table in tables.values()))
    expected = outcome(*data.values())
    assert outcome(*tables.values()) == expected
    assert outcome(*(pl.from_arrow(t) for t in tables.values())) == expected
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, rows in data.items():
            path = pathlib.Path(tmp) / f"{name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            files.append(path)
        assert outcome(*files) == expected


# --- citelens vs openmed on wild inputs ---------------------------------------------------

WILD_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=40),
    st.sampled_from([1.0, 2.5, -0.0]),
    st.sampled_from(IDS + LABELS + SOURCES + TYPES + ["1-4", "entails", "refuted"]),
)
WILD = st.one_of(
    WILD_SCALARS,
    st.lists(WILD_SCALARS, max_size=3),
    st.dictionaries(
        st.sampled_from(["start", "end", "begin", "stop", "evidence_id", "id"]),
        WILD_SCALARS,
        max_size=2,
    ),
)

CLAIM_KEYS = [
    "claim_id", "id", "fact_id", "key", "start", "end", "span", "source_span", "source_start",
    "span_end", "source_id", "document_id", "source_length", "length", "source_text",
    "citations", "citation_ids", "evidence_ids", "evidence", "claim_type", "category", "comment",
]  # fmt: skip
EVIDENCE_KEYS = [
    "evidence_id", "id", "citation_id", "span_id", "start", "end", "span", "evidence_span",
    "source_id", "record_id", "source_length", "document_text", "claim_id", "claim", "label",
    "verdict", "relation", "supports", "contradicts", "supports_claim", "note",
]  # fmt: skip
CITATION_KEYS = [
    "claim_id", "claim", "fact_id", "evidence_id", "evidence", "citation_id", "start", "end",
    "span", "span_source_id", "citation_source_id", "document_id",
]  # fmt: skip
ADJUDICATION_KEYS = [
    "claim_id", "claim", "fact_id", "evidence_id", "evidence", "citation_id", "source_id",
    "label", "judgment", "clinician_label", "verdict", "supports", "supported", "contradicts",
]  # fmt: skip


@st.composite
def wild_record(draw: st.DrawFn, keys: list[str], sane: dict[str, Any]) -> Any:
    if draw(st.integers(0, 14)) == 0:
        return draw(st.one_of(st.none(), st.sampled_from([["c1", "e1"], "c1", 3])))
    record = dict(sane)
    for key in draw(st.lists(st.sampled_from(keys), max_size=3, unique=True)):
        record[key] = draw(WILD)
    return record


KEYS = st.sampled_from(["c1", "c2", "e1", 7, " c1 ", "a\tb", ""])


@st.composite
def wild_collection(draw: st.DrawFn, keys: list[str], sane: Any, compact: bool) -> Any:
    """A list of wild records, or (sometimes) a compact mapping or one single record."""
    shape = draw(st.integers(0, 9))
    if compact and shape == 0:
        return draw(
            st.dictionaries(KEYS, st.one_of(WILD, wild_record(keys, draw(sane))), max_size=3)
        )
    if shape == 1:
        return draw(wild_record(keys, draw(sane)))
    return [draw(wild_record(keys, draw(sane))) for _ in range(draw(st.integers(0, 3)))]


@st.composite
def wild_inputs(draw: st.DrawFn) -> tuple[Any, Any, Any, Any, Any]:
    ids = st.sampled_from(["c1", "c2", "e1", "e2", 7])
    claim_sane = st.fixed_dictionaries({"claim_id": ids, "citations": st.lists(ids, max_size=2)})
    evidence_sane = st.fixed_dictionaries(
        {"evidence_id": ids, "start": st.just(0), "end": small_ints}
    )
    citation_sane = st.fixed_dictionaries({"claim_id": ids, "evidence_id": ids})
    adjudication_sane = st.fixed_dictionaries(
        {"claim_id": ids, "evidence_id": ids, "label": st.just("supports")}
    )
    claims = draw(wild_collection(CLAIM_KEYS, claim_sane, compact=True))
    evidence = draw(wild_collection(EVIDENCE_KEYS, evidence_sane, compact=True))
    citations: Any = None
    if draw(st.booleans()):
        citations = draw(wild_collection(CITATION_KEYS, citation_sane, compact=True))
        if isinstance(citations, list):
            for item in citations:
                # decision b: a citation source_id only beside evidence_id
                if (
                    isinstance(item, dict)
                    and item.get("evidence_id") is not None
                    and draw(st.booleans())
                ):
                    item["source_id"] = draw(st.sampled_from(SOURCES))
    adjudications: Any = None
    if draw(st.booleans()):
        adjudications = draw(wild_collection(ADJUDICATION_KEYS, adjudication_sane, compact=True))
    source_lengths: Any = None
    if draw(st.integers(0, 3)) == 0:
        lengths = st.one_of(small_ints, WILD_SCALARS)
        keys = st.sampled_from(["s1", "s2", " s1", 7])
        source_lengths = draw(st.dictionaries(keys, lengths, max_size=2))
        if draw(st.integers(0, 5)) == 0:
            source_lengths = draw(WILD_SCALARS)
    return claims, evidence, citations, adjudications, source_lengths


SOURCE_KEYS = (
    "source_id", "document_id", "summary_id", "record_id", "span_source_id", "citation_source_id",
    "claim_type", "claim_class", "category", "type",
)  # fmt: skip
CITATION_VALUE_KEYS = ("citations", "citation_ids", "evidence_ids", "evidence", "sources")


def _no_falsy_sources(value: Any) -> bool:
    """No falsy non-empty source id or claim type (``0``, ``False``, ``[]``): the reference reads
    them as absent, the contract's optional-identifier and claim-type rules do not (see
    /work/notes/support-bugs.md, finding 4)."""
    if isinstance(value, dict):
        for key in SOURCE_KEYS:
            source = value.get(key)
            if source is not None and source != "" and not source:
                return False
        return all(_no_falsy_sources(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_falsy_sources(v) for v in value)
    return True


def _citation_item_ok(item: Any) -> bool:
    """Decision b: a citation record with ``source_id`` but no ``evidence_id`` differs."""
    if isinstance(item, dict):
        return not ("source_id" in item and item.get("evidence_id") is None)
    if isinstance(item, list):
        return all(_citation_item_ok(v) for v in item)
    return True


def _outside_decisions(claims: Any, citations: Any) -> bool:
    claim_records = claims.values() if isinstance(claims, dict) else claims
    if isinstance(claims, dict) and any(k in claims for k in CLAIM_KEYS):
        claim_records = [claims]
    for claim in claim_records if isinstance(claim_records, list | type({}.values())) else []:
        if isinstance(claim, dict):
            if not all(_citation_item_ok(claim.get(k)) for k in CITATION_VALUE_KEYS):
                return False
        elif not _citation_item_ok(claim):  # a compact value expanded as a citation value
            return False
    if isinstance(citations, dict):
        return all(_citation_item_ok(v) for v in citations.values()) and _citation_item_ok(
            citations
        )
    return _citation_item_ok(citations)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wild_inputs())
def test_wild_inputs_against_openmed(inputs: tuple[Any, Any, Any, Any, Any]) -> None:
    om = pytest.importorskip("openmed.eval")
    from openmed.eval.citation_support_metrics import CitationSupportError as ReferenceError

    claims, evidence, citations, adjudications, source_lengths = inputs
    assume(_no_falsy_sources(list(inputs)))
    assume(_outside_decisions(claims, citations))
    args = (claims, evidence, citations, adjudications)
    try:
        reference = om.compute_citation_support_metrics(*args, source_lengths=source_lengths)
        expected: tuple[Any, ...] = (
            "ok",
            json.dumps(without_provenance(reference), sort_keys=True),
            reference.to_markdown(),
        )
    except ReferenceError as exc:
        expected = ("error", str(exc))
    except Exception:  # the reference crashed on a foreign exception: nothing to compare
        assume(False)
        raise
    import citelens

    try:
        report = compute(*args, source_lengths=source_lengths)
        got: tuple[Any, ...] = (
            "ok",
            json.dumps(without_provenance(report), sort_keys=True),
            report.to_markdown(),
        )
    except citelens.CitelensError as exc:
        assert exc.__cause__ is None and exc.__context__ is None
        got = ("error", str(exc))
    assert got == expected
