"""``check_citation_minimality`` and its batch form (minimality.md §7, §14).

Both are thin fronts over one evaluation (:func:`citelens.minimality._batch.evaluate`): a single
call is a batch of one document, so the rules, the error order and the report derivation are
the same code for the single call, the batch and corpus mode.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from citelens._fixed import attempt
from citelens.errors import CitationMinimalityError
from citelens.limits import Limits
from citelens.minimality._batch import (
    BATCH_TABLE_SCHEMA,
    DOCUMENTS_SCHEMA,
    ERRORS_SCHEMA,
    CitationMinimalityBatchResult,
    Evaluation,
    Nested,
    Split,
    Unreadable,
    assemble,
    evaluate,
    group_rows,
    read_documents,
)
from citelens.minimality._records import MISSING, field_value
from citelens.minimality._rules import error
from citelens.minimality._types import CitationMinimalityReport
from citelens.types import CollectionLike

__all__ = [
    "BATCH_TABLE_SCHEMA",
    "DEFAULT_BOUND",
    "DOCUMENTS_SCHEMA",
    "ERRORS_SCHEMA",
    "CitationMinimalityBatchResult",
    "batch_options",
    "check_citation_minimality",
    "check_citation_minimality_batch",
    "check_with_table",
    "evaluate_split",
]

DEFAULT_BOUND = 4096


def _check_options(max_excess_tokens: object, limits: object) -> tuple[int, int, int]:
    if type(max_excess_tokens) is not int or max_excess_tokens < 0:
        raise error("max_excess_tokens must be a non-negative integer", "policy")
    if limits is None:
        limits = Limits()
    if not isinstance(limits, Limits):
        raise error("limits must be a Limits instance", "policy")
    claims_bound = limits.resolve("claims", DEFAULT_BOUND)
    citations_bound = limits.resolve("citations", DEFAULT_BOUND)
    return max_excess_tokens, claims_bound, citations_bound


def _single_evaluation(
    source_text: Any, claims: Any, citations: Any, max_excess_tokens: Any, limits: Any
) -> Evaluation:
    """The single call as a batch of one document (its error raised)."""
    if type(source_text) is not str:
        raise error("source_text must be text", "input")
    max_excess, claims_bound, citations_bound = _check_options(max_excess_tokens, limits)
    source = Nested([claims], [citations], (claims_bound, citations_bound))
    evaluation = evaluate([source_text], source, {}, max_excess, [""])
    failure = evaluation.first_error()
    if failure is not None:
        raise failure
    return evaluation


def _single(
    source_text: Any, claims: Any, citations: Any, max_excess_tokens: Any, limits: Any
) -> CitationMinimalityReport:
    evaluation = _single_evaluation(source_text, claims, citations, max_excess_tokens, limits)
    return evaluation.report(0, evaluation.order.size, int(evaluation.claim_doc.size))


def check_with_table(
    source_text: str,
    claims: CollectionLike,
    citations: CollectionLike,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
) -> tuple[CitationMinimalityReport, pa.Table]:
    """:func:`check_citation_minimality` plus its records as the §14 table without the
    ``document_ref`` column (one evaluation gives both)."""

    def run() -> tuple[CitationMinimalityReport, pa.Table]:
        evaluation = _single_evaluation(source_text, claims, citations, max_excess_tokens, limits)
        report = evaluation.report(0, evaluation.order.size, int(evaluation.claim_doc.size))
        table = assemble(evaluation).table
        return report, table.drop_columns(["document_ref"])

    return attempt(run)


def check_citation_minimality(
    source_text: str,
    claims: CollectionLike,
    citations: CollectionLike,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
) -> CitationMinimalityReport:
    """Check every citation span against its claim's required span (minimality.md §7).

    Returns a value-free :class:`CitationMinimalityReport`: opaque ids, offsets, token counts,
    statuses and review flags; the source text is never stored or printed. Raises
    :class:`citelens.errors.CitationMinimalityError` with a fixed message and category, and
    :class:`citelens.errors.InternalError` for anything that is not an input problem.
    """
    return attempt(lambda: _single(source_text, claims, citations, max_excess_tokens, limits))


def batch_options(
    max_excess_tokens: object, limits: object, max_documents: object, errors: object
) -> tuple[int, int, int]:
    """The argument checks of §14, in order; returns (max excess, claim and citation bounds)."""
    max_excess, claims_bound, citations_bound = _check_options(max_excess_tokens, limits)
    if type(max_documents) is not int or max_documents < 1:
        raise error("max_documents must be a positive integer", "policy")
    if type(errors) is not str or errors not in ("raise", "collect"):
        raise error("errors must be 'raise' or 'collect'", "policy")
    return max_excess, claims_bound, citations_bound


def evaluate_split(
    refs: list[str],
    texts: list[Any],
    claims: Any,
    citations: Any,
    *,
    max_excess: int,
    bounds: tuple[int, int],
    errors: dict[int, tuple[str, str]],
) -> CitationMinimalityBatchResult:
    """Split-form evaluation of documents already read (``refs`` ascending, ``errors``
    pre-set per document index): the batch engine as corpus mode enters it. Every
    document's error is collected, per-document bounds included, so each document's
    outcome is the single call's for it."""
    ref_index = {ref: index for index, ref in enumerate(refs)}
    n_docs = len(refs)
    claim_rows = group_rows(claims, "claims", ref_index, bounds[0], n_docs, collect=True)
    citation_rows = group_rows(citations, "citations", ref_index, bounds[1], n_docs, collect=True)
    evaluation = evaluate(texts, Split(claim_rows, citation_rows), errors, max_excess, refs)
    return assemble(evaluation)


def _batch(
    documents: Any,
    claims: Any,
    citations: Any,
    max_excess_tokens: Any,
    limits: Any,
    max_documents: Any,
    errors: Any,
) -> CitationMinimalityBatchResult:
    max_excess, claims_bound, citations_bound = batch_options(
        max_excess_tokens, limits, max_documents, errors
    )
    refs, records = read_documents(documents, max_documents)
    n_docs = len(refs)
    doc_errors: dict[int, tuple[str, str]] = {}
    source: Nested | Split | None = None
    if claims is not None or citations is not None:
        ref_index = {ref: index for index, ref in enumerate(refs)}
        empty: list[Any] = []
        claim_rows = group_rows(
            empty if claims is None else claims, "claims", ref_index, claims_bound, n_docs
        )
        citation_rows = group_rows(
            empty if citations is None else citations,
            "citations",
            ref_index,
            citations_bound,
            n_docs,
        )
        source = Split(claim_rows, citation_rows)
    split = claims is not None or citations is not None
    names = ("source_text",) if split else ("source_text", "claims", "citations")
    texts: list[Any] = []
    nested: dict[str, list[Any]] = {"claims": [], "citations": []}
    for record in records:
        values: dict[str, Any] = {"source_text": None, "claims": MISSING, "citations": MISSING}
        for name in names:
            failure: CitationMinimalityError | None = None
            try:
                values[name] = field_value(record, name)
            except CitationMinimalityError as exc:
                failure = exc
            if failure is not None:
                # Raised in its own phase, so earlier problems of the document come first.
                values[name] = Unreadable(str(failure.args[0]), failure.category, failure.detail)
        text = values["source_text"]
        texts.append(None if text is MISSING else text)
        nested["claims"].append(values["claims"])
        nested["citations"].append(values["citations"])
    if source is None:
        source = Nested(nested["claims"], nested["citations"], (claims_bound, citations_bound))
    evaluation = evaluate(texts, source, doc_errors, max_excess, refs)
    if errors == "raise":
        failure_error = evaluation.first_error()
        if failure_error is not None:
            raise failure_error
    return assemble(evaluation)


def check_citation_minimality_batch(
    documents: CollectionLike,
    claims: CollectionLike | None = None,
    citations: CollectionLike | None = None,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
    max_documents: int = 100_000,
    errors: str = "raise",
) -> CitationMinimalityBatchResult:
    """Check many documents in one call, keyed by ``document_ref`` (minimality.md §14).

    Nested form: each document record carries ``document_ref``, ``source_text`` and optional
    ``claims`` / ``citations``. Split form (``claims`` or ``citations`` given): rows carry a
    ``document_ref`` and are grouped per document. Every document is checked exactly as
    :func:`check_citation_minimality` would check it; all documents share one tokenisation
    pass. With ``errors="collect"`` failing documents are listed in ``result.errors``.
    """
    return attempt(
        lambda: _batch(
            documents, claims, citations, max_excess_tokens, limits, max_documents, errors
        )
    )
