"""Provenance digests (§8): SHA-256 over a binary encoding assembled from Arrow buffers.

Rows are encoded column by column into fixed-width or length-prefixed binary columns and joined
element-wise by Arrow; the contiguous data buffer of the joined column is the concatenation of
the rows. Tables are sorted by document first, so each document's rows are one contiguous byte
range of that buffer, streamed into ``hashlib.sha256`` (one call per document and table; no
per-row Python).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.support._schema import LABEL_CODES

__all__ = ["support_digests"]

DOC = "_d"
_CHUNK = 131_072
_LABEL_ENUM = pl.Enum(list(LABEL_CODES))


def _tag(text: str) -> bytes:
    data = text.encode("ascii")
    return struct.pack("<I", len(data)) + data


def _fixed(data: np.ndarray) -> pa.Array:
    """An ``n x width`` byte matrix as a large_binary array (zero-copy buffers)."""
    count, width = data.shape
    offsets = np.arange(0, (count + 1) * width, width, dtype=np.int64)
    return pa.Array.from_buffers(
        pa.large_binary(),
        count,
        [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))],
    )


def _int_bytes(column: pa.Array) -> np.ndarray:
    count = len(column)
    out = np.zeros((count, 9), dtype=np.uint8)
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    values = pc.fill_null(column, 0).to_numpy(zero_copy_only=False).astype("<i8")
    out[:, 0] = valid
    out[:, 1:] = values.view(np.uint8).reshape(count, 8)
    return out


def _parts(chunk: pa.Table, kinds: Sequence[str]) -> list[pa.Array]:
    """The row encoding as few binary columns as possible: runs of fixed-width fields (and the
    length prefix of the string that follows them) are merged into one byte matrix."""
    parts: list[pa.Array] = []
    fixed: list[np.ndarray] = []
    for kind, column in zip(kinds, chunk.columns):
        array = column.chunk(0) if column.num_chunks else pa.array([], column.type)
        if kind == "s":
            lengths = pc.binary_length(array).to_numpy(zero_copy_only=False).astype("<u4")
            fixed.append(lengths.view(np.uint8).reshape(-1, 4))
            parts.append(_fixed(np.hstack(fixed)))
            fixed = []
            parts.append(array.cast(pa.large_binary()))
        elif kind == "i":
            fixed.append(_int_bytes(array))
        else:
            codes = array.to_numpy(zero_copy_only=False).astype(np.uint8)
            fixed.append(codes.reshape(-1, 1))
    if fixed:
        parts.append(_fixed(np.hstack(fixed)))
    return parts


class _Encoded:
    """The encoded rows of one sorted table: chunks of (data bytes, row end offsets)."""

    def __init__(self, table: pa.Table, kinds: Sequence[str]) -> None:
        self.chunks: list[tuple[memoryview, np.ndarray]] = []
        for offset in range(0, table.num_rows, _CHUNK):
            chunk = table.slice(offset, _CHUNK).combine_chunks()
            parts = _parts(chunk, kinds)
            joined = pc.binary_join_element_wise(*parts, pa.scalar(b"", pa.large_binary()))
            offsets = np.frombuffer(joined.buffers()[1], dtype=np.int64)[
                joined.offset : joined.offset + len(joined) + 1
            ]
            self.chunks.append((memoryview(joined.buffers()[2]), offsets))

    def feed(self, hasher: hashlib._Hash, first: int, stop: int) -> None:
        """Feed rows ``[first, stop)`` into ``hasher``."""
        while first < stop:
            index, row = divmod(first, _CHUNK)
            data, offsets = self.chunks[index]
            end_row = min(stop - index * _CHUNK, len(offsets) - 1)
            hasher.update(data[int(offsets[row]) : int(offsets[end_row])])
            first = index * _CHUNK + end_row


def _bounds(frame: pl.DataFrame, documents: np.ndarray) -> np.ndarray:
    """Row offsets of each document's contiguous block in a frame sorted by document."""
    if len(documents) == 1:
        return np.array([0, frame.height], dtype=np.int64)
    counts = (
        frame.group_by(DOC)
        .len()
        .join(pl.DataFrame({DOC: documents}, schema={DOC: frame.schema[DOC]}), on=DOC, how="right")
        .sort(DOC)["len"]
        .fill_null(0)
        .to_numpy()
    )
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _section_digests(
    tag: str,
    documents: np.ndarray,
    sections: Sequence[tuple[pl.DataFrame, Sequence[str], list[str]]],
    raw: Sequence[bytes] | None = None,
) -> list[str]:
    if len(documents) == 1:
        return [_streamed_digest(tag, sections, raw[0] if raw is not None else b"")]
    encoded = []
    for frame, kinds, columns in sections:
        bounds = _bounds(frame, documents)
        key = (id(frame), tuple(columns))
        cached = _CACHE.get(key)
        if cached is None or cached[0] is not frame:
            cached = (frame, _Encoded(frame.select(columns).to_arrow(), kinds))
            _CACHE[key] = cached
        encoded.append((cached[1], bounds))
    prefix = _tag(tag)
    out = []
    for position in range(len(documents)):
        hasher = hashlib.sha256(prefix)
        if raw is not None:
            hasher.update(raw[position])
        for rows, bounds in encoded:
            first, stop = int(bounds[position]), int(bounds[position + 1])
            hasher.update(struct.pack("<Q", stop - first))
            rows.feed(hasher, first, stop)
        out.append("sha256:" + hasher.hexdigest())
    return out


def _streamed_digest(
    tag: str, sections: Sequence[tuple[pl.DataFrame, Sequence[str], list[str]]], raw: bytes
) -> str:
    """One document: encode and hash chunk by chunk, so encoded rows never accumulate."""
    hasher = hashlib.sha256(_tag(tag))
    hasher.update(raw)
    for frame, kinds, columns in sections:
        hasher.update(struct.pack("<Q", frame.height))
        for offset in range(0, frame.height, _CHUNK):
            chunk = frame.slice(offset, _CHUNK).select(columns).to_arrow().combine_chunks()
            parts = _parts(chunk, kinds)
            joined = pc.binary_join_element_wise(*parts, pa.scalar(b"", pa.large_binary()))
            offsets = np.frombuffer(joined.buffers()[1], dtype=np.int64)[
                joined.offset : joined.offset + len(joined) + 1
            ]
            hasher.update(memoryview(joined.buffers()[2])[int(offsets[0]) : int(offsets[-1])])
    return "sha256:" + hasher.hexdigest()


# Encoded tables shared by two digests of one call (attached edges are usually all edges).
_CACHE: dict[tuple[int, tuple[str, ...]], tuple[pl.DataFrame, _Encoded]] = {}

_CLAIM_KINDS = ("s", "i", "i", "s", "i", "s")
_EVIDENCE_KINDS = ("s", "i", "i", "s", "i")
_EDGE_KINDS = ("s", "s", "i", "i", "s")
_ADJUDICATION_KINDS = ("s", "s", "l")
_EDGE_KEY = ["claim_id", "evidence_id", "start", "end", "source_id"]


def _rank(codes: pl.Series, ids: pl.Series, sorted_ids: pl.Series) -> tuple[pl.Series, pl.Series]:
    """An integer order key equal to the byte order of ``ids``: ``2 * code`` for identifiers
    of the sorted table, ``2 * insertion point - 1`` for unknown ones (plus the identifier
    itself to order unknown ones that share an insertion point)."""
    rank = codes.cast(pl.Int64).fill_null(0).to_numpy().copy() * 2
    unknown = codes.is_null()
    tie = pl.Series([None] * len(ids), dtype=pl.String)
    if unknown.any():
        mask = unknown.to_numpy()
        positions = sorted_ids.search_sorted(ids.filter(unknown)).cast(pl.Int64).to_numpy()
        rank[mask] = positions * 2 - 1
        tie = pl.select(pl.when(unknown).then(ids)).to_series()
    return pl.Series(rank), tie


def _sorted_by_identifiers(
    frame: pl.DataFrame,
    claims: pl.DataFrame,
    evidence: pl.DataFrame,
    single: bool,
    rest: list[str],
) -> pl.DataFrame:
    """``frame`` sorted by (document, claim_id, evidence_id, *rest) in byte order, using the
    integer codes of the kernel instead of comparing identifier strings."""
    if frame["_c"].null_count() == 0 and frame["_e"].null_count() == 0:
        return frame.sort([DOC, "_c", "_e", *rest], nulls_last=False)
    if not single:
        return frame.sort([DOC, "claim_id", "evidence_id", *rest], nulls_last=False)
    claim_rank, claim_tie = _rank(frame["_c"], frame["claim_id"], claims["claim_id"])
    evidence_rank, evidence_tie = _rank(frame["_e"], frame["evidence_id"], evidence["evidence_id"])
    keyed = frame.with_columns(
        claim_rank.alias("_rc"),
        claim_tie.alias("_tc"),
        evidence_rank.alias("_re"),
        evidence_tie.alias("_te"),
    )
    return keyed.sort(["_rc", "_tc", "_re", "_te", *rest], nulls_last=False).drop(
        "_rc", "_tc", "_re", "_te"
    )


def support_digests(
    documents: np.ndarray,
    claims: pl.DataFrame,
    evidence: pl.DataFrame,
    edges: pl.DataFrame,
    adjudications: pl.DataFrame,
) -> pl.DataFrame:
    """The four digests of every document in ``documents`` (sorted ``_d`` codes).

    ``claims``/``evidence`` come from the kernel sorted by ``(_d, identifier)`` with codes
    ``_c``/``_e`` in that order, so edges and adjudications sort by code unless they reference
    an unknown identifier.
    """
    single = len(documents) == 1
    edge_sorted = _sorted_by_identifiers(
        edges, claims, evidence, single, ["start", "end", "source_id"]
    )
    attached = (
        edge_sorted
        if edge_sorted["_c"].null_count() == 0
        else edge_sorted.filter(pl.col("_c").is_not_null())
    )
    coded = adjudications.with_columns(
        pl.col("label").cast(_LABEL_ENUM).to_physical().alias("_code")
    )
    adjudication_sorted = _sorted_by_identifiers(coded, claims, evidence, single, ["_code"])
    claim_columns = ["claim_id", "start", "end", "source_id", "source_length", "claim_type"]
    evidence_columns = ["evidence_id", "start", "end", "source_id", "source_length"]
    claim_digest = _section_digests(
        "citelens.support.claim_digest.v1",
        documents,
        [
            (claims, _CLAIM_KINDS, claim_columns),
            (attached, _EDGE_KINDS, _EDGE_KEY),
        ],
    )
    evidence_digest = _section_digests(
        "citelens.support.evidence_digest.v1",
        documents,
        [(evidence, _EVIDENCE_KINDS, evidence_columns)],
    )
    adjudication_digest = _section_digests(
        "citelens.support.adjudication_digest.v1",
        documents,
        [(adjudication_sorted, _ADJUDICATION_KINDS, ["claim_id", "evidence_id", "_code"])],
    )
    raw = [
        bytes.fromhex(c[7:]) + bytes.fromhex(e[7:]) + bytes.fromhex(a[7:])
        for c, e, a in zip(claim_digest, evidence_digest, adjudication_digest)
    ]
    input_digest = _section_digests(
        "citelens.support.input_digest.v1",
        documents,
        [(edge_sorted, _EDGE_KINDS, _EDGE_KEY)],
        raw,
    )
    _CACHE.clear()
    return pl.DataFrame(
        {
            DOC: documents,
            "claim_digest": claim_digest,
            "evidence_digest": evidence_digest,
            "adjudication_digest": adjudication_digest,
            "input_digest": input_digest,
        },
        schema_overrides={DOC: claims.schema[DOC]},
    )
