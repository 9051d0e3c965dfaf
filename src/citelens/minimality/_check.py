"""``check_citation_minimality`` and its batch form (minimality.md §7, §14)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.errors import CitationMinimalityError
from citelens.limits import Limits
from citelens.minimality._engine import (
    CITATION_ERRORS,
    CLAIM_ERRORS,
    CitationPhase,
    citation_phase,
    claim_phase,
    sort_records,
)
from citelens.minimality._parse import (
    CitationColumns,
    ClaimColumns,
    citations_from_table,
    claims_from_table,
    is_text_type,
    parse_citations,
    parse_claims,
    resolve_collection,
    table_records,
)
from citelens.minimality._types import (
    MISSING,
    CitationMinimalityReport,
    check_identifier,
    error,
    read_field,
    records_from_columns,
)

__all__ = [
    "BATCH_TABLE_SCHEMA",
    "DOCUMENTS_SCHEMA",
    "ERRORS_SCHEMA",
    "CitationMinimalityBatchResult",
    "check_citation_minimality",
    "check_citation_minimality_batch",
]

I64 = npt.NDArray[np.int64]
DEFAULT_BOUND = 4096
_STATUS_NAMES = pa.array(["minimal", "excess_context", "missing_required_span"], pa.string())

BATCH_TABLE_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.string(), nullable=False),
        pa.field("claim_id", pa.string(), nullable=False),
        pa.field("citation_id", pa.string(), nullable=False),
        pa.field("citation_start", pa.int64(), nullable=False),
        pa.field("citation_end", pa.int64(), nullable=False),
        pa.field("required_start", pa.int64(), nullable=False),
        pa.field("required_end", pa.int64(), nullable=False),
        pa.field("citation_token_count", pa.int64(), nullable=False),
        pa.field("required_token_count", pa.int64(), nullable=False),
        pa.field("excess_token_count", pa.int64(), nullable=False),
        pa.field("excess_left_start", pa.int64(), nullable=True),
        pa.field("excess_left_end", pa.int64(), nullable=True),
        pa.field("excess_right_start", pa.int64(), nullable=True),
        pa.field("excess_right_end", pa.int64(), nullable=True),
        pa.field("status", pa.string(), nullable=False),
        pa.field("review_required", pa.bool_(), nullable=False),
    ]
)
DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.string(), nullable=False),
        pa.field("claim_count", pa.int64(), nullable=False),
        pa.field("citation_count", pa.int64(), nullable=False),
        pa.field("flagged_count", pa.int64(), nullable=False),
        pa.field("minimal_count", pa.int64(), nullable=False),
    ]
)
ERRORS_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.string(), nullable=False),
        pa.field("category", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
    ]
)


def _check_options(max_excess_tokens: object, limits: object) -> tuple[int, int, int]:
    if type(max_excess_tokens) is not int or max_excess_tokens < 0:
        raise error("max_excess_tokens must be a non-negative integer", "policy")
    if limits is None:
        limits = Limits()
    if not isinstance(limits, Limits):
        raise error("limits must be a Limits instance", "policy")
    claims_bound = limits.resolve("claims", DEFAULT_BOUND)
    citations_bound = limits.resolve("citations", DEFAULT_BOUND)
    return max_excess_tokens, claims_bound, citations_bound


def _empty_claims() -> ClaimColumns:
    empty = np.zeros(0, dtype=np.int64)
    return ClaimColumns(pa.array([], pa.string()), empty, empty.copy())


def _empty_citations() -> CitationColumns:
    empty = np.zeros(0, dtype=np.int64)
    return CitationColumns(
        pa.array([], pa.string()), pa.array([], pa.string()), empty, empty.copy()
    )


@dataclass
class _Output:
    """Evaluated, sorted records of every successful document."""

    phase: CitationPhase
    order: I64

    def lists(self, lo: int, hi: int) -> tuple[list[str], list[str], list[list[int]]]:
        rows = self.order[lo:hi]
        taker = pa.array(rows)
        phase = self.phase
        columns = [
            phase.cs[rows].tolist(),
            phase.ce[rows].tolist(),
            phase.rs[rows].tolist(),
            phase.re[rows].tolist(),
            phase.citation_tokens[rows].tolist(),
            phase.required_tokens[rows].tolist(),
            phase.excess[rows].tolist(),
            phase.status[rows].tolist(),
        ]
        return (
            phase.claim_ids.take(taker).to_pylist(),
            phase.citation_ids.take(taker).to_pylist(),
            columns,
        )

    def report(self, lo: int, hi: int, claim_count: int, max_excess: int) -> Any:
        claim_ids, citation_ids, columns = self.lists(lo, hi)
        records = records_from_columns(claim_ids, citation_ids, columns)
        return CitationMinimalityReport._trusted(records, claim_count, max_excess)


def check_citation_minimality(
    source_text: str,
    claims: Any,
    citations: Any,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
) -> CitationMinimalityReport:
    """Check every citation span against its claim's required span (minimality.md §7).

    Returns a value-free :class:`CitationMinimalityReport`: opaque ids, offsets, token counts,
    statuses and review flags; the source text is never stored or printed. Raises
    :class:`citelens.errors.CitationMinimalityError` with a fixed message and category.
    """
    if type(source_text) is not str:
        raise error("source_text must be text", "input")
    max_excess, claims_bound, citations_bound = _check_options(max_excess_tokens, limits)
    claim_columns = parse_claims(resolve_collection(claims, "claims", claims_bound))
    zeros = np.zeros(len(claim_columns.claim_ids), dtype=np.int64)
    state = claim_phase([source_text], zeros, claim_columns)
    if state.doc_error[0]:
        message, category = CLAIM_ERRORS[int(state.doc_error[0])]
        raise error(message, category)
    citation_columns = parse_citations(resolve_collection(citations, "citations", citations_bound))
    cite_zeros = np.zeros(len(citation_columns.claim_ids), dtype=np.int64)
    phase = citation_phase(state, cite_zeros, citation_columns, max_excess)
    if phase.doc_error[0]:
        message, category = CITATION_ERRORS[int(phase.doc_error[0])]
        raise error(message, category)
    order = sort_records(phase, np.zeros(1, dtype=np.int64))
    output = _Output(phase, order)
    report: CitationMinimalityReport = output.report(
        0, order.size, len(claim_columns.claim_ids), max_excess
    )
    return report


# --------------------------------------------------------------------------- batch


class _Reports(Mapping[str, CitationMinimalityReport]):
    """Read-only mapping ``document_ref → report``, ascending, built on first access."""

    def __init__(self, refs: list[str], build: Callable[[int], CitationMinimalityReport]) -> None:
        self._refs = refs
        self._index = {ref: index for index, ref in enumerate(refs)}
        self._build = build
        self._cache: dict[int, CitationMinimalityReport] = {}

    def __getitem__(self, key: str) -> CitationMinimalityReport:
        index = self._index[key]
        report = self._cache.get(index)
        if report is None:
            report = self._build(index)
            self._cache[index] = report
        return report

    def __iter__(self) -> Iterator[str]:
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def __repr__(self) -> str:
        return f"<minimality reports: {len(self._refs)} documents>"


@dataclass(frozen=True)
class CitationMinimalityBatchResult:
    """Per-document reports and Arrow tables of a batch check (minimality.md §14)."""

    reports: Mapping[str, CitationMinimalityReport]
    table: pa.Table
    documents: pa.Table
    errors: pa.Table


class _Split:
    """Split-form rows grouped by document (rows of one document keep their input order)."""

    def __init__(self, records: list[Any] | pa.Table, row_doc: I64) -> None:
        self.records = records
        self.row_doc = row_doc


def _group_rows(
    value: Any, label: str, ref_index: Mapping[str, int], bound: int, n_docs: int
) -> _Split:
    total = max(n_docs, 1) * bound
    records = resolve_collection(value, label, total, strict=False)
    if isinstance(records, pa.Table):
        n_rows = records.num_rows
        if "document_ref" in records.column_names:
            column = records.column("document_ref")
            kind = column.type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            if is_text_type(kind):
                found = pc.index_in(
                    pc.cast(column, pa.string()), value_set=pa.array(list(ref_index), pa.string())
                )
                row_doc = np.asarray(
                    found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64
                )
            else:
                row_doc = np.full(n_rows, -1, dtype=np.int64)
        else:
            row_doc = np.full(n_rows, -1, dtype=np.int64)
    else:
        docs: list[int] = []
        for row in records:
            ref = read_field(row, ("document_ref",))
            docs.append(ref_index.get(ref, -1) if type(ref) is str else -1)
        row_doc = np.array(docs, dtype=np.int64)
    unknown = row_doc < 0
    order = np.argsort(row_doc, kind="stable")
    sorted_doc = row_doc[order]
    starts = np.searchsorted(sorted_doc, sorted_doc, side="left")
    rank = np.empty(row_doc.size, dtype=np.int64)
    rank[order] = np.arange(row_doc.size) - starts
    bad = unknown | (rank >= bound)
    failing = np.flatnonzero(bad)
    if failing.size:
        if unknown[failing[0]]:
            raise error("minimality row refers to an unknown document", "reference")
        raise error("citation collection is invalid or exceeds limit", "limit")
    return _Split(records, row_doc)


ErrorCode = tuple[str, str]


def _parse_split(
    split: _Split, active: list[int], label: str, errors: dict[int, ErrorCode], n_docs: int
) -> tuple[I64, Any]:
    """Parse split-form rows of the active documents (vectorised when the table is flat)."""
    is_claims = label == "claims"
    active_mask = np.zeros(max(n_docs, 1), dtype=bool)
    active_mask[np.asarray(active, dtype=np.int64)] = True
    rows = np.flatnonzero(active_mask[split.row_doc])
    records = split.records
    if isinstance(records, pa.Table):
        full = rows.size == records.num_rows
        subset = records if full else records.take(pa.array(rows, pa.int64()))
        fast = claims_from_table(subset) if is_claims else citations_from_table(subset)
        if fast is not None:
            return split.row_doc[rows], fast
    pieces_doc: list[I64] = []
    pieces: list[Any] = []
    row_doc = split.row_doc[rows]
    order = np.argsort(row_doc, kind="stable")
    rows = rows[order]
    row_doc = row_doc[order]
    bounds = np.searchsorted(row_doc, np.asarray(active, dtype=np.int64), side="left")
    ends = np.searchsorted(row_doc, np.asarray(active, dtype=np.int64), side="right")
    for doc, lo, hi in zip(active, bounds.tolist(), ends.tolist(), strict=True):
        mine = rows[lo:hi]
        if isinstance(records, pa.Table):
            value: Any = records.take(pa.array(mine, pa.int64()))
        else:
            value = [records[i] for i in mine.tolist()]
        parsed, failure = _guarded(value, label)
        if failure is not None:
            errors[doc] = failure
            continue
        pieces_doc.append(np.full(len(parsed.claim_ids), doc, dtype=np.int64))
        pieces.append(parsed)
    return _concat(pieces_doc, pieces, is_claims)


def _guarded(value: Any, label: str) -> tuple[Any, ErrorCode | None]:
    failure: ErrorCode | None = None
    parsed: Any = None
    try:
        parsed = parse_claims(value) if label == "claims" else parse_citations(value)
    except CitationMinimalityError as exc:
        failure = (str(exc.args[0]), exc.category)
    return parsed, failure


def _concat(pieces_doc: list[I64], pieces: list[Any], is_claims: bool) -> tuple[I64, Any]:
    if not pieces:
        return np.zeros(0, dtype=np.int64), (_empty_claims() if is_claims else _empty_citations())
    doc = np.concatenate(pieces_doc)
    if is_claims:
        return doc, ClaimColumns(
            pa.concat_arrays([p.claim_ids for p in pieces]),
            np.concatenate([p.starts for p in pieces]),
            np.concatenate([p.ends for p in pieces]),
        )
    return doc, CitationColumns(
        pa.concat_arrays([p.claim_ids for p in pieces]),
        pa.concat_arrays([p.citation_ids for p in pieces]),
        np.concatenate([p.starts for p in pieces]),
        np.concatenate([p.ends for p in pieces]),
    )


def _parse_nested(
    records: list[Any],
    active: list[int],
    label: str,
    bound: int,
    errors: dict[int, ErrorCode],
) -> tuple[I64, Any]:
    pieces_doc: list[I64] = []
    pieces: list[Any] = []
    for doc in active:
        failure: ErrorCode | None = None
        parsed: Any = None
        try:
            value = read_field(records[doc], (label,))
            collection = [] if value is MISSING else resolve_collection(value, label, bound)
            parsed = parse_claims(collection) if label == "claims" else parse_citations(collection)
        except CitationMinimalityError as exc:
            failure = (str(exc.args[0]), exc.category)
        if failure is not None:
            errors[doc] = failure
            continue
        pieces_doc.append(np.full(len(parsed.claim_ids), doc, dtype=np.int64))
        pieces.append(parsed)
    return _concat(pieces_doc, pieces, label == "claims")


def _read_documents(documents: Any, max_documents: int) -> tuple[list[str], list[Any]]:
    records = resolve_collection(documents, "documents", max_documents)
    rows = table_records(records, "documents") if isinstance(records, pa.Table) else records
    refs: list[str] = []
    seen: set[str] = set()
    for row in rows:
        ref = read_field(row, ("document_ref",))
        if ref is MISSING:
            raise error("minimality documents require an opaque document reference", "record")
        check_identifier(ref)
        if ref in seen:
            raise error("duplicate minimality document reference", "reference")
        seen.add(ref)
        refs.append(ref)
    order = sorted(range(len(refs)), key=refs.__getitem__)
    return [refs[i] for i in order], [rows[i] for i in order]


def check_citation_minimality_batch(
    documents: Any,
    claims: Any = None,
    citations: Any = None,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
    max_documents: int = 100_000,
    errors: str = "raise",
) -> CitationMinimalityBatchResult:
    """Check many documents in one call, keyed by ``document_ref`` (minimality.md §14).

    Nested form: each document record carries ``document_ref``, ``source_text`` and optional
    ``claims`` / ``citations``. Split form (``claims`` or ``citations`` given): rows carry a
    ``document_ref`` and are grouped per document. Every document is checked exactly as
    :func:`check_citation_minimality` would check it; all documents share one tokenisation
    pass. With ``errors="collect"`` failing documents are listed in ``result.errors``.
    """
    max_excess, claims_bound, citations_bound = _check_options(max_excess_tokens, limits)
    if type(max_documents) is not int or max_documents < 1:
        raise error("max_documents must be a positive integer", "policy")
    if type(errors) is not str or errors not in ("raise", "collect"):
        raise error("errors must be 'raise' or 'collect'", "policy")
    refs, records = _read_documents(documents, max_documents)
    n_docs = len(refs)
    ref_index = {ref: index for index, ref in enumerate(refs)}
    split = claims is not None or citations is not None
    claim_split = citation_split = None
    if split:
        empty: list[Any] = []
        claim_split = _group_rows(
            empty if claims is None else claims, "claims", ref_index, claims_bound, n_docs
        )
        citation_split = _group_rows(
            empty if citations is None else citations,
            "citations",
            ref_index,
            citations_bound,
            n_docs,
        )

    doc_errors: dict[int, ErrorCode] = {}
    texts: list[str] = []
    for doc, record in enumerate(records):
        text: Any = ""
        failure: ErrorCode | None = None
        try:
            text = read_field(record, ("source_text",))
        except CitationMinimalityError as exc:
            failure = (str(exc.args[0]), exc.category)
        if failure is None and type(text) is not str:
            failure = ("source_text must be text", "input")
        if failure is not None:
            doc_errors[doc] = failure
            text = ""
        texts.append(text)

    active = [doc for doc in range(n_docs) if doc not in doc_errors]
    if claim_split is not None:
        claim_doc, claim_columns = _parse_split(claim_split, active, "claims", doc_errors, n_docs)
    else:
        claim_doc, claim_columns = _parse_nested(
            records, active, "claims", claims_bound, doc_errors
        )
    claim_columns, claim_doc = _drop_docs(claim_columns, claim_doc, doc_errors)
    masked = [text if doc not in doc_errors else "" for doc, text in enumerate(texts)]
    if not masked:
        masked = [""]
    state = claim_phase(masked, claim_doc, claim_columns)
    for doc in np.flatnonzero(state.doc_error).tolist():
        if doc not in doc_errors:
            doc_errors[doc] = CLAIM_ERRORS[int(state.doc_error[doc])]

    active = [doc for doc in range(n_docs) if doc not in doc_errors]
    if citation_split is not None:
        cite_doc, citation_columns = _parse_split(
            citation_split, active, "citations", doc_errors, n_docs
        )
    else:
        cite_doc, citation_columns = _parse_nested(
            records, active, "citations", citations_bound, doc_errors
        )
    citation_columns, cite_doc = _drop_docs(citation_columns, cite_doc, doc_errors)
    phase = citation_phase(state, cite_doc, citation_columns, max_excess)
    for doc in np.flatnonzero(phase.doc_error).tolist():
        if doc not in doc_errors:
            doc_errors[doc] = CITATION_ERRORS[int(phase.doc_error[doc])]

    if errors == "raise" and doc_errors:
        message, category = doc_errors[min(doc_errors)]
        raise error(message, category)
    # Rows of documents that failed in the citation phase are already excluded (kept rows
    # belong to documents without a citation error); drop late claim-phase failures too.
    order = sort_records(phase, np.arange(max(n_docs, 1), dtype=np.int64))
    ok_docs = [doc for doc in range(n_docs) if doc not in doc_errors]
    if doc_errors:
        keep = ~np.isin(phase.doc[order], np.fromiter(doc_errors, dtype=np.int64))
        order = order[keep]
    output = _Output(phase, order)
    return _assemble(refs, ok_docs, doc_errors, output, state.claim_doc, max_excess)


def _drop_docs(columns: Any, doc: I64, doc_errors: dict[int, ErrorCode]) -> tuple[Any, I64]:
    if not doc_errors or doc.size == 0:
        return columns, doc
    keep = np.flatnonzero(~np.isin(doc, np.fromiter(doc_errors, dtype=np.int64)))
    if keep.size == doc.size:
        return columns, doc
    taker = pa.array(keep)
    if isinstance(columns, ClaimColumns):
        return ClaimColumns(
            columns.claim_ids.take(taker), columns.starts[keep], columns.ends[keep]
        ), doc[keep]
    return CitationColumns(
        columns.claim_ids.take(taker),
        columns.citation_ids.take(taker),
        columns.starts[keep],
        columns.ends[keep],
    ), doc[keep]


def _assemble(
    refs: list[str],
    ok_docs: list[int],
    doc_errors: dict[int, ErrorCode],
    output: _Output,
    claim_doc: I64,
    max_excess: int,
) -> CitationMinimalityBatchResult:
    phase = output.phase
    order = output.order
    n_docs = len(refs)
    doc = phase.doc[order]
    status = phase.status[order]
    cs, ce = phase.cs[order], phase.ce[order]
    rs, re_ = phase.rs[order], phase.re[order]
    covers = status != 2
    taker = pa.array(order, pa.int64())
    refs_array = pa.array(refs, pa.string())
    left = covers & (cs < rs)
    right = covers & (ce > re_)
    table = pa.Table.from_arrays(
        [
            refs_array.take(pa.array(doc, pa.int64())),
            phase.claim_ids.take(taker),
            phase.citation_ids.take(taker),
            pa.array(cs, pa.int64()),
            pa.array(ce, pa.int64()),
            pa.array(rs, pa.int64()),
            pa.array(re_, pa.int64()),
            pa.array(phase.citation_tokens[order], pa.int64()),
            pa.array(phase.required_tokens[order], pa.int64()),
            pa.array(phase.excess[order], pa.int64()),
            pa.array(cs, pa.int64(), mask=~left),
            pa.array(rs, pa.int64(), mask=~left),
            pa.array(re_, pa.int64(), mask=~right),
            pa.array(ce, pa.int64(), mask=~right),
            _STATUS_NAMES.take(pa.array(status.astype(np.int64), pa.int64())),
            pa.array(status != 0, pa.bool_()),
        ],
        schema=BATCH_TABLE_SCHEMA,
    )
    claim_counts = np.bincount(claim_doc, minlength=n_docs) if n_docs else np.zeros(0, np.int64)
    citation_counts = np.bincount(doc, minlength=n_docs) if n_docs else np.zeros(0, np.int64)
    flagged = np.bincount(doc, weights=status != 0, minlength=n_docs).astype(np.int64)
    ok = np.asarray(ok_docs, dtype=np.int64)
    documents = pa.Table.from_arrays(
        [
            pa.array([refs[d] for d in ok_docs], pa.string()),
            pa.array(claim_counts[ok] if ok.size else [], pa.int64()),
            pa.array(citation_counts[ok] if ok.size else [], pa.int64()),
            pa.array(flagged[ok] if ok.size else [], pa.int64()),
            pa.array((citation_counts[ok] - flagged[ok]) if ok.size else [], pa.int64()),
        ],
        schema=DOCUMENTS_SCHEMA,
    )
    failed = sorted(doc_errors)
    errors_table = pa.Table.from_arrays(
        [
            pa.array([refs[d] for d in failed], pa.string()),
            pa.array([doc_errors[d][1] for d in failed], pa.string()),
            pa.array([doc_errors[d][0] for d in failed], pa.string()),
        ],
        schema=ERRORS_SCHEMA,
    )
    lo = np.searchsorted(doc, np.arange(n_docs), side="left") if n_docs else np.zeros(0)
    hi = np.searchsorted(doc, np.arange(n_docs), side="right") if n_docs else np.zeros(0)
    claim_counts_list = claim_counts.tolist()

    def build(position: int) -> CitationMinimalityReport:
        d = ok_docs[position]
        report: CitationMinimalityReport = output.report(
            int(lo[d]), int(hi[d]), int(claim_counts_list[d]), max_excess
        )
        return report

    reports = _Reports([refs[d] for d in ok_docs], build)
    return CitationMinimalityBatchResult(reports, table, documents, errors_table)
