"""Typed support records (§3.9).

The constructors normalise and validate their own fields with the per-value rules of
``_rules`` (identifier, offsets, length, claim type, label value). ``from_mapping`` is the record
rule, and runs the columnar rule stages on a collection of one (:func:`typed_claims` and
:func:`typed_evidence` on many at once): the alias, first-value, span and citation-item rules
exist once, in the engine.

Why the constructors keep scalar value checks: a constructor validates one value, and the
column rules cost a fixed few milliseconds per call whatever the row count (about 8 ms for a
``Citation`` against 7 µs; ``benchmarks/README.md``), which would make building typed records
in bulk a thousand times slower. ``tests/support/test_typed_records.py`` pins every constructor
field to the column rules on awkward values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import polars as pl

from citelens.errors import CitationSupportError
from citelens.support._adapter import records
from citelens.support._aliases import DEFAULT_CITATION_LIMIT, TypedRecord
from citelens.support._cells import RowForm, constant
from citelens.support._edges import ROW, adjudication_stage, citation_stage
from citelens.support._fields import raise_first
from citelens.support._normalize import claim_stage, evidence_stage
from citelens.support._pyvalues import bounded_items, python_cell
from citelens.support._rules import (
    SupportFailure,
    claim_type_rule,
    fail,
    identifier,
    int64_or_fail,
    is_int,
    is_pair_sequence,
    normalise_label_value,
    optional_identifier,
)

__all__ = [
    "AtomicClaim",
    "Citation",
    "ClinicianAdjudication",
    "EvidenceSpan",
    "typed_claims",
    "typed_evidence",
]


def _typed(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(...)``, its contract failure raised as ``CitationSupportError`` (not chained)."""
    failure: SupportFailure | None = None
    try:
        return call(*args, **kwargs)
    except SupportFailure as exc:
        failure = exc
    assert failure is not None
    raise CitationSupportError(failure.message, failure.category, failure.detail)


def _document(n: int) -> pl.Series:
    return constant(0, n, pl.UInt32)


def _defaults(n: int, default_id: object) -> RowForm | None:
    return None if default_id is None else RowForm(default=python_cell([default_id] * n))


def _claims(
    items: list[Any], default_id: object, cls: type[AtomicClaim] | None = None
) -> list[AtomicClaim]:
    make = AtomicClaim if cls is None else cls
    adapted = records(items, "claim", _defaults(len(items), default_id), read_typed=False)
    stage = claim_stage(
        adapted.frame,
        _document(len(items)),
        DEFAULT_CITATION_LIMIT,
        {},
        adapted.typed,
        form=adapted.form,
        edges=False,
    )
    raise_first(stage.problem)
    own: list[list[str]] = [[] for _ in items]
    for row, evidence_id in stage.items.select(ROW, "evidence_id").iter_rows():
        own[row].append(evidence_id)
    return [
        make(
            row["claim_id"],
            row["start"],
            row["end"],
            tuple(cited),
            row["source_id"],
            row["source_length"],
            row["claim_type"],
        )
        for row, cited in zip(stage.claims.iter_rows(named=True), own, strict=True)
    ]


def _evidence(
    items: list[Any], default_id: object, cls: type[EvidenceSpan] | None = None
) -> list[EvidenceSpan]:
    make = EvidenceSpan if cls is None else cls
    adapted = records(items, "evidence", _defaults(len(items), default_id), read_typed=False)
    stage = evidence_stage(
        adapted.frame, _document(len(items)), 1, {}, adapted.typed, form=adapted.form, labels=False
    )
    raise_first(stage.problem)
    return [
        make(row["evidence_id"], row["start"], row["end"], row["source_id"], row["source_length"])
        for row in stage.evidence.iter_rows(named=True)
    ]


def typed_claims(items: list[Any]) -> list[AtomicClaim]:
    """``AtomicClaim.from_mapping`` of every item, in one columnar pass: the first defective
    item (in order) raises its first failing step's error."""
    result: list[AtomicClaim] = _typed(_claims, items, None)
    return result


def typed_evidence(items: list[Any]) -> list[EvidenceSpan]:
    """``EvidenceSpan.from_mapping`` of every item, in one columnar pass."""
    result: list[EvidenceSpan] = _typed(_evidence, items, None)
    return result


def _citation(value: object, make: type[Citation]) -> Citation:
    adapted = records([value], "citation", read_typed=False)
    stage = citation_stage(adapted.frame, _document(1), adapted.typed, form=adapted.form)
    raise_first(stage.problem)
    row = stage.edges.row(0, named=True)
    return make(row["claim_id"], row["evidence_id"], row["start"], row["end"], row["source_id"])


def _adjudication(value: object, make: type[ClinicianAdjudication]) -> ClinicianAdjudication:
    adapted = records([value], "adjudication", read_typed=False)
    stage = adjudication_stage(adapted.frame, _document(1), adapted.typed, form=adapted.form)
    raise_first(stage.problem)
    row = stage.adjudications.row(0, named=True)
    return make(row["claim_id"], row["evidence_id"], row["label"])


def _offsets(start: object, end: object) -> tuple[int | None, int | None]:
    out_start = (
        None if start is None else int64_or_fail(start, "span offsets must be integers", "span")
    )
    out_end = None if end is None else int64_or_fail(end, "span offsets must be integers", "span")
    return out_start, out_end


def _length(value: object) -> int | None:
    if value is None:
        return None
    return int64_or_fail(value, "source lengths must be integers", "value")


def _typed_citations(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or is_int(value):
        return (identifier(value),)
    if is_pair_sequence(value):
        items = bounded_items(value, "citation collection", DEFAULT_CITATION_LIMIT)
        return tuple(identifier(item) for item in items)
    raise fail("citation identifiers must be a sequence", "record")


@dataclass(frozen=True, slots=True, repr=False)
class AtomicClaim(TypedRecord):
    """One atomic claim: identifier, optional half-open span, cited evidence identifiers."""

    KIND: ClassVar[str] = "claim"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "claim_id",
        "start",
        "end",
        "citations",
        "source_id",
        "source_length",
        "claim_type",
    )

    claim_id: str
    start: int | None = None
    end: int | None = None
    citations: tuple[str, ...] = ()
    source_id: str = ""
    source_length: int | None = None
    claim_type: str = ""

    def __post_init__(self) -> None:
        _typed(self._normalise)

    def _normalise(self) -> None:
        claim_id = identifier(self.claim_id)
        start, end = _offsets(self.start, self.end)
        citations = _typed_citations(self.citations)
        source_id = optional_identifier(self.source_id)
        length = _length(self.source_length)
        claim_type = claim_type_rule(self.claim_type)
        for name, value in (
            ("claim_id", claim_id),
            ("start", start),
            ("end", end),
            ("citations", citations),
            ("source_id", source_id),
            ("source_length", length),
            ("claim_type", claim_type),
        ):
            object.__setattr__(self, name, value)

    @classmethod
    def from_mapping(cls, value: object, *, default_id: object = None) -> AtomicClaim:
        """The claim record rule (without source-length filling or edge building)."""
        result: AtomicClaim = _typed(_claims, [value], default_id, cls)[0]
        return result

    def __repr__(self) -> str:
        present = self.start is not None or self.end is not None
        return (
            f"AtomicClaim(<redacted>, span_present={present}, citation_count={len(self.citations)})"
        )


@dataclass(frozen=True, slots=True, repr=False)
class EvidenceSpan(TypedRecord):
    """One evidence span: identifier, optional half-open span, source id and length."""

    KIND: ClassVar[str] = "evidence"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "evidence_id",
        "start",
        "end",
        "source_id",
        "source_length",
    )

    evidence_id: str
    start: int | None = None
    end: int | None = None
    source_id: str = ""
    source_length: int | None = None

    def __post_init__(self) -> None:
        _typed(self._normalise)

    def _normalise(self) -> None:
        evidence_id = identifier(self.evidence_id)
        start, end = _offsets(self.start, self.end)
        source_id = optional_identifier(self.source_id)
        length = _length(self.source_length)
        object.__setattr__(self, "evidence_id", evidence_id)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "source_id", source_id)
        object.__setattr__(self, "source_length", length)

    @classmethod
    def from_mapping(cls, value: object, *, default_id: object = None) -> EvidenceSpan:
        """The evidence record rule (without source-length filling or embedded labels)."""
        result: EvidenceSpan = _typed(_evidence, [value], default_id, cls)[0]
        return result

    def __repr__(self) -> str:
        present = self.start is not None or self.end is not None
        return f"EvidenceSpan(<redacted>, span_present={present})"


@dataclass(frozen=True, slots=True, repr=False)
class Citation(TypedRecord):
    """One explicit claim → evidence edge, optionally with a cited sub-span and source id."""

    KIND: ClassVar[str] = "citation"
    FIELDS: ClassVar[tuple[str, ...]] = ("claim_id", "evidence_id", "start", "end", "source_id")

    claim_id: str
    evidence_id: str
    start: int | None = None
    end: int | None = None
    source_id: str = ""

    def __post_init__(self) -> None:
        _typed(self._normalise)

    def _normalise(self) -> None:
        claim_id = identifier(self.claim_id)
        evidence_id = identifier(self.evidence_id)
        start, end = _offsets(self.start, self.end)
        source_id = optional_identifier(self.source_id)
        object.__setattr__(self, "claim_id", claim_id)
        object.__setattr__(self, "evidence_id", evidence_id)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "source_id", source_id)

    @classmethod
    def from_mapping(cls, value: object) -> Citation:
        """The citation record rule."""
        result: Citation = _typed(_citation, value, cls)
        return result

    def __repr__(self) -> str:
        return "Citation(<redacted>)"


@dataclass(frozen=True, slots=True, repr=False)
class ClinicianAdjudication(TypedRecord):
    """A reviewer label for one claim/evidence pair."""

    KIND: ClassVar[str] = "adjudication"
    FIELDS: ClassVar[tuple[str, ...]] = ("claim_id", "evidence_id", "label")

    claim_id: str
    evidence_id: str
    label: str

    def __post_init__(self) -> None:
        _typed(self._normalise)

    def _normalise(self) -> None:
        claim_id = identifier(self.claim_id)
        evidence_id = identifier(self.evidence_id)
        label = normalise_label_value(self.label)
        object.__setattr__(self, "claim_id", claim_id)
        object.__setattr__(self, "evidence_id", evidence_id)
        object.__setattr__(self, "label", label)

    @classmethod
    def from_mapping(cls, value: object) -> ClinicianAdjudication:
        """The adjudication record rule."""
        result: ClinicianAdjudication = _typed(_adjudication, value, cls)
        return result

    def __repr__(self) -> str:
        return f"ClinicianAdjudication(label={self.label!r})"
