"""Per-value rules of the support contract (§3.7–§3.9) for the typed-record constructors.

A constructor validates its own fields one value at a time: identifiers, int64 offsets and
lengths, the claim type and the label value. Every collection (and ``from_mapping``) is
evaluated by the columnar rule stages (``_normalize``, ``_edges``, ``_fields``), which express
the same rules over whole columns; ``tests/support/test_typed_records.py`` compares the two on
awkward values. The label spellings and keys here are the one table both read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from citelens._fixed import ContractFailure

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "LABEL_SPELLINGS",
    "CallerFailed",
    "SupportFailure",
    "caller_failed",
    "caller_read",
    "caller_value",
    "claim_type_rule",
    "identifier",
    "is_int",
    "is_pair_sequence",
    "normalise_label_value",
    "optional_identifier",
]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1


class SupportFailure(ContractFailure):
    """Private: a catalogue message and its category, turned into CitationSupportError."""

    def __init__(self, message: str, category: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.category = category
        self.detail = detail  # why a reader refused a file (citelens.io.describe), or None


def fail(message: str, category: str, detail: str | None = None) -> SupportFailure:
    """Build the private failure for a catalogue message (``detail``: see CitelensError)."""
    return SupportFailure(message, category, detail)


def caller_failed() -> Exception:
    """The contract's error for caller code that raised while it was read (§3.5, §4.5)."""
    return fail("citation-support input cannot be normalized", "input")


_T = TypeVar("_T")


class CallerFailed:
    """What :func:`caller_read` returns when the caller code it ran raised."""


_FAILED: Final = CallerFailed()


def caller_read(read: Callable[[], _T]) -> _T | CallerFailed:
    """``read()``, which runs caller code (a mapping, property, sequence, ``to_dict``,
    ``__str__``...), or :class:`CallerFailed` when that code raised. The one guard of the
    Python-records adapter: whatever caller code raises is the contract's to name (an input
    error or a problem code), and the caller raises it outside the handler (nothing
    chained)."""
    try:
        return read()
    except Exception:  # caller code raised while it was read
        return _FAILED


def caller_value(read: Callable[[], _T]) -> _T:
    """``read()``, or the contract's input error when the caller code it runs raised."""
    value = caller_read(read)
    if isinstance(value, CallerFailed):
        raise caller_failed()
    return value


def is_int(value: object) -> bool:
    """A non-bool ``int`` (range checks are the caller's)."""
    return isinstance(value, int) and not isinstance(value, bool)


def int64_or_fail(value: object, message: str, category: str) -> int:
    """A non-bool int in [-2^63, 2^63 - 1], else the given failure."""
    if not is_int(value):
        raise fail(message, category)
    number: int = caller_value(lambda: int(value))  # type: ignore[call-overload]
    if number < INT64_MIN or number > INT64_MAX:
        raise fail(message, category)
    return number


def is_pair_sequence(value: object) -> bool:
    """A non-string sequence (not str/bytes/bytearray)."""
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def _empty_text(value: object) -> bool:
    """``value == ""`` without running a caller ``__eq__`` (only text can equal ``""``)."""
    return isinstance(value, str) and str.__len__(value) == 0


def identifier(value: object) -> str:
    """The identifier rule (§3.8)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise fail("identifier must be a string", "identifier")
    text = caller_value(lambda: str(value)).strip()  # an int/str subclass's own __str__
    if not text or len(text) > 256 or _CONTROL.search(text) is not None:
        raise fail("identifier is empty, bounded, and control-free", "identifier")
    return text


def optional_identifier(value: object) -> str:
    """The optional-identifier rule: absent, ``None`` or ``""`` → ``""``."""
    if value is None or _empty_text(value):
        return ""
    return identifier(value)


_CLAIM_TYPE_RUN = re.compile(r"[^a-z0-9_.-]+")
_CLAIM_TYPE_OK = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")


def claim_type_rule(value: object) -> str:
    """The claim-type rule: a bounded, normalised label or ``""``."""
    if value is None or _empty_text(value):
        return ""
    text = _CLAIM_TYPE_RUN.sub("-", caller_value(lambda: str(value)).strip().casefold()).strip("-")
    if _CLAIM_TYPE_OK.fullmatch(text) is None:
        raise fail("claim type must be a bounded label", "value")
    return text


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
    # str's own methods: a str subclass's overrides are not called
    key = _LABEL_RUN.sub("_", str.casefold(str.strip(value))).strip("_")
    label = LABEL_SPELLINGS.get(key)
    if label is None:
        raise fail("adjudication label is unsupported", "value")
    return label
