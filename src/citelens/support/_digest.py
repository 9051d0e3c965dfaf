"""Provenance digests (§8): SHA-256 over a binary encoding assembled from Arrow buffers.

A table's rows are encoded at once: every run of fixed-width fields (integers, labels and the
length prefix of the string that follows) is one packed NumPy record array viewed as bytes,
every string column is its Arrow data buffer, and Arrow joins the pieces element-wise, so the
data buffer of the result is the concatenation of the rows. Tables are sorted by document
first, so each document's rows are one contiguous byte range. One document is hashed by
streaming its rows chunk by chunk (bounded memory); many documents' messages (tag, counts,
rows) are joined element-wise per document and hashed with one call each (no per-row Python).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.support._kernel import RANK
from citelens.support._schema import LABEL_CODES

__all__ = ["support_digests"]

DOC = "_d"
_CHUNK = 32_768
_BLOCK_BYTES = 1 << 24
_LABEL_ENUM = pl.Enum(list(LABEL_CODES))


@functools.cache
def _empty() -> pa.Scalar[Any]:
    """``b""`` as a large-binary Arrow scalar, built from buffers: ``pa.scalar`` of a Python
    value imports pandas (about 0.5 s and 40 MiB once per process)."""
    offsets = pa.py_buffer(np.zeros(2, dtype=np.int64).tobytes())
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(b"")])[0]


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


def _record(fields: list[tuple[str, np.ndarray]], count: int) -> pa.Array:
    """A run of fixed-width fields as one packed record per row (little-endian, no padding)."""
    dtype = np.dtype([(f"f{k}", code) for k, (code, _) in enumerate(fields)])
    records = np.empty(count, dtype=dtype)
    for k, (_, values) in enumerate(fields):
        records[f"f{k}"] = values
    return _fixed(records.view(np.uint8).reshape(count, dtype.itemsize))


def _pieces(chunk: pl.DataFrame, kinds: Sequence[str]) -> list[pa.Array]:
    """The row encoding as a few binary columns of ``chunk.height`` rows each. (Columns are
    read through Polars: pyarrow's ``to_numpy`` would import pandas.)"""
    count = chunk.height
    pieces: list[pa.Array] = []
    fields: list[tuple[str, np.ndarray]] = []
    for kind, column in zip(kinds, chunk.get_columns()):
        if kind == "s":
            strings = column.to_arrow().cast(pa.large_binary())
            offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)[
                strings.offset : strings.offset + count + 1
            ]
            fields.append(("<u4", np.diff(offsets)))
            pieces.append(_record(fields, count))
            pieces.append(strings)
            fields = []
        elif kind == "i":
            fields.append(("u1", column.is_not_null().to_numpy()))
            fields.append(("<i8", column.fill_null(0).cast(pl.Int64).to_numpy()))
        else:
            fields.append(("u1", column.to_numpy()))
    if fields:
        pieces.append(_record(fields, count))
    return pieces


def _encoded(chunk: pl.DataFrame, kinds: Sequence[str]) -> tuple[pa.Buffer, np.ndarray]:
    """The encoded rows of ``chunk``: one data buffer and the ``height + 1`` row offsets."""
    if chunk.height == 0:
        return pa.py_buffer(b""), np.zeros(1, dtype=np.int64)
    rows = pc.binary_join_element_wise(*_pieces(chunk, kinds), _empty())
    return rows.buffers()[2], _offsets(rows)


_Table = tuple[pl.DataFrame, Sequence[str], list[str]]
"""One section's rows: a frame sorted by document, the field kinds and the columns."""

_Section = tuple[pa.Array, np.ndarray]
"""One section encoded: each document's rows as one binary element, and its row counts."""


def _section(table: _Table, documents: np.ndarray) -> _Section:
    frame, kinds, columns = table
    data, offsets = _encoded(frame.select(columns).rechunk(), kinds)
    if frame.height:
        rows = np.searchsorted(frame[DOC].to_numpy(), documents, side="left")
    else:
        rows = np.zeros(len(documents), dtype=np.int64)
    rows = np.append(rows, frame.height)
    per_document = pa.Array.from_buffers(
        pa.large_binary(), len(documents), [None, pa.py_buffer(offsets[rows]), data]
    )
    return per_document, np.diff(rows)


def _section_digests(
    tag: str,
    documents: np.ndarray,
    sections: Sequence[_Table],
    raw: np.ndarray | None = None,
    encoded: dict[int, _Section] | None = None,
) -> list[bytes]:
    """The digest of every document. Each section is encoded at once (one batch of
    documents: memory bounded by the batch); each document's message (tag, raw digests, then
    each section's count and rows) is one element of a binary array joined from the
    sections, block by block, and hashed by one call. ``encoded`` shares encodings between
    the digests of one call (keyed by the identity of the section's tuple, which the caller
    keeps alive)."""
    if len(documents) == 1:
        return [_streamed_digest(tag, sections, raw[0].tobytes() if raw is not None else b"")]
    parts = []
    for table in sections:
        section = encoded.get(id(table)) if encoded is not None else None
        if section is None:
            section = _section(table, documents)
            if encoded is not None:
                encoded[id(table)] = section
        parts.append(section)
    prefix = np.frombuffer(_tag(tag), dtype=np.uint8)
    heads = [np.broadcast_to(prefix, (len(documents), len(prefix)))]
    if raw is not None:
        heads.append(raw)
    columns: list[pa.Array] = []
    for rows, counts in parts:
        heads.append(counts.astype("<u8").view(np.uint8).reshape(-1, 8))
        columns.append(_fixed(np.hstack(heads)))
        columns.append(rows)
        heads = []
    sizes = np.cumsum(sum(np.diff(_offsets(column)) for column in columns))
    out: list[bytes] = []
    first = 0
    while first < len(documents):
        # Documents in blocks of about _BLOCK_BYTES of messages (at least one document).
        stop = int(np.searchsorted(sizes, (sizes[first - 1] if first else 0) + _BLOCK_BYTES))
        stop = min(max(stop, first + 1), len(documents))
        block = [column.slice(first, stop - first) for column in columns]
        joined = pc.binary_join_element_wise(*block, _empty())
        data = memoryview(joined.buffers()[2]) if joined.buffers()[2] else memoryview(b"")
        bounds = _offsets(joined).tolist()
        out.extend(
            hashlib.sha256(data[low:high]).digest() for low, high in itertools.pairwise(bounds)
        )
        first = stop
    return out


def _offsets(column: pa.Array) -> np.ndarray:
    return np.frombuffer(column.buffers()[1], dtype=np.int64)[
        column.offset : column.offset + len(column) + 1
    ]


def _streamed_digest(tag: str, sections: Sequence[_Table], raw: bytes) -> bytes:
    """One document: encode and hash chunk by chunk, so encoded rows never accumulate."""
    hasher = hashlib.sha256(_tag(tag))
    hasher.update(raw)
    for frame, kinds, columns in sections:
        hasher.update(struct.pack("<Q", frame.height))
        for offset in range(0, frame.height, _CHUNK):
            data, offsets = _encoded(frame.slice(offset, _CHUNK).select(columns).rechunk(), kinds)
            hasher.update(memoryview(data)[int(offsets[0]) : int(offsets[-1])])
    return hasher.digest()


_CLAIM_KINDS = ("s", "i", "i", "s", "i", "s")
_EVIDENCE_KINDS = ("s", "i", "i", "s", "i")
_EDGE_KINDS = ("s", "s", "i", "i", "s")
_ADJUDICATION_KINDS = ("s", "s", "l")
_EDGE_KEY = ["claim_id", "evidence_id", "start", "end", "source_id"]
_CLAIM_COLUMNS = ["claim_id", "start", "end", "source_id", "source_length", "claim_type"]
_EVIDENCE_COLUMNS = ["evidence_id", "start", "end", "source_id", "source_length"]


def support_digests(
    documents: np.ndarray,
    claims: pl.DataFrame,
    evidence: pl.DataFrame,
    edges: pl.DataFrame,
    adjudications: pl.DataFrame,
) -> pl.DataFrame:
    """The four digests of every document in ``documents`` (sorted ``_d`` codes).

    ``claims``/``evidence`` come from the kernel sorted by ``(_d, identifier)``; ``edges``
    sorted by (document, claim, evidence, start, end, source id) in identifier byte order,
    nulls first; ``adjudications`` carry the integer rank key of that order
    (:data:`~citelens.support._kernel.RANK`) and sort by it, then by label.
    """
    attached = edges if edges["_c"].null_count() == 0 else edges.filter(pl.col("_c").is_not_null())
    adjudication_sorted = adjudications.select(
        DOC,
        "claim_id",
        "evidence_id",
        RANK,
        pl.col("label").cast(_LABEL_ENUM).to_physical().alias("_code"),
    ).sort([RANK, "_code"])
    claim_rows: _Table = (claims, _CLAIM_KINDS, _CLAIM_COLUMNS)
    attached_rows: _Table = (attached, _EDGE_KINDS, _EDGE_KEY)
    # Usually every edge is attached: then the input digest reuses the claim digest's encoding.
    edge_rows: _Table = attached_rows if attached is edges else (edges, _EDGE_KINDS, _EDGE_KEY)
    encoded: dict[int, _Section] = {}
    claim_digest = _section_digests(
        "citelens.support.claim_digest.v1", documents, [claim_rows, attached_rows], None, encoded
    )
    evidence_digest = _section_digests(
        "citelens.support.evidence_digest.v1",
        documents,
        [(evidence, _EVIDENCE_KINDS, _EVIDENCE_COLUMNS)],
    )
    adjudication_digest = _section_digests(
        "citelens.support.adjudication_digest.v1",
        documents,
        [(adjudication_sorted, _ADJUDICATION_KINDS, ["claim_id", "evidence_id", "_code"])],
    )
    raw = np.frombuffer(
        b"".join(
            b"".join(triple) for triple in zip(claim_digest, evidence_digest, adjudication_digest)
        ),
        dtype=np.uint8,
    ).reshape(len(documents), 96)
    input_digest = _section_digests(
        "citelens.support.input_digest.v1", documents, [edge_rows], raw, encoded
    )
    return pl.DataFrame(
        {
            DOC: documents,
            "claim_digest": _hex(claim_digest),
            "evidence_digest": _hex(evidence_digest),
            "adjudication_digest": _hex(adjudication_digest),
            "input_digest": _hex(input_digest),
        },
        schema_overrides={DOC: claims.schema[DOC]},
    )


def _hex(digests: list[bytes]) -> list[str]:
    return ["sha256:" + digest.hex() for digest in digests]
