"""Generate the summary-citations sample corpus (deterministic): 100 synthetic summaries.

Each document is one generated discharge summary: its evidence table lists the source facts
(an opaque ``id`` plus the ``start``/``end`` offsets of the fact in the synthetic note) and its
claims table lists the summary's claims, each citing evidence ids (``citations``) or one span
directly (``evidence_id`` + ``start``/``end``). Most documents pass; the others carry the
usual defects: a claim without a citation, a citation of an unknown record, a citation whose
span matches no record, the same record cited twice, a duplicate evidence record, a summary
with no evidence at all, and one long summary (15 claims) that exceeds ``--max-claims 12`` in
the demo. Document references are ``sha256:`` digests of synthetic labels. Run from the
project root: ``python data-samples/corpus_summary/generate.py``.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
FACTS = [
    "Metformin 500 mg was started twice daily.",
    "Creatinine rose from 1.1 to 1.6 mg/dL.",
    "The patient denied chest pain at rest.",
    "Blood pressure was 142/88 mmHg on arrival.",
    "Follow-up imaging showed no new lesions.",
    "Warfarin was held because the INR was 4.2.",
    "Hemoglobin A1c improved to 7.1 percent.",
    "Physical therapy was recommended for six weeks.",
    "Discharged home in stable condition.",
    "Potassium was repleted to 4.0 mmol/L.",
]
CLAIMS_SCHEMA = pa.schema(
    [
        ("document_ref", pa.string()),
        ("claim", pa.string()),
        ("citations", pa.list_(pa.string())),
        ("evidence_id", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
    ]
)
EVIDENCE_SCHEMA = pa.schema(
    [
        ("document_ref", pa.string()),
        ("id", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("value", pa.string()),
    ]
)
DEFECTS = [
    "missing_citation",
    "unknown_record",
    "unavailable_span",
    "duplicate_citation",
    "duplicate_evidence",
    "no_evidence",
]


def ref(label: str) -> str:
    return "sha256:" + hashlib.sha256(label.encode("utf-8")).hexdigest()


def document(number: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    doc = ref(f"summary-{number}")
    facts = rng.sample(FACTS, rng.randint(3, 6))
    evidence: list[dict[str, Any]] = []
    offset = 0
    for k, fact in enumerate(facts):
        evidence.append(
            {
                "document_ref": doc,
                "id": f"fact-{number}-{k}",
                "start": offset,
                "end": offset + len(fact),
                "value": fact,
            }
        )
        offset += len(fact) + 1
    count = 15 if number == 42 else rng.randint(1, len(facts))
    claims: list[dict[str, Any]] = []
    for c in range(count):
        record = evidence[c % len(evidence)]
        row: dict[str, Any] = {"document_ref": doc, "claim": f"Summary sentence {c}."}
        if rng.random() < 0.3:  # a direct span citation
            row.update(evidence_id=record["id"], start=record["start"], end=record["end"])
        else:
            row["citations"] = [record["id"]]
        claims.append(row)
    defect = DEFECTS[(number // 4) % len(DEFECTS)] if number % 4 == 3 else None
    if defect == "missing_citation":
        claims.append({"document_ref": doc, "claim": "An uncited sentence."})
    elif defect == "unknown_record":
        claims.append({"document_ref": doc, "claim": "A claim.", "citations": ["fact-unknown"]})
    elif defect == "unavailable_span":
        claims.append({"document_ref": doc, "claim": "A claim.", "start": 1, "end": 3})
    elif defect == "duplicate_citation":
        first = evidence[0]["id"]
        claims.append({"document_ref": doc, "claim": "A claim.", "citations": [first, first]})
    elif defect == "duplicate_evidence":
        evidence.append(dict(evidence[0]))
    elif defect == "no_evidence":
        evidence = []
    return claims, evidence


def main() -> None:
    rng = random.Random(20261130)
    claims: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    for number in range(100):
        c, e = document(number, rng)
        claims += c
        evidence += e
    pq.write_table(pa.Table.from_pylist(claims, schema=CLAIMS_SCHEMA), HERE / "claims.parquet")
    pq.write_table(
        pa.Table.from_pylist(evidence, schema=EVIDENCE_SCHEMA), HERE / "evidence.parquet"
    )


if __name__ == "__main__":
    main()
