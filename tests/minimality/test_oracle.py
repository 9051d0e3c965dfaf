"""Differential tests: the engine against the sequential oracle (tests/oracle/minimality_rows.py)
on random, defective records — as Python records, as Arrow tables, and as a batch."""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.errors import CitationMinimalityError
from citelens.minimality import check_citation_minimality, check_citation_minimality_batch
from oracle.minimality_rows import oracle_check

from ._helpers import ref

TEXT = "alpha beta, gamma d\u0301elta \u60a3\u8005 3.5mg ok"  # 35 code points
IDS = [ref(f"c{i}") for i in range(4)]


def _offset(rng: random.Random) -> Any:
    return rng.choice([0, 1, 3, 6, 10, 12, 18, 35, 36, -1, 2.0, True, "4", None, 2**64])


def _span(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9)
    if kind <= 3:
        s = rng.randrange(0, 30)
        return [s, s + rng.randrange(1, 8)]
    if kind == 4:
        return [_offset(rng) for _ in range(rng.choice([1, 2, 3]))]
    if kind == 5:
        return {"start": _offset(rng), "end": _offset(rng)}
    if kind == 6 and depth < 3:
        return {"offset": _span(rng, depth + 1)}
    if kind == 7:
        return {"source_start": rng.randrange(0, 10), "source_end": rng.randrange(5, 20),
                "offset": _span(rng, depth + 1) if depth < 3 else [0, 1]}  # fmt: skip
    return rng.choice(["0,5", 5, {"from": 1}])


def _record(rng: random.Random, claims: bool) -> dict[str, Any]:
    record: dict[str, Any] = {}
    if rng.random() < 0.93:
        record["claim_id"] = rng.choice(IDS) if rng.random() < 0.9 else "bad"
    if rng.random() < 0.08:
        record["id"] = rng.choice(IDS)
    aliases = ("required_span", "minimal_span", "source_offset") if claims else (
        "source_span", "citation_offset", "offset")  # fmt: skip
    if rng.random() < 0.7:
        record[rng.choice(aliases)] = _span(rng)
    if rng.random() < 0.35:
        s = rng.randrange(0, 30)
        record["start"] = s
        if rng.random() < 0.9:
            record["end"] = s + rng.randrange(1, 10)
    if rng.random() < 0.1:
        record["start"] = _offset(rng)
    if not claims and rng.random() < 0.5:
        record["citation_id"] = rng.choice([ref("x1"), ref("x2"), "X"])
    if claims and rng.random() < 0.05:
        record["offset"] = _span(rng)
    return record


def _engine(claims: Any, cites: Any) -> Any:
    try:
        report = check_citation_minimality(TEXT, claims, cites)
    except CitationMinimalityError as exc:
        return ("error", (str(exc), exc.category))
    data = report.to_dict()
    del data["disclaimer"]
    return ("ok", data)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9))
def test_records_equal_the_oracle(seed: int) -> None:
    rng = random.Random(seed)
    claims = [_record(rng, True) for _ in range(rng.randrange(0, 5))]
    cites = [_record(rng, False) for _ in range(rng.randrange(0, 6))]
    assert _engine(claims, cites) == oracle_check(TEXT, claims, cites)


def _flat(rng: random.Random, claims: bool, n: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(n):
        s = rng.randrange(-1, 34)
        row: dict[str, Any] = {
            "claim_id": rng.choice(IDS) if rng.random() < 0.95 else "bad",
            "start": s if rng.random() < 0.95 else None,
            "end": (s + rng.randrange(0, 8)) if rng.random() < 0.95 else None,
        }
        if not claims:
            row["citation_id"] = rng.choice([ref("x1"), ref("x2"), None, "X"])
        if rng.random() < 0.3:
            key = "required_span" if claims else "source_span"
            row[key] = rng.choice([[s, s + 4], [0, 1, 2], [s], None])
        rows.append(row)
    return rows


def _schema(claims: bool) -> pa.Schema:
    fields = [("claim_id", pa.string()), ("start", pa.int64()), ("end", pa.int64())]
    fields.append(("required_span" if claims else "source_span", pa.list_(pa.int64())))
    if not claims:
        fields.append(("citation_id", pa.string()))
    return pa.schema(fields)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9))
def test_tables_equal_the_oracle(seed: int) -> None:
    # Tables with defects (nulls, bad ids, list spans of 1 or 3 items, reversed spans): read
    # whole-column, they must give the oracle's outcome for the equivalent records.
    rng = random.Random(seed)
    claims = _flat(rng, True, rng.randrange(0, 6))
    cites = _flat(rng, False, rng.randrange(0, 6))
    claims_t = pa.Table.from_pylist(claims, schema=_schema(True))
    cites_t = pa.Table.from_pylist(cites, schema=_schema(False))

    def records(table: pa.Table) -> list[dict[str, Any]]:
        return [{k: v for k, v in row.items() if v is not None} for row in table.to_pylist()]

    expected = oracle_check(TEXT, records(claims_t), records(cites_t))
    assert _engine(claims_t, cites_t) == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9))
def test_batch_documents_equal_the_oracle(seed: int) -> None:
    rng = random.Random(seed)
    docs = []
    expected: dict[str, Any] = {}
    for d in range(rng.randrange(1, 6)):
        claims = [_record(rng, True) for _ in range(rng.randrange(0, 4))]
        cites = [_record(rng, False) for _ in range(rng.randrange(0, 4))]
        docs.append({"document_ref": ref(f"d{d}"), "source_text": TEXT, "claims": claims,
                     "citations": cites})  # fmt: skip
        expected[ref(f"d{d}")] = oracle_check(TEXT, claims, cites)
    result = check_citation_minimality_batch(docs, errors="collect")
    got: dict[str, Any] = {}
    for key, report in result.reports.items():
        data = report.to_dict()
        del data["disclaimer"]
        got[key] = ("ok", data)
    for row in result.errors.to_pylist():
        got[row["document_ref"]] = ("error", (row["message"], row["category"]))
    assert got == expected
