"""Deterministic citation ordering (contract ``ordering.md``); implemented in
:mod:`citelens.minimality._ordering`, next to the minimality checks it shares its parsing with.
"""

from citelens.minimality._ordering import (
    CITATION_ORDERING_SCHEMA_VERSION,
    Citation,
    CitationOrdering,
    CitationOrderingError,
    order_citations,
    order_citations_table,
)

__all__ = [
    "CITATION_ORDERING_SCHEMA_VERSION",
    "Citation",
    "CitationOrdering",
    "CitationOrderingError",
    "order_citations",
    "order_citations_table",
]
