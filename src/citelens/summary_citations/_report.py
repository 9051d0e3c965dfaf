"""Result objects of summary citations (summary-citations.md §9–§10)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from citelens._atomic import WriteFailure, write_parquet_atomic, write_text_atomic
from citelens.errors import SummaryCitationError

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "METRIC_KEYS",
    "REASON_CODES",
    "REASON_DUPLICATE_CITATION",
    "REASON_DUPLICATE_SOURCE_EVIDENCE",
    "REASON_INVALID_CITATION",
    "REASON_INVALID_SOURCE_EVIDENCE",
    "REASON_MISSING_CITATION",
    "REASON_MISSING_SOURCE_EVIDENCE",
    "REASON_MISSING_SOURCE_RECORD",
    "REASON_UNAVAILABLE_SPAN",
    "REASON_UNSUPPORTED_CLAIM",
    "SUMMARY_CITATION_CONSISTENCY",
    "SUMMARY_CITATION_SCHEMA_VERSION",
    "SummaryCitationMetrics",
    "SummaryCitationReport",
]

SUMMARY_CITATION_CONSISTENCY = "summary_citation_consistency"
SUMMARY_CITATION_SCHEMA_VERSION = 1

REASON_DUPLICATE_CITATION = "duplicate_citation"
REASON_DUPLICATE_SOURCE_EVIDENCE = "duplicate_source_evidence"
REASON_INVALID_CITATION = "invalid_citation"
REASON_INVALID_SOURCE_EVIDENCE = "invalid_source_evidence"
REASON_MISSING_CITATION = "missing_citation"
REASON_MISSING_SOURCE_EVIDENCE = "missing_source_evidence"
REASON_MISSING_SOURCE_RECORD = "missing_source_record"
REASON_UNAVAILABLE_SPAN = "unavailable_span"
REASON_UNSUPPORTED_CLAIM = "unsupported_claim"

REASON_CODES: tuple[str, ...] = tuple(
    sorted(
        (
            REASON_DUPLICATE_CITATION,
            REASON_DUPLICATE_SOURCE_EVIDENCE,
            REASON_INVALID_CITATION,
            REASON_INVALID_SOURCE_EVIDENCE,
            REASON_MISSING_CITATION,
            REASON_MISSING_SOURCE_EVIDENCE,
            REASON_MISSING_SOURCE_RECORD,
            REASON_UNAVAILABLE_SPAN,
            REASON_UNSUPPORTED_CLAIM,
        )
    )
)

_COUNT_FIELDS: tuple[str, ...] = (
    "claim_count",
    "supported_claim_count",
    "unsupported_claim_count",
    "abstention_count",
    "citation_count",
    "valid_citation_count",
    "invalid_citation_count",
    "duplicate_citation_count",
    "missing_citation_count",
    "missing_source_record_count",
    "unavailable_span_count",
    "evidence_record_count",
    "valid_evidence_record_count",
    "invalid_evidence_record_count",
    "duplicate_evidence_record_count",
    "referenced_evidence_count",
)
_RATIO_FIELDS: tuple[str, ...] = ("coverage", "abstention_rate", "evidence_coverage")
_BOOL_FIELDS: tuple[str, ...] = ("source_evidence_available", "fail_closed", "passed")

# to_dict() order (§10.1).
METRIC_KEYS: tuple[str, ...] = (
    "schema_version",
    "coverage",
    "abstention_rate",
    "claim_count",
    "supported_claim_count",
    "unsupported_claim_count",
    "abstention_count",
    "citation_count",
    "valid_citation_count",
    "invalid_citation_count",
    "duplicate_citation_count",
    "missing_citation_count",
    "missing_source_record_count",
    "unavailable_span_count",
    "evidence_record_count",
    "valid_evidence_record_count",
    "invalid_evidence_record_count",
    "duplicate_evidence_record_count",
    "referenced_evidence_count",
    "evidence_coverage",
    "source_evidence_available",
    "fail_closed",
    "passed",
    "failure_reasons",
)


def _fail(message: str) -> SummaryCitationError:
    return SummaryCitationError(message, "report")


def _check_reasons(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str | bytes):
        return None
    try:
        items = list(value)  # type: ignore[call-overload]
    except Exception:  # a caller value that is not a collection of codes (§10.3: report error)
        return None
    codes: set[str] = set()
    for item in items:
        if type(item) is not str or item not in REASON_CODES:
            return None
        codes.add(item)
    return tuple(sorted(codes))


@dataclass(frozen=True)
class SummaryCitationMetrics:
    """Aggregate counts, ratios and reason codes of one summary-citation check (§10.1).

    Holds only counts, ratios, booleans and fixed reason codes; never any claim, evidence or
    identifier value. Direct construction validates the field types (§10.3).
    """

    coverage: float
    abstention_rate: float
    claim_count: int
    supported_claim_count: int
    unsupported_claim_count: int
    abstention_count: int
    citation_count: int
    valid_citation_count: int
    invalid_citation_count: int
    duplicate_citation_count: int
    missing_citation_count: int
    missing_source_record_count: int
    unavailable_span_count: int
    evidence_record_count: int
    valid_evidence_record_count: int
    invalid_evidence_record_count: int
    duplicate_evidence_record_count: int
    referenced_evidence_count: int
    evidence_coverage: float
    source_evidence_available: bool
    fail_closed: bool
    passed: bool
    failure_reasons: tuple[str, ...] = field(default=())
    schema_version: int = SUMMARY_CITATION_SCHEMA_VERSION

    def __post_init__(self) -> None:
        error: str | None = None
        for name in _COUNT_FIELDS:
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                error = "summary citation counts must be non-negative integers"
                break
        if error is None:
            for name in _RATIO_FIELDS:
                value = getattr(self, name)
                if type(value) not in (int, float) or not math.isfinite(value):
                    error = "summary citation ratios must be finite values between 0 and 1"
                    break
                if not 0.0 <= value <= 1.0:
                    error = "summary citation ratios must be finite values between 0 and 1"
                    break
                object.__setattr__(self, name, float(value))
        if error is None and (
            type(self.schema_version) is not int
            or self.schema_version != SUMMARY_CITATION_SCHEMA_VERSION
        ):
            error = "summary citation schema version is invalid"
        if error is None:
            reasons = _check_reasons(self.failure_reasons)
            if reasons is None:
                error = "failure reasons must be known reason codes"
            else:
                object.__setattr__(self, "failure_reasons", reasons)
        if error is None:
            for name in _BOOL_FIELDS:
                value = getattr(self, name)
                if type(value) is not bool:
                    value = value is True or (type(value) is int and value != 0)
                    object.__setattr__(self, name, value)
        if error is not None:
            raise _fail(error)

    def to_dict(self) -> dict[str, Any]:
        """The 24 metric fields in contract order (§10.1); ``failure_reasons`` as a list."""
        out: dict[str, Any] = {}
        for key in METRIC_KEYS:
            value = getattr(self, key)
            out[key] = list(value) if key == "failure_reasons" else value
        return out

    def to_json(self) -> str:
        """Compact JSON in field order, no trailing newline (the reference's exact text)."""
        return json.dumps(self.to_dict(), ensure_ascii=True, allow_nan=False, separators=(",", ":"))

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


@dataclass(frozen=True)
class SummaryCitationReport:
    """A summary-citation consistency report: metrics plus suite metadata (§10.2)."""

    metrics: SummaryCitationMetrics
    fixture_count: int = 1

    def __post_init__(self) -> None:
        # an integer beyond int64 cannot be a report count (to_arrow writes int64)
        if type(self.fixture_count) is not int or not 0 <= self.fixture_count < 2**63:
            raise SummaryCitationError("fixture_count must be a non-negative integer", "policy")
        if not isinstance(self.metrics, SummaryCitationMetrics):
            raise _fail("summary citation report requires metrics")

    @property
    def suite(self) -> str:
        """Always ``"summary_citation_consistency"``."""
        return SUMMARY_CITATION_CONSISTENCY

    @property
    def schema_version(self) -> int:
        """Always 1."""
        return SUMMARY_CITATION_SCHEMA_VERSION

    @property
    def synthetic(self) -> bool:
        """Always ``True``."""
        return True

    @property
    def passed(self) -> bool:
        """The strict verdict: evidence available and no failure reason."""
        return self.metrics.passed

    @property
    def coverage(self) -> float:
        """Fraction of claims with at least one valid citation (0.0 when failing closed)."""
        return self.metrics.coverage

    def to_dict(self) -> dict[str, Any]:
        """``suite, schema_version, fixture_count, synthetic, passed, metrics`` (§10.2)."""
        return {
            "suite": self.suite,
            "schema_version": self.schema_version,
            "fixture_count": self.fixture_count,
            "synthetic": self.synthetic,
            "passed": self.passed,
            "metrics": self.metrics.to_dict(),
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """JSON with keys sorted at every level, no trailing newline (§10.2)."""
        return json.dumps(
            self.to_dict(), ensure_ascii=True, allow_nan=False, indent=indent, sort_keys=True
        )

    def to_markdown(self) -> str:
        """The fixed Markdown table of §10.5 (ends with one newline)."""
        m = self.metrics
        reasons = ", ".join(m.failure_reasons) if m.failure_reasons else "none"
        lines = [
            "# Summary Citation Consistency",
            "",
            "Aggregate citation evidence only; claim and source values are never rendered.",
            "",
            "| Metric | Value |",
            "| --- | ---: |",
            f"| Coverage | {format(m.coverage, '.6f')} |",
            f"| Abstention rate | {format(m.abstention_rate, '.6f')} |",
            f"| Claims | {m.claim_count} |",
            f"| Supported claims | {m.supported_claim_count} |",
            f"| Unsupported claims | {m.unsupported_claim_count} |",
            f"| Citations | {m.citation_count} |",
            f"| Duplicate citations | {m.duplicate_citation_count} |",
            f"| Missing source records | {m.missing_source_record_count} |",
            f"| Unavailable spans | {m.unavailable_span_count} |",
            f"| Evidence available | {bool(m.source_evidence_available)} |",
            f"| Fail closed | {bool(m.fail_closed)} |",
            f"| Verdict | {'pass' if m.passed else 'fail'} |",
            f"| Failure reasons | `{reasons}` |",
        ]
        return "\n".join(lines) + "\n"

    def to_arrow(self) -> pa.Table:
        """One-row Arrow table of the report (suite fields plus every metric), for Parquet.

        Holds exactly what :meth:`to_dict` holds: counts, ratios, booleans and reason codes.
        """
        row: dict[str, Any] = {
            "suite": self.suite,
            "schema_version": self.schema_version,
            "fixture_count": self.fixture_count,
            "synthetic": self.synthetic,
            "passed": self.passed,
        }
        metrics = self.metrics.to_dict()
        metrics.pop("schema_version")
        metrics.pop("passed")
        row.update(metrics)
        schema_fields: list[pa.Field] = []
        for key, value in row.items():
            if key == "failure_reasons":
                schema_fields.append(pa.field(key, pa.list_(pa.string()), nullable=False))
            elif isinstance(value, bool):
                schema_fields.append(pa.field(key, pa.bool_(), nullable=False))
            elif isinstance(value, int):
                schema_fields.append(pa.field(key, pa.int64(), nullable=False))
            elif isinstance(value, float):
                schema_fields.append(pa.field(key, pa.float64(), nullable=False))
            else:
                schema_fields.append(pa.field(key, pa.string(), nullable=False))
        schema = pa.schema(schema_fields)
        return pa.Table.from_pylist([row], schema=schema)

    def to_polars(self) -> pl.DataFrame:
        """:meth:`to_arrow` as a Polars frame (the same one row and columns)."""
        from citelens.io._values import polars_frame

        return polars_frame(self.to_arrow())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of :meth:`to_arrow`: ``pa.table(report)``,
        ``pl.from_arrow(report)`` and DuckDB read the report's one row."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def write_json(self, path: str | os.PathLike[str], *, indent: int | None = 2) -> Path:
        """Write ``to_json(indent=indent) + "\\n"`` atomically; returns the path."""
        return _write(path, self.to_json(indent=indent) + "\n")

    def write_markdown(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_markdown` atomically; returns the path."""
        return _write(path, self.to_markdown())

    def write_parquet(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_arrow` as a one-row Parquet file atomically; returns the path."""
        return _write(path, self.to_arrow())

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


def _write(path: object, data: str | pa.Table) -> Path:
    # The output is serialised before: only writing (the caller's path object included, e.g.
    # an ``__fspath__`` that raises) can fail here, and every such failure is the io error.
    failed = False
    result: Path | None = None
    try:
        if isinstance(data, str):
            result = write_text_atomic(path, data)
        else:
            result = write_parquet_atomic(path, data)
    except (WriteFailure, Exception):
        failed = True
    if failed or result is None:
        raise SummaryCitationError("summary citation report could not be written", "io")
    return Path(result)
