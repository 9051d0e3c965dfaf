"""Citation minimality: is each citation no broader than the span its claim needs?

The caller declares, for each atomic claim, the required span of the source text. For each
citation of that claim :func:`check_citation_minimality` compares the cited span with the
required span, counts deterministic Unicode word and punctuation tokens (:func:`tokenize`), and
returns offsets, token counts and a controlled status (``minimal``, ``excess_context``,
``missing_required_span``). Reports hold only opaque ``sha256:`` identifiers, offsets, counts
and statuses; the source text is never stored or printed. Contract: ``minimality.md``.

The source is tokenised once into token start/end arrays and every span is counted with two
binary searches, so a check costs O(tokens + citations · log tokens).
"""

from __future__ import annotations

from typing import Any

from citelens._renamed import renamed
from citelens.errors import CitationMinimalityError
from citelens.limits import Limits
from citelens.minimality._check import (
    CitationMinimalityBatchResult,
    check_citation_minimality,
    check_citation_minimality_batch,
)
from citelens.minimality._tokenize import TOKENIZER_UNICODE_VERSION, tokenize
from citelens.minimality._types import (
    CITATION_MINIMALITY_DISCLAIMER,
    CITATION_MINIMALITY_SCHEMA_VERSION,
    CitationMinimalityRecord,
    CitationMinimalityReport,
    CitationMinimalityStatus,
    CitationSpan,
    ClaimCitation,
    MinimalityClaim,
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
    "deprecated_name",
    "tokenize",
]

# Old name → new name. ``AtomicClaim`` was also the name of citelens.support.AtomicClaim, a
# different record; the old spelling stays importable for a while, with a warning.
DEPRECATED_NAMES = {"AtomicClaim": "MinimalityClaim"}


def deprecated_name(module: str, name: str) -> Any:
    """The object behind a deprecated name of ``module`` (PEP 562), with a warning."""
    return renamed(module, name, DEPRECATED_NAMES, globals())


def __getattr__(name: str) -> Any:
    return deprecated_name(__name__, name)
