"""The summary gate: machine spans, support, coverage, minimality, leakage, review (§11)."""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from citelens._fixed import attempt
from citelens.limits import Limits
from citelens.minimality import ClaimCitation, MinimalityClaim, check_citation_minimality
from citelens.review._common import MAX_ROWS, is_row_collection, refused
from citelens.review._import import ImportedSummaryReview
from citelens.review._leakage import check_identifier_leakage
from citelens.summary_citations import build_summary_citation_report
from citelens.support import CitationSupportReport, compute_citation_support_metrics

__all__ = ["GateCheck", "evaluate_summary_gate", "gate_passed"]

THRESHOLD_KEYS = frozenset(
    {
        "citation_support_min",
        "summary_citation_coverage_min",
        "citation_minimality_flagged_max",
        "leaked_identifier_count_max",
    }
)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class GateCheck:
    """One gate check: its name, verdict, fixed reason code and value-free details."""

    gate: str
    passed: bool
    reason: str = "ok"
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{gate, passed, reason, details}`` with details converted recursively."""
        return {
            "gate": self.gate,
            "passed": self.passed,
            "reason": self.reason,
            "details": _plain(self.details),
        }


def gate_passed(checks: Iterable[GateCheck]) -> bool:
    """At least one check, and every check passed (review.md §11.1).

    Fails closed and never raises: anything other than an iterable of exact
    :class:`GateCheck` objects whose ``passed`` is exactly ``True`` is not a pass (an item of
    another type, a truthy non-bool verdict, a caller iterable that raises while being read).
    Reading stops at the first check that did not pass.
    """

    def verdict() -> bool:
        seen = False
        for check in checks:
            if type(check) is not GateCheck or check.passed is not True:
                return False
            seen = True
        return seen

    result = False
    try:
        result = verdict()
    except Exception:  # the caller's iterable (iter/next) raised: nothing passed
        result = False
    return result


_INPUT_FAILURE = (GateCheck("summary_input", False, "invalid_evaluation_input", {}),)
_MISSING_EVIDENCE = (GateCheck("summary_evidence", False, "missing_evidence", {}),)


def _rate(value: object) -> bool:
    return (type(value) is int or type(value) is float) and math.isfinite(value) and 0 <= value <= 1


Spans = dict[Any, tuple[Any, Any]]


def _caller_mappings(thresholds: Any, required_spans: Any) -> tuple[dict[Any, Any], Spans | None]:
    """Read the two caller mappings into plain values (raises whatever a caller object raises).

    ``thresholds`` becomes a ``dict``; each ``required_spans`` value becomes its two items, or
    ``None`` when it is not a non-string sequence of two items. Bounded: at most ``MAX_ROWS + 1``
    entries are read.
    """
    limits = dict(thresholds.items())
    if required_spans is None or len(required_spans) > MAX_ROWS:
        return limits, None
    spans: Spans = {}
    for key, value in required_spans.items():
        if (
            isinstance(value, (str, bytes, bytearray))
            or not isinstance(value, Sequence)
            or len(value) != 2
        ):
            spans[key] = (None, None)
        else:
            spans[key] = (value[0], value[1])
        if len(spans) > MAX_ROWS:
            break
    return limits, spans


def _read_caller_mappings(
    thresholds: Any, required_spans: Any
) -> tuple[dict[Any, Any], Spans | None] | None:
    """:func:`_caller_mappings`, or ``None`` when a caller mapping or sequence raised while
    being read (the gate then reports invalid input, review.md §11.2)."""
    if not isinstance(thresholds, Mapping):
        return None
    if required_spans is not None and not isinstance(required_spans, Mapping):
        return None
    read: tuple[dict[Any, Any], Spans | None] | None = None
    try:
        read = _caller_mappings(thresholds, required_spans)
        if read[0].keys() != THRESHOLD_KEYS:  # compares the caller's keys
            read = None
    except Exception:  # a caller object (mapping, key or sequence) raised
        read = None
    return read


def _valid_inputs(
    summary: Any,
    source: Any,
    claims: Any,
    evidence: Any,
    thresholds: Any,
    protected_surfaces: Any,
    required_spans: Any,
) -> tuple[dict[str, Any], dict[Any, tuple[int, int]] | None] | None:
    read = _read_caller_mappings(thresholds, required_spans)
    if read is None:
        return None
    limits, read_spans = read
    if not _rate(limits["citation_support_min"]) or not _rate(
        limits["summary_citation_coverage_min"]
    ):
        return None
    flagged = limits["citation_minimality_flagged_max"]
    if type(flagged) is not int or flagged < 0:
        return None
    leaked = limits["leaked_identifier_count_max"]
    if (type(leaked) is not int and type(leaked) is not float) or leaked != 0:
        return None
    if type(summary) is not str or type(source) is not str:
        return None
    for collection in (claims, evidence, protected_surfaces):
        if not is_row_collection(collection):
            return None
    if required_spans is None:
        return limits, None
    if read_spans is None or len(read_spans) > MAX_ROWS:
        return None
    length = len(source)
    for start, end in read_spans.values():
        if not (type(start) is int and type(end) is int and 0 <= start < end <= length):
            return None
    return limits, read_spans


def _identifier(value: object) -> str | None:
    """The identifier rule of support-metrics.md §3.8, or ``None`` when ``value`` breaks it."""
    if type(value) is bool or not isinstance(value, (str, int)):
        return None
    text = str(value).strip()
    if not 1 <= len(text) <= 256 or any(
        ord(ch) < 0x20 or ord(ch) == 0x7F or 0xD800 <= ord(ch) <= 0xDFFF for ch in text
    ):
        return None
    return text


def _p(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


def _str(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack("<I", len(data)) + data


def _int(value: int | None) -> bytes:
    if value is None:
        return b"\x00" * 9
    return b"\x01" + struct.pack("<q", value)


def _edge_row(claim: str, evidence: str, start: int | None, end: int | None, src: str) -> bytes:
    return _str(claim) + _str(evidence) + _int(start) + _int(end) + _str(src)


def _minimality(source: str, support: CitationSupportReport, spans: Spans) -> Any:
    """The minimality report of review.md §11.4, or ``None`` when a required-span key is not a
    claim of ``support`` (or names one twice); minimality's own errors propagate."""
    tables = support.tables(raw_identifiers=True)
    if tables is None:
        return None
    claim_ids = set(tables.claims.column("claim_id").to_pylist())
    required: dict[str, tuple[int, int]] = {}
    for key, span in spans.items():
        claim_id = _identifier(key)
        if claim_id is None or claim_id not in claim_ids or claim_id in required:
            return None
        required[claim_id] = span
    mclaims = [
        MinimalityClaim(claim_id=_p(claim_id), required_span=required[claim_id])
        for claim_id in sorted(required, key=lambda c: c.encode("utf-8"))
    ]
    evidence_spans = {
        row["evidence_id"]: (row["start"], row["end"])
        for row in tables.evidence.select(["evidence_id", "start", "end"]).to_pylist()
    }
    edges = [
        row
        for row in tables.edges.select(
            ["claim_id", "evidence_id", "start", "end", "source_id", "valid"]
        ).to_pylist()
        if row["valid"] and row["claim_id"] in required
    ]

    def order(row: dict[str, Any]) -> tuple[Any, ...]:
        return (
            row["claim_id"].encode("utf-8"),
            row["evidence_id"].encode("utf-8"),
            (row["start"] is not None, row["start"] or 0),
            (row["end"] is not None, row["end"] or 0),
            row["source_id"].encode("utf-8"),
        )

    mcitations = []
    for row in sorted(edges, key=order):
        if row["start"] is not None:
            span = (row["start"], row["end"])
        else:
            span = evidence_spans[row["evidence_id"]]
        encoded = _edge_row(
            row["claim_id"], row["evidence_id"], row["start"], row["end"], row["source_id"]
        )
        mcitations.append(
            ClaimCitation(
                claim_id=_p(row["claim_id"]),
                source_span=span,
                citation_id="sha256:" + hashlib.sha256(encoded).hexdigest(),
            )
        )
    limits = Limits(claims=max(1, len(mclaims)), citations=max(1, len(mcitations)))
    return check_citation_minimality(source, mclaims, mcitations, limits=limits)


def _unmeasured(claim_count: int, citation_count: int | None) -> str | None:
    """The reason a check measured nothing (``None`` when it measured something): no claim,
    or no citation edge where the check measures edges (``citation_count`` not ``None``)."""
    if claim_count == 0:
        return "no_claims_evaluated"
    if citation_count == 0:
        return "no_citations_evaluated"
    return None


def _evaluate(
    summary: str,
    source: str,
    claims: Any,
    evidence: Any,
    limits: dict[str, Any],
    protected_surfaces: Any,
    review_import: Any,
    adjudications: Any,
    spans: Spans | None,
) -> tuple[GateCheck, ...] | None:
    """The checks of review.md §11.3, or ``None`` when the evaluation step fails (§11.2 step 3:
    a mismatching import, or a contract error of support, summary citations, minimality or
    leakage for these inputs)."""
    if review_import is not None:
        if (
            type(review_import) is not ImportedSummaryReview
            or adjudications is not None
            or not review_import.still_valid()
        ):
            return None
        if not review_import.matches(claims, evidence, summary=summary, source=source):
            return None
        asserted = review_import.adjudications
    else:
        asserted = adjudications
    support = refused(
        lambda: compute_citation_support_metrics(claims, evidence, adjudications=asserted)
    )
    if support is None:
        return None
    coverage = refused(lambda: build_summary_citation_report(claims, evidence))
    if coverage is None:
        return None
    minimality = None
    if spans is not None:
        # a minimality error (a required span without a token, a cited span beyond the
        # source, ...) fails the evaluation step (review.md §11.4)
        minimality = refused(lambda: _minimality(source, support, spans))
        if minimality is None:
            return None
    leakage = refused(lambda: check_identifier_leakage(summary, protected_surfaces))
    if leakage is None:
        return None

    # Nothing measured is not a pass (issue 10): a check over zero claims, or over zero
    # citation edges where it measures edges, fails with a named reason.
    unmeasured = _unmeasured(support.claim_count, support.deterministic.citation_count)
    checks = [
        GateCheck(
            "summary_machine_spans",
            bool(support.deterministic.passed) and unmeasured is None,
            unmeasured or "machine_span_checks",
            support.deterministic.to_dict(),
        )
    ]
    coverage_min = limits["summary_citation_coverage_min"]
    no_claims = _unmeasured(coverage.metrics.claim_count, None)
    checks.append(
        GateCheck(
            "summary_citation_coverage",
            bool(coverage.passed and coverage.coverage >= coverage_min) and no_claims is None,
            no_claims or ("measured" if coverage.passed else "summary_citation_failure"),
            {"threshold": coverage_min, "value": coverage.coverage},
        )
    )
    if minimality is not None:
        flagged_max = limits["citation_minimality_flagged_max"]
        unmeasured = _unmeasured(minimality.claim_count, minimality.citation_count)
        checks.append(
            GateCheck(
                "summary_citation_minimality",
                bool(minimality.flagged_count <= flagged_max) and unmeasured is None,
                unmeasured or "measured",
                {"threshold": flagged_max, "value": minimality.flagged_count},
            )
        )
    support_min = limits["citation_support_min"]
    if review_import is None or review_import.reviewer_evidence_available:
        value = support.support_recall
    else:
        value = None
    if value is not None:
        reason = "measured"
    elif review_import is None:
        reason = "missing_adjudication"
    elif review_import.evidence_kind == "synthetic":
        reason = "synthetic_review"
    else:
        reason = "unevaluable_review"
    checks.append(
        GateCheck(
            "summary_citation_support",
            value is not None and value >= support_min,
            reason,
            {"threshold": support_min, "value": value},
        )
    )
    checks.append(GateCheck("summary_leakage", leakage.passed, "measured", leakage.to_dict()))
    if review_import is not None:
        available = review_import.reviewer_evidence_available
        if available:
            review_reason = "reviewer_evidence"
        elif review_import.evidence_kind == "synthetic":
            review_reason = "synthetic_review"
        else:
            review_reason = "unevaluable_review"
        checks.append(
            GateCheck("summary_review", available, review_reason, review_import.to_dict())
        )
    return tuple(checks)


def evaluate_summary_gate(
    *,
    summary: str,
    source: str,
    claims: Sequence[Any],
    evidence: Sequence[Any],
    thresholds: Mapping[str, Any],
    protected_surfaces: Sequence[str],
    review_import: ImportedSummaryReview | None = None,
    adjudications: Any = None,
    required_spans: Mapping[Any, Sequence[int]] | None = None,
) -> tuple[GateCheck, ...]:
    """Evaluate the summary gate (review.md §11); never raises for bad input.

    Invalid input returns the single failing ``summary_input`` check; empty claims or evidence
    or a blank summary or source returns the single failing ``summary_evidence`` check. A
    check that measured nothing fails with reason ``no_claims_evaluated`` (minimality over
    an empty ``required_spans``) or ``no_citations_evaluated`` (machine spans or minimality
    without any citation edge): nothing measured is not a pass.

    Raises:
        InternalError: an unexpected exception inside citelens (a bug, never bad input).
    """

    def gate() -> tuple[GateCheck, ...]:
        validated = _valid_inputs(
            summary, source, claims, evidence, thresholds, protected_surfaces, required_spans
        )
        if validated is None:
            return _INPUT_FAILURE
        limits, spans = validated
        if not claims or not evidence or not summary.strip() or not source.strip():
            return _MISSING_EVIDENCE
        checks = _evaluate(
            summary,
            source,
            claims,
            evidence,
            limits,
            protected_surfaces,
            review_import,
            adjudications,
            spans,
        )
        return _INPUT_FAILURE if checks is None else checks

    return attempt(gate)
