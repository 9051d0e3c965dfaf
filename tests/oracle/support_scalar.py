"""The scalar record rules of support (§3.5–§3.7), one record at a time: the oracle's.

Before the one columnar engine (issue 9) these were ``citelens.support``'s per-record path;
``src/`` now evaluates the record rules only as whole-column expressions (the rule stages), and
the typed-record constructors keep only the per-value rules of ``citelens.support._rules``.
The differential tests run this oracle against the engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from citelens.support._aliases import (
    CLAIM_CITATION_ALIASES,
    CLAIM_ID_ALIASES,
    CLAIM_SOURCE_ALIASES,
    CLAIM_TYPE_ALIASES,
    EDGE_CLAIM_ALIASES,
    EDGE_EVIDENCE_ALIASES,
    EDGE_SOURCE_ALIASES,
    EVIDENCE_ID_ALIASES,
    EVIDENCE_SOURCE_ALIASES,
    ITEM_EVIDENCE_ALIASES,
    LENGTH_ALIASES,
    TEXT_ALIASES,
)
from citelens.support._pyvalues import bounded_items
from citelens.support._rules import (
    FLAG_KEYS,
    LABEL_KEYS,
    claim_type_rule,
    fail,
    identifier,
    int64_or_fail,
    is_int,
    is_pair_sequence,
    normalise_label_value,
    optional_identifier,
)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


def first_value(record: Mapping[str, Any], aliases: Sequence[str]) -> Any:
    """The first-value rule: first present non-null alias; a later unequal value conflicts."""
    first: Any = MISSING
    for alias in aliases:
        if alias in record:
            value = record[alias]
            if value is None:
                continue
            if first is MISSING:
                first = value
            elif value != first:
                raise fail("conflicting field aliases", "record")
    return first


_SPAN_NESTED = ("span", "source_span", "claim_span", "evidence_span")
_NESTED_START = ("start", "begin", "offset_start")
_NESTED_END = ("end", "stop", "offset_end")
SPAN_START = ("start", "source_start", "span_start")
SPAN_END = ("end", "source_end", "span_end")


def span_rule(record: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The span rule (§3.6): nested and top-level offsets, conflicts, int64 offsets."""
    nested = first_value(record, _SPAN_NESTED)
    nested_start: Any = MISSING
    nested_end: Any = MISSING
    if isinstance(nested, Mapping):
        nested_start = first_value(nested, _NESTED_START)
        nested_end = first_value(nested, _NESTED_END)
    elif nested is not MISSING and is_pair_sequence(nested):
        if len(nested) != 2:
            raise fail("span tuple must contain two offsets", "span")
        nested_start = MISSING if nested[0] is None else nested[0]
        nested_end = MISSING if nested[1] is None else nested[1]
    start = first_value(record, SPAN_START)
    end = first_value(record, SPAN_END)
    if start is not MISSING and nested_start is not MISSING and start != nested_start:
        raise fail("conflicting span offsets", "span")
    if end is not MISSING and nested_end is not MISSING and end != nested_end:
        raise fail("conflicting span offsets", "span")
    if start is MISSING:
        start = nested_start
    if end is MISSING:
        end = nested_end
    if start is MISSING and end is MISSING:
        return None, None
    out_start = None
    out_end = None
    if start is not MISSING:
        out_start = int64_or_fail(start, "span offsets must be integers", "span")
    if end is not MISSING:
        out_end = int64_or_fail(end, "span offsets must be integers", "span")
    return out_start, out_end


def label_rule(record: Mapping[str, Any]) -> str | None:
    """The label rule (§3.7) of an adjudication (or label-carrying evidence) record."""
    collected: list[str] = []
    for key in LABEL_KEYS:
        if key in record:
            value = record[key]
            if value is not None:
                collected.append(normalise_label_value(value))
    flags_present = False
    false_targets: list[str] = []
    for key, target in FLAG_KEYS:
        if key in record:
            flags_present = True
            value = record[key]
            if value is not True and value is not False:
                raise fail("adjudication flags must be boolean", "value")
            if value:
                collected.append(target)
            else:
                false_targets.append(target)
    if collected:
        label = collected[0]
        if any(other != label for other in collected) or label in false_targets:
            raise fail("conflicting adjudication labels", "value")
        return label
    if flags_present:
        return "irrelevant"
    return None


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
    norm_source = optional_identifier(None if source_id is MISSING else source_id)
    norm_type = claim_type_rule(None if claim_type is MISSING else claim_type)
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
    return (
        identifier(evidence_id),
        start,
        end,
        optional_identifier(None if source_id is MISSING else source_id),
        length,
    )


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
    return (
        claim_id,
        evidence_id,
        start,
        end,
        optional_identifier(None if source is MISSING else source),
    )


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
