"""Report objects of the support contract (§6.4–§7, §9)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import pyarrow as pa

from citelens._atomic import write_text_atomic
from citelens._fixed import attempt
from citelens._jsonout import canonical_json
from citelens.errors import CitationSupportError
from citelens.support._kernel import LABELS, REASON_CODES
from citelens.support._rules import SupportFailure, fail

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "DISCLAIMER",
    "SCHEMA_VERSION",
    "SUITE",
    "CitationSupportReport",
    "ClinicianAdjudicationMetrics",
    "DeterministicSpanChecks",
    "SupportTables",
]

SUITE = "citation_support_metrics"
SCHEMA_VERSION = 1
DISCLAIMER = (
    "Claim-level citation metrics are evaluation evidence only; they are not a clinical "
    "decision, compliance certification, or guarantee of clinical truth. Qualified human "
    "review remains required before clinical use."
)
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
T = TypeVar("T")


class SupportTables(NamedTuple):
    """The four canonical tables behind a report (§9.1). Each field is a ``pyarrow.Table``
    and so an Arrow stream itself (``pl.DataFrame(tables.edges)``); the tuple offers no
    stream of its own, since ``pa.table`` and ``pl.DataFrame`` read any tuple as columns."""

    claims: pa.Table
    evidence: pa.Table
    edges: pa.Table
    adjudications: pa.Table

    def to_polars(self) -> dict[str, pl.DataFrame]:
        """The four tables as Polars frames, keyed ``claims``, ``evidence``, ``edges`` and
        ``adjudications``."""
        from citelens.io._values import polars_frame

        return {name: polars_frame(table) for name, table in self._asdict().items()}


def _guard(check: Callable[[], T]) -> T:
    """Run a validation: a contract failure becomes its fixed :class:`CitationSupportError`;
    any other exception is a bug or a broken environment and becomes
    :class:`~citelens.errors.InternalError` (never an input error). Both are unchained."""
    failure: SupportFailure | None = None
    try:
        return attempt(check)
    except SupportFailure as exc:
        failure = exc
    raise CitationSupportError(failure.message, failure.category, failure.detail)


def caller_objects(read: Callable[[], T]) -> T:
    """Run code that reads caller-supplied Python objects (mappings, ``__eq__``, ``__str__``,
    ``to_dict``): what those objects raise is the contract's input error (conventions §1.2),
    ``citation-support input cannot be normalized``. Used only where caller code runs."""
    foreign = False
    try:
        return read()
    except SupportFailure:
        raise
    except Exception:  # raised by a caller object while it was read
        foreign = True
    assert foreign
    raise fail("citation-support input cannot be normalized", "input")


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise fail("report counts must be nonnegative integers", "report")
    return value


def _rate(a: int, b: int) -> float:
    return a / b if b else 0.0


@dataclass(frozen=True)
class DeterministicSpanChecks:
    """Span validity and citation reason counts (§6.4)."""

    claim_span_count: int
    valid_claim_span_count: int
    missing_claim_span_count: int
    invalid_claim_span_count: int
    evidence_span_count: int
    valid_evidence_span_count: int
    missing_evidence_span_count: int
    invalid_evidence_span_count: int
    citation_count: int
    valid_citation_count: int
    invalid_citation_count: int
    duplicate_citation_count: int
    invalid_citation_reasons: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _guard(lambda: caller_objects(self._validate))

    def _validate(self) -> None:
        for f in dataclasses.fields(self):
            if f.name != "invalid_citation_reasons":
                _count(getattr(self, f.name))
        reasons = dict(self.invalid_citation_reasons)
        for key in reasons:
            if key not in REASON_CODES:
                raise fail("invalid citation reason", "report")
        for value in reasons.values():
            _count(value)
        ordered = {key: reasons[key] for key in sorted(reasons) if reasons[key] > 0}
        if (
            self.claim_span_count != self.valid_claim_span_count + self.invalid_claim_span_count
            or self.evidence_span_count
            != self.valid_evidence_span_count + self.invalid_evidence_span_count
            or self.citation_count != self.valid_citation_count + self.invalid_citation_count
            or sum(reasons.values()) != self.invalid_citation_count
        ):
            raise fail("inconsistent span counts", "report")
        object.__setattr__(self, "invalid_citation_reasons", MappingProxyType(ordered))

    @property
    def claim_span_validity(self) -> float:
        """Valid claim spans over claims that have a span (0.0 when none)."""
        return _rate(self.valid_claim_span_count, self.claim_span_count)

    @property
    def evidence_span_validity(self) -> float:
        """Valid evidence spans over evidence that has a span (0.0 when none)."""
        return _rate(self.valid_evidence_span_count, self.evidence_span_count)

    @property
    def citation_span_validity(self) -> float:
        """Valid edges over all de-duplicated edges (0.0 when none)."""
        return _rate(self.valid_citation_count, self.citation_count)

    @property
    def passed(self) -> bool:
        """No missing or invalid claim/evidence span and no invalid edge."""
        return (
            self.missing_claim_span_count == 0
            and self.invalid_claim_span_count == 0
            and self.missing_evidence_span_count == 0
            and self.invalid_evidence_span_count == 0
            and self.invalid_citation_count == 0
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``deterministic_span_checks`` block of the report."""
        return {
            "claim_span_count": self.claim_span_count,
            "valid_claim_span_count": self.valid_claim_span_count,
            "missing_claim_span_count": self.missing_claim_span_count,
            "invalid_claim_span_count": self.invalid_claim_span_count,
            "claim_span_validity": self.claim_span_validity,
            "evidence_span_count": self.evidence_span_count,
            "valid_evidence_span_count": self.valid_evidence_span_count,
            "missing_evidence_span_count": self.missing_evidence_span_count,
            "invalid_evidence_span_count": self.invalid_evidence_span_count,
            "evidence_span_validity": self.evidence_span_validity,
            "citation_count": self.citation_count,
            "valid_citation_count": self.valid_citation_count,
            "invalid_citation_count": self.invalid_citation_count,
            "citation_span_validity": self.citation_span_validity,
            "duplicate_citation_count": self.duplicate_citation_count,
            "invalid_citation_reasons": dict(self.invalid_citation_reasons),
            "passed": self.passed,
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


@dataclass(frozen=True)
class ClinicianAdjudicationMetrics:
    """Reviewer adjudication metrics over valid edges (§6.5)."""

    available: bool
    adjudicated_citation_count: int
    unadjudicated_citation_count: int
    adjudicated_claim_count: int
    unadjudicated_claim_count: int
    supporting_citation_count: int
    contradicting_citation_count: int
    irrelevant_citation_count: int
    unclear_citation_count: int
    supported_claim_count: int
    citation_precision: float | None
    support_recall: float | None
    adjudication_coverage: float
    unmatched_adjudication_count: int
    conflicting_adjudication_count: int
    label_counts: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _guard(lambda: caller_objects(self._validate))

    def _validate(self) -> None:
        for f in dataclasses.fields(self):
            if f.name.endswith("_count"):
                _count(getattr(self, f.name))
        labels = dict(self.label_counts)
        per_label = (
            self.supporting_citation_count,
            self.contradicting_citation_count,
            self.irrelevant_citation_count,
            self.unclear_citation_count,
        )
        r = self.adjudicated_citation_count
        if (
            type(self.available) is not bool
            or list(labels) != list(LABELS)
            or any(type(v) is not int for v in labels.values())
            or tuple(labels.values()) != per_label
            or sum(per_label) != r
            or not (self.supported_claim_count <= self.adjudicated_claim_count <= r)
            or self.conflicting_adjudication_count > r
            or (not self.available and (r != 0 or self.unmatched_adjudication_count != 0))
        ):
            raise fail("inconsistent adjudication counts", "report")
        claim_count = self.adjudicated_claim_count + self.unadjudicated_claim_count
        precision = self.supporting_citation_count / r if r else None
        recall = self.supported_claim_count / claim_count if r and claim_count else None
        total = r + self.unadjudicated_citation_count
        coverage = r / total if total else 0.0
        if (
            isinstance(self.citation_precision, bool)
            or isinstance(self.support_recall, bool)
            or isinstance(self.adjudication_coverage, bool)
            or self.citation_precision != precision
            or self.support_recall != recall
            or self.adjudication_coverage != coverage
        ):
            raise fail("inconsistent adjudication rates", "report")
        object.__setattr__(self, "label_counts", MappingProxyType(labels))

    def to_dict(self) -> dict[str, Any]:
        """The ``clinician_adjudication`` block of the report."""
        return {
            "available": self.available,
            "status": "available" if self.available else "not_available",
            "adjudicated_citation_count": self.adjudicated_citation_count,
            "unadjudicated_citation_count": self.unadjudicated_citation_count,
            "adjudicated_claim_count": self.adjudicated_claim_count,
            "unadjudicated_claim_count": self.unadjudicated_claim_count,
            "supporting_citation_count": self.supporting_citation_count,
            "contradicting_citation_count": self.contradicting_citation_count,
            "irrelevant_citation_count": self.irrelevant_citation_count,
            "unclear_citation_count": self.unclear_citation_count,
            "supported_claim_count": self.supported_claim_count,
            "citation_precision": self.citation_precision,
            "support_recall": self.support_recall,
            "adjudication_coverage": self.adjudication_coverage,
            "unmatched_adjudication_count": self.unmatched_adjudication_count,
            "conflicting_adjudication_count": self.conflicting_adjudication_count,
            "label_counts": dict(self.label_counts),
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


@dataclass(frozen=True)
class CitationSupportReport:
    """Claim-level citation support report: counts, rates and provenance digests only."""

    claim_count: int
    evidence_count: int
    citation_count: int
    orphan_claim_count: int
    unused_evidence_count: int
    deterministic: DeterministicSpanChecks
    adjudication: ClinicianAdjudicationMetrics
    claim_digest: str
    evidence_digest: str
    adjudication_digest: str
    input_digest: str
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        _guard(lambda: caller_objects(self._validate))

    def _validate(self) -> None:
        for name in (
            "claim_count",
            "evidence_count",
            "citation_count",
            "orphan_claim_count",
            "unused_evidence_count",
        ):
            _count(getattr(self, name))
        for digest in (
            self.claim_digest,
            self.evidence_digest,
            self.adjudication_digest,
            self.input_digest,
        ):
            if not isinstance(digest, str) or _DIGEST.fullmatch(digest) is None:
                raise fail("invalid provenance digest", "report")
        if type(self.schema_version) is not int or self.schema_version != SCHEMA_VERSION:
            raise fail("unsupported report schema", "report")
        if not isinstance(self.deterministic, DeterministicSpanChecks) or not isinstance(
            self.adjudication, ClinicianAdjudicationMetrics
        ):
            raise fail("invalid report sections", "report")
        self.deterministic._validate()
        self.adjudication._validate()
        det, adj = self.deterministic, self.adjudication
        if (
            self.orphan_claim_count > self.claim_count
            or self.unused_evidence_count > self.evidence_count
            or det.claim_span_count + det.missing_claim_span_count != self.claim_count
            or det.evidence_span_count + det.missing_evidence_span_count != self.evidence_count
            or det.citation_count != self.citation_count
            or adj.adjudicated_claim_count + adj.unadjudicated_claim_count != self.claim_count
            or adj.adjudicated_citation_count + adj.unadjudicated_citation_count
            != det.valid_citation_count
        ):
            raise fail("inconsistent report counts", "report")

    # -- derived values ------------------------------------------------------------------
    @property
    def orphan_claim_rate(self) -> float:
        """Orphan claims over claims (0.0 without claims)."""
        return _rate(self.orphan_claim_count, self.claim_count)

    @property
    def unused_evidence_rate(self) -> float:
        """Unused evidence over evidence records (0.0 without evidence)."""
        return _rate(self.unused_evidence_count, self.evidence_count)

    @property
    def citation_precision(self) -> float | None:
        """Supporting over adjudicated valid edges; ``None`` without adjudicated edges."""
        return self.adjudication.citation_precision

    @property
    def support_recall(self) -> float | None:
        """Supported claims over all claims; ``None`` without adjudicated edges."""
        return self.adjudication.support_recall

    @property
    def orphan_claims(self) -> int:
        """Alias of ``orphan_claim_count``."""
        return self.orphan_claim_count

    @property
    def unused_evidence(self) -> int:
        """Alias of ``unused_evidence_count``."""
        return self.unused_evidence_count

    @property
    def span_checks(self) -> DeterministicSpanChecks:
        """Alias of ``deterministic``."""
        return self.deterministic

    @property
    def clinician_adjudication(self) -> ClinicianAdjudicationMetrics:
        """Alias of ``adjudication``."""
        return self.adjudication

    # -- outputs -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The report as a plain dictionary (§7.1 key order)."""
        return {
            "suite": SUITE,
            "schema_version": self.schema_version,
            "claim_count": self.claim_count,
            "evidence_count": self.evidence_count,
            "citation_count": self.citation_count,
            "orphan_claim_count": self.orphan_claim_count,
            "orphan_claim_rate": self.orphan_claim_rate,
            "unused_evidence_count": self.unused_evidence_count,
            "unused_evidence_rate": self.unused_evidence_rate,
            "citation_precision": self.citation_precision,
            "support_recall": self.support_recall,
            "deterministic_span_checks": self.deterministic.to_dict(),
            "clinician_adjudication": self.adjudication.to_dict(),
            "provenance": {
                "claim_digest": self.claim_digest,
                "evidence_digest": self.evidence_digest,
                "adjudication_digest": self.adjudication_digest,
                "input_digest": self.input_digest,
            },
            "human_review_required": True,
            "disclaimer": DISCLAIMER,
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, compact, ASCII, one trailing newline."""
        return canonical_json(self.to_dict())

    def to_markdown(self) -> str:
        """The fixed Markdown template of §7.3."""
        det, adj = self.deterministic, self.adjudication
        lines = [
            "# Claim-level citation support metrics",
            "",
            f"> {DISCLAIMER}",
            "",
            "## Aggregate metrics",
            "",
            "| Metric | Value |",
            "| --- | ---: |",
            f"| Atomic claims | {self.claim_count} |",
            f"| Evidence spans | {self.evidence_count} |",
            f"| Citation edges | {self.citation_count} |",
            f"| Citation precision | {_score(self.citation_precision)} |",
            f"| Support recall | {_score(self.support_recall)} |",
            f"| Orphan claims | {self.orphan_claim_count} ({self.orphan_claim_rate:.4f}) |",
            f"| Unused evidence | {self.unused_evidence_count} ({self.unused_evidence_rate:.4f}) |",
            "",
            "## Deterministic span checks",
            "",
            f"- Verdict: `{'pass' if det.passed else 'review'}`",
            f"- Valid claim spans: `{det.valid_claim_span_count}/{det.claim_span_count}`",
            f"- Valid evidence spans: `{det.valid_evidence_span_count}/{det.evidence_span_count}`",
            f"- Valid cited edges: `{det.valid_citation_count}/{det.citation_count}`",
            "",
            "## Optional clinician adjudication",
            "",
            f"- Status: `{'available' if adj.available else 'not_available'}`",
            f"- Reviewed citations: `{adj.adjudicated_citation_count}`",
            f"- Reviewed claims: `{adj.adjudicated_claim_count}`",
            f"- Adjudication coverage: `{adj.adjudication_coverage:.4f}`",
            "",
            "## Provenance",
            "",
            "The report exposes only one-way SHA-256 digests for the input collections. It does "
            "not render claim IDs, evidence IDs, source text, or reviewer comments.",
            "",
        ]
        return "\n".join(lines)

    def _write(self, path: object, text: str) -> Any:
        failed = False
        try:
            return write_text_atomic(path, text)
        except Exception:  # WriteFailure, or a caller path object that misbehaves
            failed = True
        assert failed
        raise CitationSupportError("citation-support report could not be written", "io")

    def write_json(self, path: object) -> Any:
        """Write :meth:`to_json` atomically to ``path``; returns the ``pathlib.Path``."""
        return self._write(path, self.to_json())

    def write_markdown(self, path: object) -> Any:
        """Write :meth:`to_markdown` atomically to ``path``; returns the ``pathlib.Path``."""
        return self._write(path, self.to_markdown())

    def to_arrow(self) -> pa.Table:
        """One flat row with the 59 leaves of :meth:`to_dict` (reasons expanded)."""
        return _guard(lambda: report_row_table([self.to_dict()]))

    def to_polars(self) -> pl.DataFrame:
        """:meth:`to_arrow` as a Polars frame (one row, the same 59 columns)."""
        from citelens.io._values import polars_frame

        return polars_frame(self.to_arrow())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of :meth:`to_arrow`: ``pa.table(report)``,
        ``pl.from_arrow(report)`` and DuckDB read the report's one flat row. The edge-level
        tables stream from :meth:`tables`."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def tables(
        self, *, raw_identifiers: bool = False, pseudonym_key: bytes | None = None
    ) -> SupportTables | None:
        """The canonical tables, or ``None`` for a report that was not produced by
        ``compute_citation_support_metrics``. Identifier columns are pseudonymised as
        ``"hmac-sha256:" + hex`` of HMAC-SHA-256 under ``pseudonym_key`` (exactly ``bytes``,
        at least 16), or under a random key drawn for this call when it is ``None`` (the
        pseudonyms then join the four tables of this call only), unless
        ``raw_identifiers=True`` (such tables must not be published)."""
        builder = getattr(self, "_tables_builder", None)
        if builder is None:
            return None
        result: SupportTables = _guard(lambda: builder(raw_identifiers, pseudonym_key))
        return result

    def __repr__(self) -> str:
        return (
            f"CitationSupportReport(claim_count={self.claim_count}, "
            f"evidence_count={self.evidence_count}, citation_count={self.citation_count})"
        )


def _leaves(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _leaves(f"{prefix}{key}.", inner, out)
    else:
        out[prefix[:-1]] = value


_NULLABLE = {
    "citation_precision",
    "support_recall",
    "clinician_adjudication.citation_precision",
    "clinician_adjudication.support_recall",
}


def _flat_row(report: dict[str, Any]) -> dict[str, Any]:
    report = dict(report)
    det = dict(report["deterministic_span_checks"])
    det["invalid_citation_reasons"] = {
        code: det["invalid_citation_reasons"].get(code, 0) for code in REASON_CODES
    }
    report["deterministic_span_checks"] = det
    out: dict[str, Any] = {}
    _leaves("", report, out)
    return out


def report_row_schema(names: list[str], sample: dict[str, Any]) -> pa.Schema:
    """The 59-column schema of :meth:`CitationSupportReport.to_arrow`."""
    fields = []
    for name in names:
        value = sample[name]
        leaf = name.rsplit(".", 1)[-1]
        if isinstance(value, bool) or leaf in ("passed", "available", "human_review_required"):
            data_type = pa.bool_()
        elif name in _NULLABLE or leaf.endswith(("_rate", "_validity", "_coverage")):
            data_type = pa.float64()
        elif isinstance(value, str):
            data_type = pa.large_string()
        else:
            data_type = pa.int64()
        fields.append(pa.field(name, data_type, nullable=name in _NULLABLE))
    return pa.schema(fields)


def report_row_table(reports: list[dict[str, Any]]) -> pa.Table:
    """Flatten report dictionaries into rows of the shared 59-column schema."""
    rows = [_flat_row(report) for report in reports]
    names = list(rows[0])
    schema = report_row_schema(names, rows[0])
    columns = [pa.array([row[name] for row in rows], type=f.type) for name, f in zip(names, schema)]
    return pa.Table.from_arrays(columns, schema=schema)
