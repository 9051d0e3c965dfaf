"""Oracle: the record-by-record reader of summary-citations.md §4.5–§7 (test code only).

This was the per-record Python path of ``citelens.summary_citations`` (``_walk``); the package
now evaluates these rules as column expressions over a node table (``_nodes`` adapter,
``_node_rules``). Kept here, unchanged in its rules, as the differential oracle: the record
view and the null rule, IDENT, SPAN (container recursion and its depth cap), CIT_REFS,
CIT_ITEMS / CLAIM_CITATIONS (item splitting, the direct item and ``k*``), SOURCE_REFS, and the
running citation-item bound. Any exception raised by a caller object escapes from these
functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from citelens.summary_citations._keys import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    CONTAINER_KEYS,
    DIRECT_SPAN_KEYS,
    EVIDENCE_ID_KEYS,
)

__all__ = [
    "CitationLimitExceeded",
    "ClaimItems",
    "EvidenceRefs",
    "Ref",
    "cit_items",
    "cit_refs",
    "claim_citations",
    "ident",
    "source_refs",
    "span",
    "view",
    "walk_claims",
    "walk_evidence",
]

# A reference: ("i", identifier) or ("s", start, end).
Ref = tuple[Any, ...]

_NO_VIEW_TYPES: frozenset[type] = frozenset(
    {str, int, float, bool, bytes, list, tuple, type(None), complex}
)
_SCALAR_TYPES: frozenset[type] = frozenset({str, int, float, bool, bytes, type(None), complex})
_MISSING = object()
_COLLECTION_SET = frozenset(CITATION_COLLECTION_KEYS)
_CLAIM_KEYS = frozenset(CLAIM_ID_KEYS) | frozenset(DIRECT_SPAN_KEYS) | _COLLECTION_SET


class CitationLimitExceeded(Exception):
    """Private marker: the running total of citation items exceeded the bound."""


def _normalise(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    # The null rule (§4.5): None entries are absent; only str keys are significant.
    return {k: v for k, v in mapping.items() if isinstance(k, str) and v is not None}


def view(x: Any) -> dict[str, Any] | None:
    """The record view of ``x`` (§4.5) as a dict, or ``None`` when it has none."""
    t = type(x)
    if t is dict:
        return x  # type: ignore[no-any-return]
    if t in _NO_VIEW_TYPES:
        return None
    if isinstance(x, Mapping):
        return _normalise(x)
    to_dict = getattr(x, "to_dict", None)
    if callable(to_dict):
        result = to_dict()
        if isinstance(result, Mapping):
            return _normalise(result)
    try:
        attrs = vars(x)
    except (TypeError, ValueError):
        return None
    if isinstance(attrs, Mapping):
        return _normalise(attrs)
    return None


def ident(v: Any) -> str | None:
    """IDENT (§5): normalised identifier text, or ``None``."""
    t = type(v)
    if t is str:
        text = v.strip()
    elif t is int:
        text = int.__repr__(v)
    elif v is None or t is bool:
        return None
    elif isinstance(v, str):
        text = str.strip(v)
    elif isinstance(v, int):
        text = int.__repr__(v)
    else:
        return None
    return text or None


def _pair(x: Any) -> tuple[int, int] | None:
    if isinstance(x, str | bytes) or not isinstance(x, Sequence):
        return None
    if len(x) != 2:
        return None
    s, e = x[0], x[1]
    if type(s) is int and type(e) is int and 0 <= s < e:
        return (s, e)
    return None


def span(x: Any, d: int = 0) -> tuple[int, int] | None:
    """SPAN (§5): an exact half-open span ``(start, end)`` or ``None``."""
    if d > 4 or x is None:
        return None
    m = view(x)
    if m is not None:
        s = m.get("start")
        if s is None:
            s = m.get("start_char")
        e = m.get("end")
        if e is None:
            e = m.get("end_char")
        if type(s) is int and type(e) is int and 0 <= s < e:
            return (s, e)
        for key in CONTAINER_KEYS:
            value = m.get(key)
            if value is not None:
                found = span(value, d + 1)
                if found is not None:
                    return found
        return None
    t = type(x)
    if t is list or t is tuple:
        return _pair(x)
    if t in _SCALAR_TYPES:
        return None
    try:
        s = getattr(x, "start")  # noqa: B009 - a caller attribute, read exactly once
    except AttributeError:
        s = _MISSING
    if s is not _MISSING:
        try:
            e = getattr(x, "end")  # noqa: B009
        except AttributeError:
            e = _MISSING
        if type(s) is int and type(e) is int and 0 <= s < e:
            return (s, e)
    return _pair(x)


def _is_split_sequence(x: Any) -> bool:
    return (
        type(x) is list
        or type(x) is tuple
        or (isinstance(x, Sequence) and not isinstance(x, str | bytes))
    )


def cit_refs(x: Any, d: int = 0) -> list[Ref]:
    """CIT_REFS (§7): the references of one citation item, first occurrences kept."""
    if d > 5 or x is None:
        return []
    if type(x) is str:
        text = x.strip()
        return [("i", text)] if text else []
    m = view(x)
    if m is None:
        found = ident(x)
        if found is not None:
            return [("i", found)]
        sp = span(x, 0)
        return [("s", sp[0], sp[1])] if sp is not None else []
    refs: list[Ref] = []
    for key in CITATION_ID_KEYS:
        found = ident(m.get(key))
        if found is not None:
            refs.append(("i", found))
            break
    if (
        m.get("start") is not None
        or m.get("end") is not None
        or m.get("start_char") is not None
        or m.get("end_char") is not None
    ):
        sp = span(m, 0)
        if sp is not None:
            refs.append(("s", sp[0], sp[1]))
    else:
        for key in CONTAINER_KEYS:
            value = m.get(key)
            if value is not None:
                sp = span(value, 0)
                if sp is not None:
                    refs.append(("s", sp[0], sp[1]))
                    break
    for key in CITATION_COLLECTION_KEYS:
        value = m.get(key)
        if value is not None and not _is_split_sequence(value):
            refs.extend(cit_refs(value, d + 1))
    if len(refs) > 1:
        refs = list(dict.fromkeys(refs))
    return refs


def cit_items(x: Any, d: int = 0) -> list[list[Ref]]:
    """CIT_ITEMS (§7): split a citation-bearing value into items (each a reference list)."""
    if d > 5 or x is None:
        return []
    t = type(x)
    if t is list or t is tuple:
        return [cit_refs(element, 0) for element in x]
    m = view(x)
    if m is not None:
        refs = cit_refs(m, 0)
        if refs:
            return [refs]
        out: list[list[Ref]] = []
        for key in CITATION_COLLECTION_KEYS:
            value = m.get(key)
            if value is not None:
                out.extend(cit_items(value, d + 1))
        return out if out else [[]]
    if isinstance(x, Sequence) and not isinstance(x, str | bytes):
        return [cit_refs(element, 0) for element in x]
    return [cit_refs(x, 0)]


def claim_citations(claim: Any) -> list[list[Ref]]:
    """CLAIM_CITATIONS (§7): the citation items of one claim."""
    m = view(claim)
    if m is None:
        return []
    present = m.keys() & _CLAIM_KEYS
    if present <= _COLLECTION_SET:
        # Only citation collections: no direct item, no claim-level identifier keys. The
        # order of items never matters (only their multiset), so any key order is exact.
        fast: list[list[Ref]] = []
        for key in present:
            value = m[key]
            if value is not None:
                fast.extend(cit_items(value, 0))
        return fast
    direct = (
        m.get("start") is not None
        or m.get("end") is not None
        or m.get("start_char") is not None
        or m.get("end_char") is not None
    )
    kstar: str | None = None
    kstar_ident: str | None = None
    if direct:
        for key in CLAIM_ID_KEYS:
            found = ident(m.get(key))
            if found is not None:
                kstar, kstar_ident = key, found
                break
    items: list[list[Ref]] = []
    for key in CLAIM_ID_KEYS:
        if key == kstar:
            continue
        value = m.get(key)
        if value is not None:
            items.extend(cit_items(value, 0))
    if direct:
        refs: list[Ref] = []
        if kstar_ident is not None:
            refs.append(("i", kstar_ident))
        sp = span(m, 0)
        if sp is not None:
            refs.append(("s", sp[0], sp[1]))
        items.append(refs)
    for key in CITATION_COLLECTION_KEYS:
        value = m.get(key)
        if value is not None:
            items.extend(cit_items(value, 0))
    return items


def source_refs(record: Any) -> tuple[str | None, tuple[int, int] | None]:
    """SOURCE_REFS (§6): the (identifier, span) of one evidence record."""
    m = view(record)
    if m is None:
        found = ident(record)
        if found is not None:
            return found, None
        return None, span(record, 0)
    found = None
    for key in EVIDENCE_ID_KEYS:
        found = ident(m.get(key))
        if found is not None:
            break
    return found, span(m, 0)


class EvidenceRefs:
    """Column lists of evidence references, one entry per evidence record."""

    __slots__ = ("end", "ids", "start")

    def __init__(self) -> None:
        self.ids: list[str | None] = []
        self.start: list[int | None] = []
        self.end: list[int | None] = []

    def __repr__(self) -> str:
        return f"EvidenceRefs(<{len(self.ids)} records>)"


class ClaimItems:
    """Citation items of claims as reference rows: ``item_no`` numbers the items, each row
    holds at most one identifier and one span of its item. An item with one identifier and
    one span is one row, an item with several identifiers or spans is one row per reference,
    an item without references is one row of nulls (§13 Step C, ``item_ref``)."""

    __slots__ = ("claim_no", "end", "ids", "item_count", "item_no", "start")

    def __init__(self) -> None:
        self.item_no: list[int] = []
        self.claim_no: list[int] = []
        self.ids: list[str | None] = []
        self.start: list[int | None] = []
        self.end: list[int | None] = []
        self.item_count = 0

    def __repr__(self) -> str:
        return f"ClaimItems(<{self.item_count} items>)"


def walk_evidence(records: Sequence[Any]) -> EvidenceRefs:
    """Normalise evidence records in order (record view, ids, spans)."""
    out = EvidenceRefs()
    ids, starts, ends = out.ids, out.start, out.end
    for record in records:
        if type(record) is dict:
            # Fast path for plain dicts; identical to source_refs() (same rules, inlined).
            found = None
            for key in EVIDENCE_ID_KEYS:
                value = record.get(key)
                if value is None:
                    continue
                kind = type(value)
                if kind is str:
                    found = value.strip() or None
                elif kind is int:
                    found = int.__repr__(value)
                else:
                    found = ident(value)
                if found is not None:
                    break
            ids.append(found)
            s = record.get("start")
            if s is None:
                s = record.get("start_char")
            e = record.get("end")
            if e is None:
                e = record.get("end_char")
            if type(s) is int and type(e) is int and 0 <= s < e:
                starts.append(s)
                ends.append(e)
                continue
            sp = span(record, 0)
        else:
            found, sp = source_refs(record)
            ids.append(found)
        if sp is None:
            starts.append(None)
            ends.append(None)
        else:
            starts.append(sp[0])
            ends.append(sp[1])
    return out


def walk_claims(records: Sequence[Any], citation_limit: int | None) -> ClaimItems:
    """Extract the citation items of every claim; raise the marker past ``citation_limit``
    (``None``: no running bound, the caller counts items per document)."""
    out = ClaimItems()
    item_nos, claim_nos, ids, starts, ends = out.item_no, out.claim_no, out.ids, out.start, out.end
    item_no = 0
    for claim_no, record in enumerate(records):
        items = claim_citations(record)
        if citation_limit is not None and item_no + len(items) > citation_limit:
            raise CitationLimitExceeded()
        for refs in items:
            n = len(refs)
            if n == 0:
                rows: list[tuple[Any, Any, Any]] = [(None, None, None)]
            elif n == 2 and refs[0][0] != refs[1][0]:
                id_ref, span_ref = (refs[0], refs[1]) if refs[0][0] == "i" else (refs[1], refs[0])
                rows = [(id_ref[1], span_ref[1], span_ref[2])]
            else:
                rows = [(r[1], None, None) if r[0] == "i" else (None, r[1], r[2]) for r in refs]
            for rid, s, e in rows:
                item_nos.append(item_no)
                claim_nos.append(claim_no)
                ids.append(rid)
                starts.append(s)
                ends.append(e)
            item_no += 1
    out.item_count = item_no
    return out
