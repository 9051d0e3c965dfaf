"""Provenance digests assembled from gathered identifiers (issue 9 performance pass).

Edge and adjudication identifiers are encoded from the claims'/evidence's own values by code;
unknown identifiers (null code) bring their own strings, patched into fixed-width rows when
their length equals the known identifiers' and encoded from the column otherwise; columns whose
values all share one length are packed into NumPy records, the others joined by Arrow. Every
path is checked against the Appendix A recipe (tests/support/_digest_reference.py), for one
document (streamed in chunks of 1, 2, 3 rows and the default) and for many documents at once.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import pyarrow as pa
import pytest

import citelens
from citelens import corpus
from citelens.support import _digest

from ._digest_reference import citelens_digests

Edge = tuple[str, str, int | None, int | None, str]


def _s(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack("<I", len(data)) + data


def _i(value: int | None) -> bytes:
    return b"\x00" + bytes(8) if value is None else b"\x01" + struct.pack("<q", value)


def _n(count: int) -> bytes:
    return struct.pack("<Q", count)


def test_hand_checked_bytes_with_unknown_identifiers() -> None:
    # Claims c1 (0..3) and c2 (0..3); evidence e1 (1..4); claim ids are 2 bytes wide, so
    # the claims' ids are fixed-width items. Edges: c1->e1, c9->e1 (unknown claim, also 2
    # bytes: patched into the fixed-width rows), c2->e77 (unknown evidence, 3 bytes where
    # the known evidence ids have 2: encoded from the edge's own column).
    report = citelens.compute_citation_support_metrics(
        [{"claim_id": c, "start": 0, "end": 3} for c in ("c2", "c1")],
        [{"evidence_id": "e1", "start": 1, "end": 4}],
        [
            {"claim_id": "c9", "evidence_id": "e1"},
            {"claim_id": "c2", "evidence_id": "e77"},
            {"claim_id": "c1", "evidence_id": "e1"},
        ],
        [
            {"claim_id": "c9", "evidence_id": "e1", "label": "unclear"},
            {"claim_id": "c1", "evidence_id": "e1", "label": "supports"},
        ],
    )
    claim_row = {c: _s(c) + _i(0) + _i(3) + _s("") + _i(None) + _s("") for c in ("c1", "c2")}
    edge = {
        ("c1", "e1"): _s("c1") + _s("e1") + _i(None) + _i(None) + _s(""),
        ("c2", "e77"): _s("c2") + _s("e77") + _i(None) + _i(None) + _s(""),
        ("c9", "e1"): _s("c9") + _s("e1") + _i(None) + _i(None) + _s(""),
    }
    # Byte order: c1 < c2 < c9; the edges of known claims (c1, c2) are attached.
    claim_message = (
        _s("citelens.support.claim_digest.v1")
        + _n(2)
        + claim_row["c1"]
        + claim_row["c2"]
        + _n(2)
        + edge[("c1", "e1")]
        + edge[("c2", "e77")]
    )
    evidence_message = (
        _s("citelens.support.evidence_digest.v1")
        + _n(1)
        + (_s("e1") + _i(1) + _i(4) + _s("") + _i(None))
    )
    # Adjudications by (claim, evidence, label code): c1/e1 supports (0), c9/e1 unclear (3).
    adjudication_message = (
        _s("citelens.support.adjudication_digest.v1")
        + _n(2)
        + (_s("c1") + _s("e1") + b"\x00")
        + (_s("c9") + _s("e1") + b"\x03")
    )
    raw = [hashlib.sha256(m).digest() for m in (claim_message, evidence_message)]
    raw.append(hashlib.sha256(adjudication_message).digest())
    input_message = (
        _s("citelens.support.input_digest.v1")
        + b"".join(raw)
        + _n(3)
        + edge[("c1", "e1")]
        + edge[("c2", "e77")]
        + edge[("c9", "e1")]
    )
    expected = [*raw, hashlib.sha256(input_message).digest()]
    provenance = report.to_dict()["provenance"]
    names = ("claim_digest", "evidence_digest", "adjudication_digest", "input_digest")
    assert [provenance[name] for name in names] == ["sha256:" + d.hex() for d in expected]


# Identifier sets exercising each encoding path (known claim ids, known evidence ids, the
# unknown ids the edges and adjudications name, the edges' source ids).
CASES: dict[str, dict[str, Any]] = {
    "fixed, unknown of equal width": {
        "claims": ["c1", "c2", "c3"],
        "evidence": ["e1", "e2"],
        "unknown_claims": ["c0", "c9"],
        "unknown_evidence": ["e0", "e5"],
        "sources": ["s1", "s2"],
    },
    "fixed, unknown of other width": {
        "claims": ["c1", "c2", "c3"],
        "evidence": ["e1", "e2"],
        "unknown_claims": ["c10"],
        "unknown_evidence": ["e"],
        "sources": ["", "s1"],
    },
    "variable known, no unknown": {
        "claims": ["a", "bb", "\u00e9"],
        "evidence": ["x", "yyy"],
        "unknown_claims": [],
        "unknown_evidence": [],
        "sources": ["", "s\u00e9", "long-source"],
    },
    "variable known and unknown": {
        "claims": ["a", "bb", "ccc"],
        "evidence": ["x", "yyy"],
        "unknown_claims": ["zz"],
        "unknown_evidence": ["w"],
        "sources": [""],
    },
    "no known claims": {
        "claims": [],
        "evidence": ["e", "f"],
        "unknown_claims": ["q", "r"],
        "unknown_evidence": ["gg"],
        "sources": ["\U0001f600"],
    },
}


def _rows(case: dict[str, Any]) -> tuple[list[Any], list[Any], list[Edge], list[Any]]:
    """Deterministic rows: claims with spans, evidence, edges from every claim (known and
    unknown) to every evidence id (known and unknown) with varying spans and sources, and
    adjudications of a subset of those pairs (duplicates kept)."""
    claim_ids = case["claims"] + case["unknown_claims"]
    evidence_ids = case["evidence"] + case["unknown_evidence"]
    claims = [
        (c, k % 3, k % 3 + 2, "", None if k % 2 else 9, "") for k, c in enumerate(case["claims"])
    ]
    evidence = [
        (e, None if k == 1 else 0, None if k == 1 else 5, "", None)
        for k, e in enumerate(case["evidence"])
    ]
    edges: list[Edge] = []
    adjudications: list[tuple[str, str, str]] = []
    labels = ["supports", "contradicts", "irrelevant", "unclear"]
    for k, c in enumerate(claim_ids):
        for m, e in enumerate(evidence_ids):
            source = case["sources"][(k + m) % len(case["sources"])]
            span = (None, None) if (k + m) % 2 else (m, m + 1 + k)
            edges.append((c, e, *span, source))
            if (k * 3 + m) % 2 == 0:
                adjudications.append((c, e, labels[(k + m) % 4]))
                adjudications.append((c, e, labels[k % 4]))
    return claims, evidence, edges, adjudications


def _expected(case: dict[str, Any]) -> dict[str, str]:
    claims, evidence, edges, adjudications = _rows(case)
    return citelens_digests(claims, evidence, list(set(edges)), adjudications)


def _records(case: dict[str, Any], ref: str | None = None) -> dict[str, list[dict[str, Any]]]:
    claims, evidence, edges, adjudications = _rows(case)
    doc = {} if ref is None else {"document_ref": ref}
    return {
        "claims": [
            {"claim_id": c, "start": s, "end": t, "source_length": n} | doc
            for c, s, t, _, n, _ in claims
        ],
        "evidence": [{"evidence_id": e, "start": s, "end": t} | doc for e, s, t, _, _ in evidence],
        "citations": [
            {"claim_id": c, "evidence_id": e, "start": s, "end": t, "source_id": src} | doc
            for c, e, s, t, src in edges
        ],
        "adjudications": [
            {"claim_id": c, "evidence_id": e, "label": lab} | doc for c, e, lab in adjudications
        ],
    }


@pytest.mark.parametrize("chunk", [1, 2, 3, _digest._CHUNK])
@pytest.mark.parametrize("name", list(CASES))
def test_one_document_equals_the_recipe(
    name: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Chunks of 1-3 rows put unknown identifiers at, before and after chunk boundaries.
    monkeypatch.setattr(_digest, "_CHUNK", chunk)
    records = _records(CASES[name])
    report = citelens.compute_citation_support_metrics(
        [{k: v for k, v in r.items() if v is not None} for r in records["claims"]],
        [{k: v for k, v in r.items() if v is not None} for r in records["evidence"]],
        [{k: v for k, v in r.items() if v is not None} for r in records["citations"]],
        records["adjudications"],
    )
    assert report.to_dict()["provenance"] == _expected(CASES[name])


def _table(rows: list[dict[str, Any]], columns: dict[str, pa.DataType]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=pa.schema(columns))


def test_many_documents_equal_the_recipe() -> None:
    # Every case is one document of one corpus batch (the many-document path), plus an
    # empty-named document with no rows but a claim, so some sections are empty.
    text, number = pa.string(), pa.int64()
    rows: dict[str, list[dict[str, Any]]] = {
        role: [] for role in _records(CASES[next(iter(CASES))])
    }
    for k, case in enumerate(CASES.values()):
        for role, part in _records(case, f"doc{k}").items():
            rows[role] += part
    rows["claims"].append({"document_ref": "lonely", "claim_id": "z", "start": 0, "end": 1})
    result = corpus.run_support_corpus(
        _table(
            rows["claims"],
            {"document_ref": text, "claim_id": text, "start": number, "end": number}
            | {"source_length": number},
        ),
        _table(
            rows["evidence"],
            {"document_ref": text, "evidence_id": text, "start": number, "end": number},
        ),
        _table(
            rows["citations"],
            {"document_ref": text, "claim_id": text, "evidence_id": text}
            | {"start": number, "end": number, "source_id": text},
        ),
        _table(
            rows["adjudications"],
            {"document_ref": text, "claim_id": text, "evidence_id": text, "label": text},
        ),
        batch_documents=1000,
    )
    got = {row["document_ref"]: row for row in result.documents.to_pylist()}
    for k, case in enumerate(CASES.values()):
        expected = _expected(case)
        row = got[f"doc{k}"]
        assert row["status"] == "ok", row
        assert {name: row[f"provenance.{name}"] for name in expected} == expected, k
    lonely = citelens_digests([("z", 0, 1, "", None, "")], [], [], [])
    assert {name: got["lonely"][f"provenance.{name}"] for name in lonely} == lonely
