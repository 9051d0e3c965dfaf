"""Reading a citelens output for the HTML report: which output it is, and its numbers.

An output is one JSON file (``citelens support --json``, ``summary-citations --json``,
``minimality --json``) or a ``citelens corpus ...`` output directory (``summary.json`` beside
``documents.parquet``, and ``citations.parquet`` for minimality). The kind is read from the
``suite`` field (the single minimality report has none: its ``records`` and
``max_excess_tokens`` name it). Every value the page shows is checked here to be a number or a
word of a fixed vocabulary, so a tampered file cannot bring text into the page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citelens.errors import CorpusError

__all__ = [
    "KINDS",
    "MINIMALITY_STATUSES",
    "SUMMARY_REASONS",
    "SUPPORT_LABELS",
    "SUPPORT_REASONS",
    "Output",
    "ReportError",
    "bad_input",
    "count",
    "load_output",
    "rate",
]

# The report has no error class of its own yet: its errors are corpus-output errors (the
# directory forms are corpus outputs, and the JSON forms are read with the same rules).
ReportError = CorpusError

SUPPORT_REASONS = (
    "citation_outside_evidence",
    "invalid_citation_span",
    "invalid_evidence_span",
    "missing_claim",
    "missing_evidence",
    "source_mismatch",
)
SUPPORT_LABELS = ("supports", "contradicts", "irrelevant", "unclear")
SUMMARY_REASONS = (
    "duplicate_citation",
    "duplicate_source_evidence",
    "invalid_citation",
    "invalid_source_evidence",
    "missing_citation",
    "missing_source_evidence",
    "missing_source_record",
    "unavailable_span",
    "unsupported_claim",
)
MINIMALITY_STATUSES = ("minimal", "excess_context", "missing_required_span")

# suite field → kind; the single minimality report is recognised by its keys instead
_SUITES = {
    "citation_support_metrics": "support",
    "summary_citation_consistency": "summary-citations",
    "citation_support_corpus": "corpus-support",
    "summary_citation_corpus": "corpus-summary-citations",
    "citation_minimality_corpus": "corpus-minimality",
}
KINDS = (*_SUITES.values(), "minimality")

# the keyed pseudonyms corpus summaries name documents by (docs/corpus.md, "Pseudonyms")
PSEUDONYM = re.compile(r"hmac-sha256:[0-9a-f]{64}")

# a citelens summary or single report is small; a larger file was not written by citelens
_JSON_BYTES = 64 * 1024 * 1024

# the per-document columns each corpus kind draws histograms of (rates in [0, 1])
_RATE_COLUMNS = {
    "corpus-support": ("citation_precision", "support_recall"),
    "corpus-summary-citations": ("coverage", "abstention_rate"),
    "corpus-minimality": (),
}


def bad_input() -> ReportError:
    """The one error for an input that is not a readable citelens output (fixed text)."""
    return ReportError("report input is not a citelens output", "input")


@dataclass(frozen=True)
class Output:
    """A citelens output, read: its kind, its JSON document, and for a corpus directory the
    per-document rate columns and the minimality excess-token column (Polars series)."""

    kind: str
    document: Mapping[str, Any]
    rates: Mapping[str, Any]
    excess_tokens: Any


def count(value: object) -> int:
    """``value`` as a count (an exact non-negative ``int``), else the input error."""
    if type(value) is not int or value < 0:
        raise bad_input()
    return value


def rate(value: object) -> float | None:
    """``value`` as a rate in [0, 1] or ``None`` (null), else the input error."""
    if value is None:
        return None
    if type(value) not in (int, float) or not 0 <= value <= 1:  # type: ignore[operator]
        raise bad_input()
    return float(value)  # type: ignore[arg-type]


def _read_json(path: Path) -> Mapping[str, Any]:
    from citelens.io import ReadFailure, check_json, decode_utf8, loads_json, read_bounded

    document: object = None
    failed = False
    try:
        data = read_bounded(path, _JSON_BYTES)
        check_json(data, lines=False)
        document = loads_json(decode_utf8(data))
    except (OSError, ValueError, RecursionError, ReadFailure):
        failed = True
    if failed or not isinstance(document, dict):
        raise bad_input()
    return document


def _kind(document: Mapping[str, Any]) -> str:
    suite = document.get("suite")
    if isinstance(suite, str) and suite in _SUITES:
        return _SUITES[suite]
    if isinstance(document.get("records"), list) and "max_excess_tokens" in document:
        return "minimality"
    raise bad_input()


def _scan_column(path: Path, column: str, dtype: Any) -> Any:
    """One column of a Parquet output as a Polars series of ``dtype`` (nulls kept); an
    unreadable file, a missing column or another type is the input error."""
    import polars as pl

    from citelens.io import READER_PANICS

    # what a reader can raise on a file that is not a Parquet output (Polars panics too)
    refusals: tuple[type[BaseException], ...] = (OSError, pl.exceptions.PolarsError, *READER_PANICS)
    series = None
    try:
        frame = pl.scan_parquet(path).select(pl.col(column))
        schema = frame.collect_schema()
        if schema[column] == dtype:
            series = frame.collect().to_series()
    except refusals:
        series = None
    if series is None:
        raise bad_input()
    return series


def _ok_rows(path: Path) -> Any:
    import polars as pl

    return _scan_column(path, "status", pl.String) == "ok"


def load_output(path: Path) -> Output:
    """Read the output at ``path`` (a JSON file or a corpus output directory)."""
    import polars as pl

    if path.is_dir():
        from citelens._atomic import WriteFailure, recover

        failed = False
        try:
            recover(path)  # a set a killed run left half-published is completed first
        except WriteFailure:
            failed = True
        if failed:
            raise bad_input()
        document = _read_json(path / "summary.json")
        kind = _kind(document)
        if not kind.startswith("corpus-"):
            raise bad_input()
        documents = path / "documents.parquet"
        ok = _ok_rows(documents)
        rates = {
            column: _scan_column(documents, column, pl.Float64).filter(ok).drop_nulls()
            for column in _RATE_COLUMNS[kind]
        }
        excess = None
        if kind == "corpus-minimality":
            excess = _scan_column(path / "citations.parquet", "excess_token_count", pl.Int64)
        return Output(kind, document, rates, excess)
    if not path.is_file():
        raise ReportError("report input not found", "input")
    document = _read_json(path)
    kind = _kind(document)
    if kind.startswith("corpus-"):
        raise bad_input()  # a corpus summary is read with its directory
    excess = None
    if kind == "minimality":
        records = document["records"]
        # a single report holds at most the minimality citation bound (4,096) records
        values = [
            count(r.get("excess_token_count")) if isinstance(r, dict) else count(None)
            for r in records
        ]
        excess = pl.Series("excess_token_count", values, dtype=pl.Int64)
    return Output(kind, document, {}, excess)
