"""Many documents in one pass (corpus mode), keyed by ``document_ref`` (conventions.md §4).

The same normalisation, the same kernel and the same derivation as a single call: a single
call is a corpus of one document. Documents that the contract rejects (a bound exceeded) are
flagged in the same pass with the message and category the single call raises for them; the
rest are derived together. Nothing here calls the public API per document.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.limits import Limits
from citelens.summary_citations._derive import DOCUMENT_COLUMNS, derive_metrics, document_dtype
from citelens.summary_citations._input import InputProblem, table_rows, type_csv_offsets
from citelens.summary_citations._kernel import count_by_document
from citelens.summary_citations._limits import DEFAULT_CITATIONS, DEFAULT_CLAIMS, DEFAULT_EVIDENCE
from citelens.summary_citations._normalize import (
    as_array,
    claims_frame_from_table,
    evidence_frame_from_table,
)
from citelens.summary_citations._records import claims_frame, evidence_frame
from citelens.summary_citations._schema import flat_claims_ok, flat_evidence_ok

__all__ = ["summary_metrics_by_document"]


def _empty_documents() -> pl.DataFrame:
    return pl.DataFrame(schema={name: document_dtype(name) for name in DOCUMENT_COLUMNS})


def _document_codes(claims: pa.Table, evidence: pa.Table) -> tuple[list[str], Any, Any]:
    """Code every row by its document (first-appearance order of ``document_ref``)."""
    combined = pa.chunked_array(
        [
            pc.cast(as_array(claims.column("document_ref")), pa.large_string()),
            pc.cast(as_array(evidence.column("document_ref")), pa.large_string()),
        ],
        type=pa.large_string(),
    ).combine_chunks()
    encoded = pc.dictionary_encode(combined)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    refs = [str(v) for v in encoded.dictionary.to_pylist()]
    return refs, codes[: claims.num_rows], codes[claims.num_rows :]


def _body(table: pa.Table, csv: bool) -> pa.Table | list[Any]:
    body = table.drop_columns(["document_ref"])
    return type_csv_offsets(body) if csv else body


def _records(body: pa.Table | list[Any]) -> list[Any]:
    return body if isinstance(body, list) else table_rows(body, "table")


def _evidence_frame(body: pa.Table | list[Any]) -> pa.Table:
    if isinstance(body, pa.Table) and flat_evidence_ok(body.schema):
        return evidence_frame_from_table(body)
    # Table rows are plain dicts, lists and scalars: reading them cannot fail.
    return evidence_frame(_records(body))


def _item_frame(body: pa.Table | list[Any]) -> tuple[pa.Table, int]:
    if isinstance(body, pa.Table) and flat_claims_ok(body.schema):
        items = claims_frame_from_table(body)
        return items, items.num_rows
    # No running bound here: citation items are bounded per document below.
    return claims_frame(_records(body), None)


def _unreadable(refs: list[str], role: str, kind: str) -> pl.DataFrame:
    """Every document of the batch: Arrow could not convert the role's rows to records
    (§4.4; ``kind`` is ``table``, or ``file`` for CSV typing), the single call's error."""
    return pl.DataFrame(
        {
            "document_ref": refs,
            "status": ["error"] * len(refs),
            "error_category": ["input"] * len(refs),
            "error_message": [f"{role} {kind} could not be read"] * len(refs),
        }
    )


def _complete(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(
        *[
            pl.lit(None, dtype=document_dtype(name)).alias(name)
            for name in DOCUMENT_COLUMNS
            if name not in frame.columns
        ]
    ).select([pl.col(name).cast(document_dtype(name)) for name in DOCUMENT_COLUMNS])


def summary_metrics_by_document(
    claims: pa.Table,
    evidence: pa.Table,
    limits: Limits | None = None,
    *,
    csv: tuple[bool, bool] = (False, False),
) -> pl.DataFrame:
    """Every document's summary-citation metrics in one pass.

    ``claims`` and ``evidence`` both carry a non-null ``document_ref`` column; every row of a
    document, in table order, is that document's input. Returns one row per document
    (columns :data:`DOCUMENT_COLUMNS`, sorted by ``document_ref``) equal to
    ``build_summary_citation_report`` on that document's rows alone (bounds from ``limits``
    apply per document): its ``metrics.to_dict()`` values with status ``"ok"``, or status
    ``"error"`` with the fixed message and category it raises. ``csv`` marks roles read from
    CSV (offset cells typed as in a CSV file).
    """
    resolved = limits if isinstance(limits, Limits) else Limits()
    refs, claim_doc, ev_doc = _document_codes(claims, evidence)
    n_docs = len(refs)
    if n_docs == 0:
        return _empty_documents()
    # Claims are read before evidence, as in a single call (§2 order of checks).
    try:
        claim_body = _body(claims, csv[0])
        items, n_items = _item_frame(claim_body)
    except InputProblem as problem:
        return _complete(_unreadable(refs, "claims", problem.kind)).sort("document_ref")
    try:
        ev = _evidence_frame(_body(evidence, csv[1]))
    except InputProblem as problem:
        return _complete(_unreadable(refs, "evidence", problem.kind)).sort("document_ref")
    counts = count_by_document(claim_doc, items, n_items, ev_doc, ev, n_docs)
    counts = counts.with_columns(pl.Series("document_ref", refs, dtype=pl.String))
    # Bounds per document, in the single call's order: claims, evidence, citation items.
    c = pl.col
    over = (
        pl.when(c("claim_count") > resolved.resolve("claims", DEFAULT_CLAIMS))
        .then(pl.lit("claims collection exceeds the configured limit"))
        .when(c("evidence_record_count") > resolved.resolve("evidence", DEFAULT_EVIDENCE))
        .then(pl.lit("evidence collection exceeds the configured limit"))
        .when(c("citation_count") > resolved.resolve("citations", DEFAULT_CITATIONS))
        .then(pl.lit("citation items exceed the configured limit"))
    )
    counts = counts.with_columns(over.alias("error_message"))
    failed = counts.filter(c("error_message").is_not_null()).select(
        "document_ref",
        pl.lit("error").alias("status"),
        pl.lit("limit").alias("error_category"),
        "error_message",
    )
    ok = derive_metrics(counts.filter(c("error_message").is_null())).with_columns(
        pl.lit("ok").alias("status"), pl.lit(None, dtype=pl.String).alias("error_category")
    )
    return pl.concat([_complete(ok), _complete(failed)]).sort("document_ref")
