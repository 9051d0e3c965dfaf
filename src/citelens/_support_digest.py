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

from ._support_schema import LABEL_CODES

__all__ = ["support_digests"]

DOC = "_d"
_CHUNK = 131_072
_LABEL_ENUM = pl.Enum(list(LABEL_CODES))


def _tag(text: str) -> bytes:
    data = text.encode("ascii")
    return struct.pack("<I", len(data)) + data


def _fixed(data: np.ndarray, width: int) -> pa.Array:
    buffer = pa.py_buffer(np.ascontiguousarray(data).tobytes())
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), len(data), [None, buffer])
    return fixed.cast(pa.large_binary())


def _string_parts(column: pa.Array) -> list[pa.Array]:
    lengths = pc.binary_length(column).to_numpy(zero_copy_only=False).astype("<u4")
    return [_fixed(lengths.view(np.uint8).reshape(-1, 4), 4), column.cast(pa.large_binary())]


def _int_part(column: pa.Array) -> pa.Array:
    count = len(column)
    out = np.zeros((count, 9), dtype=np.uint8)
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    values = pc.fill_null(column, 0).to_numpy(zero_copy_only=False).astype("<i8")
    out[:, 0] = valid
    out[:, 1:] = values.view(np.uint8).reshape(count, 8)
    return _fixed(out, 9)


def _label_part(column: pa.Array) -> pa.Array:
    codes = column.to_numpy(zero_copy_only=False).astype(np.uint8)
    return _fixed(codes.reshape(-1, 1), 1)


class _Encoded:
    """The encoded rows of one sorted table: chunks of (data bytes, row end offsets)."""

    def __init__(self, table: pa.Table, kinds: Sequence[str]) -> None:
        self.chunks: list[tuple[memoryview, np.ndarray]] = []
        for offset in range(0, table.num_rows, _CHUNK):
            chunk = table.slice(offset, _CHUNK).combine_chunks()
            parts: list[pa.Array] = []
            for kind, column in zip(kinds, chunk.columns):
                array = column.chunk(0) if column.num_chunks else pa.array([], column.type)
                if kind == "s":
                    parts.extend(_string_parts(array))
                elif kind == "i":
                    parts.append(_int_part(array))
                else:
                    parts.append(_label_part(array))
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


# Encoded tables shared by two digests of one call (attached edges are usually all edges).
_CACHE: dict[tuple[int, tuple[str, ...]], tuple[pl.DataFrame, _Encoded]] = {}

_CLAIM_KINDS = ("s", "i", "i", "s", "i", "s")
_EVIDENCE_KINDS = ("s", "i", "i", "s", "i")
_EDGE_KINDS = ("s", "s", "i", "i", "s")
_ADJUDICATION_KINDS = ("s", "s", "l")
_EDGE_KEY = ["claim_id", "evidence_id", "start", "end", "source_id"]


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
    known = edges["_c"].null_count() == 0 and edges["_e"].null_count() == 0
    edge_sort = [DOC, "_c", "_e", "start", "end", "source_id"] if known else [DOC, *_EDGE_KEY]
    edge_sorted = edges.sort(edge_sort, nulls_last=False)
    attached = (
        edge_sorted
        if edge_sorted["_c"].null_count() == 0
        else edge_sorted.filter(pl.col("_c").is_not_null())
    )
    coded = adjudications.with_columns(
        pl.col("label").cast(_LABEL_ENUM).to_physical().alias("_code")
    )
    adjudication_known = coded["_c"].null_count() == 0 and coded["_e"].null_count() == 0
    adjudication_sort = (
        [DOC, "_c", "_e", "_code"]
        if adjudication_known
        else [DOC, "claim_id", "evidence_id", "_code"]
    )
    adjudication_sorted = coded.sort(adjudication_sort)
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
