"""Key lists of summary-citations.md §4.2 and §5 (all orders are significant), and the
identifier whitespace set, computed lazily (no work at import time)."""

from __future__ import annotations

import functools
import sys

__all__ = [
    "CITATION_COLLECTION_KEYS",
    "CITATION_ID_KEYS",
    "CLAIM_ID_KEYS",
    "CONTAINER_KEYS",
    "DIRECT_SPAN_KEYS",
    "EVIDENCE_ID_KEYS",
    "HINT_KEYS",
    "whitespace",
]

EVIDENCE_ID_KEYS: tuple[str, ...] = ("id", "evidence_id", "source_id", "fact_id", "record_id")
CITATION_ID_KEYS: tuple[str, ...] = (
    "evidence_id",
    "source_evidence_id",
    "source_id",
    "fact_id",
    "citation_id",
    "ref_id",
    "source_ref",
    "source_reference",
    "id",
)
CLAIM_ID_KEYS: tuple[str, ...] = CITATION_ID_KEYS[:-1]
CONTAINER_KEYS: tuple[str, ...] = (
    "span",
    "source_span",
    "evidence_span",
    "supporting_span",
    "source_evidence",
    "evidence",
    "offsets",
)
CITATION_COLLECTION_KEYS: tuple[str, ...] = (
    "citations",
    "citation",
    "references",
    "source_refs",
    "source_references",
    "evidence",
    "source_evidence",
)
DIRECT_SPAN_KEYS: tuple[str, ...] = ("start", "end", "start_char", "end_char")
HINT_KEYS: frozenset[str] = frozenset(
    {
        "id",
        "evidence_id",
        "source_id",
        "fact_id",
        "record_id",
        "source_evidence_id",
        "citation_id",
        "ref_id",
        "source_ref",
        "source_reference",
        "span",
        "source_span",
        "evidence_span",
        "supporting_span",
        "source_evidence",
        "evidence",
        "offsets",
        "citations",
        "citation",
        "references",
        "source_refs",
        "source_references",
        "claim",
        "summary",
        "summary_text",
        "text",
        "value",
        "surface",
        "start",
        "end",
        "start_char",
        "end_char",
    }
)


@functools.cache
def whitespace() -> str:
    """Python's own ``str.isspace()`` set, derived from the running interpreter (§13 Step A).

    Polars ``strip_chars()`` and Rust ``char::is_whitespace`` differ from it (U+001C–U+001F),
    so the identifier rule passes this explicit set; scanning every code point once costs
    about 0.1 s, hence the cache instead of a module-level constant.
    """
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
