"""Field rules of the support contract (§3.5–§3.8): aliases, identifiers, spans, labels.

These are the per-value rules, used by the typed record constructors and by the record path
for Python objects that are not typed columns (typed records, mixed Python types, compact
mappings). Tables and plain-dict records are evaluated by the columnar engine (``_normalize``,
``_fields``), which implements the same rules as whole-column expressions; the differential
tests compare the two.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from citelens._fixed import ContractFailure

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "LABEL_SPELLINGS",
    "MISSING",
    "SupportFailure",
    "claim_type_rule",
    "first_value",
    "identifier",
    "is_int",
    "is_pair_sequence",
    "label_rule",
    "normalise_label_value",
    "optional_identifier",
    "span_rule",
]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class SupportFailure(ContractFailure):
    """Private: a catalogue message and its category, turned into CitationSupportError."""

    def __init__(self, message: str, category: str) -> None:
        super().__init__(message)
        self.message = message
        self.category = category


def fail(message: str, category: str) -> SupportFailure:
    """Build the private failure for a catalogue message."""
    return SupportFailure(message, category)


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


def is_int(value: object) -> bool:
    """A non-bool ``int`` (range checks are the caller's)."""
    return isinstance(value, int) and not isinstance(value, bool)


def int64_or_fail(value: object, message: str, category: str) -> int:
    """A non-bool int in [-2^63, 2^63 - 1], else the given failure."""
    if not is_int(value):
        raise fail(message, category)
    number: int = int(value)  # type: ignore[call-overload]
    if number < INT64_MIN or number > INT64_MAX:
        raise fail(message, category)
    return number


def is_pair_sequence(value: object) -> bool:
    """A non-string sequence (not str/bytes/bytearray)."""
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def identifier(value: object) -> str:
    """The identifier rule (§3.8)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise fail("identifier must be a string", "identifier")
    text = str(value).strip()
    if not text or len(text) > 256 or _CONTROL.search(text) is not None:
        raise fail("identifier is empty, bounded, and control-free", "identifier")
    return text


def optional_identifier(value: object) -> str:
    """The optional-identifier rule: absent, ``None`` or ``""`` → ``""``."""
    if value is MISSING or value is None or value == "":
        return ""
    return identifier(value)


_CLAIM_TYPE_RUN = re.compile(r"[^a-z0-9_.-]+")
_CLAIM_TYPE_OK = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")


def claim_type_rule(value: object) -> str:
    """The claim-type rule: a bounded, normalised label or ``""``."""
    if value is MISSING or value is None or value == "":
        return ""
    text = _CLAIM_TYPE_RUN.sub("-", str(value).strip().casefold()).strip("-")
    if _CLAIM_TYPE_OK.fullmatch(text) is None:
        raise fail("claim type must be a bounded label", "value")
    return text


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


LABEL_SPELLINGS: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "supports",
            "support",
            "supported",
            "entails",
            "entailed",
            "relevant_support",
            "true",
        ),
        "supports",
    ),
    **dict.fromkeys(
        ("contradicts", "contradict", "contradicted", "refutes", "refuted", "false"),
        "contradicts",
    ),
    **dict.fromkeys(
        (
            "irrelevant",
            "unrelated",
            "does_not_support",
            "not_supporting",
            "unsupported",
            "insufficient",
        ),
        "irrelevant",
    ),
    **dict.fromkeys(
        ("unclear", "uncertain", "ambiguous", "unknown", "unresolved", "pending"), "unclear"
    ),
}

LABEL_KEYS: Final = (
    "label",
    "adjudication",
    "adjudication_label",
    "judgment",
    "clinician_label",
    "support_label",
    "verdict",
    "relation",
)
FLAG_KEYS: Final = (
    ("supports", "supports"),
    ("supported", "supports"),
    ("supports_claim", "supports"),
    ("contradicts", "contradicts"),
    ("contradicts_claim", "contradicts"),
)
_LABEL_RUN = re.compile(r"[^a-z0-9]+")


def normalise_label_value(value: object) -> str:
    """Normalise one label value (§3.7)."""
    if value is True:
        return "supports"
    if value is False:
        return "irrelevant"
    if not isinstance(value, str):
        raise fail("adjudication label must be a string", "value")
    key = _LABEL_RUN.sub("_", value.strip().casefold()).strip("_")
    label = LABEL_SPELLINGS.get(key)
    if label is None:
        raise fail("adjudication label is unsupported", "value")
    return label


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
