"""Generate the minimality sample corpus (deterministic): 60 short synthetic notes.

Each document has a source text, 2-4 claims with a required span (a sentence fragment) and
1-3 citations per claim: some exact, some with extra words (excess context), some missing part
of the required span. Identifiers are ``sha256:`` references of synthetic labels. Run from the
project root: ``python data-samples/corpus_minimality/generate.py``.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
SENTENCES = [
    "Metformin 500 mg was started twice daily.",
    "Creatinine rose from 1.1 to 1.6 mg/dL.",
    "The patient denied chest pain at rest.",
    "Blood pressure was 142/88 mmHg on arrival.",
    "Follow-up imaging showed no new lesions.",
    "Warfarin was held because the INR was 4.2.",
    "Hemoglobin A1c improved to 7.1 percent.",
    "Physical therapy was recommended for six weeks.",
]


def ref(label: str) -> str:
    return "sha256:" + hashlib.sha256(label.encode("utf-8")).hexdigest()


def main() -> None:
    rng = random.Random(20261130)
    documents, claims, citations = [], [], []
    for number in range(60):
        chosen = rng.sample(SENTENCES, 4)
        text = " ".join(chosen)
        document = ref(f"note-{number}")
        documents.append({"document_ref": document, "source_text": text})
        offset = 0
        for index, sentence in enumerate(chosen[: rng.randint(2, 4)]):
            start = text.index(sentence, offset)
            offset = start + len(sentence)
            words = sentence.split(" ")
            required = (start + len(words[0]) + 1, start + len(sentence) - 1)
            claim = ref(f"note-{number}-claim-{index}")
            claims.append(
                {"document_ref": document, "claim_id": claim, "required_span": list(required)}
            )
            for cite in range(rng.randint(1, 3)):
                kind = rng.choice(["exact", "exact", "wide", "short"])
                if kind == "exact":
                    span = list(required)
                elif kind == "wide":
                    span = [start, min(len(text), start + len(sentence) + 12)]
                else:
                    span = [required[0], required[0] + 5]
                citations.append(
                    {
                        "document_ref": document,
                        "claim_id": claim,
                        "citation_id": ref(f"note-{number}-claim-{index}-cite-{cite}"),
                        "source_span": span,
                    }
                )
    for name, rows in (("documents", documents), ("claims", claims), ("citations", citations)):
        pq.write_table(pa.Table.from_pylist(rows), HERE / f"{name}.parquet", compression="zstd")


if __name__ == "__main__":
    main()
