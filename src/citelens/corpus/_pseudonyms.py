"""The pseudonym key of a corpus run and the document refs its summary shows.

A run resolves its key once (:func:`run_key`): every batch's ``edges.parquet`` identifiers
and the document refs named in ``summary.json``/``summary.md`` are pseudonymised under that
one key, so they join within the run (and across runs given the same caller key).
"""

from __future__ import annotations

import polars as pl

from citelens._pseudonym import pseudonymise_series, resolve_key
from citelens.errors import CorpusError

__all__ = ["run_key", "worst_documents"]


def run_key(raw_identifiers: object, pseudonym_key: object) -> bytes | None:
    """The run's key: ``None`` when raw identifiers are kept (only an exact ``True`` opts in:
    anything else keeps pseudonyms), else the caller's key (checked) or a random one."""
    if pseudonym_key is not None:
        resolve_key(pseudonym_key, CorpusError)  # a bad key fails even when unused
    if raw_identifiers is True:
        return None
    return resolve_key(pseudonym_key, CorpusError)


def worst_documents(
    frame: pl.DataFrame, count: str, key: bytes | None, rows: int = 10
) -> pl.DataFrame:
    """The ``rows`` documents of ``frame`` with the largest ``count``, ties in byte order of
    the shown ``document_ref``, which replaces the raw one: its pseudonym under ``key``, or
    the raw ref when ``key`` is ``None``. Ordering by the shown refs keeps the raw ones'
    order from showing through the pseudonyms."""
    if key is not None and frame.height:
        # Only documents whose count reaches the rows-th largest can be listed: pseudonymise
        # those, not every document of the corpus.
        threshold = frame.get_column(count).top_k(rows).min()
        frame = frame.filter(pl.col(count) >= threshold)
        frame = frame.with_columns(pseudonymise_series(frame.get_column("document_ref"), key))
    return frame.sort([count, "document_ref"], descending=[True, False]).head(rows)
