"""The field and alias names minimality.md §6 reads, in READ order."""

from __future__ import annotations

__all__ = [
    "CITATION_ENDS",
    "CITATION_ID_NAMES",
    "CITATION_NAMES",
    "CITATION_SPAN_ALIASES",
    "CITATION_STARTS",
    "CLAIM_ENDS",
    "CLAIM_ID_NAMES",
    "CLAIM_NAMES",
    "CLAIM_SPAN_ALIASES",
    "CLAIM_STARTS",
    "OFFSET_NAMES",
    "SPAN_ENDS",
    "SPAN_NESTED",
    "SPAN_STARTS",
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
# The READs of SPAN_FROM step 3 (also on a record that falls through to it).
SPAN_STARTS = ("start", "source_start")
SPAN_ENDS = ("end", "source_end")
SPAN_NESTED = ("source_offset", "source_offsets", "offset")

CLAIM_NAMES = frozenset(
    CLAIM_ID_NAMES + CLAIM_SPAN_ALIASES + CLAIM_STARTS + CLAIM_ENDS + SPAN_STARTS + SPAN_ENDS
    + SPAN_NESTED
)  # fmt: skip
CITATION_NAMES = frozenset(
    CLAIM_ID_NAMES + CITATION_ID_NAMES + CITATION_SPAN_ALIASES + CITATION_STARTS
    + CITATION_ENDS + SPAN_STARTS + SPAN_ENDS + SPAN_NESTED
)  # fmt: skip
# Columns whose CSV cells matching ``-?[0-9]+`` are ints (§6 Collections, step 2).
OFFSET_NAMES = frozenset(CLAIM_STARTS + CLAIM_ENDS + CITATION_STARTS + CITATION_ENDS)
