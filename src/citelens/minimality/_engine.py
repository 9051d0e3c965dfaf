"""Vectorised evaluation of minimality over one or many documents (minimality.md §7, §8, §13).

All documents of a call share one token array: their texts are joined with a single space (so
no token crosses a document boundary), tokenised once, and every span is shifted by its
document's base offset. Token counts are two ``searchsorted`` calls per span array; duplicate
and conflict detection are first-occurrence group-bys over integer keys. Nothing is
proportional to claims × tokens or to the sum of span lengths.

The checks of §7 are evaluated as per-row failure codes; each document's error is its first
failing row (input order) and that row's first failing check, exactly as the sequential
algorithm would raise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.minimality._columns import CitationColumns, ClaimColumns
from citelens.minimality._rules import (
    CODE_CONFLICTING_OFFSETS,
    CODE_DUPLICATE_CLAIM,
    CODE_EXCEEDS_TEXT,
    CODE_NO_TOKEN,
    CODE_UNKNOWN_CLAIM,
    first_problem,
)
from citelens.minimality._tokenize import count_overlaps, token_arrays

__all__ = ["CitationPhase", "ClaimPhase", "citation_phase", "claim_phase", "sort_records"]

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


def _codes(array: pa.Array) -> tuple[I64, pa.Array]:
    """Dictionary-encode a string array: (int64 codes, dictionary values)."""
    encoded = pc.dictionary_encode(array)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    indices = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return indices, encoded.dictionary


def _combine(left: I64, right: I64, right_size: int) -> I64:
    """An int64 key equal for equal (left, right) pairs, ordered by (left, right)."""
    if left.size == 0:
        return left.copy()
    top = int(left.max()) + 1
    if top * max(right_size, 1) < (1 << 62):
        key: I64 = left * max(right_size, 1) + right
        return key
    pairs = np.stack([left, right], axis=1)
    _, inverse = np.unique(pairs, axis=0, return_inverse=True)
    return np.asarray(inverse, dtype=np.int64).reshape(-1)


def _first_occurrence(key: I64) -> tuple[I64, I64, I64]:
    """(sorted unique keys, first row of each unique key, first row of each row's key)."""
    unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    first = np.asarray(first, dtype=np.int64)
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    return unique.astype(np.int64, copy=False), first, first[inverse]


def _local_queries(doc: I64, n_docs: int, n_tokens: int) -> bool:
    """True when spans come grouped by small documents (searches are then cache-local)."""
    if n_docs < 2 or doc.size < 2 or n_tokens // n_docs > (1 << 16):
        return False
    return int(np.count_nonzero(doc[1:] == doc[:-1])) * 2 > doc.size


def _document_errors(doc: I64, parsed: I8, checked: I8, n_docs: int) -> I8:
    """Per document: its first field problem if any (every record is read before the
    cross-record checks run, §7), else its first failing check."""
    read = first_problem(doc, parsed, n_docs)
    later = first_problem(doc, checked, n_docs)
    return np.where(read != 0, read, later).astype(np.int8)


@dataclass
class ClaimPhase:
    """State after the claim checks (§7 step 6), reused by the citation phase."""

    lengths: I64
    base: I64
    tok_start: I64
    tok_end: I64
    claim_doc: I64
    claims: ClaimColumns
    dictionary: pa.Array
    claim_keys: I64
    claim_rows: I64
    required_tokens: I64
    doc_error: npt.NDArray[np.int8]


def claim_phase(texts: list[str], claim_doc: I64, claims: ClaimColumns) -> ClaimPhase:
    """Tokenise every text once and evaluate the claim checks of all documents."""
    n_docs = len(texts)
    lengths = np.fromiter((len(text) for text in texts), dtype=np.int64, count=n_docs)
    base = np.zeros(n_docs, dtype=np.int64)
    if n_docs > 1:
        base[1:] = np.cumsum(lengths[:-1] + 1)
    tok_start, tok_end = token_arrays(texts[0] if n_docs == 1 else " ".join(texts))

    codes, dictionary = _codes(claims.claim_ids)
    keys = claim_doc * max(len(dictionary), 1) + codes
    unique, first, first_of_row = _first_occurrence(keys)
    duplicate = first_of_row != np.arange(keys.size)
    exceed = claims.ends > lengths[claim_doc]
    offset = base[claim_doc]
    starts = np.minimum(claims.starts, lengths[claim_doc]) + offset
    ends = np.minimum(claims.ends, lengths[claim_doc]) + offset
    local = _local_queries(claim_doc, n_docs, tok_start.size)
    required_tokens = count_overlaps(tok_start, tok_end, starts, ends, sort_queries=not local)
    code = np.where(
        duplicate,
        CODE_DUPLICATE_CLAIM,
        np.where(exceed, CODE_EXCEEDS_TEXT, np.where(required_tokens == 0, CODE_NO_TOKEN, 0)),
    ).astype(np.int8)
    doc_error = _document_errors(claim_doc, claims.problem, code, n_docs)
    return ClaimPhase(
        lengths=lengths,
        base=base,
        tok_start=tok_start,
        tok_end=tok_end,
        claim_doc=claim_doc,
        claims=claims,
        dictionary=dictionary,
        claim_keys=unique,
        claim_rows=first,
        required_tokens=required_tokens,
        doc_error=doc_error,
    )


@dataclass
class CitationPhase:
    """Evaluated citations (rows of documents without errors, in §10 order after sorting)."""

    doc_error: npt.NDArray[np.int8]
    doc: I64
    claim_ids: pa.Array
    citation_ids: pa.Array
    cs: I64
    ce: I64
    rs: I64
    re: I64
    citation_tokens: I64
    required_tokens: I64
    excess: I64
    status: npt.NDArray[np.int8]


def citation_phase(
    state: ClaimPhase,
    cite_doc: I64,
    citations: CitationColumns,
    max_excess_tokens: int,
) -> CitationPhase:
    """Evaluate the citation checks and compute every record (§7 step 8, §8)."""
    n_docs = state.lengths.size
    found_code = pc.index_in(citations.claim_ids, value_set=state.dictionary)
    known_code = np.asarray(found_code.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    key = cite_doc * max(len(state.dictionary), 1) + np.maximum(known_code, 0)
    position = np.searchsorted(state.claim_keys, key)
    position = np.minimum(position, max(state.claim_keys.size - 1, 0))
    known = known_code >= 0
    if state.claim_keys.size:
        known &= state.claim_keys[position] == key
    else:
        known &= False
    claim_row = state.claim_rows[position] if state.claim_rows.size else position
    unknown = ~known

    id_codes, id_dictionary = _codes(citations.citation_ids)
    group = _combine(np.where(known, key, -1) + 1, id_codes, len(id_dictionary))
    _, _, first = _first_occurrence(group)
    conflict = (citations.starts != citations.starts[first]) | (
        citations.ends != citations.ends[first]
    )
    exceed = citations.ends > state.lengths[cite_doc]
    code = np.where(
        unknown,
        CODE_UNKNOWN_CLAIM,
        np.where(conflict, CODE_CONFLICTING_OFFSETS, np.where(exceed, CODE_EXCEEDS_TEXT, 0)),
    ).astype(np.int8)
    doc_error = _document_errors(cite_doc, citations.problem, code, n_docs)

    keep = np.flatnonzero(doc_error[cite_doc] == 0)
    doc = cite_doc[keep]
    claim_row = claim_row[keep]
    cs = citations.starts[keep]
    ce = citations.ends[keep]
    rs = state.claims.starts[claim_row]
    re_ = state.claims.ends[claim_row]
    offset = state.base[doc]
    local = _local_queries(doc, n_docs, state.tok_start.size)
    citation_tokens = count_overlaps(
        state.tok_start, state.tok_end, cs + offset, ce + offset, sort_queries=not local
    )
    required_tokens = state.required_tokens[claim_row]
    covers = (cs <= rs) & (ce >= re_)
    excess = np.where(covers, citation_tokens - required_tokens, 0).astype(np.int64)
    status = np.where(covers, np.where(excess > max_excess_tokens, 1, 0), 2).astype(np.int8)
    if keep.size == cite_doc.size:
        claim_ids, citation_ids = citations.claim_ids, citations.citation_ids
    else:
        taker = pa.array(keep)
        claim_ids = citations.claim_ids.take(taker)
        citation_ids = citations.citation_ids.take(taker)
    return CitationPhase(
        doc_error=doc_error,
        doc=doc,
        claim_ids=claim_ids,
        citation_ids=citation_ids,
        cs=cs,
        ce=ce,
        rs=rs,
        re=re_,
        citation_tokens=citation_tokens,
        required_tokens=required_tokens,
        excess=excess,
        status=status,
    )


def sort_records(phase: CitationPhase, doc_rank: I64) -> I64:
    """Row order of §10 (and §14: document reference first): one multi-key sort."""
    if phase.doc.size == 0:
        return np.zeros(0, dtype=np.int64)
    table = pa.table(
        {
            "d": doc_rank[phase.doc],
            "c": phase.claim_ids,
            "i": phase.citation_ids,
            "cs": phase.cs,
            "ce": phase.ce,
            "rs": phase.rs,
            "re": phase.re,
        }
    )
    indices = pc.sort_indices(
        table, sort_keys=[(name, "ascending") for name in ("d", "c", "i", "cs", "ce", "rs", "re")]
    )
    return np.asarray(indices.to_numpy(), dtype=np.int64)
