"""Shared primitives of :mod:`citelens.review` (review.md §3).

Canonical JSON without a trailing newline, artifact digests, keyed HMAC values, the identifier and
digest shapes, and the fixed error messages with their categories.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from typing import Any, Final, ParamSpec, TypeVar, cast

from citelens._fixed import attempt
from citelens.errors import CitelensError, InternalError, SummaryReviewError

__all__ = [
    "AGREEMENT_SCHEMA",
    "AUDIT_SCHEMA",
    "BALANCE_SCHEMA",
    "DOMAIN_CANDIDATE_ORDER",
    "DOMAIN_CASE_ORDER",
    "DOMAIN_MAPPING",
    "DOMAIN_REF",
    "DOMAIN_SEAL",
    "MAPPING_SCHEMA",
    "MAX_PRIVATE_JSON",
    "MAX_ROWS",
    "PACKET_SCHEMA",
    "REVIEW_LABELS",
    "REVIEW_SCHEMA",
    "DuplicateKey",
    "H",
    "KeyedDigester",
    "Reject",
    "alias_for",
    "artifact_digest",
    "cj",
    "collapse",
    "entry_point",
    "error",
    "exact_keys",
    "exact_rows",
    "is_digest",
    "is_key",
    "is_public_ref",
    "is_row_collection",
    "is_text",
    "keyed",
    "keyed_digest",
    "record",
    "refused",
    "set_field",
    "sha256_ref",
    "still_valid",
    "tuple_of",
    "unique_object",
]

REVIEW_SCHEMA: Final = "citelens.review.v1"
PACKET_SCHEMA: Final = "citelens.review.packet.v1"
MAPPING_SCHEMA: Final = "citelens.review.mapping.v1"
AUDIT_SCHEMA: Final = "citelens.review.mapping_audit.v1"
BALANCE_SCHEMA: Final = "citelens.review.balance.v1"
AGREEMENT_SCHEMA: Final = "citelens.reviewer_agreement.v1"
REVIEW_LABELS: Final = ("supports", "contradicts", "irrelevant", "unclear")
MAX_ROWS: Final = 100_000
MAX_PRIVATE_JSON: Final = 32_000_000

DOMAIN_CASE_ORDER: Final = b"citelens.review.case-order.v1"
DOMAIN_CANDIDATE_ORDER: Final = b"citelens.review.candidate-order.v1"
DOMAIN_MAPPING: Final = b"citelens.review.mapping.v1"
DOMAIN_REF: Final = b"citelens.review.ref.v1"
DOMAIN_SEAL: Final = b"citelens.review.seal.v1"

T = TypeVar("T")
P = ParamSpec("P")

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_PUBLIC_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")

_CATEGORIES: dict[str, str] = {}


def _register(category: str, *messages: str) -> None:
    for message in messages:
        _CATEGORIES[message] = category


_register(
    "review",
    "invalid_review_export",
    "invalid_review_import",
    "conflict_of_interest: reviewer_recused",
    "mapping: unbalanced",
    "insufficient_reviewers",
    "inconsistent_adjudication_flag",
    "unexpected_disagreement_reason",
    "missing_disagreement_reason",
)
_register("input", "invalid_artifact", "invalid_leakage_input", "randomization_key: invalid_key")
_register("policy", "invalid_minimum_cell_size")
_register(
    "record",
    "conflict_of_interest: invalid_metadata",
    "mapping: invalid_mapping",
    "packet: invalid_document",
    "mapping: invalid_document",
    "invalid_decision_record",
)
_register(
    "identifier",
    *(
        f"{field}: invalid_reference"
        for field in (
            "packet_set_ref",
            "case_ref",
            "criterion_ref",
            "evidence_ref",
            "candidate_identity",
            "reviewer_ref",
        )
    ),
    "candidate_alias: invalid_alias",
    "assignment_alias: invalid_alias",
)
_register(
    "value",
    *(
        f"{field}: invalid_digest"
        for field in (
            "holdout_commitment_digest",
            "mapping_commitment",
            "declaration_digest",
            "submission_manifest_digest",
            "output_digest",
        )
    ),
    *(
        f"{field}: invalid_text"
        for field in ("question", "content", "candidate_output", "candidate_content")
    ),
    "score_range: invalid_range",
    "conflict_status: invalid_status",
    "schema_version: unsupported_version",
)
_register(
    "collection",
    "source_evidence: invalid_sequence",
    "cases: invalid_sequence",
    "rubric: invalid_sequence",
    "candidates: invalid_sequence",
    "candidate_outputs: invalid_mapping",
    "candidate_outputs: invalid_count",
    "assignments: invalid_count",
    "mapping_entries: invalid_count",
    "missing_decisions",
)
_register(
    "reference",
    "source_evidence: duplicate_reference",
    "cases: duplicate_reference",
    "rubric: duplicate_reference",
    "cases: inconsistent_candidates",
    "submission_manifest_digests: invalid_keys",
    "candidates: invalid_alias_order",
    "assignments: invalid_alias_order",
    "assignments: duplicate_identity",
    "mapping_entries: duplicate_case",
    "duplicate_decision",
)
_register("report", "invalid_review_result")


def error(message: str) -> SummaryReviewError:
    """The fixed :class:`SummaryReviewError` for ``message`` with its contract category."""
    return SummaryReviewError(message, _CATEGORIES[message])


class Reject(Exception):
    """Internal: a named check of export or import failed (review.md §5.2, §7.1).

    Carries only the fixed internal code, no input value; it never leaves the public entry
    points, which turn it into their one message.
    """

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def refused(call: Callable[[], T]) -> T | None:
    """``call()``, or ``None`` when it raised a contract error of citelens (its own or another
    component's): the caller's check then fails.

    An :class:`~citelens.errors.InternalError` and any exception that is not a citelens error
    propagate: a bug is never a failed check.
    """
    result: T | None = None
    try:
        result = call()
    except InternalError:
        raise
    except CitelensError:
        result = None
    return result


def entry_point(function: Callable[P, T]) -> Callable[P, T]:
    """A public function whose unexpected exceptions become
    :class:`~citelens.errors.InternalError` (``attempt``); its contract errors pass through."""

    @functools.wraps(function)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
        return attempt(lambda: function(*args, **kwargs))

    return guarded


def collapse(call: Callable[[], T], message: str) -> T:
    """Run an export or import (review.md §3.5): every failed check (:class:`Reject`) and every
    contract error of another component becomes ``error(message)``, unchained; an unexpected
    exception becomes :class:`~citelens.errors.InternalError` (through ``attempt``).
    """

    def checked() -> T:
        result: T | None = None
        rejected = False
        try:
            result = call()
        except Reject:
            rejected = True
        except InternalError:
            raise
        except CitelensError:
            rejected = True
        if rejected:
            raise error(message)
        return cast(T, result)

    return attempt(checked)


def cj(value: Any) -> str:
    """Canonical JSON of review.md §3.1 (no trailing newline)."""
    return json.dumps(
        value, ensure_ascii=True, allow_nan=False, separators=(",", ":"), sort_keys=True
    )


def sha256_ref(data: bytes) -> str:
    """``"sha256:" + hex(SHA-256(data))``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def artifact_digest(text: str) -> str:
    """``"sha256:" + hex(SHA-256(UTF-8(text)))`` of an exact ``str`` (review.md §3.1).

    Raises ``SummaryReviewError("invalid_artifact")`` for anything that is not exactly a ``str``
    or does not encode to UTF-8 strictly (a lone surrogate).
    """
    failed = type(text) is not str
    data = b""
    if not failed:
        try:
            data = text.encode("utf-8", "strict")
        except UnicodeError:
            failed = True
    if failed:
        raise error("invalid_artifact")
    return sha256_ref(data)


def H(value: Any) -> str:
    """``artifact_digest(CJ(value))``."""
    return artifact_digest(cj(value))


def is_digest(value: object) -> bool:
    """An exact ``str`` matching ``sha256:`` + 64 lowercase hex digits."""
    return type(value) is str and _DIGEST.fullmatch(value) is not None


def is_public_ref(value: object) -> bool:
    """An exact ``str`` fully matching ``[A-Za-z0-9][A-Za-z0-9._:-]{0,127}``."""
    return type(value) is str and _PUBLIC_REF.fullmatch(value) is not None


def is_text(value: object, limit: int) -> bool:
    """An exact ``str``, not blank, of at most ``limit`` characters."""
    return type(value) is str and len(value) <= limit and bool(value.strip())


def is_key(value: object) -> bool:
    """An evaluator key: exactly ``bytes`` of at least 32 bytes (review.md §3.2)."""
    return type(value) is bytes and len(value) >= 32


def is_row_collection(value: object) -> bool:
    """An exact ``list`` or ``tuple`` of at most ``MAX_ROWS`` items (review.md §3.4)."""
    return (type(value) is list or type(value) is tuple) and len(value) <= MAX_ROWS


class KeyedDigester:
    """``keyed_digest(key, domain, payload)`` for many payloads (the HMAC prefix is reused)."""

    __slots__ = ("_base",)

    def __init__(self, key: bytes, domain: bytes) -> None:
        self._base = hmac.new(key, domain + b"\x00", hashlib.sha256)

    def __call__(self, payload: bytes) -> str:
        mac = self._base.copy()
        mac.update(payload)
        return "sha256:" + mac.hexdigest()


def keyed(key: bytes, domain: bytes, payload: bytes) -> bytes:
    """``HMAC-SHA-256(key, domain + b"\\x00" + payload)`` as raw bytes."""
    return hmac.new(key, domain + b"\x00" + payload, hashlib.sha256).digest()


def keyed_digest(key: bytes, domain: bytes, payload: bytes) -> str:
    """The keyed value as ``"sha256:" + hex``."""
    return "sha256:" + keyed(key, domain, payload).hex()


def alias_for(slot: int) -> str:
    """The blinded alias of alias slot ``slot``: ``candidate-a`` for 0, ``candidate-b`` for 1."""
    return "candidate-" + chr(ord("a") + slot)


def exact_keys(value: object, keys: frozenset[str]) -> bool:
    """An exact ``dict`` whose key set is exactly ``keys`` (review.md §3.4 documents)."""
    return type(value) is dict and value.keys() == keys


def exact_rows(value: object, keys: frozenset[str]) -> bool:
    """An exact ``list`` or ``tuple`` of documents with exactly ``keys`` each."""
    return (type(value) is list or type(value) is tuple) and all(
        exact_keys(item, keys) for item in value
    )


def tuple_of(value: object, kind: type, low: int, high: int) -> tuple[Any, ...] | None:
    """An exact ``list``/``tuple`` of ``low``–``high`` items of exactly ``kind``, as a tuple."""
    if type(value) is not tuple and type(value) is not list:
        return None
    items = tuple(value)
    if not low <= len(items) <= high or not all(type(item) is kind for item in items):
        return None
    return items


def set_field(obj: object, name: str, value: object) -> None:
    """Store a normalised field on a frozen dataclass from its ``__post_init__``."""
    object.__setattr__(obj, name, value)


_RECORDS: dict[type, frozenset[str]] = {}
_RECORD_DEPTH = 3  # mapping > entry > assignment, packet > candidate: the deepest nesting


def record(cls: type[T]) -> type[T]:
    """Register a validating record class of this module for :func:`still_valid`, with the
    names of its ``tuple[...]`` fields (constructors store every sequence as a tuple)."""
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    _RECORDS[cls] = frozenset(
        name for name, spec in fields.items() if str(spec.type).startswith("tuple[")
    )
    return cls


def still_valid(value: object, depth: int = 0) -> bool:
    """Whether a registered record (and every registered record inside it) still passes its
    constructor's validation.

    Frozen dataclasses can still be changed after construction (``object.__setattr__``); a
    record changed that way is caller input like any other, so the public functions check it
    again at their boundary instead of trusting its type (issue 10, as support and minimality
    do for their typed records). A sequence field must still be the exact tuple the
    constructor stored, and inner records are checked first, so the outer validation only
    reads values of checked types (no caller ``__iter__``, ``__hash__`` or ``__eq__`` runs).
    Only exact registered types are recursed into and the depth is bounded (a cycle ends).
    """
    tuple_fields = _RECORDS.get(type(value))
    if tuple_fields is None or depth > _RECORD_DEPTH:
        return False
    for name in value.__dataclass_fields__:  # type: ignore[attr-defined]
        field = getattr(value, name)
        if name in tuple_fields and type(field) is not tuple:
            return False
        for child in field if type(field) is tuple else (field,):
            if type(child) in _RECORDS and not still_valid(child, depth + 1):
                return False
    valid = True
    try:
        value.__post_init__()  # type: ignore[attr-defined]
    except SummaryReviewError:
        valid = False
    return valid


class DuplicateKey(ValueError):
    """A JSON object names one key twice (carries no message)."""


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of :func:`json.loads` for sealed and private documents: a key
    that occurs twice in one object (at any depth, after unescaping) raises
    :class:`DuplicateKey`. ``json.loads`` keeps the last occurrence, so a tampered earlier
    member would otherwise be read past while the document still verifies."""
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKey()
    return result
