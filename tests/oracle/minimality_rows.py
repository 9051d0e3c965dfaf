"""Reference oracle for minimality: the contract's sequential algorithm, record by record.

minimality.md §6–§8 written as literally as possible (READ, SPAN_FROM, the claim and citation
record steps, the §7 evaluation order, naive token counting with ``re``). It exists only for
differential tests: the engine in ``src/`` must give the same report or the same first error.
Results are ``("ok", report_dict)`` or ``("error", (message, category))``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["oracle_check"]

_ID = re.compile(r"sha256:[0-9a-f]{64}")
_TOKEN = re.compile(r"\w+|[^\w\s]")
MISSING: Any = object()


class Fail(Exception):
    """The first failing check (message, category)."""

    def __init__(self, message: str, category: str) -> None:
        super().__init__(message)
        self.pair = (message, category)


def read(value: object, names: tuple[str, ...]) -> Any:
    found: list[Any] = []
    try:
        for name in names:
            item = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
            if item is not None:
                found.append(item)
        for i, left in enumerate(found):
            for right in found[i + 1 :]:
                if not bool(left == right):
                    raise ValueError
    except Exception:
        raise Fail("citation record fields are invalid", "record") from None
    return found[0] if found else MISSING


def make_span(start: Any, end: Any) -> tuple[int, int]:
    if type(start) is not int or type(end) is not int:
        raise Fail("citation offsets must be integers", "span")
    if start < 0 or end <= start:
        raise Fail("citation offsets must form a non-empty half-open span", "span")
    return (start, end)


def span_from(value: Any, depth: int = 0) -> tuple[int, int]:
    if depth > 32:
        raise Fail("citation span nesting exceeds limit", "limit")
    start = read(value, ("start", "source_start"))
    end = read(value, ("end", "source_end"))
    nested = read(value, ("source_offset", "source_offsets", "offset"))
    if start is not MISSING and end is not MISSING:
        if nested is not MISSING:
            inner = span_from(nested, depth + 1)
            span = make_span(start, end)
            if inner != span:
                raise Fail("citation span aliases conflict", "span")
            return span
        return make_span(start, end)
    if nested is not MISSING and nested is not value:
        return span_from(nested, depth + 1)
    if isinstance(value, Mapping | str | bytes | bytearray):
        raise Fail("citation spans require start and end offsets", "span")
    items: list[Any] = []
    try:
        for item in value:
            items.append(item)
            if len(items) > 2:
                break
    except Exception:
        raise Fail("citation collection is invalid or exceeds limit", "span") from None
    if len(items) > 2:
        raise Fail("citation collection is invalid or exceeds limit", "span")
    if len(items) < 2:
        raise Fail("citation spans require start and end offsets", "span")
    return make_span(items[0], items[1])


CLAIM_ALIASES = ("required_span", "minimal_span", "required_source_span", "minimal_source_span",
                 "required_offset", "minimal_offset", "required_source_offset",
                 "minimal_source_offset", "source_span", "source_offset",
                 "source_offsets")  # fmt: skip
CLAIM_STARTS = ("required_start", "minimal_start", "required_source_start",
                "minimal_source_start", "source_start", "start")  # fmt: skip
CLAIM_ENDS = ("required_end", "minimal_end", "required_source_end", "minimal_source_end",
              "source_end", "end")  # fmt: skip
CITATION_ALIASES = ("source_span", "citation_span", "citation_source_span", "citation_offset",
                    "citation_source_offset", "source_offset", "source_offsets",
                    "offset")  # fmt: skip
CITATION_STARTS = ("citation_start", "source_start", "start")
CITATION_ENDS = ("citation_end", "source_end", "end")


def record_span(record: Any, aliases: tuple[str, ...], starts: tuple[str, ...],
                ends: tuple[str, ...]) -> tuple[int, int]:  # fmt: skip
    spans = []
    for name in aliases:
        value = read(record, (name,))
        if value is not MISSING:
            spans.append(span_from(value, 0))
    start, end = read(record, starts), read(record, ends)
    if (start is MISSING) != (end is MISSING):
        raise Fail("citation spans require start and end offsets", "span")
    if start is not MISSING:
        spans.append(make_span(start, end))
    if not spans:
        return span_from(record, 0)
    for span in spans[1:]:
        if span != spans[0]:
            raise Fail("citation span aliases conflict", "span")
    return spans[0]


def check_id(value: Any) -> str:
    if type(value) is not str or _ID.fullmatch(value) is None:
        raise Fail("citation identifiers must be opaque sha256 references", "identifier")
    return value


def parse_claim(record: Any) -> tuple[str, tuple[int, int]]:
    claim_id = read(record, ("claim_id", "id"))
    if claim_id is MISSING:
        raise Fail("atomic claims require an opaque claim id", "record")
    span = record_span(record, CLAIM_ALIASES, CLAIM_STARTS, CLAIM_ENDS)
    return check_id(claim_id), span


def parse_citation(record: Any) -> tuple[str, str, tuple[int, int]]:
    claim_id = read(record, ("claim_id", "id"))
    if claim_id is MISSING:
        raise Fail("citations require an opaque claim id", "record")
    citation_id = read(record, ("citation_id", "evidence_id"))
    span = record_span(record, CITATION_ALIASES, CITATION_STARTS, CITATION_ENDS)
    check_id(claim_id)
    if citation_id is MISSING:
        payload = f"citation\0{claim_id}\0{span[0]}\0{span[1]}".encode()
        citation_id = "sha256:" + hashlib.sha256(payload).hexdigest()
    return claim_id, check_id(citation_id), span


def count(tokens: list[tuple[int, int]], span: tuple[int, int]) -> int:
    return sum(1 for a, b in tokens if a < span[1] and b > span[0])


def _check(text: str, claims: list[Any], citations: list[Any], max_excess: int) -> Any:
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    parsed = [parse_claim(record) for record in claims]
    required: dict[str, tuple[int, int]] = {}
    for claim_id, span in parsed:
        if claim_id in required:
            raise Fail("duplicate atomic claim id", "reference")
        if span[1] > len(text):
            raise Fail("citation offsets exceed source text", "span")
        if count(tokens, span) == 0:
            raise Fail("required claim spans must contain at least one token", "span")
        required[claim_id] = span
    cited = [parse_citation(record) for record in citations]
    seen: dict[tuple[str, str], tuple[int, int]] = {}
    records: list[dict[str, Any]] = []
    for claim_id, citation_id, span in cited:
        if claim_id not in required:
            raise Fail("citation refers to an unknown atomic claim", "reference")
        if seen.setdefault((claim_id, citation_id), span) != span:
            raise Fail("citation id has conflicting offsets", "reference")
        if span[1] > len(text):
            raise Fail("citation offsets exceed source text", "span")
        rs, re_ = required[claim_id]
        cs, ce = span
        ct, rt = count(tokens, span), count(tokens, (rs, re_))
        covers = cs <= rs and ce >= re_
        excess = ct - rt if covers else 0
        status = ("excess_context" if excess > max_excess else "minimal") if covers else (
            "missing_required_span")  # fmt: skip
        pieces = []
        if covers and cs < rs:
            pieces.append({"start": cs, "end": rs})
        if covers and ce > re_:
            pieces.append({"start": re_, "end": ce})
        records.append({
            "claim_id": claim_id, "citation_id": citation_id,
            "citation_offset": {"start": cs, "end": ce},
            "required_offset": {"start": rs, "end": re_},
            "citation_token_count": ct, "required_token_count": rt,
            "excess_token_count": excess, "excess_context_offsets": pieces,
            "status": status, "review_required": status != "minimal",
        })  # fmt: skip
    records.sort(key=lambda r: (r["claim_id"], r["citation_id"], r["citation_offset"]["start"],
                                r["citation_offset"]["end"], r["required_offset"]["start"],
                                r["required_offset"]["end"]))  # fmt: skip
    return {
        "schema_version": 1,
        "claim_count": len(parsed),
        "citation_count": len(records),
        "flagged_count": sum(r["review_required"] for r in records),
        "max_excess_tokens": max_excess,
        "records": records,
    }


def oracle_check(text: str, claims: list[Any], citations: list[Any], max_excess: int = 0) -> Any:
    """The oracle's outcome for one document (lists of records only)."""
    try:
        report = _check(text, claims, citations, max_excess)
    except Fail as failure:
        return ("error", failure.pair)
    return ("ok", report)
