"""The Python-record adapter: claim and citation records → columns (minimality.md §6).

Walking a record records its checks in contract order (:class:`~._spans.Checks`); one
evaluation over all records then gives each record's first failing check, and the value
columns are built for the records without a problem. Typed records (:class:`MinimalityClaim`,
:class:`ClaimCitation`) are walked like any other record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from citelens.minimality._columns import CitationColumns, ClaimColumns
from citelens.minimality._rules import (
    CODE_FIELDS,
    CODE_NO_CITATION_CLAIM_ID,
    CODE_NO_CLAIM_ID,
    CODE_OFFSETS_REQUIRED,
    derive_citation_ids,
)
from citelens.minimality._spans import MISSING, Checks, Stop, read_value, walk_span
from citelens.minimality._types import ClaimCitation, MinimalityClaim

__all__ = [
    "CITATION_ENDS",
    "CITATION_ID_NAMES",
    "CITATION_SPAN_ALIASES",
    "CITATION_STARTS",
    "CLAIM_ENDS",
    "CLAIM_ID_NAMES",
    "CLAIM_SPAN_ALIASES",
    "CLAIM_STARTS",
    "citations_from_records",
    "claims_from_records",
]

CLAIM_ID_NAMES = ("claim_id", "id")
CLAIM_SPAN_ALIASES = (
    "required_span",
    "minimal_span",
    "required_source_span",
    "minimal_source_span",
    "required_offset",
    "minimal_offset",
    "required_source_offset",
    "minimal_source_offset",
    "source_span",
    "source_offset",
    "source_offsets",
)
CLAIM_STARTS = (
    "required_start",
    "minimal_start",
    "required_source_start",
    "minimal_source_start",
    "source_start",
    "start",
)
CLAIM_ENDS = (
    "required_end",
    "minimal_end",
    "required_source_end",
    "minimal_source_end",
    "source_end",
    "end",
)
CITATION_ID_NAMES = ("citation_id", "evidence_id")
CITATION_SPAN_ALIASES = (
    "source_span",
    "citation_span",
    "citation_source_span",
    "citation_offset",
    "citation_source_offset",
    "source_offset",
    "source_offsets",
    "offset",
)
CITATION_STARTS = ("citation_start", "source_start", "start")
CITATION_ENDS = ("citation_end", "source_end", "end")
# Names SPAN_FROM reads when a record itself falls through to it.
FALLBACK_NAMES = ("start", "source_start", "end", "source_end", "source_offset",
                  "source_offsets", "offset")  # fmt: skip
CLAIM_NAMES = frozenset(
    CLAIM_ID_NAMES + CLAIM_SPAN_ALIASES + CLAIM_STARTS + CLAIM_ENDS + FALLBACK_NAMES
)
CITATION_NAMES = frozenset(
    CLAIM_ID_NAMES
    + CITATION_ID_NAMES
    + CITATION_SPAN_ALIASES
    + CITATION_STARTS
    + CITATION_ENDS
    + FALLBACK_NAMES
)


class _Plan:
    """Which alias names a plain dict of one key shape holds (cached per key shape)."""

    __slots__ = ("aliases", "citation_ids", "ends", "ids", "starts")

    def __init__(self, present: frozenset[str], claims: bool) -> None:
        def hits(names: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(name for name in names if name in present)

        self.ids = hits(CLAIM_ID_NAMES)
        self.citation_ids = () if claims else hits(CITATION_ID_NAMES)
        self.aliases = hits(CLAIM_SPAN_ALIASES if claims else CITATION_SPAN_ALIASES)
        self.starts = hits(CLAIM_STARTS if claims else CITATION_STARTS)
        self.ends = hits(CLAIM_ENDS if claims else CITATION_ENDS)


_PLANS: dict[tuple[bool, frozenset[str]], _Plan] = {}


def _plan(record: dict[Any, Any], claims: bool) -> _Plan:
    names = CLAIM_NAMES if claims else CITATION_NAMES
    present: frozenset[str] = frozenset()
    failed = False
    try:
        present = frozenset(key for key in record.keys() & names if record[key] is not None)
    except Exception:  # a caller key whose __eq__/__hash__ raises: the fixed record error
        failed = True
    if failed:
        raise Stop(CODE_FIELDS)
    key = (claims, present)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        plan = _PLANS[key] = _Plan(present, claims)
    return plan


def _get(record: dict[Any, Any], hits: tuple[str, ...]) -> Any:
    """READ restricted to the aliases known to be present (same result as the full READ)."""
    if not hits:
        return MISSING
    if len(hits) == 1:
        return record[hits[0]]
    return read_value(record, hits)


def _finish(checks: Checks, record: object, spans: list[int], start: Any, end: Any) -> int:
    """§6 claim/citation steps 3–5: explicit pair, alias conflicts, the record itself as a span."""
    if (start is MISSING) != (end is MISSING):
        raise Stop(CODE_OFFSETS_REQUIRED)
    if start is not MISSING:
        spans.append(checks.span(start, end))
    if not spans:
        return walk_span(checks, record, 0)
    for other in spans[1:]:
        checks.same(spans[0], other)
    return spans[0]


def _spans_of(
    checks: Checks, record: object, aliases: tuple[str, ...], starts: tuple[str, ...],
    ends: tuple[str, ...],
) -> int:  # fmt: skip
    spans: list[int] = []
    for name in aliases:
        value = read_value(record, (name,))
        if value is not MISSING:
            spans.append(walk_span(checks, value, 0))
    return _finish(checks, record, spans, read_value(record, starts), read_value(record, ends))


def _walk_claim(checks: Checks, record: object) -> tuple[int, int]:
    if isinstance(record, MinimalityClaim):
        required = record.required_span
        return checks.identifier(record.claim_id), checks.span(required.start, required.end)
    if type(record) is dict:
        plan = _plan(record, True)
        claim_id = _get(record, plan.ids)
        if claim_id is MISSING:
            raise Stop(CODE_NO_CLAIM_ID)
        spans = [walk_span(checks, record[name], 0) for name in plan.aliases]
        span = _finish(checks, record, spans, _get(record, plan.starts), _get(record, plan.ends))
    else:
        claim_id = read_value(record, CLAIM_ID_NAMES)
        if claim_id is MISSING:
            raise Stop(CODE_NO_CLAIM_ID)
        span = _spans_of(checks, record, CLAIM_SPAN_ALIASES, CLAIM_STARTS, CLAIM_ENDS)
    return checks.identifier(claim_id), span


def _walk_citation(checks: Checks, record: object) -> tuple[int, int, int]:
    if isinstance(record, ClaimCitation):
        source = record.source_span
        claim = checks.identifier(record.claim_id)
        index = checks.span(source.start, source.end)
        return claim, checks.identifier(record.citation_id), index
    if type(record) is dict:
        plan = _plan(record, False)
        claim_id = _get(record, plan.ids)
        if claim_id is MISSING:
            raise Stop(CODE_NO_CITATION_CLAIM_ID)
        citation_id = _get(record, plan.citation_ids)
        spans = [walk_span(checks, record[name], 0) for name in plan.aliases]
        span = _finish(checks, record, spans, _get(record, plan.starts), _get(record, plan.ends))
    else:
        claim_id = read_value(record, CLAIM_ID_NAMES)
        if claim_id is MISSING:
            raise Stop(CODE_NO_CITATION_CLAIM_ID)
        citation_id = read_value(record, CITATION_ID_NAMES)
        span = _spans_of(checks, record, CITATION_SPAN_ALIASES, CITATION_STARTS, CITATION_ENDS)
    claim = checks.identifier(claim_id)
    cited = -1 if citation_id is MISSING else checks.identifier(citation_id)
    return claim, cited, span


def claims_from_records(records: Sequence[Any]) -> ClaimColumns:
    """Claim records → :class:`ClaimColumns` (every rule evaluated column-wise)."""
    checks = Checks()
    ids: list[int] = []
    spans: list[int] = []
    for record in records:
        failure = 0
        claim = span = -1
        try:
            claim, span = _walk_claim(checks, record)
        except Stop as stop:
            failure = stop.code
        checks.close(failure)
        ids.append(claim)
        spans.append(span)
    problem = checks.evaluate(len(records))
    claim_ids, starts, ends = _values(checks, problem, ids, spans)
    return ClaimColumns(problem, pa.array(claim_ids, pa.string()), starts, ends)


def citations_from_records(records: Sequence[Any]) -> CitationColumns:
    """Citation records → :class:`CitationColumns`; missing citation ids are derived (§4)."""
    checks = Checks()
    ids: list[int] = []
    cited: list[int] = []
    spans: list[int] = []
    for record in records:
        failure = 0
        claim = citation = span = -1
        try:
            claim, citation, span = _walk_citation(checks, record)
        except Stop as stop:
            failure = stop.code
        checks.close(failure)
        ids.append(claim)
        cited.append(citation)
        spans.append(span)
    problem = checks.evaluate(len(records))
    claim_ids, starts, ends = _values(checks, problem, ids, spans)
    values = checks.identifier_values()
    ok = (problem == 0).tolist()
    citation_ids: list[str | None] = [
        (values[c] if c >= 0 else None) if good else "" for c, good in zip(cited, ok, strict=True)
    ]
    missing = [row for row, value in enumerate(citation_ids) if value is None]
    if missing:
        pairs = [checks.span_values(spans[row]) for row in missing]
        derived = derive_citation_ids(
            [claim_ids[row] for row in missing], [p[0] for p in pairs], [p[1] for p in pairs]
        )
        for row, value in zip(missing, derived, strict=True):
            citation_ids[row] = value
    return CitationColumns(
        problem,
        pa.array(claim_ids, pa.string()),
        pa.array(citation_ids, pa.string()),
        starts,
        ends,
    )


def _values(
    checks: Checks, problem: np.ndarray[Any, Any], ids: list[int], spans: list[int]
) -> tuple[list[str], np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.int64]]]:
    """Claim ids and offsets of the records without a problem (placeholders elsewhere)."""
    values = checks.identifier_values()
    ok = problem == 0
    claim_ids = [values[i] if good else "" for i, good in zip(ids, ok.tolist(), strict=True)]
    mapped_starts, mapped_ends = checks.mapped_spans()
    index = np.where(ok, np.asarray(spans, dtype=np.int64), 0)
    if mapped_starts.size:
        starts = np.where(ok, mapped_starts[index], 0).astype(np.int64)
        ends = np.where(ok, mapped_ends[index], 0).astype(np.int64)
    else:
        starts = np.zeros(len(ids), dtype=np.int64)
        ends = np.zeros(len(ids), dtype=np.int64)
    return claim_ids, starts, ends
