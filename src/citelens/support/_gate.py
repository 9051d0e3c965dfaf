"""The support check that `citelens support --ci` and `citelens.testing` both apply: one rule.

Nothing measured is not a pass (issue 10): zero claims, or claims without any citation edge,
fail with a named reason; otherwise the non-zero span-check counts fail, in this order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citelens.support._report import CitationSupportReport

__all__ = ["SPAN_FAILURES", "nothing_measured", "span_failures"]

SPAN_FAILURES = (
    "missing_claim_span",
    "invalid_claim_span",
    "missing_evidence_span",
    "invalid_evidence_span",
    "invalid_citation",
)
"""The span-check counts that fail the check, in the order messages list them."""


def nothing_measured(report: CitationSupportReport) -> str | None:
    """``no claims evaluated`` / ``no citations evaluated``, or ``None`` when something was."""
    if report.claim_count == 0:
        return "no claims evaluated"
    if report.deterministic.citation_count == 0:
        return "no citations evaluated"
    return None


def span_failures(report: CitationSupportReport) -> list[tuple[str, int]]:
    """The non-zero counts of :data:`SPAN_FAILURES`, as ``(name, count)`` in that order."""
    checks = report.deterministic
    counts = (
        checks.missing_claim_span_count,
        checks.invalid_claim_span_count,
        checks.missing_evidence_span_count,
        checks.invalid_evidence_span_count,
        checks.invalid_citation_count,
    )
    return [(name, count) for name, count in zip(SPAN_FAILURES, counts) if count]
