"""Error classes shared by every citelens module.

Every error carries a fixed message (``str(e) == e.args[0]``) built only from fixed text, and a
``category`` word from :data:`ERROR_CATEGORIES`. The message is the contract's (the conformance
vectors fix it); ``detail``, when set, is a second fixed text naming the cause more precisely
(``claims file not found``, ``claims JSONL line 17 is not a JSON object``): positions may appear
in it, input values and paths never. The CLI prints the detail in place of the message.
Errors are never chained: raise them outside the ``except`` block that caught a foreign
exception, so no input value reaches a traceback.
"""

from __future__ import annotations

__all__ = [
    "ERROR_CATEGORIES",
    "CitationImportError",
    "CitationMinimalityError",
    "CitationOrderingError",
    "CitationSupportError",
    "CitelensError",
    "CorpusError",
    "GoldError",
    "InternalError",
    "LimitsError",
    "ProvenanceError",
    "SummaryCitationError",
    "SummaryCitationGateError",
    "SummaryReviewError",
]

ERROR_CATEGORIES: tuple[str, ...] = (
    "input",
    "collection",
    "limit",
    "policy",
    "record",
    "identifier",
    "span",
    "value",
    "reference",
    "report",
    "io",
    "gate",
    "review",
    "internal",
)


class CitelensError(Exception):
    """Base class of every citelens error: a fixed message and a fixed category."""

    category: str
    detail: str | None

    def __init__(self, message: str, category: str = "input", detail: str | None = None) -> None:
        if category not in ERROR_CATEGORIES:
            category = "input"
        super().__init__(message)
        self.category = category
        self.detail = detail

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.args[0], self.category, self.detail))


class InternalError(CitelensError, RuntimeError):
    """An unexpected exception inside citelens: a bug or a broken environment, never bad input.

    The message names the exception type only (``internal error (ComputeError)``), never a value;
    the category is ``internal`` and the CLI exits with code 3.
    """

    def __init__(self, message: str, category: str = "internal", detail: str | None = None) -> None:
        super().__init__(message, category, detail)

    @classmethod
    def of(cls, exc: BaseException) -> InternalError:
        """The internal error for an unexpected exception (its type name only)."""
        return cls(f"internal error ({type(exc).__name__})", "internal")


class LimitsError(CitelensError, ValueError):
    """An invalid :class:`citelens.Limits` field."""


class CitationSupportError(CitelensError, ValueError):
    """Raised by :mod:`citelens.support`."""


class SummaryCitationError(CitelensError, ValueError):
    """Raised by :mod:`citelens.summary_citations`."""


class SummaryCitationGateError(CitelensError, AssertionError):
    """Raised by ``assert_summary_citation_gate`` when the gate fails."""


class CitationMinimalityError(CitelensError, ValueError):
    """Raised by :mod:`citelens.minimality`."""


class CitationOrderingError(CitelensError, ValueError):
    """Raised by :mod:`citelens.ordering`."""


class SummaryReviewError(CitelensError, ValueError):
    """Raised by :mod:`citelens.review`."""


class GoldError(CitelensError, ValueError):
    """Raised by :mod:`citelens.gold` library functions."""


class CorpusError(CitelensError, ValueError):
    """Raised by :mod:`citelens.corpus` and :mod:`citelens.spark`."""


class CitationImportError(CitelensError, ValueError):
    """Raised by :mod:`citelens.importers`: the message names the format and the field, the
    detail adds the line (``anthropic line 3: content[0].citations must be a list``)."""


class ProvenanceError(CitelensError, ValueError):
    """Raised by :mod:`citelens.provenance`."""
