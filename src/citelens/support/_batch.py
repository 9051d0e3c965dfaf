"""Many documents in one pass: per-document errors from the rule engine, then one kernel.

Every table carries the document code ``_d``; rows of one document keep their input order.
Each stage of §5 is evaluated for all documents at once: the row problems of the rule engine,
the per-document bounds, duplicate identifiers and the combined bounds. A document's error is
its first failing stage (and, within the stage, its first failing row), which is exactly the
error a single call on that document alone raises. All other documents go through one kernel
pass and one report derivation, so the cost does not depend on how many documents are
defective.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import polars as pl

from citelens.limits import Limits
from citelens.support._cells import constant
from citelens.support._derive import derive_report_rows
from citelens.support._digest import support_digests
from citelens.support._fields import PROBLEMS
from citelens.support._kernel import DOC, run_kernel
from citelens.support._normalize import (
    adjudication_stage,
    citation_stage,
    claim_stage,
    evidence_stage,
)

__all__ = ["DEFAULT_BOUNDS", "BatchResult", "Bounds", "evaluate_batch"]

_ERRORS: Final = {DOC: pl.UInt32, "error_category": pl.String, "error_message": pl.String}
_EDGE: Final = ("claim_id", "evidence_id", "start", "end", "source_id")
_CLAIM: Final = ("claim_id", "start", "end", "source_id", "source_length", "claim_type")
_EVIDENCE: Final = ("evidence_id", "start", "end", "source_id", "source_length")
_ADJUDICATION: Final = ("claim_id", "evidence_id", "label", "origin")


@dataclass(frozen=True)
class Bounds:
    """The per-document bounds of §10 resolved from a :class:`~citelens.Limits`."""

    claims: int
    evidence: int
    citations: int
    adjudications: int

    @classmethod
    def of(cls, limits: Limits) -> Bounds:
        """Each field of ``limits``, or the support default."""
        return cls(
            limits.resolve("claims", DEFAULT_BOUNDS.claims),
            limits.resolve("evidence", DEFAULT_BOUNDS.evidence),
            limits.resolve("citations", DEFAULT_BOUNDS.citations),
            limits.resolve("adjudications", DEFAULT_BOUNDS.adjudications),
        )


DEFAULT_BOUNDS: Final = Bounds(100_000, 200_000, 500_000, 500_000)


@dataclass(frozen=True)
class BatchResult:
    """Report rows of the evaluated documents, error rows of the others, and the kernel's
    edges (when asked)."""

    rows: pl.DataFrame
    errors: pl.DataFrame
    edges: pl.DataFrame | None


def _row_errors(doc: pl.Series, problem: pl.Series, stage: int) -> pl.DataFrame:
    """One error row per defective input row: document, stage, row position, message."""
    messages = pl.Series([m for m, _ in PROBLEMS], dtype=pl.String)
    categories = pl.Series([c for _, c in PROBLEMS], dtype=pl.String)
    frame = pl.DataFrame({DOC: doc, "_code": problem}).with_row_index("_row")
    frame = frame.filter(pl.col("_code").is_not_null())
    code = frame["_code"].cast(pl.UInt32)
    return pl.DataFrame(
        {
            DOC: frame[DOC].cast(pl.UInt32),
            "_stage": constant(stage, frame.height, pl.UInt8),
            "_row": frame["_row"].cast(pl.UInt32),
            "error_category": categories.gather(code),
            "error_message": messages.gather(code),
        }
    )


def _document_errors(documents: pl.Series, stage: int, message: str, category: str) -> pl.DataFrame:
    return pl.DataFrame(
        {
            DOC: documents.cast(pl.UInt32),
            "_stage": constant(stage, len(documents), pl.UInt8),
            "_row": constant(0, len(documents), pl.UInt32),
            "error_category": constant(category, len(documents), pl.String),
            "error_message": constant(message, len(documents), pl.String),
        }
    )


def _over(counts: pl.DataFrame, limit: int) -> pl.Series:
    """Documents whose count (column ``n``) exceeds ``limit``."""
    return counts.filter(pl.col("n") > limit)[DOC]


def _counts(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.group_by(DOC).agg(pl.len().cast(pl.Int64).alias("n"))


def _add(*counts: pl.DataFrame) -> pl.DataFrame:
    return pl.concat(counts).group_by(DOC).agg(pl.col("n").sum())


def _duplicated(frame: pl.DataFrame, key: str) -> pl.Series:
    return frame.group_by(DOC, key).agg(pl.len().alias("n")).filter(pl.col("n") > 1)[DOC].unique()


def _records(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.drop(DOC)


def _empty(columns: tuple[str, ...]) -> pl.DataFrame:
    ints = {"start", "end", "source_length"}
    return pl.DataFrame(
        schema={
            **{c: (pl.Int64 if c in ints else pl.String) for c in columns},
            DOC: pl.UInt32,
        }
    )


def evaluate_batch(
    tables: Mapping[str, pl.DataFrame],
    codes: np.ndarray,
    limits: Limits,
    *,
    keep_edges: bool = False,
) -> BatchResult:
    """Evaluate the documents ``codes``: ``tables`` maps each role (claims, evidence,
    citations, adjudications) to its rows with a ``_d`` column (absent roles: no rows)."""
    bounds = Bounds.of(limits)
    empty = pl.DataFrame(schema={DOC: pl.UInt32})
    claims_in = tables.get("claims", empty)
    evidence_in = tables.get("evidence", empty)
    citations_in = tables.get("citations", empty)
    adjudications_in = tables.get("adjudications", empty)
    errors: list[pl.DataFrame] = []

    # Stage 2: claims (bound per document, then every claim row with its edges).
    errors.append(
        _document_errors(
            _over(_counts(claims_in), bounds.claims),
            0,
            "claim collection exceeds the record limit",
            "limit",
        )
    )
    if claims_in.height:
        claims = claim_stage(_records(claims_in), claims_in[DOC], bounds.citations, {})
        errors.append(_row_errors(claims_in[DOC], claims.problem, 1))
        claim_frame, embedded = claims.claims, claims.edges.drop("_row")
    else:
        claim_frame, embedded = _empty(_CLAIM), _empty(_EDGE)

    # Stage 3: evidence and embedded adjudications.
    errors.append(
        _document_errors(
            _over(_counts(evidence_in), bounds.evidence),
            2,
            "evidence collection exceeds the record limit",
            "limit",
        )
    )
    if evidence_in.height:
        evidence = evidence_stage(_records(evidence_in), evidence_in[DOC], bounds.adjudications, {})
        errors.append(_row_errors(evidence_in[DOC], evidence.problem, 3))
        evidence_frame, embedded_adj = evidence.evidence, evidence.adjudications
    else:
        evidence_frame, embedded_adj = _empty(_EVIDENCE), _empty(_ADJUDICATION)

    # Stages 4-5: duplicate identifiers.
    errors.append(
        _document_errors(
            _duplicated(claim_frame, "claim_id"), 4, "duplicate claim identifiers", "reference"
        )
    )
    errors.append(
        _document_errors(
            _duplicated(evidence_frame, "evidence_id"),
            5,
            "duplicate evidence identifiers",
            "reference",
        )
    )

    # Stages 6-7: explicit citations and the combined edge bound.
    errors.append(
        _document_errors(
            _over(_counts(citations_in), bounds.citations),
            6,
            "citation collection exceeds the record limit",
            "limit",
        )
    )
    if citations_in.height:
        citations = citation_stage(_records(citations_in), citations_in[DOC])
        errors.append(_row_errors(citations_in[DOC], citations.problem, 7))
        explicit = citations.edges.drop("_row")
    else:
        explicit = _empty(_EDGE)
    errors.append(
        _document_errors(
            _over(_add(_counts(embedded), _counts(explicit)), bounds.citations),
            8,
            "citation collection exceeds the record limit",
            "limit",
        )
    )

    # Stages 9-10: explicit adjudications and the combined bound.
    errors.append(
        _document_errors(
            _over(_counts(adjudications_in), bounds.adjudications),
            9,
            "adjudication collection exceeds the record limit",
            "limit",
        )
    )
    if adjudications_in.height:
        adjudications = adjudication_stage(_records(adjudications_in), adjudications_in[DOC])
        errors.append(_row_errors(adjudications_in[DOC], adjudications.problem, 10))
        explicit_adj = adjudications.adjudications
    else:
        explicit_adj = _empty(_ADJUDICATION)
    errors.append(
        _document_errors(
            _over(_add(_counts(embedded_adj), _counts(explicit_adj)), bounds.adjudications),
            11,
            "adjudication collection exceeds the record limit",
            "limit",
        )
    )

    # A document's error: its first failing stage, then its first failing row.
    first = (
        pl.concat(errors)
        .sort(DOC, "_stage", "_row")
        .unique(DOC, keep="first", maintain_order=True)
        .select(DOC, "error_category", "error_message")
    )
    failed = first[DOC].implode()
    valid_codes = np.setdiff1d(np.asarray(codes, dtype=np.uint32), first[DOC].to_numpy())

    def keep(frame: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
        return frame.filter(~pl.col(DOC).is_in(failed)).select(*columns, DOC)

    claim_frame = keep(claim_frame, _CLAIM)
    evidence_frame = keep(evidence_frame, _EVIDENCE)
    edge_frame = pl.concat([keep(embedded, _EDGE), keep(explicit, _EDGE)])
    adjudication_frame = pl.concat(
        [keep(embedded_adj, _ADJUDICATION), keep(explicit_adj, _ADJUDICATION)]
    )
    documents = pl.DataFrame({DOC: valid_codes}, schema={DOC: pl.UInt32})
    canonical = [claim_frame, evidence_frame, edge_frame, adjudication_frame]
    del claim_frame, evidence_frame, edge_frame, adjudication_frame  # the kernel's to free
    kernel = run_kernel(canonical, documents)
    digests = support_digests(np.sort(valid_codes), kernel)
    rows = derive_report_rows(kernel.documents, digests)
    return BatchResult(
        rows=rows,
        errors=first.cast(_ERRORS),  # type: ignore[arg-type]
        edges=kernel.edges if keep_edges else None,
    )
