"""A random small support corpus (Arrow tables keyed by ``document_ref``) for the Spark tests."""

from __future__ import annotations

import random

import pyarrow as pa

LABELS = ("supports", "contradicts", "irrelevant", "unclear")


def random_corpus(seed: int, documents: int = 40) -> dict[str, pa.Table]:
    """Claims, evidence, citations and adjudications for ``documents`` random documents.

    Besides ordinary documents it always holds: documents with no claims (only evidence, only
    adjudications), a document whose edges are all invalid, and documents that fail with a
    per-document error (duplicate claim ids; an unsupported label; two defects, so that the
    first defective row in input order decides the message).
    """
    rng = random.Random(seed)
    claims: list[dict[str, object]] = []
    evidence: list[dict[str, object]] = []
    citations: list[dict[str, object]] = []
    adjudications: list[dict[str, object]] = []
    for d in range(documents):
        ref = f"doc-{seed}-{d:04d}"
        length = rng.randint(50, 400)
        n_claims = rng.randint(0, 6)
        n_evidence = rng.randint(0, 6)
        for c in range(n_claims):
            start = rng.randint(-2, length)
            claims.append(
                {
                    "document_ref": ref,
                    "claim_id": f"c{c}",
                    "start": start if rng.random() > 0.1 else None,
                    "end": start + rng.randint(-1, 40) if rng.random() > 0.1 else None,
                    "source_length": length,
                    "citations": [f"e{rng.randint(0, 7)}" for _ in range(rng.randint(0, 2))],
                }
            )
        for e in range(n_evidence):
            start = rng.randint(0, length)
            evidence.append(
                {
                    "document_ref": ref,
                    "evidence_id": f"e{e}",
                    "start": start,
                    "end": start + rng.randint(-1, 60),
                    "source_id": rng.choice(["s1", "s2", None]),
                    "source_length": length,
                }
            )
        for _ in range(rng.randint(0, 8)):
            start = rng.randint(0, length)
            citations.append(
                {
                    "document_ref": ref,
                    "claim_id": f"c{rng.randint(0, 7)}",
                    "evidence_id": f"e{rng.randint(0, 7)}",
                    "start": start if rng.random() > 0.5 else None,
                    "end": start + rng.randint(0, 30) if rng.random() > 0.5 else None,
                    "source_id": rng.choice(["s1", "s2", None, None]),
                }
            )
        for _ in range(rng.randint(0, 4)):
            adjudications.append(
                {
                    "document_ref": ref,
                    "claim_id": f"c{rng.randint(0, 6)}",
                    "evidence_id": f"e{rng.randint(0, 6)}",
                    "label": rng.choice(LABELS),
                }
            )
    # Documents without claims.
    evidence.append(
        {"document_ref": f"empty-{seed}-evidence", "evidence_id": "e0", "start": 0, "end": 5}
    )
    adjudications.append(
        {
            "document_ref": f"empty-{seed}-adjudication",
            "claim_id": "c0",
            "evidence_id": "e0",
            "label": "supports",
        }
    )
    # Only invalid edges: unknown claim, unknown evidence, reversed sub-span, outside evidence.
    ref = f"invalid-{seed}"
    claims.append(
        {"document_ref": ref, "claim_id": "c0", "start": 0, "end": 10, "source_length": 100}
    )
    evidence.append(
        {"document_ref": ref, "evidence_id": "e0", "start": 20, "end": 30, "source_length": 100}
    )
    citations.extend(
        [
            {"document_ref": ref, "claim_id": "zz", "evidence_id": "e0"},
            {"document_ref": ref, "claim_id": "c0", "evidence_id": "zz"},
            {"document_ref": ref, "claim_id": "c0", "evidence_id": "e0", "start": 25, "end": 22},
            {"document_ref": ref, "claim_id": "c0", "evidence_id": "e0", "start": 10, "end": 40},
        ]
    )
    # Per-document errors.
    ref = f"error-{seed}-duplicate"
    claims.extend(
        [{"document_ref": ref, "claim_id": "c0"}, {"document_ref": ref, "claim_id": "c0"}]
    )
    ref = f"error-{seed}-label"
    claims.append({"document_ref": ref, "claim_id": "c0"})
    adjudications.append(
        {"document_ref": ref, "claim_id": "c0", "evidence_id": "e0", "label": "n/a"}
    )
    ref = f"error-{seed}-first"
    claims.extend(
        [
            {"document_ref": ref, "claim_id": "c0", "start": 1},
            {"document_ref": ref, "claim_id": " "},
            {"document_ref": ref, "start": 3, "end": 1},
        ]
    )
    rng.shuffle(claims)
    rng.shuffle(evidence)
    rng.shuffle(citations)
    rng.shuffle(adjudications)
    schemas = {
        "claims": pa.schema(
            [
                ("document_ref", pa.string()),
                ("claim_id", pa.string()),
                ("start", pa.int64()),
                ("end", pa.int64()),
                ("source_length", pa.int64()),
                ("citations", pa.list_(pa.string())),
            ]
        ),
        "evidence": pa.schema(
            [
                ("document_ref", pa.string()),
                ("evidence_id", pa.string()),
                ("start", pa.int64()),
                ("end", pa.int64()),
                ("source_id", pa.string()),
                ("source_length", pa.int64()),
            ]
        ),
        "citations": pa.schema(
            [
                ("document_ref", pa.string()),
                ("claim_id", pa.string()),
                ("evidence_id", pa.string()),
                ("start", pa.int64()),
                ("end", pa.int64()),
                ("source_id", pa.string()),
            ]
        ),
        "adjudications": pa.schema(
            [
                ("document_ref", pa.string()),
                ("claim_id", pa.string()),
                ("evidence_id", pa.string()),
                ("label", pa.string()),
            ]
        ),
    }
    rows = {
        "claims": claims,
        "evidence": evidence,
        "citations": citations,
        "adjudications": adjudications,
    }
    return {role: pa.Table.from_pylist(rows[role], schema=schemas[role]) for role in schemas}
