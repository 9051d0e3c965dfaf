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

from citelens.support._kernel import RANK
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


def _int_bytes(column: pl.Series) -> np.ndarray:
    count = len(column)
    out = np.zeros((count, 9), dtype=np.uint8)
    out[:, 0] = column.is_not_null().to_numpy()
    values = column.fill_null(0).cast(pl.Int64).to_numpy().astype("<i8")
    out[:, 1:] = values.view(np.uint8).reshape(count, 8)
    return out


def _parts(chunk: pl.DataFrame, kinds: Sequence[str]) -> list[pa.Array]:
    """The row encoding as few binary columns as possible: runs of fixed-width fields (and the
    length prefix of the string that follows them) are merged into one byte matrix. (Columns
    are read through Polars: pyarrow's ``to_numpy`` would import pandas.)"""
    parts: list[pa.Array] = []
    fixed: list[np.ndarray] = []
    for kind, column in zip(kinds, chunk.get_columns()):
        if kind == "s":
            lengths = column.str.len_bytes().to_numpy().astype("<u4")
            fixed.append(lengths.view(np.uint8).reshape(-1, 4))
            parts.append(_fixed(np.hstack(fixed)))
            fixed = []
            parts.append(column.to_arrow().cast(pa.large_binary()))
        elif kind == "i":
            fixed.append(_int_bytes(column))
        else:
            fixed.append(column.to_numpy().astype(np.uint8).reshape(-1, 1))
    if fixed:
        parts.append(_fixed(np.hstack(fixed)))
    return parts


def _joined(chunk: pl.DataFrame, kinds: Sequence[str]) -> tuple[memoryview, np.ndarray]:
    """The encoded rows of ``chunk``: one data buffer and the row end offsets into it."""
    if chunk.height == 0:
        return memoryview(b""), np.zeros(1, dtype=np.int64)
    joined = pc.binary_join_element_wise(*_parts(chunk, kinds), pa.scalar(b"", pa.large_binary()))
    offsets = np.frombuffer(joined.buffers()[1], dtype=np.int64)[
        joined.offset : joined.offset + len(joined) + 1
    ]
    return memoryview(joined.buffers()[2]), offsets


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


_Table = tuple[pl.DataFrame, Sequence[str], list[str]]
"""One section's rows: a frame sorted by document, the field kinds and the columns."""

_Section = tuple[memoryview, list[int], list[int], memoryview]
"""One section encoded: data, each document's first and stop byte, packed row counts."""


def _section(table: _Table, documents: np.ndarray) -> _Section:
    frame, kinds, columns = table
    rows = _bounds(frame, documents)
    data, offsets = _joined(frame.select(columns).rechunk(), kinds)
    byte_bounds = offsets[rows]
    counts = memoryview(np.diff(rows).astype("<u8").tobytes())
    return data, byte_bounds[:-1].tolist(), byte_bounds[1:].tolist(), counts


def _section_digests(
    tag: str,
    documents: np.ndarray,
    sections: Sequence[_Table],
    raw: Sequence[bytes] | None = None,
    encoded: dict[int, _Section] | None = None,
) -> list[str]:
    """The digest of every document. Each section is encoded at once (one batch of
    documents: memory bounded by the batch) and a document's rows are one contiguous byte
    range, fed by one ``update``. ``encoded`` shares encodings between the digests of one
    call (keyed by the identity of the section's tuple, which the caller keeps alive)."""
    if len(documents) == 1:
        return [_streamed_digest(tag, sections, raw[0] if raw is not None else b"")]
    parts = []
    for table in sections:
        section = encoded.get(id(table)) if encoded is not None else None
        if section is None:
            section = _section(table, documents)
            if encoded is not None:
                encoded[id(table)] = section
        parts.append(section)
    prefix = _tag(tag)
    out = []
    for position in range(len(documents)):
        hasher = hashlib.sha256(prefix)
        if raw is not None:
            hasher.update(raw[position])
        for data, firsts, stops, counts in parts:
            hasher.update(counts[8 * position : 8 * position + 8])
            hasher.update(data[firsts[position] : stops[position]])
        out.append("sha256:" + hasher.hexdigest())
    return out


def _streamed_digest(tag: str, sections: Sequence[_Table], raw: bytes) -> str:
    """One document: encode and hash chunk by chunk, so encoded rows never accumulate."""
    hasher = hashlib.sha256(_tag(tag))
    hasher.update(raw)
    for frame, kinds, columns in sections:
        hasher.update(struct.pack("<Q", frame.height))
        for offset in range(0, frame.height, _CHUNK):
            data, offsets = _joined(frame.slice(offset, _CHUNK).select(columns).rechunk(), kinds)
            hasher.update(data[int(offsets[0]) : int(offsets[-1])])
    return "sha256:" + hasher.hexdigest()


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
    adjudication_sorted = adjudications.with_columns(
        pl.col("label").cast(_LABEL_ENUM).to_physical().alias("_code")
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
    raw = [
        bytes.fromhex(c[7:]) + bytes.fromhex(e[7:]) + bytes.fromhex(a[7:])
        for c, e, a in zip(claim_digest, evidence_digest, adjudication_digest)
    ]
    input_digest = _section_digests(
        "citelens.support.input_digest.v1", documents, [edge_rows], raw, encoded
    )
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
