"""The field aliases of the support record rules (§3.5–§3.8) and the typed-record protocol.

The column names each record rule reads, in the contract's first-value order, shared by the
adapter (which converts only these keys) and the rule stages. :class:`TypedRecord` is the base
of the four typed record classes (:mod:`citelens.support._records`): the adapter reads a typed
record's fields through it without importing the classes, whose ``from_mapping`` runs the
rule stages (so the classes sit above the engine, and nothing imports in a circle).
"""

from __future__ import annotations

from typing import ClassVar, Final

__all__ = [
    "CLAIM_CITATION_ALIASES",
    "CLAIM_ID_ALIASES",
    "CLAIM_SOURCE_ALIASES",
    "CLAIM_TYPE_ALIASES",
    "DEFAULT_CITATION_LIMIT",
    "EDGE_CLAIM_ALIASES",
    "EDGE_EVIDENCE_ALIASES",
    "EDGE_SOURCE_ALIASES",
    "EVIDENCE_ID_ALIASES",
    "EVIDENCE_SOURCE_ALIASES",
    "ITEM_EVIDENCE_ALIASES",
    "LENGTH_ALIASES",
    "TEXT_ALIASES",
    "TypedRecord",
]

# The bound of a typed claim's own citation list (the default citation limit, §3.9).
DEFAULT_CITATION_LIMIT: Final = 500_000

CLAIM_ID_ALIASES: Final = ("claim_id", "id", "fact_id", "key")
CLAIM_SOURCE_ALIASES: Final = ("source_id", "document_id", "summary_id")
CLAIM_CITATION_ALIASES: Final = (
    "citations",
    "citation_ids",
    "evidence_ids",
    "evidence",
    "sources",
)
CLAIM_TYPE_ALIASES: Final = ("claim_type", "claim_class", "category", "type")
EVIDENCE_ID_ALIASES: Final = ("evidence_id", "id", "citation_id", "span_id")
EVIDENCE_SOURCE_ALIASES: Final = ("source_id", "document_id", "record_id")
LENGTH_ALIASES: Final = ("source_length", "document_length", "text_length", "length")
TEXT_ALIASES: Final = ("source_text", "document_text")
EDGE_CLAIM_ALIASES: Final = ("claim_id", "claim", "fact_id")
EDGE_EVIDENCE_ALIASES: Final = ("evidence_id", "evidence", "citation_id")
EDGE_SOURCE_ALIASES: Final = ("span_source_id", "citation_source_id", "document_id")
ITEM_EVIDENCE_ALIASES: Final = ("evidence_id", "evidence", "citation_id", "id")


class TypedRecord:
    """Base of the typed support records: the collection kind a record belongs to and the
    fields the record rule reads from it (in the contract's field order)."""

    __slots__ = ()
    KIND: ClassVar[str]
    FIELDS: ClassVar[tuple[str, ...]]
