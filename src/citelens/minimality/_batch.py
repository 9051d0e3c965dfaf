"""One evaluation over many documents: the engine behind the single call, the batch form and
corpus mode (minimality.md §7, §14).

Every input form reaches the same columns (one row per record with its problem code and a
document index); the claim and citation phases of :mod:`~._engine` then run once over all
documents. A document's error is the first of: its ``source_text``, its claims collection, its
claim records and checks, its citations collection, its citation records and checks — exactly
what :func:`check_citation_minimality` raises for it. Nothing is re-run per document, so the
cost does not depend on how many documents are defective.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from operator import is_
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.errors import CitationMinimalityError
from citelens.minimality._columns import (
    CitationColumns,
    ClaimColumns,
    concat_columns,
    take_columns,
)
from citelens.minimality._engine import CitationPhase, citation_phase, claim_phase, sort_records
from citelens.minimality._parse import (
    parse_citations,
    parse_claims,
    resolve_collection,
    table_records,
)
from citelens.minimality._records import MISSING, field_column
from citelens.minimality._rules import PROBLEMS, error, identifier_mask
from citelens.minimality._tables import is_text_type
from citelens.minimality._types import CitationMinimalityReport, records_from_columns

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "BATCH_TABLE_SCHEMA",
    "DOCUMENTS_SCHEMA",
    "ERRORS_SCHEMA",
    "CitationMinimalityBatchResult",
    "Evaluation",
    "Nested",
    "Split",
    "Unreadable",
    "assemble",
    "evaluate",
    "group_rows",
    "read_documents",
]

I64 = npt.NDArray[np.int64]
ErrorCode = tuple[str, str]
_STATUS_NAMES = ("minimal", "excess_context", "missing_required_span")

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

    def to_arrow(self) -> pa.Table:
        """:attr:`table`: one row per citation record of every document."""
        return self.table

    def to_polars(self) -> pl.DataFrame:
        """:attr:`table` as a Polars frame (``documents`` and ``errors`` stay Arrow)."""
        from citelens.io._values import polars_frame

        return polars_frame(self.table)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of :attr:`table` (``pa.table(result)``,
        ``pl.from_arrow(result)``, DuckDB)."""
        return self.table.__arrow_c_stream__(requested_schema)


# --------------------------------------------------------------------------- inputs


class Rows:
    """Split-form rows of one collection with the document index of every row; ``over``
    holds the documents whose rows exceed the bound (when they are collected, not raised)."""

    def __init__(self, records: list[Any] | pa.Table, row_doc: I64, over: I64) -> None:
        self.records = records
        self.row_doc = row_doc
        self.over = over


def group_rows(
    value: Any,
    label: str,
    ref_index: Mapping[str, int],
    bound: int,
    n_docs: int,
    *,
    collect: bool = False,
) -> Rows:
    """Split-form rows keyed by ``document_ref`` (§14). Unknown documents raise at once;
    so do per-document bounds (the first offending row in input order), unless ``collect``:
    then those documents get the limit error in their claims or citations phase."""
    # Collected bounds read every row (a cut would drop rows of other documents).
    total = (1 << 62) if collect else max(n_docs, 1) * bound
    records = resolve_collection(value, label, total, strict=False)
    if isinstance(records, pa.Table):
        n_rows = records.num_rows
        row_doc = np.full(n_rows, -1, dtype=np.int64)
        if "document_ref" in records.column_names:
            column = records.column("document_ref")
            if is_text_type(column.type):
                found = pc.index_in(
                    pc.cast(column, pa.string()), value_set=pa.array(list(ref_index), pa.string())
                )
                row_doc = np.asarray(
                    found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64
                )
    else:
        refs = field_column(records, "document_ref")
        docs = [ref_index.get(ref, -1) if type(ref) is str else -1 for ref in refs]
        row_doc = np.asarray(docs, dtype=np.int64)
    unknown = row_doc < 0
    order = np.argsort(row_doc, kind="stable")
    sorted_doc = row_doc[order]
    starts = np.searchsorted(sorted_doc, sorted_doc, side="left")
    rank = np.empty(row_doc.size, dtype=np.int64)
    rank[order] = np.arange(row_doc.size) - starts
    over = rank >= bound
    failing = np.flatnonzero(unknown | (over & (not collect)))
    if failing.size:
        if unknown[failing[0]]:
            raise error("minimality row refers to an unknown document", "reference")
        raise error("citation collection is invalid or exceeds limit", "limit")
    return Rows(records, row_doc, np.unique(row_doc[over]))


def read_documents(documents: Any, max_documents: int) -> tuple[list[str], list[Any]]:
    """The document records in ascending ``document_ref`` order (§14 argument checks)."""
    records = resolve_collection(documents, "documents", max_documents)
    rows = table_records(records, "documents") if isinstance(records, pa.Table) else records
    values = field_column(rows, "document_ref")
    # Per row, in order: missing, not an identifier (§4), seen before; the first row fails.
    missing = np.fromiter(map(is_, values, repeat(None)), dtype=bool, count=len(values))
    valid = identifier_mask(values)
    seen: set[str] = set()
    repeated = np.zeros(len(values), dtype=bool)
    for index, value in enumerate(values):
        if valid[index]:
            repeated[index] = value in seen
            seen.add(value)
    code = np.where(missing, 1, np.where(~valid, 2, np.where(repeated, 3, 0)))
    failing = np.flatnonzero(code)
    if failing.size:
        first = int(code[failing[0]])
        if first == 1:
            raise error("minimality documents require an opaque document reference", "record")
        if first == 2:
            raise error("citation identifiers must be opaque sha256 references", "identifier")
        raise error("duplicate minimality document reference", "reference")
    refs: list[str] = values
    order = sorted(range(len(refs)), key=refs.__getitem__)
    return [refs[i] for i in order], [rows[i] for i in order]


@dataclass(frozen=True)
class Unreadable:
    """A document field whose READ failed: its error, raised in that field's phase (with the
    reader's ``detail``, when one says why)."""

    message: str
    category: str
    detail: str | None = None


class Nested:
    """Per-document collections (nested form, and the single call as a batch of one)."""

    def __init__(self, claims: list[Any], citations: list[Any], bounds: tuple[int, int]) -> None:
        self.values = {"claims": claims, "citations": citations}
        self.bounds = {"claims": bounds[0], "citations": bounds[1]}
        self.details: dict[int, str] = {}  # why a reader refused a document's collection

    def parse(
        self, label: str, active: list[int], errors: dict[int, ErrorCode]
    ) -> tuple[I64, ClaimColumns | CitationColumns]:
        """Read each active document's collection; collection errors become its error."""
        is_claims = label == "claims"
        lists: list[Any] = []
        list_doc: list[int] = []
        parts: list[Any] = []
        part_docs: list[I64] = []
        for doc in active:
            value = self.values[label][doc]
            failure: ErrorCode | None = None
            detail: str | None = None
            records: list[Any] | pa.Table = []
            if isinstance(value, Unreadable):
                failure, detail = (value.message, value.category), value.detail
            else:
                try:
                    if value is not MISSING:
                        records = resolve_collection(value, label, self.bounds[label])
                except CitationMinimalityError as exc:
                    failure, detail = (str(exc.args[0]), exc.category), exc.detail
            if failure is not None:
                errors[doc] = failure
                if detail is not None:
                    self.details[doc] = detail
                continue
            if isinstance(records, pa.Table):
                parsed = parse_claims(records) if is_claims else parse_citations(records)
                parts.append(parsed)
                part_docs.append(np.full(len(parsed), doc, dtype=np.int64))
            else:
                lists.extend(records)
                list_doc.extend([doc] * len(records))
        if lists:
            parsed = parse_claims(lists) if is_claims else parse_citations(lists)
            parts.append(parsed)
            part_docs.append(np.asarray(list_doc, dtype=np.int64))
        row_doc = np.concatenate(part_docs) if part_docs else np.zeros(0, dtype=np.int64)
        return row_doc, concat_columns(parts, is_claims)


class Split:
    """Split-form rows, grouped by document up front; parsed once for every document."""

    def __init__(self, claims: Rows, citations: Rows) -> None:
        self.rows = {"claims": claims, "citations": citations}
        self.details: dict[int, str] = {}  # none: split rows are read (and refused) up front

    def parse(
        self, label: str, active: list[int], errors: dict[int, ErrorCode]
    ) -> tuple[I64, ClaimColumns | CitationColumns]:
        """Parse the rows of the active documents in one pass (a document over the bound
        gets the limit error its own collection would raise)."""
        rows = self.rows[label]
        for doc in rows.over.tolist():
            errors.setdefault(doc, ("citation collection is invalid or exceeds limit", "limit"))
        n = int(rows.row_doc.max()) + 1 if rows.row_doc.size else 0
        mask = np.zeros(max(n, 1), dtype=bool)
        live = np.asarray([doc for doc in active if doc < n and doc not in errors], np.int64)
        mask[live] = True
        keep = np.flatnonzero(mask[rows.row_doc]) if rows.row_doc.size else rows.row_doc
        records = rows.records
        if isinstance(records, pa.Table):
            if keep.size != records.num_rows:
                records = records.take(pa.array(keep, pa.int64()))
        elif keep.size != len(records):
            records = [records[i] for i in keep.tolist()]
        parsed = parse_claims(records) if label == "claims" else parse_citations(records)
        return rows.row_doc[keep], parsed


# --------------------------------------------------------------------------- evaluation


@dataclass
class Evaluation:
    """Everything one evaluation computed: sorted records and per-document outcomes."""

    refs: list[str]
    errors: dict[int, ErrorCode]
    phase: CitationPhase
    order: I64
    claim_doc: I64
    max_excess: int
    # why a reader refused a document's input, for the documents whose error it is
    details: dict[int, str] = field(default_factory=dict)

    def lists(self, lo: int, hi: int) -> tuple[list[str], list[str], list[list[int]]]:
        """Python columns of the sorted records ``lo:hi`` (for report objects)."""
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

    def report(self, lo: int, hi: int, claim_count: int) -> CitationMinimalityReport:
        """The report of one document from its sorted record range."""
        claim_ids, citation_ids, columns = self.lists(lo, hi)
        records = records_from_columns(claim_ids, citation_ids, columns)
        return CitationMinimalityReport._trusted(records, claim_count, self.max_excess)

    def first_error(self) -> CitationMinimalityError | None:
        """The error of the first failing document (ascending reference), if any."""
        if not self.errors:
            return None
        doc = min(self.errors)
        message, category = self.errors[doc]
        failure = error(message, category)
        failure.detail = self.details.get(doc)
        return failure


def evaluate(
    texts: list[Any],
    source: Nested | Split,
    errors: dict[int, ErrorCode],
    max_excess: int,
    refs: list[str],
) -> Evaluation:
    """Evaluate every document: one tokenisation pass, one claim pass, one citation pass."""
    n_docs = len(texts)
    clean: list[str] = []
    details: dict[int, str] = {}
    for doc, text in enumerate(texts):
        if isinstance(text, Unreadable):
            if doc not in errors:
                errors[doc] = (text.message, text.category)
                if text.detail is not None:
                    details[doc] = text.detail
            text = ""
        elif type(text) is not str:
            errors.setdefault(doc, ("source_text must be text", "input"))
            text = ""
        clean.append(text)
    active = [doc for doc in range(n_docs) if doc not in errors]
    claim_doc, claims = source.parse("claims", active, errors)
    claims, claim_doc = _drop(claims, claim_doc, errors)
    assert isinstance(claims, ClaimColumns)
    texts_used = [text if doc not in errors else "" for doc, text in enumerate(clean)] or [""]
    state = claim_phase(texts_used, claim_doc, claims)
    for doc in np.flatnonzero(state.doc_error).tolist():
        errors.setdefault(doc, PROBLEMS[int(state.doc_error[doc])])
    active = [doc for doc in range(n_docs) if doc not in errors]
    cite_doc, citations = source.parse("citations", active, errors)
    citations, cite_doc = _drop(citations, cite_doc, errors)
    assert isinstance(citations, CitationColumns)
    phase = citation_phase(state, cite_doc, citations, max_excess)
    for doc in np.flatnonzero(phase.doc_error).tolist():
        errors.setdefault(doc, PROBLEMS[int(phase.doc_error[doc])])
    order = sort_records(phase, np.arange(max(n_docs, 1), dtype=np.int64))
    if errors and order.size:
        failed = np.fromiter(errors, dtype=np.int64, count=len(errors))
        order = order[~np.isin(phase.doc[order], failed)]
    details.update(source.details)  # each document's error was set once, by one phase
    return Evaluation(refs, errors, phase, order, state.claim_doc, max_excess, details)


def _drop(
    columns: ClaimColumns | CitationColumns, doc: I64, errors: dict[int, ErrorCode]
) -> tuple[ClaimColumns | CitationColumns, I64]:
    """Rows of documents that already failed are not evaluated further."""
    if not errors or doc.size == 0:
        return columns, doc
    failed = np.fromiter(errors, dtype=np.int64, count=len(errors))
    keep = np.flatnonzero(~np.isin(doc, failed))
    if keep.size == doc.size:
        return columns, doc
    return take_columns(columns, keep), doc[keep]


# --------------------------------------------------------------------------- outputs


def assemble(evaluation: Evaluation) -> CitationMinimalityBatchResult:
    """The Arrow tables and report mapping of §14."""
    phase, order, refs = evaluation.phase, evaluation.order, evaluation.refs
    errors = evaluation.errors
    n_docs = len(refs)
    doc = phase.doc[order]
    status = phase.status[order]
    cs, ce = phase.cs[order], phase.ce[order]
    rs, re_ = phase.rs[order], phase.re[order]
    covers = status != 2
    taker = pa.array(order, pa.int64())
    left = covers & (cs < rs)
    right = covers & (ce > re_)
    table = pa.Table.from_arrays(
        [
            pa.array(refs, pa.string()).take(pa.array(doc, pa.int64())),
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
            pa.array(_STATUS_NAMES, pa.string()).take(pa.array(status.astype(np.int64))),
            pa.array(status != 0, pa.bool_()),
        ],
        schema=BATCH_TABLE_SCHEMA,
    )
    claim_counts = np.bincount(evaluation.claim_doc, minlength=n_docs)[:n_docs]
    citation_counts = np.bincount(doc, minlength=n_docs)[:n_docs]
    flagged = np.bincount(doc, weights=status != 0, minlength=n_docs)[:n_docs].astype(np.int64)
    ok_docs = [d for d in range(n_docs) if d not in errors]
    ok = np.asarray(ok_docs, dtype=np.int64)
    documents = pa.Table.from_arrays(
        [
            pa.array([refs[d] for d in ok_docs], pa.string()),
            pa.array(claim_counts[ok], pa.int64()),
            pa.array(citation_counts[ok], pa.int64()),
            pa.array(flagged[ok], pa.int64()),
            pa.array(citation_counts[ok] - flagged[ok], pa.int64()),
        ],
        schema=DOCUMENTS_SCHEMA,
    )
    failed = sorted(errors)
    errors_table = pa.Table.from_arrays(
        [
            pa.array([refs[d] for d in failed], pa.string()),
            pa.array([errors[d][1] for d in failed], pa.string()),
            pa.array([errors[d][0] for d in failed], pa.string()),
        ],
        schema=ERRORS_SCHEMA,
    )
    lo = np.searchsorted(doc, np.arange(n_docs), side="left")
    hi = np.searchsorted(doc, np.arange(n_docs), side="right")
    claim_counts_list = claim_counts.tolist()

    def build(position: int) -> CitationMinimalityReport:
        d = ok_docs[position]
        return evaluation.report(int(lo[d]), int(hi[d]), int(claim_counts_list[d]))

    reports = _Reports([refs[d] for d in ok_docs], build)
    return CitationMinimalityBatchResult(reports, table, documents, errors_table)
