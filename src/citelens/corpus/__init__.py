"""Corpus scale: evaluate many documents in one vectorised pass, keyed by ``document_ref``.

Inputs are tables with a ``document_ref`` column (an opaque reference chosen by the caller)
plus the record columns of the single-document contract: Arrow tables, Polars frames, or
Parquet / Arrow IPC / JSONL / CSV files or directories of them (hive partitioning allowed).
The per-document contract is exactly that of :func:`citelens.compute_citation_support_metrics`
(bounds apply per document). Outputs: ``documents.parquet`` (one flat row per document),
``summary.json`` and ``summary.md`` (corpus totals), and an optional pseudonymised edge-level
``edges.parquet``.
"""

from citelens.corpus._edges import EDGE_TABLE_SCHEMA
from citelens.corpus._minimality_mode import MINIMALITY_DOCUMENTS_SCHEMA, run_minimality_corpus
from citelens.corpus._outputs import CorpusResult
from citelens.corpus._summary_mode import SUMMARY_DOCUMENTS_SCHEMA, run_summary_citations_corpus
from citelens.corpus._support import SUPPORT_DOCUMENTS_SCHEMA
from citelens.corpus._support_mode import (
    SupportCorpusResult,
    evaluate_support_tables,
    run_support_corpus,
    write_support_corpus,
)
from citelens.errors import CorpusError

__all__ = [
    "EDGE_TABLE_SCHEMA",
    "MINIMALITY_DOCUMENTS_SCHEMA",
    "SUMMARY_DOCUMENTS_SCHEMA",
    "SUPPORT_DOCUMENTS_SCHEMA",
    "CorpusError",
    "CorpusResult",
    "SupportCorpusResult",
    "evaluate_support_tables",
    "run_minimality_corpus",
    "run_summary_citations_corpus",
    "run_support_corpus",
    "write_support_corpus",
]
