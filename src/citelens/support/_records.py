"""Typed support records (§3.9): constructors and ``from_mapping``, with the scalar field rules
of ``_rules`` (one record at a time; collections are evaluated by the columnar engine)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citelens.errors import CitationSupportError
from citelens.support._rules import (
    MISSING,
    SupportFailure,
    claim_type_rule,
    fail,
    first_value,
    identifier,
    int64_or_fail,
    is_int,
    is_pair_sequence,
    label_rule,
    normalise_label_value,
    optional_identifier,
    span_rule,
)

__all__ = [
    "AtomicClaim",
    "Citation",
    "ClinicianAdjudication",
    "EvidenceSpan",
    "citation_items",
    "claim_record_fields",
    "record_conversion",
    "source_length_rule",
]

DEFAULT_CITATION_LIMIT = 500_000

CLAIM_ID_ALIASES = ("claim_id", "id", "fact_id", "key")
CLAIM_SOURCE_ALIASES = ("source_id", "document_id", "summary_id")
CLAIM_CITATION_ALIASES = ("citations", "citation_ids", "evidence_ids", "evidence", "sources")
CLAIM_TYPE_ALIASES = ("claim_type", "claim_class", "category", "type")
EVIDENCE_ID_ALIASES = ("evidence_id", "id", "citation_id", "span_id")
EVIDENCE_SOURCE_ALIASES = ("source_id", "document_id", "record_id")
LENGTH_ALIASES = ("source_length", "document_length", "text_length", "length")
TEXT_ALIASES = ("source_text", "document_text")
EDGE_CLAIM_ALIASES = ("claim_id", "claim", "fact_id")
EDGE_EVIDENCE_ALIASES = ("evidence_id", "evidence", "citation_id")
EDGE_SOURCE_ALIASES = ("span_source_id", "citation_source_id", "document_id")
ITEM_EVIDENCE_ALIASES = ("evidence_id", "evidence", "citation_id", "id")


def _raise(failure: SupportFailure) -> None:
    raise CitationSupportError(failure.message, failure.category)


def record_conversion(value: object, kind: str) -> Mapping[str, Any]:
    """Record conversion (§3.5): a Mapping, else ``to_dict()``, else ``vars()``."""
    if isinstance(value, Mapping):
        return value
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        broken = False
        result: Any = None
        try:
            result = to_dict()
        except Exception:
            broken = True
        if broken:
            raise fail(f"{kind} record cannot be normalized", "record")
        if isinstance(result, Mapping):
            return result
    converted: Any = None
    ok = True
    try:
        converted = vars(value)
    except Exception:
        ok = False
    if not ok or not isinstance(converted, Mapping):
        raise fail(f"{kind} record must be a mapping", "record")
    return converted


def source_length_rule(record: Mapping[str, Any]) -> int | None:
    """Explicit length aliases, else the length of a ``source_text``/``document_text`` str."""
    length = first_value(record, LENGTH_ALIASES)
    if length is not MISSING:
        return int64_or_fail(length, "source lengths must be integers", "value")
    text = first_value(record, TEXT_ALIASES)
    if isinstance(text, str):
        return len(text)
    return None


def bounded_items(value: Any, name: str, limit: int) -> list[Any]:
    """Pull at most ``limit + 1`` items; more than ``limit`` → the collection's limit error."""
    items: list[Any] = []
    broken = False
    try:
        items = list(itertools.islice(iter(value), limit + 1))
    except Exception:
        broken = True
    if broken:
        raise fail(f"{name} must be an iterable of records", "collection")
    if len(items) > limit:
        raise fail(f"{name} exceeds the record limit", "limit")
    return items


def citation_items(value: Any, limit: int) -> list[Any]:
    """The citation-value rule (§3.6): the items a citation value expands to."""
    if value is MISSING or value is None:
        return []
    if isinstance(value, Mapping):
        return [value]
    if isinstance(value, str) or is_int(value):
        return [value]
    if is_pair_sequence(value):
        return bounded_items(value, "citation collection", limit)
    raise fail("citation values must be identifiers or records", "record")


def claim_record_fields(
    record: Mapping[str, Any], default_id: object, citation_limit: int
) -> tuple[str, int | None, int | None, str, int | None, str, Any, tuple[str, ...]]:
    """Steps 2–9 of the claim record rule. Returns the normalised fields, the raw citation
    value and the claim's own citation-id list."""
    claim_id = first_value(record, CLAIM_ID_ALIASES)
    if claim_id is MISSING:
        if default_id is MISSING or default_id is None:
            raise fail("claim identifier is required", "record")
        claim_id = default_id
    start, end = span_rule(record)
    source_id = first_value(record, CLAIM_SOURCE_ALIASES)
    length = source_length_rule(record)
    citation_value = first_value(record, CLAIM_CITATION_ALIASES)
    claim_type = first_value(record, CLAIM_TYPE_ALIASES)
    own: list[str] = []
    for item in citation_items(citation_value, citation_limit):
        if isinstance(item, Mapping):
            evidence = first_value(item, ITEM_EVIDENCE_ALIASES)
            if evidence is MISSING:
                raise fail("citation record requires an evidence identifier", "record")
            own.append(evidence)
        else:
            own.append(item)
    own_ids = tuple(identifier(item) for item in own)
    norm_id = identifier(claim_id)
    norm_source = optional_identifier(source_id)
    norm_type = claim_type_rule(claim_type)
    return norm_id, start, end, norm_source, length, norm_type, citation_value, own_ids


def evidence_record_fields(
    record: Mapping[str, Any], default_id: object
) -> tuple[str, int | None, int | None, str, int | None]:
    """Steps 2–6 of the evidence record rule."""
    evidence_id = first_value(record, EVIDENCE_ID_ALIASES)
    if evidence_id is MISSING:
        if default_id is MISSING or default_id is None:
            raise fail("evidence identifier is required", "record")
        evidence_id = default_id
    start, end = span_rule(record)
    source_id = first_value(record, EVIDENCE_SOURCE_ALIASES)
    length = source_length_rule(record)
    return identifier(evidence_id), start, end, optional_identifier(source_id), length


def citation_record_fields(
    record: Mapping[str, Any],
) -> tuple[str, str, int | None, int | None, str]:
    """The citation record rule after record conversion (§3.5)."""
    claim = first_value(record, EDGE_CLAIM_ALIASES)
    evidence = first_value(record, EDGE_EVIDENCE_ALIASES)
    if claim is MISSING or evidence is MISSING:
        raise fail("citation requires claim and evidence identifiers", "record")
    start, end = span_rule(record)
    source = first_value(record, EDGE_SOURCE_ALIASES)
    if source is MISSING:
        source = first_value(record, ("source_id",))
    claim_id = identifier(claim)
    evidence_id = identifier(evidence)
    return claim_id, evidence_id, start, end, optional_identifier(source)


def adjudication_record_fields(record: Mapping[str, Any]) -> tuple[str, str, str]:
    """The adjudication record rule after record conversion (§3.5)."""
    claim = first_value(record, EDGE_CLAIM_ALIASES)
    evidence = first_value(record, EDGE_EVIDENCE_ALIASES)
    if evidence is MISSING:
        evidence = first_value(record, ("source_id",))
    label = label_rule(record)
    if claim is MISSING or evidence is MISSING or label is None:
        raise fail("adjudication requires claim, evidence, and label", "record")
    return identifier(claim), identifier(evidence), label


def _typed(call: Any, *args: Any, **kwargs: Any) -> Any:
    failure: SupportFailure | None = None
    try:
        return call(*args, **kwargs)
    except SupportFailure as exc:
        failure = exc
    assert failure is not None
    _raise(failure)


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
class AtomicClaim:
    """One atomic claim: identifier, optional half-open span, cited evidence identifiers."""

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

        def build() -> AtomicClaim:
            record = record_conversion(value, "claim")
            fields = claim_record_fields(record, default_id, DEFAULT_CITATION_LIMIT)
            return cls(fields[0], fields[1], fields[2], fields[7], fields[3], fields[4], fields[5])

        result: AtomicClaim = _typed(build)
        return result

    def __repr__(self) -> str:
        present = self.start is not None or self.end is not None
        return (
            f"AtomicClaim(<redacted>, span_present={present}, citation_count={len(self.citations)})"
        )


@dataclass(frozen=True, slots=True, repr=False)
class EvidenceSpan:
    """One evidence span: identifier, optional half-open span, source id and length."""

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

        def build() -> EvidenceSpan:
            record = record_conversion(value, "evidence")
            return cls(*evidence_record_fields(record, default_id))

        result: EvidenceSpan = _typed(build)
        return result

    def __repr__(self) -> str:
        present = self.start is not None or self.end is not None
        return f"EvidenceSpan(<redacted>, span_present={present})"


@dataclass(frozen=True, slots=True, repr=False)
class Citation:
    """One explicit claim → evidence edge, optionally with a cited sub-span and source id."""

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

        def build() -> Citation:
            record = record_conversion(value, "citation")
            return cls(*citation_record_fields(record))

        result: Citation = _typed(build)
        return result

    def __repr__(self) -> str:
        return "Citation(<redacted>)"


@dataclass(frozen=True, slots=True, repr=False)
class ClinicianAdjudication:
    """A reviewer label for one claim/evidence pair."""

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

        def build() -> ClinicianAdjudication:
            record = record_conversion(value, "adjudication")
            return cls(*adjudication_record_fields(record))

        result: ClinicianAdjudication = _typed(build)
        return result

    def __repr__(self) -> str:
        return f"ClinicianAdjudication(label={self.label!r})"


TYPED_FIELDS: dict[type, tuple[str, ...]] = {
    AtomicClaim: (
        "claim_id",
        "start",
        "end",
        "citations",
        "source_id",
        "source_length",
        "claim_type",
    ),
    EvidenceSpan: ("evidence_id", "start", "end", "source_id", "source_length"),
    Citation: ("claim_id", "evidence_id", "start", "end", "source_id"),
    ClinicianAdjudication: ("claim_id", "evidence_id", "label"),
}


__all__ += [
    "TYPED_FIELDS",
    "adjudication_record_fields",
    "citation_record_fields",
    "evidence_record_fields",
    "label_rule",
]
