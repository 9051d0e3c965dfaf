"""Generate the synthetic sample corpus of ``data-samples/corpus/`` (deterministic, seeded).

Run from the repository root::

    .venv/bin/python data-samples/corpus/generate.py            # rewrite the four files
    .venv/bin/python data-samples/corpus/generate.py --check    # exit 1 if they would change

The corpus imitates three batches of generated summaries (two release candidates and a RAG
regression set): every document has atomic claims with offsets into its summary, evidence spans
drawn from a shared pool of source documents, claim → evidence citations and reviewer
adjudications. Every identifier is an opaque ``sha256:`` pseudonym; nothing here is real text.
The document reference is ``<batch>/sha256:<hex>`` so that SQL can group documents by batch.

Planted defects, so that every reason code and every corner of the report shows up:
missing evidence, unknown claims, invalid evidence spans, source mismatches, invalid and
out-of-evidence sub-spans, duplicate citations, orphan claims, claims without offsets,
conflicting and unmatched adjudications, a few documents whose edges are all invalid, two
documents without any citation edge (one with claims only, one with evidence only) and two
documents that a single-document call rejects (a duplicate claim identifier, an unsupported
adjudication label), which corpus mode reports as ``status = 'error'`` rows.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import random
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

SEED = 20261130
HERE = Path(__file__).resolve().parent
BATCHES = (
    # batch name, number of documents, probability that a reviewer label is "supports"
    ("release-2026-10", 120, 0.86),
    ("release-2026-11", 120, 0.74),
    ("rag-regression", 60, 0.62),
)
SOURCE_COUNT = 40
# A handful of sources that reviewers find unhelpful more often (shows in worst-source queries).
WEAK_SOURCES = frozenset({3, 11, 27})
LABELS_OTHER = ("contradicts", "irrelevant", "unclear")

_S = pa.large_string()
_I = pa.int64()
SCHEMAS: dict[str, pa.Schema] = {
    "claims": pa.schema(
        [
            ("document_ref", _S),
            ("claim_id", _S),
            ("start", _I),
            ("end", _I),
            ("source_id", _S),
            ("source_length", _I),
            ("claim_type", _S),
        ]
    ),
    "evidence": pa.schema(
        [
            ("document_ref", _S),
            ("evidence_id", _S),
            ("start", _I),
            ("end", _I),
            ("source_id", _S),
            ("source_length", _I),
        ]
    ),
    "citations": pa.schema(
        [
            ("document_ref", _S),
            ("claim_id", _S),
            ("evidence_id", _S),
            ("start", _I),
            ("end", _I),
            ("source_id", _S),
        ]
    ),
    "adjudications": pa.schema(
        [
            ("document_ref", _S),
            ("claim_id", _S),
            ("evidence_id", _S),
            ("label", _S),
        ]
    ),
}
CLAIM_TYPES = ("finding", "medication", "dosage", "diagnosis", "procedure", "follow-up")


def pseudonym(*parts: object) -> str:
    """A stable opaque identifier: ``sha256:`` + hex digest of the joined parts."""
    raw = "/".join(str(p) for p in parts)
    return "sha256:" + hashlib.sha256(raw.encode("utf-8")).hexdigest()


SOURCES = [pseudonym("source", n) for n in range(SOURCE_COUNT)]
SOURCE_LENGTHS = [4_000 + 997 * n % 9_000 for n in range(SOURCE_COUNT)]


class Corpus:
    """Row buffers of the four tables."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in SCHEMAS}

    def add(self, table: str, **row: Any) -> None:
        self.rows[table].append(row)

    def tables(self) -> dict[str, pa.Table]:
        return {
            name: pa.Table.from_pylist(rows, schema=SCHEMAS[name])
            for name, rows in self.rows.items()
        }


def _document(corpus: Corpus, rng: random.Random, batch: str, index: int, p_support: float) -> None:
    ref = f"{batch}/{pseudonym('document', batch, index)}"
    summary = pseudonym("summary", batch, index)
    summary_length = rng.randint(600, 2_400)
    kind = "normal"
    if index == 7 and batch == "release-2026-10":
        kind = "claims_only"
    elif index == 19 and batch == "release-2026-11":
        kind = "evidence_only"
    elif index % 37 == 11:
        kind = "all_invalid"

    # Evidence spans from the shared source pool.
    evidence: list[tuple[str, int, int, int]] = []  # (id, start, end, source index)
    for e in range(rng.randint(2, 8) if kind != "claims_only" else 0):
        source = rng.randrange(SOURCE_COUNT)
        length = SOURCE_LENGTHS[source]
        start = rng.randrange(0, length - 400)
        end = start + rng.randint(40, 380)
        evidence_id = pseudonym("evidence", ref, e)
        span_start: int | None = start
        span_end: int | None = end
        if rng.random() < 0.03:  # reversed span
            span_start, span_end = end, start
        elif rng.random() < 0.03:  # beyond the source text
            span_end = length + rng.randint(1, 50)
        corpus.add(
            "evidence",
            document_ref=ref,
            evidence_id=evidence_id,
            start=span_start,
            end=span_end,
            source_id=SOURCES[source],
            source_length=length,
        )
        evidence.append((evidence_id, start, end, source))

    if kind == "evidence_only":
        return

    # Atomic claims laid out along the summary.
    claim_total = rng.randint(2, 7)
    cursor = 0
    claims: list[str] = []
    for c in range(claim_total):
        claim_id = pseudonym("claim", ref, c)
        width = rng.randint(30, 160)
        start, end = cursor, min(cursor + width, summary_length)
        cursor = end + rng.randint(1, 40)
        has_span = rng.random() > 0.04 and end > start
        corpus.add(
            "claims",
            document_ref=ref,
            claim_id=claim_id,
            start=start if has_span else None,
            end=end if has_span else None,
            source_id=summary,
            source_length=summary_length,
            claim_type=rng.choice(CLAIM_TYPES),
        )
        claims.append(claim_id)
    if batch == "release-2026-11" and index == 23:
        # A duplicate claim identifier: the single-document call rejects this document.
        corpus.add(
            "claims",
            document_ref=ref,
            claim_id=claims[0],
            start=0,
            end=10,
            source_id=summary,
            source_length=summary_length,
            claim_type="finding",
        )

    if kind == "claims_only" or not evidence:
        return

    # Citations: one or two per claim, some orphans, planted defects.
    for c, claim_id in enumerate(claims):
        if kind == "normal" and rng.random() < 0.10:
            continue  # orphan claim
        for _ in range(1 if rng.random() < 0.7 else 2):
            evidence_id, e_start, e_end, source = rng.choice(evidence)
            row: dict[str, Any] = {
                "document_ref": ref,
                "claim_id": claim_id,
                "evidence_id": evidence_id,
                "start": None,
                "end": None,
                "source_id": SOURCES[source] if rng.random() < 0.8 else None,
            }
            defect = rng.random()
            if kind == "all_invalid":
                defect = rng.choice((0.005, 0.015, 0.025, 0.035, 0.045))
            if defect < 0.01:
                row["evidence_id"] = pseudonym("evidence", ref, "missing", c)
            elif defect < 0.02:
                row["claim_id"] = pseudonym("claim", ref, "unknown", c)
            elif defect < 0.03:
                row["source_id"] = SOURCES[(source + 1) % SOURCE_COUNT]
            elif defect < 0.04:
                row["start"], row["end"] = e_start + 5, e_start + 5  # zero-length sub-span
            elif defect < 0.05:
                row["start"], row["end"] = max(0, e_start - 30), e_end  # outside the evidence
            elif defect < 0.25:
                row["start"] = e_start + rng.randint(0, (e_end - e_start) // 2)
                row["end"] = row["start"] + rng.randint(1, e_end - row["start"])
            corpus.add("citations", **row)
            if rng.random() < 0.03:
                corpus.add("citations", **row)  # an exact duplicate edge
            if row["claim_id"] != claim_id or row["evidence_id"] != evidence_id:
                continue
            # Reviewer adjudication of the pair (most pairs are reviewed).
            if rng.random() < 0.8:
                p = p_support * (0.45 if source in WEAK_SOURCES else 1.0)
                label = "supports" if rng.random() < p else rng.choice(LABELS_OTHER)
                corpus.add(
                    "adjudications",
                    document_ref=ref,
                    claim_id=claim_id,
                    evidence_id=evidence_id,
                    label=label,
                )
                if rng.random() < 0.02:  # a second reviewer disagrees: a conflict
                    corpus.add(
                        "adjudications",
                        document_ref=ref,
                        claim_id=claim_id,
                        evidence_id=evidence_id,
                        label="contradicts" if label == "supports" else "supports",
                    )
    if rng.random() < 0.05:  # a label for a pair that was never cited: unmatched
        corpus.add(
            "adjudications",
            document_ref=ref,
            claim_id=claims[-1],
            evidence_id=pseudonym("evidence", ref, "uncited"),
            label="irrelevant",
        )
    if batch == "rag-regression" and index == 41:
        # An unsupported label: the single-document call rejects this document.
        corpus.add(
            "adjudications",
            document_ref=ref,
            claim_id=claims[0],
            evidence_id=evidence[0][0],
            label="n/a",
        )


def build() -> dict[str, pa.Table]:
    """The four tables of the sample corpus."""
    rng = random.Random(SEED)
    corpus = Corpus()
    for batch, count, p_support in BATCHES:
        for index in range(count):
            _document(corpus, rng, batch, index, p_support)
    return corpus.tables()


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=9)
    return sink.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file would change")
    parser.add_argument("--out", type=Path, default=HERE, help="output directory")
    args = parser.parse_args(argv)
    changed = []
    for name, table in build().items():
        data = _parquet(table)
        path = args.out / f"{name}.parquet"
        if path.exists() and path.read_bytes() == data:
            continue
        changed.append(name)
        if not args.check:
            args.out.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if args.check and changed:
        sys.stderr.write(f"out of date: {', '.join(changed)}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
