"""Citation minimality: is each citation no broader than the span its claim needs?

The caller declares, for each atomic claim, the required span of the source text. For each
citation of that claim :func:`check_citation_minimality` compares the cited span with the
required span, counts deterministic Unicode word and punctuation tokens (:func:`tokenize`), and
returns offsets, token counts and a controlled status (``minimal``, ``excess_context``,
``missing_required_span``). Reports hold only opaque ``sha256:`` identifiers, offsets, counts
and statuses; the source text is never stored or printed. Contract: ``minimality.md``.

The source is tokenised once into token start/end arrays and every span is counted with two
binary searches, so a check costs O(tokens + citations · log tokens). ``AtomicClaim`` is a
deprecated alias of :class:`MinimalityClaim` (a warning is emitted on use).
"""

from typing import Any

from citelens.minimality._api import (
    CITATION_MINIMALITY_DISCLAIMER,
    CITATION_MINIMALITY_SCHEMA_VERSION,
    TOKENIZER_UNICODE_VERSION,
    CitationMinimalityBatchResult,
    CitationMinimalityError,
    CitationMinimalityRecord,
    CitationMinimalityReport,
    CitationMinimalityStatus,
    CitationSpan,
    ClaimCitation,
    Limits,
    MinimalityClaim,
    check_citation_minimality,
    check_citation_minimality_batch,
    deprecated_name,
    tokenize,
)

__all__ = [
    "CITATION_MINIMALITY_DISCLAIMER",
    "CITATION_MINIMALITY_SCHEMA_VERSION",
    "TOKENIZER_UNICODE_VERSION",
    "CitationMinimalityBatchResult",
    "CitationMinimalityError",
    "CitationMinimalityRecord",
    "CitationMinimalityReport",
    "CitationMinimalityStatus",
    "CitationSpan",
    "ClaimCitation",
    "Limits",
    "MinimalityClaim",
    "check_citation_minimality",
    "check_citation_minimality_batch",
    "tokenize",
]


def __getattr__(name: str) -> Any:
    """Deprecated names (PEP 562): ``AtomicClaim`` → :class:`MinimalityClaim`."""
    return deprecated_name(__name__, name)
