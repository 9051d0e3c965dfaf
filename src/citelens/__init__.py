"""citelens: deterministic, columnar evaluation of citations attached to claims."""

from __future__ import annotations

from . import errors
from .errors import (
    CitationMinimalityError,
    CitationOrderingError,
    CitationSupportError,
    CitelensError,
    GoldError,
    LimitsError,
    SummaryCitationError,
    SummaryCitationGateError,
    SummaryReviewError,
)
from .limits import Limits

__version__ = "0.1.0"

__all__ = [
    "CitationMinimalityError",
    "CitationOrderingError",
    "CitationSupportError",
    "CitelensError",
    "GoldError",
    "Limits",
    "LimitsError",
    "SummaryCitationError",
    "SummaryCitationGateError",
    "SummaryReviewError",
    "__version__",
    "errors",
]
