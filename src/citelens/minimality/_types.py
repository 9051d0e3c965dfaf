"""Typed input records and result objects of :mod:`citelens.minimality` (§5, §12)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from citelens._fixed import attempt
from citelens._jsonout import canonical_json
from citelens.errors import CitationMinimalityError
from citelens.minimality._cells import SpanValue, cells_from_values
from citelens.minimality._flatten import LevelBuilder
from citelens.minimality._rules import (
    CODE_IDENTIFIER,
    derive_citation_ids,
    error,
    identifier_mask,
    offset_problems,
    problem_error,
)
from citelens.minimality._tables import Ranker, evaluate_chains, offsets_of

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "CITATION_MINIMALITY_DISCLAIMER",
    "CITATION_MINIMALITY_SCHEMA_VERSION",
    "CitationMinimalityRecord",
    "CitationMinimalityReport",
    "CitationMinimalityStatus",
    "CitationSpan",
    "ClaimCitation",
    "MinimalityClaim",
    "check_identifier",
]

CITATION_MINIMALITY_SCHEMA_VERSION = 1
CITATION_MINIMALITY_DISCLAIMER = (
    "Citation minimality is a deterministic, value-free review aid. It does not establish "
    "clinical truth, entailment, or compliance certification."
)


def _raise(code: int) -> None:
    if code:
        raise problem_error(code)


def check_identifier(value: object) -> str:
    """Return ``value`` if it is an opaque ``sha256:`` reference (§4), else raise."""
    valid = bool(attempt(lambda: identifier_mask([value]))[0])
    _raise(0 if valid else CODE_IDENTIFIER)
    assert isinstance(value, str)
    return value


def _offsets_code(start: object, end: object) -> int:
    """§5 on one pair of offsets, through the column rule (a one-row column)."""
    bigs: list[int] = []
    ranker_cells = cells_from_values([start], bigs), cells_from_values([end], bigs)
    ranker = Ranker(bigs)
    start_int, starts = offsets_of(ranker_cells[0], ranker)
    end_int, ends = offsets_of(ranker_cells[1], ranker)
    return int(offset_problems(start_int, starts, end_int, ends)[0])


def _span_of(value: object) -> tuple[int, int, int]:
    """SPAN_FROM on one value: the adapter flattens it, the column rules decide."""
    bigs: list[int] = []
    builder = LevelBuilder()
    builder.walk(value, 0, 0)
    levels = builder.levels(bigs)
    ranker = Ranker(bigs)
    chains = evaluate_chains(levels, ranker, 1, 1)
    code = int(chains.code[0, 0])
    if code:
        return code, 0, 0
    start, end = ranker.raw(chains.starts[0]) + ranker.raw(chains.ends[0])
    return 0, start, end


@dataclass(frozen=True)
class CitationSpan(SpanValue):
    """A validated, non-empty half-open code-point span ``[start, end)``."""

    start: int
    end: int

    def __post_init__(self) -> None:
        _raise(attempt(lambda: _offsets_code(self.start, self.end)))

    @property
    def source_offset(self) -> tuple[int, int]:
        """``(start, end)``."""
        return (self.start, self.end)

    def to_dict(self) -> dict[str, int]:
        """``{"start": start, "end": end}``."""
        return {"start": self.start, "end": self.end}

    @classmethod
    def from_obj(cls, value: object) -> CitationSpan:
        """Parse a span value (pair, mapping, nested ``offset`` wrappers; §6 SPAN_FROM)."""
        code, start, end = attempt(lambda: _span_of(value))
        _raise(code)
        return cls._trusted(start, end)

    @classmethod
    def _trusted(cls, start: int, end: int) -> CitationSpan:
        span = object.__new__(cls)
        span.__dict__.update(start=start, end=end)
        return span


def _checked_span(value: object) -> CitationSpan:
    return CitationSpan.from_obj(value)


@dataclass(frozen=True, init=False)
class MinimalityClaim:
    """An atomic claim of a minimality check: an opaque ``sha256:`` id and the source span
    the claim requires (named apart from :class:`citelens.support.AtomicClaim`, a different
    record).

    ``required_span`` may be any span value :meth:`CitationSpan.from_obj` accepts
    (``MinimalityClaim(cid, [6, 10])`` works); it is stored as a :class:`CitationSpan`.
    """

    claim_id: str
    required_span: CitationSpan

    def __init__(self, claim_id: str, required_span: object) -> None:
        check_identifier(claim_id)
        object.__setattr__(self, "claim_id", claim_id)
        object.__setattr__(self, "required_span", _checked_span(required_span))

    def to_dict(self) -> dict[str, Any]:
        """``{"claim_id": …, "required_offset": {"start": …, "end": …}}``."""
        return {"claim_id": self.claim_id, "required_offset": self.required_span.to_dict()}


@dataclass(frozen=True, init=False)
class ClaimCitation:
    """One citation of a claim; ``citation_id`` is derived (§4) when ``None``."""

    claim_id: str
    source_span: CitationSpan
    citation_id: str

    def __init__(self, claim_id: str, source_span: object, citation_id: str | None = None) -> None:
        check_identifier(claim_id)
        span = _checked_span(source_span)
        if citation_id is None:
            citation_id = derive_citation_ids([claim_id], [span.start], [span.end])[0]
        else:
            check_identifier(citation_id)
        object.__setattr__(self, "claim_id", claim_id)
        object.__setattr__(self, "source_span", span)
        object.__setattr__(self, "citation_id", citation_id)

    def to_dict(self) -> dict[str, Any]:
        """``{"claim_id": …, "citation_id": …, "citation_offset": {…}}``."""
        return {
            "claim_id": self.claim_id,
            "citation_id": self.citation_id,
            "citation_offset": self.source_span.to_dict(),
        }


class CitationMinimalityStatus(StrEnum):
    """The controlled review status of one citation."""

    MINIMAL = "minimal"
    EXCESS_CONTEXT = "excess_context"
    MISSING_REQUIRED_SPAN = "missing_required_span"


_STATUS_BY_VALUE = {status.value: status for status in CitationMinimalityStatus}
STATUS_BY_CODE = (
    CitationMinimalityStatus.MINIMAL,
    CitationMinimalityStatus.EXCESS_CONTEXT,
    CitationMinimalityStatus.MISSING_REQUIRED_SPAN,
)


def _report_error(message: str) -> CitationMinimalityError:
    return error(message, "report")


def _context_spans(citation: CitationSpan, required: CitationSpan) -> tuple[CitationSpan, ...]:
    pieces: list[CitationSpan] = []
    if citation.start < required.start:
        pieces.append(CitationSpan(citation.start, required.start))
    if citation.end > required.end:
        pieces.append(CitationSpan(required.end, citation.end))
    return tuple(pieces)


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0


@dataclass(frozen=True)
class CitationMinimalityRecord:
    """The result for one citation: offsets, token counts, status and review flag."""

    claim_id: str
    citation_id: str
    citation_span: CitationSpan
    required_span: CitationSpan
    citation_token_count: int
    required_token_count: int
    excess_token_count: int
    excess_context_spans: tuple[CitationSpan, ...]
    status: CitationMinimalityStatus
    review_required: bool

    def __post_init__(self) -> None:
        check_identifier(self.claim_id)
        check_identifier(self.citation_id)
        citation = CitationSpan.from_obj(self.citation_span)
        required = CitationSpan.from_obj(self.required_span)
        object.__setattr__(self, "citation_span", citation)
        object.__setattr__(self, "required_span", required)
        counts = (self.citation_token_count, self.required_token_count, self.excess_token_count)
        if not all(_is_count(count) for count in counts):
            raise _report_error("token counts must be non-negative integers")
        status = self.status
        if isinstance(status, CitationMinimalityStatus):
            pass
        elif type(status) is str and status in _STATUS_BY_VALUE:
            status = _STATUS_BY_VALUE[status]
        else:
            raise _report_error("unsupported citation minimality status")
        object.__setattr__(self, "status", status)
        if type(self.review_required) is not bool:
            raise _report_error("review_required must be a boolean")
        object.__setattr__(self, "excess_context_spans", self._context_tuple())
        missing = status is CitationMinimalityStatus.MISSING_REQUIRED_SPAN
        if self.review_required != (status is not CitationMinimalityStatus.MINIMAL):
            raise _report_error("citation review flag conflicts with status")
        covers = citation.start <= required.start and citation.end >= required.end
        if missing == covers:
            raise _report_error("citation status conflicts with coverage")
        expected = _context_spans(citation, required) if covers else ()
        if self.excess_context_spans != expected or self.required_token_count < 1:
            raise _report_error("citation context or token counts are invalid")
        excess = self.citation_token_count - self.required_token_count if covers else 0
        if self.excess_token_count != excess:
            raise _report_error("citation token counts are inconsistent")

    def _context_tuple(self) -> tuple[CitationSpan, ...]:
        value: object = self.excess_context_spans
        items: list[Any] = []
        failed = False
        try:
            for item in value:  # type: ignore[attr-defined]
                items.append(item)
                if len(items) > 2:
                    break
        except Exception:  # a caller value that is not iterable or raises (§12.4)
            failed = True
        if failed:
            raise _report_error("excess context must contain CitationSpan records")
        if len(items) > 2:
            raise _report_error("citation collection is invalid or exceeds limit")
        if not all(isinstance(item, CitationSpan) for item in items):
            raise _report_error("excess context must contain CitationSpan records")
        return tuple(items)

    @classmethod
    def _trusted(cls, **values: Any) -> CitationMinimalityRecord:
        record = object.__new__(cls)
        record.__dict__.update(values)
        return record

    @property
    def citation_offset(self) -> tuple[int, int]:
        """``(start, end)`` of the citation."""
        return self.citation_span.source_offset

    @property
    def required_offset(self) -> tuple[int, int]:
        """``(start, end)`` of the claim's required span."""
        return self.required_span.source_offset

    def sort_key(self) -> tuple[str, str, int, int, int, int]:
        """The §10 order: claim id, citation id, citation offsets, required offsets."""
        return (
            self.claim_id,
            self.citation_id,
            self.citation_span.start,
            self.citation_span.end,
            self.required_span.start,
            self.required_span.end,
        )

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data, keys in contract order (§12.1)."""
        return {
            "claim_id": self.claim_id,
            "citation_id": self.citation_id,
            "citation_offset": self.citation_span.to_dict(),
            "required_offset": self.required_span.to_dict(),
            "citation_token_count": self.citation_token_count,
            "required_token_count": self.required_token_count,
            "excess_token_count": self.excess_token_count,
            "excess_context_offsets": [span.to_dict() for span in self.excess_context_spans],
            "status": self.status.value,
            "review_required": self.review_required,
        }


def _iter_records(value: object) -> Iterator[Any]:
    yield from value  # type: ignore[misc]


@dataclass(frozen=True)
class CitationMinimalityReport:
    """The value-free minimality report of one source text (§11, §12.2)."""

    records: tuple[CitationMinimalityRecord, ...]
    claim_count: int
    max_excess_tokens: int = 0
    schema_version: int = CITATION_MINIMALITY_SCHEMA_VERSION
    disclaimer: str = field(default=CITATION_MINIMALITY_DISCLAIMER)

    def __post_init__(self) -> None:
        if type(self.schema_version) is not int or self.schema_version != 1:
            raise _report_error("unsupported citation minimality schema version")
        if not _is_count(self.claim_count):
            raise _report_error("claim_count must be a non-negative integer")
        if not _is_count(self.max_excess_tokens):
            raise _report_error("max_excess_tokens must be a non-negative integer")
        if type(self.disclaimer) is not str or self.disclaimer != CITATION_MINIMALITY_DISCLAIMER:
            raise _report_error("citation minimality disclaimer is required")
        records: list[Any] = []
        failed = False
        try:
            records = list(_iter_records(self.records))
        except Exception:  # a caller value that is not iterable or raises (§12.4)
            failed = True
        if failed or not all(isinstance(item, CitationMinimalityRecord) for item in records):
            raise _report_error("records must contain CitationMinimalityRecord values")
        if len({record.claim_id for record in records}) > self.claim_count:
            raise _report_error("claim_count is inconsistent")
        for record in records:
            if record.status is CitationMinimalityStatus.MISSING_REQUIRED_SPAN:
                continue
            expected = (
                CitationMinimalityStatus.EXCESS_CONTEXT
                if record.excess_token_count > self.max_excess_tokens
                else CitationMinimalityStatus.MINIMAL
            )
            if record.status is not expected:
                raise _report_error("citation status conflicts with policy")
        records.sort(key=CitationMinimalityRecord.sort_key)
        object.__setattr__(self, "records", tuple(records))

    @classmethod
    def _trusted(
        cls,
        records: tuple[CitationMinimalityRecord, ...],
        claim_count: int,
        max_excess_tokens: int,
    ) -> CitationMinimalityReport:
        report = object.__new__(cls)
        report.__dict__.update(
            records=records,
            claim_count=claim_count,
            max_excess_tokens=max_excess_tokens,
            schema_version=CITATION_MINIMALITY_SCHEMA_VERSION,
            disclaimer=CITATION_MINIMALITY_DISCLAIMER,
        )
        return report

    @property
    def citation_count(self) -> int:
        """Number of records (one per submitted citation)."""
        return len(self.records)

    @property
    def flagged_count(self) -> int:
        """Number of records that need review."""
        return sum(1 for record in self.records if record.review_required)

    @property
    def minimal_count(self) -> int:
        """``citation_count - flagged_count``."""
        return self.citation_count - self.flagged_count

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data, keys in contract order (§12.2)."""
        return {
            "schema_version": self.schema_version,
            "claim_count": self.claim_count,
            "citation_count": self.citation_count,
            "flagged_count": self.flagged_count,
            "max_excess_tokens": self.max_excess_tokens,
            "records": [record.to_dict() for record in self.records],
            "disclaimer": self.disclaimer,
        }

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, compact, ASCII, one trailing newline)."""
        return canonical_json(self.to_dict())

    def to_arrow(self) -> pa.Table:
        """The records as an Arrow table, one row per record in report order: the columns of
        the batch table (minimality.md §14) without ``document_ref``, the table
        ``citelens minimality --parquet`` writes."""
        from citelens.minimality._batch import BATCH_TABLE_SCHEMA  # _batch imports this module

        return _records_table(self.records, BATCH_TABLE_SCHEMA.remove(0))

    def to_polars(self) -> pl.DataFrame:
        """:meth:`to_arrow` as a Polars frame."""
        from citelens.io._values import polars_frame

        return polars_frame(self.to_arrow())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of :meth:`to_arrow` (``pa.table(report)``,
        ``pl.from_arrow(report)``, DuckDB read one row per record)."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def to_markdown(self) -> str:
        """The exact Markdown of §12.3 (full ids, offsets and counts; no text)."""
        lines = [
            "# Citation Minimality Report",
            "",
            self.disclaimer,
            "",
            f"Claims: {self.claim_count}",
            f"Citations: {self.citation_count}",
            f"Flagged: {self.flagged_count}",
            "",
            "| # | Claim | Citation | Citation offset | Required offset | Citation tokens | "
            "Required tokens | Excess tokens | Status | Review |",
            "| ---: | --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |",
        ]
        for index, record in enumerate(self.records, start=1):
            cs, ce = record.citation_offset
            rs, re_ = record.required_offset
            lines.append(
                f"| {index} | {record.claim_id} | {record.citation_id} | [{cs}, {ce}) | "
                f"[{rs}, {re_}) | {record.citation_token_count} | "
                f"{record.required_token_count} | {record.excess_token_count} | "
                f"{record.status.value} | {'yes' if record.review_required else 'no'} |"
            )
        return "\n".join(lines) + "\n"


def _records_table(records: Sequence[CitationMinimalityRecord], schema: pa.Schema) -> pa.Table:
    """The per-record table of :meth:`CitationMinimalityReport.to_arrow`. The records are
    Python objects already, so their columns are read off them once; the excess pieces are
    the batch table's: left when the citation starts before the required span, right when it
    ends after it, both null for a citation that misses the required span."""
    cs = [r.citation_span.start for r in records]
    ce = [r.citation_span.end for r in records]
    rs = [r.required_span.start for r in records]
    re_ = [r.required_span.end for r in records]
    covers = [r.status is not CitationMinimalityStatus.MISSING_REQUIRED_SPAN for r in records]
    left = [c and a < b for c, a, b in zip(covers, cs, rs)]
    right = [c and a > b for c, a, b in zip(covers, ce, re_)]
    columns = [
        [r.claim_id for r in records],
        [r.citation_id for r in records],
        cs,
        ce,
        rs,
        re_,
        [r.citation_token_count for r in records],
        [r.required_token_count for r in records],
        [r.excess_token_count for r in records],
        [a if k else None for a, k in zip(cs, left)],
        [b if k else None for b, k in zip(rs, left)],
        [a if k else None for a, k in zip(re_, right)],
        [b if k else None for b, k in zip(ce, right)],
        [r.status.value for r in records],
        [r.review_required for r in records],
    ]
    arrays = [pa.array(column, type=f.type) for column, f in zip(columns, schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def records_from_columns(
    claim_ids: Iterable[str],
    citation_ids: Iterable[str],
    columns: Sequence[Sequence[int]],
) -> tuple[CitationMinimalityRecord, ...]:
    """Build trusted records from engine columns (already validated and sorted).

    ``columns`` = cs, ce, rs, re, citation tokens, required tokens, excess, status code.
    """
    out: list[CitationMinimalityRecord] = []
    make_span = CitationSpan._trusted
    make_record = CitationMinimalityRecord._trusted
    for claim_id, citation_id, cs, ce, rs, re_, ct, rt, ex, code in zip(
        claim_ids, citation_ids, *columns, strict=True
    ):
        status = STATUS_BY_CODE[code]
        if code == 2:
            context: tuple[CitationSpan, ...] = ()
        elif cs < rs:
            context = (make_span(cs, rs), make_span(re_, ce)) if ce > re_ else (make_span(cs, rs),)
        else:
            context = (make_span(re_, ce),) if ce > re_ else ()
        out.append(
            make_record(
                claim_id=claim_id,
                citation_id=citation_id,
                citation_span=make_span(cs, ce),
                required_span=make_span(rs, re_),
                citation_token_count=ct,
                required_token_count=rt,
                excess_token_count=ex,
                excess_context_spans=context,
                status=status,
                review_required=code != 0,
            )
        )
    return tuple(out)
