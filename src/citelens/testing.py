"""Assertions for test suites and pre-commit hooks: fail a test when citations do not check out.

Two helpers run a citelens check and return its report when the check passes, or raise
:class:`AssertionError` when it does not, so a plain ``pytest`` test (or any script run by a
pre-commit hook or CI job) fails with a readable message::

    from citelens.testing import assert_citations_valid, assert_summary_citations_pass

    def test_generated_brief_cites_real_evidence():
        assert_citations_valid("out/claims.jsonl", "out/evidence.jsonl")

    def test_summary_citations_are_consistent():
        assert_summary_citations_pass(summary_claims, summary_evidence)

The assertion message holds only counts, fixed reason codes and the names of the failed
checks: never an identifier, a claim text or a source text, so a CI log shows no input value.
Unusable input is not a failed assertion: it raises the check's own fixed error
(:class:`citelens.errors.CitationSupportError`, :class:`citelens.errors.SummaryCitationError`),
and an unexpected exception stays :class:`citelens.errors.InternalError`.

This module imports no engine itself: Polars and PyArrow load when a helper is first called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from citelens.errors import CitationSupportError, SummaryCitationError
from citelens.limits import Limits

if TYPE_CHECKING:
    from citelens.summary_citations import SummaryCitationReport
    from citelens.support import CitationSupportReport

__all__ = ["assert_citations_valid", "assert_summary_citations_pass"]

# Summary counts worth showing when the gate fails (the reasons alone do not say how many).
_SUMMARY_COUNTS = (
    "claim_count",
    "unsupported_claim_count",
    "citation_count",
    "invalid_citation_count",
    "duplicate_citation_count",
    "missing_citation_count",
    "missing_source_record_count",
    "unavailable_span_count",
    "invalid_evidence_record_count",
    "duplicate_evidence_record_count",
)


def _ratio_option(value: object, name: str) -> float | None:
    """A ``min_*`` option: ``None`` (not checked) or a finite number in [0, 1]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CitationSupportError(f"{name} must be a number between 0 and 1", "policy")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise CitationSupportError(f"{name} must be a number between 0 and 1", "policy")
    return number


def _count_option(value: object, name: str) -> int | None:
    """A ``max_*`` option: ``None`` (not checked) or an ``int`` >= 0."""
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise CitationSupportError(f"{name} must be a non-negative integer", "policy")
    return value


def _support_failures(
    report: CitationSupportReport,
    min_citation_precision: float | None,
    min_support_recall: float | None,
    max_orphan_claims: int | None,
    max_unused_evidence: int | None,
) -> list[str]:
    """Why the support check fails, as value-free phrases (empty when it passes): the rule of
    `citelens support --ci` (:mod:`citelens.support._gate`), with the counts."""
    from citelens.support._gate import nothing_measured, span_failures

    checks = report.deterministic
    empty = nothing_measured(report)  # nothing measured is not a pass (issue 10)
    if empty:
        return [empty]
    failures = [f"{name}={count}" for name, count in span_failures(report)]
    if checks.invalid_citation_count:
        # the reasons are fixed codes (REASON_CODES), already sorted by the report
        reasons = ", ".join(f"{code}={n}" for code, n in checks.invalid_citation_reasons.items())
        failures[-1] += f" ({reasons})"
    failures.extend(
        _threshold_failures(
            report,
            min_citation_precision,
            min_support_recall,
            max_orphan_claims,
            max_unused_evidence,
        )
    )
    return failures


def _threshold_failures(
    report: CitationSupportReport,
    min_citation_precision: float | None,
    min_support_recall: float | None,
    max_orphan_claims: int | None,
    max_unused_evidence: int | None,
) -> list[str]:
    """The optional thresholds that fail; an unmeasured metric (no adjudications) fails."""
    failures: list[str] = []
    for name, minimum, value in (
        ("citation_precision", min_citation_precision, report.citation_precision),
        ("support_recall", min_support_recall, report.support_recall),
    ):
        if minimum is None:
            continue
        if value is None:
            failures.append(f"{name} not measured (no adjudications)")
        elif value < minimum:
            failures.append(f"{name}={value:.4f} below minimum {minimum:.4f}")
    for name, maximum, count in (
        ("orphan_claims", max_orphan_claims, report.orphan_claim_count),
        ("unused_evidence", max_unused_evidence, report.unused_evidence_count),
    ):
        if maximum is not None and count > maximum:
            failures.append(f"{name}={count} above maximum {maximum}")
    return failures


def assert_citations_valid(
    claims: Any,
    evidence: Any,
    citations: Any = None,
    *,
    adjudications: Any = None,
    source_lengths: Any = None,
    limits: Limits | None = None,
    min_citation_precision: float | None = None,
    min_support_recall: float | None = None,
    max_orphan_claims: int | None = None,
    max_unused_evidence: int | None = None,
) -> CitationSupportReport:
    """Check citation support and return the report, or raise ``AssertionError``.

    Runs :func:`citelens.compute_citation_support_metrics` on the same inputs (records,
    tables, frames or data-file paths) and applies the check of ``citelens support --ci``:
    at least one claim and one citation edge, no missing or invalid claim or evidence span and
    no invalid citation edge. The optional thresholds tighten it: ``min_citation_precision`` and
    ``min_support_recall`` (numbers in [0, 1]; they need ``adjudications``, and an unmeasured
    metric fails), ``max_orphan_claims`` and ``max_unused_evidence`` (counts).

    The ``AssertionError`` message lists the failing counts, the invalid-citation reason codes
    and the failed thresholds only, e.g. ``citation support check failed: invalid_citation=2
    (missing_evidence=1, source_mismatch=1)``. Invalid thresholds raise
    :class:`citelens.errors.CitationSupportError` (category ``policy``); unusable input raises
    the support check's own fixed error.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    precision = _ratio_option(min_citation_precision, "min_citation_precision")
    recall = _ratio_option(min_support_recall, "min_support_recall")
    orphans = _count_option(max_orphan_claims, "max_orphan_claims")
    unused = _count_option(max_unused_evidence, "max_unused_evidence")
    from citelens.support import compute_citation_support_metrics

    report = compute_citation_support_metrics(
        claims,
        evidence,
        citations,
        adjudications,
        source_lengths=source_lengths,
        limits=limits,
    )
    failures = _support_failures(report, precision, recall, orphans, unused)
    if failures:
        raise AssertionError("citation support check failed: " + "; ".join(failures))
    return report


def assert_summary_citations_pass(
    claims: Any,
    evidence: Any,
    *,
    limits: Limits | None = None,
) -> SummaryCitationReport:
    """Check summary citation consistency and return the report, or raise ``AssertionError``.

    Runs :func:`citelens.build_summary_citation_report` and applies its strict gate (the gate of
    ``citelens summary-citations --ci``): source evidence available and no failure reason.
    The ``AssertionError`` message lists the fixed failure reason codes and the non-zero
    counts only, e.g. ``summary citations check failed: missing_citation; claim_count=5,
    missing_citation_count=1``. Unusable input raises
    :class:`citelens.errors.SummaryCitationError`.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    if limits is not None and not isinstance(limits, Limits):
        raise SummaryCitationError("limits must be a Limits instance", "policy")
    from citelens.summary_citations import build_summary_citation_report

    report = build_summary_citation_report(claims, evidence, limits=limits)
    if report.passed:
        return report
    metrics = report.metrics
    reasons = ", ".join(metrics.failure_reasons) or "gate failed"
    counts = ", ".join(
        f"{name}={getattr(metrics, name)}" for name in _SUMMARY_COUNTS if getattr(metrics, name)
    )
    message = f"summary citations check failed: {reasons}"
    if not metrics.source_evidence_available:
        message += "; source evidence not available"
    if counts:
        message += f"; {counts}"
    raise AssertionError(message)
