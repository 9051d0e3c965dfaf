"""``edges.parquet`` of the support corpus mode: per document, exactly the single-document
call's edge table, in (document_ref, claim_id, evidence_id, start, end, source_id) order.

The kernel de-duplicates edges by sorting them in identifier byte order (the provenance digest
order); the export relies on that order for raw identifiers and sorts pseudonyms again. These
corpora mix known and unknown identifiers (``ghost``, ``nobody``), identifiers whose UTF-8 byte
order differs from their code-point order, null offsets and repeated edges.
"""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
import pytest

import citelens
from citelens import corpus

from .test_support_corpus import as_tables

IDS = ["a", "b", "ab", "\u00e9", "\U0001f600", "\uff21", "Z", "0"]


PSEUDONYM_KEY = b"citelens-test-pseudonym-key-0001"  # pseudonyms are keyed (issue 10)


def _corpus(seed: int) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(seed)
    rows: dict[str, list[dict[str, Any]]] = {
        "claims": [],
        "evidence": [],
        "citations": [],
        "adjudications": [],
    }
    for index in range(rng.randint(1, 8)):
        ref = f"sha256:{rng.randrange(16**8):064x}"
        evidence_ids = rng.sample(IDS, rng.randint(0, 4))
        claim_ids = rng.sample(IDS, rng.randint(1, 4))
        for evidence_id in evidence_ids:
            rows["evidence"].append(
                {
                    "document_ref": ref,
                    "evidence_id": evidence_id,
                    "start": 0,
                    "end": 9,
                    "source_id": rng.choice([None, "s\u00e9", "s1"]),
                    "source_length": None,
                }
            )
        for claim_id in claim_ids:
            rows["claims"].append(
                {
                    "document_ref": ref,
                    "claim_id": claim_id,
                    "start": 0,
                    "end": 3,
                    "citations": [
                        rng.choice([*evidence_ids, "ghost"]) for _ in range(rng.randint(0, 3))
                    ],
                }
            )
        for _ in range(rng.randint(0, 6)):
            rows["citations"].append(
                {
                    "document_ref": ref,
                    "claim_id": rng.choice([*claim_ids, "nobody"]),
                    "evidence_id": rng.choice([*evidence_ids, "ghost"]),
                    "start": rng.choice([None, 1, 2]),
                    "end": rng.choice([None, 3, 4]),
                    "source_id": rng.choice([None, "s\u00e9", "s1"]),
                }
            )
        del index
    return rows


def _single_edges(
    rows: dict[str, list[dict[str, Any]]], ref: str, raw: bool
) -> list[dict[str, Any]]:
    def part(role: str) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in r.items() if k != "document_ref" and v is not None}
            for r in rows[role]
            if r["document_ref"] == ref
        ]

    report = citelens.compute_citation_support_metrics(
        part("claims"), part("evidence"), part("citations"), part("adjudications")
    )
    # the same key as the corpus run: the single calls' pseudonyms equal the export's
    tables = report.tables(raw_identifiers=raw, pseudonym_key=PSEUDONYM_KEY)
    assert tables is not None
    return [{"document_ref": ref, **edge} for edge in tables.edges.to_pylist()]


def _order_key(edge: dict[str, Any]) -> tuple[Any, ...]:
    # byte order of identifiers; a null offset sorts first
    def text(value: str) -> bytes:
        return value.encode("utf-8")

    def offset(value: int | None) -> tuple[int, int]:
        return (0, 0) if value is None else (1, value)

    return (
        text(edge["document_ref"]),
        text(edge["claim_id"]),
        text(edge["evidence_id"]),
        offset(edge["start"]),
        offset(edge["end"]),
        text(edge["source_id"]),
    )


@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("batch", [1, 3, 100])
def test_edges_equal_single_calls_in_byte_order(seed: int, raw: bool, batch: int) -> None:
    rows = _corpus(seed)
    tables = as_tables(rows)
    result = corpus.run_support_corpus(
        *tables.values(),
        batch_documents=batch,
        edges=True,
        raw_identifiers=raw,
        pseudonym_key=PSEUDONYM_KEY,
    )
    assert result.edges is not None
    got = result.edges.to_pylist()
    refs = sorted({r["document_ref"] for r in rows["claims"]})
    expected = [edge for ref in refs for edge in _single_edges(rows, ref, raw)]
    # the same rows (the single call's table has its own documented order) ...
    assert sorted(got, key=_order_key) == sorted(expected, key=_order_key)
    # ... and the export is in byte order, nulls first
    assert got == sorted(got, key=_order_key)
    assert result.edges.schema.field("claim_id").type == pa.large_string()
