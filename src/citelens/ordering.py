"""Deterministic citation ordering (contract ``ordering.md``); implemented in
:mod:`citelens.minimality._ordering`, next to the minimality rules it shares (identifier and
offset rules). ``Citation`` is a deprecated alias of :class:`OrderingCitation` (it clashed with
:class:`citelens.support.Citation`, a different record); using it emits a warning.
"""

from typing import Any

from citelens.minimality._ordering import (
    CITATION_ORDERING_SCHEMA_VERSION,
    CitationOrdering,
    CitationOrderingError,
    OrderingCitation,
    deprecated_name,
    order_citations,
    order_citations_table,
)

__all__ = [
    "CITATION_ORDERING_SCHEMA_VERSION",
    "CitationOrdering",
    "CitationOrderingError",
    "OrderingCitation",
    "order_citations",
    "order_citations_table",
]


def __getattr__(name: str) -> Any:
    """Deprecated names (PEP 562): ``Citation`` → :class:`OrderingCitation`."""
    return deprecated_name(__name__, name)
