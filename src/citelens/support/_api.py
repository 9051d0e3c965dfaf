"""Claim-level citation support metrics (contract ``support-metrics.md``).

``compute_citation_support_metrics`` turns claims, evidence, citations and adjudications (Python
records, typed records, table objects of :data:`citelens.types.TableLike` (Arrow, Polars eager
or lazy, Arrow datasets, DuckDB relations, any ``__arrow_c_stream__`` object) or data files)
into four canonical Arrow
tables, then evaluates span checks, reason codes, orphans, unused evidence and adjudication
metrics as joins and group-bys over them. Reports hold counts, rates, fixed labels and SHA-256
digests only.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl
import pyarrow as pa

from citelens._pseudonym import pseudonymise, resolve_key
from citelens.errors import CitationSupportError, CitelensError, LimitsError
from citelens.io import _files as _io
from citelens.io._refusal import Refused, describe
from citelens.io._values import is_table_object, read_table_object
from citelens.limits import Limits
from citelens.support import _adapter
from citelens.support._adapter import (
    ADJUDICATION_RECORD_KEYS,
    CITATION_RECORD_KEYS,
    CLAIM_RECORD_KEYS,
    EVIDENCE_RECORD_KEYS,
    Adapted,
    empty_frame,
    has_any_key,
)
from citelens.support._cells import constant, csv_cells
from citelens.support._derive import derive_report_rows
from citelens.support._digest import support_digests
from citelens.support._fields import CSV_BOOLEAN_COLUMNS, CSV_INTEGER_COLUMNS, raise_first
from citelens.support._kernel import DOC, REASON_CODES, KernelResult, run_kernel
from citelens.support._normalize import (
    ROW,
    adjudication_stage,
    citation_stage,
    claim_stage,
    evidence_stage,
    key_stage,
    source_length_stage,
)
from citelens.support._pyvalues import bounded_items
from citelens.support._records import (
    AtomicClaim,
    Citation,
    ClinicianAdjudication,
    EvidenceSpan,
)
from citelens.support._report import (
    DISCLAIMER,
    SCHEMA_VERSION,
    SUITE,
    CitationSupportReport,
    ClinicianAdjudicationMetrics,
    DeterministicSpanChecks,
    SupportTables,
    _guard,
)
from citelens.support._rules import fail
from citelens.support._schema import ADJUDICATION_SCHEMA, CLAIM_SCHEMA, EDGE_SCHEMA, EVIDENCE_SCHEMA
from citelens.types import CollectionLike

__all__ = [
    "ADJUDICATION_LABELS",
    "DISCLAIMER",
    "REASON_CODES",
    "SCHEMA_VERSION",
    "SUITE",
    "AtomicClaim",
    "Citation",
    "CitationSupportError",
    "CitationSupportReport",
    "CitelensError",
    "ClinicianAdjudication",
    "ClinicianAdjudicationMetrics",
    "DeterministicSpanChecks",
    "EvidenceSpan",
    "Limits",
    "LimitsError",
    "SupportTables",
    "compute_citation_support_metrics",
]

ADJUDICATION_LABELS: tuple[str, ...] = ("supports", "contradicts", "irrelevant", "unclear")

DEFAULT_CLAIMS = 100_000
DEFAULT_EVIDENCE = 200_000
DEFAULT_CITATIONS = 500_000
DEFAULT_ADJUDICATIONS = 500_000


class _Bounds:
    def __init__(self, limits: Limits) -> None:
        self.claims = limits.resolve("claims", DEFAULT_CLAIMS)
        self.evidence = limits.resolve("evidence", DEFAULT_EVIDENCE)
        self.citations = limits.resolve("citations", DEFAULT_CITATIONS)
        self.adjudications = limits.resolve("adjudications", DEFAULT_ADJUDICATIONS)


# -- collection classification (§3.2, §4) -----------------------------------------------------

_EMPTY = ("empty", None)


def _classify(value: Any, name: str, limit: int) -> tuple[str, Any]:
    """``("empty"|"table"|"rows"|"mapping"|"json_object", payload)`` for a collection, a table
    as an Arrow table (the form the reference record rules read tables in)."""
    kind, payload = _classify_read(value, name, limit)
    if isinstance(payload, pl.DataFrame):
        return kind, payload.to_arrow()
    return kind, payload


# The input labels of the readers' details (``claims file not found``), as the CLI names them.
_LABELS = {
    "claim collection": "claims",
    "evidence collection": "evidence",
    "citation collection": "citations",
    "adjudication collection": "adjudications",
}


def _classify_read(value: Any, name: str, limit: int) -> tuple[str, Any]:
    """:func:`_classify` as the engine reads it: a Parquet file of plain columns is a Polars
    frame read by Polars (no Arrow table in between: about half the memory)."""
    if value is None:
        return _EMPTY
    suffix = _io.data_file_suffix(value)
    content: Any = None
    if is_table_object(value) or suffix is not None:
        detail: str | None = None
        try:
            if suffix is not None:
                content = _io.read_data_frame(value, limit)
            else:
                content = read_table_object(value, limit)
        except _io.ReadFailure as refused:  # the message is the contract's, the detail says why
            detail = describe(refused, _LABELS.get(name, name))
        if detail is not None:
            raise fail(f"{name} must be an iterable of records", "collection", detail)
        if isinstance(content, pa.Table | pl.DataFrame):
            if len(content) > limit:
                raise fail(f"{name} exceeds the record limit", "limit")
            return "table", content
        if suffix == ".json":
            if isinstance(content, list):
                content = [_io.drop_nulls(item) for item in content]
            elif isinstance(content, dict):
                return "json_object", content
            else:
                raise fail(f"{name} must be an iterable of records", "collection")
        items = bounded_items(content, name, limit)
        return "rows", items
    if isinstance(value, str | bytes | bytearray | os.PathLike):
        # a path whose name no reader knows (``claims.txt``, ``Path("/nope")``), or text
        # that is no collection
        unknown = describe(Refused("type"), _LABELS.get(name, name))
        raise fail(f"{name} must be an iterable of records", "collection", unknown)
    if isinstance(value, Mapping):
        return "mapping", value
    return "rows", bounded_items(value, name, limit)


def _json_object(content: dict[str, Any], record_keys: frozenset[str]) -> dict[str, Any]:
    """A ``.json`` object: one record (nulls dropped) or a compact mapping (entries kept)."""
    if any(key in content for key in record_keys):
        dropped: dict[str, Any] = _io.drop_nulls(content)
        return dropped
    return {key: _io.drop_nulls(entry) for key, entry in content.items()}


def _with_doc(frame: pl.DataFrame, document: int) -> pl.DataFrame:
    return frame.with_columns(pl.lit(document, dtype=pl.UInt32).alias(DOC))


def _zero(frame: pl.DataFrame) -> pl.Series:
    return constant(0, frame.height, pl.UInt32).alias(DOC)


def _drop_doc(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.drop([c for c in (DOC, ROW) if c in frame.columns])


def _collection(
    value: Any,
    name: str,
    limit: int,
    record_keys: frozenset[str],
    empty: tuple[pa.Schema, ...],
    engine: Callable[[Adapted], Any],
    rows: Callable[[list[Any]], Adapted],
    compact: Callable[[Mapping[Any, Any], int], Adapted],
) -> Any:
    """One collection stage: classify, adapt (tables as they are; Python objects by the thin
    adapter), then evaluate by the columnar rule engine, which names the first defective row.
    A compact mapping's first pass (its keys, and what its values are) is evaluated first."""
    kind, payload = _classify_read(value, name, limit)
    if kind == "empty" or (kind == "rows" and not payload):
        frames = tuple(empty_frame(schema) for schema in empty)
        return frames if len(frames) > 1 else frames[0]
    if kind == "table":
        frame = payload if isinstance(payload, pl.DataFrame) else pl.from_arrow(payload)
        assert isinstance(frame, pl.DataFrame)
        csv = _io.data_file_suffix(value) == ".csv"
        typed = csv_cells(frame, CSV_INTEGER_COLUMNS, CSV_BOOLEAN_COLUMNS) if csv else {}
        return engine(Adapted(frame, typed))
    if kind == "json_object":
        payload, kind = _json_object(payload, record_keys), "mapping"
    if kind == "mapping":
        if has_any_key(payload, record_keys):
            adapted = rows([payload])
        else:
            adapted = compact(payload, limit)
            if adapted.keys is not None:
                raise_first(key_stage(adapted.keys, adapted.key_shape))
    else:
        adapted = rows(payload)
    return engine(adapted)


def _claims_engine(bounds: _Bounds, lengths: dict[str, int]) -> Callable[[Adapted], Any]:
    def run(data: Adapted) -> tuple[pl.DataFrame, pl.DataFrame]:
        stage = claim_stage(
            data.frame, _zero(data.frame), bounds.citations, lengths, data.typed, form=data.form
        )
        raise_first(stage.problem)
        return _drop_doc(stage.claims), _drop_doc(stage.edges)

    return run


def _evidence_engine(bounds: _Bounds, lengths: dict[str, int]) -> Callable[[Adapted], Any]:
    def run(data: Adapted) -> tuple[pl.DataFrame, pl.DataFrame]:
        stage = evidence_stage(
            data.frame, _zero(data.frame), bounds.adjudications, lengths, data.typed, form=data.form
        )
        raise_first(stage.problem)
        return _drop_doc(stage.evidence), _drop_doc(stage.adjudications)

    return run


def _citations_engine(bounds: _Bounds) -> Callable[[Adapted], Any]:
    def run(data: Adapted) -> pl.DataFrame:
        stage = citation_stage(
            data.frame, _zero(data.frame), data.typed, form=data.form, limit=bounds.citations
        )
        raise_first(stage.problem)
        return _drop_doc(stage.edges)

    return run


def _adjudications_engine(data: Adapted) -> pl.DataFrame:
    stage = adjudication_stage(data.frame, _zero(data.frame), data.typed, form=data.form)
    raise_first(stage.problem)
    return _drop_doc(stage.adjudications)


def _source_lengths(value: Any, limit: int) -> dict[str, int]:
    """Stage 1: ``source_lengths`` through the adapter and the engine."""
    cells = _adapter.source_lengths(value, limit)
    if cells is None:
        return {}
    lengths, problem = source_length_stage(*cells)
    raise_first(problem)
    return lengths


def _compute(
    claims: Any,
    evidence: Any,
    citations: Any,
    adjudications: Any,
    source_lengths: Any,
    bounds: _Bounds,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    lengths = _source_lengths(source_lengths, bounds.evidence)

    # Stage 2: claims.
    claim_table, embedded_edges = _collection(
        claims,
        "claim collection",
        bounds.claims,
        CLAIM_RECORD_KEYS,
        (CLAIM_SCHEMA, EDGE_SCHEMA),
        _claims_engine(bounds, lengths),
        lambda items: _adapter.records(items, "claim"),
        _adapter.compact_claims,
    )
    # Stage 3: evidence.
    evidence_table, embedded_adj = _collection(
        evidence,
        "evidence collection",
        bounds.evidence,
        EVIDENCE_RECORD_KEYS,
        (EVIDENCE_SCHEMA, ADJUDICATION_SCHEMA),
        _evidence_engine(bounds, lengths),
        lambda items: _adapter.records(items, "evidence"),
        _adapter.compact_evidence,
    )

    # Stages 4-5: duplicate identifiers.
    claim_frame = _with_doc(claim_table, 0)
    evidence_frame = _with_doc(evidence_table, 0)
    if claim_frame.height != claim_frame["claim_id"].n_unique():
        raise fail("duplicate claim identifiers", "reference")
    if evidence_frame.height != evidence_frame["evidence_id"].n_unique():
        raise fail("duplicate evidence identifiers", "reference")

    # Stage 6-7: explicit citations and the combined edge bound.
    explicit_edges = _collection(
        citations,
        "citation collection",
        bounds.citations,
        CITATION_RECORD_KEYS,
        (EDGE_SCHEMA,),
        _citations_engine(bounds),
        _adapter.citations,
        _adapter.compact_citations,
    )
    if embedded_edges.height + explicit_edges.height > bounds.citations:
        raise fail("citation collection exceeds the record limit", "limit")
    edge_frame = _with_doc(
        pl.concat(
            [_canonical(embedded_edges, EDGE_SCHEMA), _canonical(explicit_edges, EDGE_SCHEMA)]
        ),
        0,
    )

    # Stages 9-10: explicit adjudications and the combined bound.
    explicit_adj = _collection(
        adjudications,
        "adjudication collection",
        bounds.adjudications,
        ADJUDICATION_RECORD_KEYS,
        (ADJUDICATION_SCHEMA,),
        _adjudications_engine,
        lambda items: _adapter.records(items, "adjudication"),
        _adapter.compact_adjudications,
    )
    if embedded_adj.height + explicit_adj.height > bounds.adjudications:
        raise fail("adjudication collection exceeds the record limit", "limit")
    adjudication_frame = _with_doc(
        pl.concat(
            [
                _canonical(embedded_adj, ADJUDICATION_SCHEMA),
                _canonical(explicit_adj, ADJUDICATION_SCHEMA),
            ]
        ),
        0,
    )
    return (
        _canonical(claim_frame, CLAIM_SCHEMA, doc=True),
        _canonical(evidence_frame, EVIDENCE_SCHEMA, doc=True),
        edge_frame,
        adjudication_frame,
    )


def _canonical(frame: pl.DataFrame, schema: pa.Schema, *, doc: bool = False) -> pl.DataFrame:
    """The canonical column order and dtypes of ``schema`` (plus ``_d`` when asked)."""
    columns = [
        pl.col(f.name).cast(pl.Int64 if pa.types.is_integer(f.type) else pl.String) for f in schema
    ]
    if doc:
        columns.append(pl.col(DOC))
    return frame.select(columns)


def _report_from_row(row: dict[str, Any]) -> CitationSupportReport:
    """The report object of one derived report row (:func:`derive_report_rows`): every value
    is read, none is computed here."""
    det = "deterministic_span_checks."
    adj = "clinician_adjudication."
    reasons = {
        code: row[f"{det}invalid_citation_reasons.{code}"]
        for code in REASON_CODES
        if row[f"{det}invalid_citation_reasons.{code}"]
    }
    deterministic = DeterministicSpanChecks(
        **{
            f.name: row[det + f.name]
            for f in dataclasses.fields(DeterministicSpanChecks)
            if f.name != "invalid_citation_reasons"
        },
        invalid_citation_reasons=reasons,
    )
    adjudication = ClinicianAdjudicationMetrics(
        **{
            f.name: row[adj + f.name]
            for f in dataclasses.fields(ClinicianAdjudicationMetrics)
            if f.name != "label_counts"
        },
        label_counts={name: row[f"{adj}label_counts.{name}"] for name in ADJUDICATION_LABELS},
    )
    return CitationSupportReport(
        claim_count=row["claim_count"],
        evidence_count=row["evidence_count"],
        citation_count=row["citation_count"],
        orphan_claim_count=row["orphan_claim_count"],
        unused_evidence_count=row["unused_evidence_count"],
        deterministic=deterministic,
        adjudication=adjudication,
        claim_digest=row["provenance.claim_digest"],
        evidence_digest=row["provenance.evidence_digest"],
        adjudication_digest=row["provenance.adjudication_digest"],
        input_digest=row["provenance.input_digest"],
    )


def _tables_builder(kernel: KernelResult) -> Callable[..., SupportTables]:
    def build(raw_identifiers: bool, pseudonym_key: object = None) -> SupportTables:
        # One key for the four tables of this call, so their pseudonyms join; without a
        # caller key it is random, drawn here and dropped when the call returns.
        secret = b"" if raw_identifiers else resolve_key(pseudonym_key, CitationSupportError)

        def ids(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
            if raw_identifiers:
                return frame
            return pseudonymise(frame, columns, secret)

        claims = (
            ids(kernel.claims, ["claim_id", "source_id", "claim_type"])
            .select(
                "claim_id",
                "start",
                "end",
                "source_id",
                "source_length",
                "claim_type",
                "span_status",
                "orphan",
                "adjudicated",
                "supported",
            )
            .sort("claim_id")
        )
        evidence = (
            ids(kernel.evidence, ["evidence_id", "source_id"])
            .select(
                "evidence_id", "start", "end", "source_id", "source_length", "span_status", "used"
            )
            .sort("evidence_id")
        )
        key = ["claim_id", "evidence_id", "start", "end", "source_id"]
        edges = (
            ids(kernel.edges, ["claim_id", "evidence_id", "source_id"])
            .select(*key, "multiplicity", "reason", "valid", "label")
            .sort(key, nulls_last=False)
        )
        adjudications = (
            ids(kernel.adjudications, ["claim_id", "evidence_id"])
            .select("claim_id", "evidence_id", "label", "origin", "matched")
            .with_columns(
                pl.col("label")
                .replace_strict(dict(zip(ADJUDICATION_LABELS, range(4))), return_dtype=pl.UInt8)
                .alias("_code")
            )
            .sort(["claim_id", "evidence_id", "_code", "origin"])
            .drop("_code")
        )
        return SupportTables(
            claims=_arrow(claims, _CLAIM_OUT),
            evidence=_arrow(evidence, _EVIDENCE_OUT),
            edges=_arrow(edges, _EDGE_OUT),
            adjudications=_arrow(adjudications, _ADJ_OUT),
        )

    return build


_S, _I, _B = pa.large_string(), pa.int64(), pa.bool_()
_CLAIM_OUT = pa.schema(
    [
        pa.field("claim_id", _S, False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, False),
        pa.field("source_length", _I),
        pa.field("claim_type", _S, False),
        pa.field("span_status", _S, False),
        pa.field("orphan", _B, False),
        pa.field("adjudicated", _B, False),
        pa.field("supported", _B, False),
    ]
)
_EVIDENCE_OUT = pa.schema(
    [
        pa.field("evidence_id", _S, False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, False),
        pa.field("source_length", _I),
        pa.field("span_status", _S, False),
        pa.field("used", _B, False),
    ]
)
_EDGE_OUT = pa.schema(
    [
        pa.field("claim_id", _S, False),
        pa.field("evidence_id", _S, False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, False),
        pa.field("multiplicity", _I, False),
        pa.field("reason", _S),
        pa.field("valid", _B, False),
        pa.field("label", _S),
    ]
)
_ADJ_OUT = pa.schema(
    [
        pa.field("claim_id", _S, False),
        pa.field("evidence_id", _S, False),
        pa.field("label", _S, False),
        pa.field("origin", _S, False),
        pa.field("matched", _B, False),
    ]
)


def _arrow(frame: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    table = frame.to_arrow()
    return pa.Table.from_arrays([table.column(f.name).cast(f.type) for f in schema], schema=schema)


def _evaluate(
    claims: Any,
    evidence: Any,
    citations: Any,
    adjudications: Any,
    source_lengths: Any,
    limits: Limits,
) -> CitationSupportReport:
    bounds = _Bounds(limits)
    frames = list(_compute(claims, evidence, citations, adjudications, source_lengths, bounds))
    return report_of_frames(frames)


def report_of_frames(frames: list[pl.DataFrame]) -> CitationSupportReport:
    """The report of one document's canonical frames (claims, evidence, all edges, all
    adjudications, each with ``_d = 0``); ``frames`` is emptied (see ``run_kernel``)."""
    # A single call is a corpus of one document (``_d = 0``): the same kernel, digests and
    # report derivation as every corpus batch.
    documents = pl.DataFrame({DOC: [0]}, schema={DOC: pl.UInt32})
    kernel = run_kernel(frames, documents)
    digests = support_digests(documents[DOC].to_numpy(), kernel)
    row = derive_report_rows(kernel.documents, digests).row(0, named=True)
    report = _report_from_row(row)
    object.__setattr__(report, "_tables_builder", _tables_builder(kernel))
    return report


def compute_citation_support_metrics(
    claims: CollectionLike,
    evidence: CollectionLike | None = (),
    citations: CollectionLike | None = None,
    adjudications: CollectionLike | None = None,
    *,
    source_lengths: Mapping[str, int] | None = None,
    limits: Limits | None = None,
) -> CitationSupportReport:
    """Evaluate citation support for atomic claims.

    Args:
        claims: atomic claims (records, typed ``AtomicClaim``s, a compact mapping, a table
            object: Arrow table/batch/reader/dataset, Polars ``DataFrame``/``LazyFrame``, DuckDB
            relation or any ``__arrow_c_stream__`` object, or a data-file path).
        evidence: evidence spans (same forms); ``None`` means none.
        citations: explicit claim → evidence edges; ``None`` means none.
        adjudications: reviewer labels for claim/evidence pairs; ``None`` = not supplied.
        source_lengths: optional mapping source id → length, filling missing lengths.
        limits: ``None`` or a :class:`citelens.Limits` raising or lowering the bounds.

    Returns:
        A :class:`CitationSupportReport` (counts, rates and digests only).

    Raises:
        CitationSupportError: a fixed catalogue message with a category, never chained.
    """
    if limits is not None and not isinstance(limits, Limits):
        raise CitationSupportError("limits must be a Limits instance", "policy")
    bounded = limits or Limits()
    return _guard(
        lambda: _evaluate(claims, evidence, citations, adjudications, source_lengths, bounded)
    )
