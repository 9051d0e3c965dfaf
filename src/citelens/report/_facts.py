"""What the report page shows, per kind of output: figures, charts and the worst documents.

Every label on the page is citelens's own fixed text (reason codes, statuses, field names); every
value is a count or a rate read through :func:`count` / :func:`rate`, and a document is named
only by its keyed pseudonym. Histograms are binned here, as whole-column Polars expressions, so
a chart receives a few bin counts, never the per-document values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from citelens.errors import ERROR_CATEGORIES
from citelens.report._read import (
    MINIMALITY_STATUSES,
    PSEUDONYM,
    SUMMARY_REASONS,
    SUPPORT_LABELS,
    SUPPORT_REASONS,
    Output,
    bad_input,
    count,
    rate,
)

__all__ = ["EXCESS_BINS", "RATE_BINS", "Chart", "Page", "Table", "build_page"]

RATE_BINS = tuple(f"{10 * i}–{10 * (i + 1)}%" for i in range(10))
"""Histogram bins of a rate: [0, 10%), …, [80, 90%), [90, 100%] (the last one closed)."""

# lower edges of the excess-token bins: 0, 1, 2, 3–5, 6–10, 11–20, 21–50, 51 and more
_EXCESS_EDGES = (0, 1, 2, 3, 6, 11, 21, 51)
EXCESS_BINS = ("0", "1", "2", "3–5", "6–10", "11–20", "21–50", "51+")

WITHHELD = "withheld (not a pseudonym)"


@dataclass(frozen=True)
class Chart:
    """One bar chart: ``bars`` are (fixed label, count) in display order."""

    name: str
    title: str
    category_title: str
    value_title: str
    bars: tuple[tuple[str, int], ...]
    histogram: bool = False


@dataclass(frozen=True)
class Table:
    """A small table of fixed headers and rows of displayed values."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Page:
    """Everything the page shows, value-free: a title, a verdict word, figures, charts and
    tables."""

    title: str
    verdict: str | None
    figures: tuple[tuple[str, str], ...]
    charts: tuple[Chart, ...]
    tables: tuple[Table, ...]


def _pct(value: float | None) -> str:
    if value is None:
        return "—"
    shown = (Decimal(repr(value)) * 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{shown}%"


def _map(value: object) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise bad_input()
    return value


def _bars(counts: Mapping[str, Any], labels: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """The counts of ``labels`` in that order (a label left out counts 0: the support report
    lists only the reasons that occur); any other key is the input error, so a tampered file
    cannot bring its own words into the page."""
    if not set(counts) <= set(labels):
        raise bad_input()
    return tuple((label, count(counts.get(label, 0))) for label in labels)


def _rate_histogram(name: str, title: str, series: Any) -> Chart:
    import polars as pl

    invalid = series.is_nan() | (series < 0) | (series > 1)
    if bool(invalid.any()):
        raise bad_input()
    # bin i holds [i/10, (i+1)/10); 1.0 belongs to the last bin
    index = (series * 10).floor().clip(0, 9).cast(pl.Int64)
    tally = _tally(index, len(RATE_BINS))
    bars = tuple(zip(RATE_BINS, tally))
    return Chart(name, title, "per-document value", "documents", bars, histogram=True)


def _excess_histogram(series: Any, unit: str) -> Chart:
    import polars as pl

    values = series.drop_nulls()
    if bool((values < 0).any()):
        raise bad_input()
    edges = pl.Series("edges", _EXCESS_EDGES, dtype=pl.Int64)
    index = edges.search_sorted(values, side="right").cast(pl.Int64) - 1
    tally = _tally(index, len(EXCESS_BINS))
    return Chart(
        "excess-tokens",
        "Excess tokens per citation",
        "excess tokens",
        unit,
        tuple(zip(EXCESS_BINS, tally)),
        histogram=True,
    )


def _tally(index: Any, bins: int) -> list[int]:
    """How many values fall in each of ``bins`` bins (``index`` holds bin numbers)."""
    counts = [0] * bins
    frame = index.value_counts(sort=False)
    # at most `bins` rows: one per bin that holds a value
    for position, number in zip(frame[:, 0].to_list(), frame[:, 1].to_list()):
        counts[int(position)] = int(number)
    return counts


def _worst(caption: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    return Table(caption, ("document (pseudonym)", *header), tuple(rows))


def _ref(entry: Mapping[str, Any]) -> str:
    ref = entry.get("document_ref")
    return ref if isinstance(ref, str) and PSEUDONYM.fullmatch(ref) else WITHHELD


def _worst_rows(document: Mapping[str, Any], fields: Sequence[str]) -> list[tuple[str, ...]]:
    entries = document.get("worst_documents")
    if not isinstance(entries, list) or len(entries) > 100:
        raise bad_input()
    rows = []
    for item in entries:  # at most ten entries by the corpus contract
        entry = _map(item)
        cells = [_ref(entry)]
        for field in fields:
            value = entry.get(field)
            cells.append(_pct(rate(value)) if field == "coverage" else str(count(value)))
        rows.append(tuple(cells))
    return rows


def _errors(document: Mapping[str, Any]) -> Table | None:
    """Failed documents per error category (the messages are left out: the page shows fixed
    categories and counts only)."""
    entries = document.get("errors")
    if not isinstance(entries, list) or len(entries) > 10_000:
        raise bad_input()
    per: dict[str, int] = {}
    for item in entries:  # one entry per distinct category and message
        entry = _map(item)
        category = entry.get("category")
        if category not in ERROR_CATEGORIES:
            raise bad_input()
        per[category] = per.get(category, 0) + count(entry.get("documents"))
    if not per:
        return None
    rows = tuple((category, str(per[category])) for category in sorted(per))
    return Table("Failed documents by error category", ("category", "documents"), rows)


def _support(document: Mapping[str, Any]) -> Page:
    checks = _map(document.get("deterministic_span_checks"))
    adjudication = _map(document.get("clinician_adjudication"))
    passed = checks.get("passed")
    if type(passed) is not bool:
        raise bad_input()
    figures = (
        ("claims", str(count(document.get("claim_count")))),
        ("evidence spans", str(count(document.get("evidence_count")))),
        ("citation edges", str(count(document.get("citation_count")))),
        ("duplicate edges", str(count(checks.get("duplicate_citation_count")))),
        ("orphan claims", str(count(document.get("orphan_claim_count")))),
        ("unused evidence", str(count(document.get("unused_evidence_count")))),
        ("citation precision", _pct(rate(document.get("citation_precision")))),
        ("support recall", _pct(rate(document.get("support_recall")))),
    )
    charts = [
        Chart(
            "outcome",
            "Citation edges: valid and invalid",
            "span checks",
            "edges",
            (
                ("valid", count(checks.get("valid_citation_count"))),
                ("invalid", count(checks.get("invalid_citation_count"))),
            ),
        ),
        Chart(
            "reasons",
            "Invalid citation reasons",
            "reason",
            "edges",
            _bars(_map(checks.get("invalid_citation_reasons")), SUPPORT_REASONS),
        ),
    ]
    if adjudication.get("available") is True:
        labels = _bars(_map(adjudication.get("label_counts")), SUPPORT_LABELS)
        charts.append(Chart("labels", "Adjudication labels", "label", "edges", labels))
    verdict = "PASS" if passed else "FAIL"
    return Page("citation support", verdict, figures, tuple(charts), ())


def _summary(document: Mapping[str, Any]) -> Page:
    metrics = _map(document.get("metrics"))
    passed = metrics.get("passed")
    reasons = metrics.get("failure_reasons")
    if type(passed) is not bool or not isinstance(reasons, list):
        raise bad_input()
    if any(reason not in SUMMARY_REASONS for reason in reasons):
        raise bad_input()
    figures = (
        ("claims", str(count(metrics.get("claim_count")))),
        ("coverage", _pct(rate(metrics.get("coverage")))),
        ("abstention rate", _pct(rate(metrics.get("abstention_rate")))),
        ("evidence records", str(count(metrics.get("evidence_record_count")))),
        ("failure reasons", ", ".join(sorted(reasons)) or "none"),
    )
    claims = Chart(
        "claims",
        "Claims: supported and unsupported",
        "claims",
        "claims",
        (
            ("supported", count(metrics.get("supported_claim_count"))),
            ("unsupported", count(metrics.get("unsupported_claim_count"))),
            ("abstention", count(metrics.get("abstention_count"))),
        ),
    )
    citations = Chart(
        "citations",
        "Citations by outcome",
        "citations",
        "citations",
        (
            ("valid", count(metrics.get("valid_citation_count"))),
            ("invalid", count(metrics.get("invalid_citation_count"))),
            ("duplicate", count(metrics.get("duplicate_citation_count"))),
            ("missing", count(metrics.get("missing_citation_count"))),
        ),
    )
    verdict = "PASS" if passed else "FAIL"
    return Page("summary citation consistency", verdict, figures, (claims, citations), ())


def _minimality(output: Output) -> Page:
    document = output.document
    statuses: dict[str, int] = dict.fromkeys(MINIMALITY_STATUSES, 0)
    for record in document["records"]:  # bounded by the minimality citation limit (4,096)
        status = _map(record).get("status")
        if status not in statuses:
            raise bad_input()
        statuses[status] += 1
    flagged = count(document.get("flagged_count"))
    figures = (
        ("claims", str(count(document.get("claim_count")))),
        ("citations", str(count(document.get("citation_count")))),
        ("flagged citations", str(flagged)),
        ("allowed excess tokens", str(count(document.get("max_excess_tokens")))),
    )
    charts = (
        Chart(
            "statuses",
            "Citations by status",
            "status",
            "citations",
            _bars(statuses, MINIMALITY_STATUSES),
        ),
        _excess_histogram(output.excess_tokens, "citations"),
    )
    return Page("citation minimality", "PASS" if flagged == 0 else "FLAGGED", figures, charts, ())


def _documents_chart(passing: int, evaluated: int, failed: int, what: str) -> Chart:
    if passing > evaluated:
        raise bad_input()
    bars = (("passing", passing), ("not passing", evaluated - passing), ("failed (error)", failed))
    return Chart("documents", f"Documents: {what}", "outcome", "documents", bars)


def _corpus_support(output: Output) -> Page:
    doc = output.document
    evaluated = count(doc.get("evaluated_document_count"))
    passing = count(doc.get("passed_document_count"))
    failed = count(doc.get("failed_document_count"))
    figures = (
        ("documents", str(count(doc.get("document_count")))),
        ("evaluated", str(evaluated)),
        ("failed (error)", str(failed)),
        ("passing span checks", str(passing)),
        ("claims", str(count(doc.get("claim_count")))),
        ("citation edges", str(count(doc.get("citation_count")))),
        ("invalid edges", str(count(doc.get("invalid_citation_count")))),
        ("citation precision (micro)", _pct(rate(doc.get("micro_citation_precision")))),
        ("citation precision (macro)", _pct(rate(doc.get("macro_citation_precision")))),
        ("support recall (micro)", _pct(rate(doc.get("micro_support_recall")))),
        ("support recall (macro)", _pct(rate(doc.get("macro_support_recall")))),
    )
    charts = (
        _documents_chart(passing, evaluated, failed, "span checks"),
        Chart(
            "reasons",
            "Invalid citation reasons",
            "reason",
            "edges",
            _bars(_map(doc.get("invalid_citation_reasons")), SUPPORT_REASONS),
        ),
        _rate_histogram(
            "precision", "Citation precision per document", output.rates["citation_precision"]
        ),
        _rate_histogram("recall", "Support recall per document", output.rates["support_recall"]),
    )
    worst = _worst(
        "Documents with the most invalid citations",
        ("invalid edges",),
        _worst_rows(doc, ("invalid_citation_count",)),
    )
    errors = _errors(doc)
    tables = (worst,) if errors is None else (worst, errors)
    return Page("corpus citation support", None, figures, charts, tables)


def _corpus_summary(output: Output) -> Page:
    doc = output.document
    totals = _map(doc.get("totals"))
    evaluated = count(totals.get("documents_evaluated"))
    passing = count(totals.get("documents_passing"))
    failed = count(totals.get("documents_failed"))
    figures = (
        ("documents", str(count(totals.get("documents")))),
        ("evaluated", str(evaluated)),
        ("failed (error)", str(failed)),
        ("passing", str(passing)),
        ("failing closed", str(count(totals.get("documents_failing_closed")))),
        ("claims", str(count(totals.get("claims")))),
        ("coverage (micro)", _pct(rate(totals.get("micro_coverage")))),
        ("coverage (macro)", _pct(rate(totals.get("macro_coverage")))),
        ("abstention rate (micro)", _pct(rate(totals.get("micro_abstention_rate")))),
        ("abstention rate (macro)", _pct(rate(totals.get("macro_abstention_rate")))),
    )
    charts = (
        _documents_chart(passing, evaluated, failed, "consistency check"),
        Chart(
            "reasons",
            "Failure reasons (documents with the reason)",
            "reason",
            "documents",
            _bars(_map(doc.get("failure_reasons")), SUMMARY_REASONS),
        ),
        _rate_histogram("coverage", "Coverage per document", output.rates["coverage"]),
        _rate_histogram(
            "abstention", "Abstention rate per document", output.rates["abstention_rate"]
        ),
    )
    worst = _worst(
        "Documents with the most uncovered claims",
        ("uncovered claims", "claims", "coverage"),
        _worst_rows(doc, ("uncovered_claim_count", "claim_count", "coverage")),
    )
    errors = _errors(doc)
    tables = (worst,) if errors is None else (worst, errors)
    return Page("corpus summary citation consistency", None, figures, charts, tables)


def _corpus_minimality(output: Output) -> Page:
    doc = output.document
    totals = _map(doc.get("totals"))
    statuses = (
        ("minimal", count(totals.get("minimal"))),
        ("excess_context", count(totals.get("excess_context"))),
        ("missing_required_span", count(totals.get("missing_required_span"))),
    )
    figures = (
        ("documents", str(count(totals.get("documents")))),
        ("evaluated", str(count(totals.get("documents_evaluated")))),
        ("failed (error)", str(count(totals.get("documents_failed")))),
        ("claims", str(count(totals.get("claims")))),
        ("citations", str(count(totals.get("citations")))),
        ("flagged citations", str(count(totals.get("flagged")))),
        ("flagged rate", _pct(rate(totals.get("flagged_rate")))),
        ("excess tokens", str(count(totals.get("excess_tokens")))),
    )
    charts = (
        Chart("statuses", "Citations by status", "status", "citations", statuses),
        _excess_histogram(output.excess_tokens, "citations"),
    )
    worst = _worst(
        "Documents with the most flagged citations",
        ("flagged citations",),
        _worst_rows(doc, ("flagged_count",)),
    )
    errors = _errors(doc)
    tables = (worst,) if errors is None else (worst, errors)
    return Page("corpus citation minimality", None, figures, charts, tables)


def build_page(output: Output) -> Page:
    """The page of ``output``: the figures, charts and tables of its kind."""
    if output.kind == "support":
        return _support(output.document)
    if output.kind == "summary-citations":
        return _summary(output.document)
    if output.kind == "minimality":
        return _minimality(output)
    if output.kind == "corpus-support":
        return _corpus_support(output)
    if output.kind == "corpus-summary-citations":
        return _corpus_summary(output)
    return _corpus_minimality(output)
