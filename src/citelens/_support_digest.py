"""Provenance digests (§8): SHA-256 over a binary encoding assembled from Arrow buffers.

Rows are encoded column by column into fixed-width or length-prefixed binary columns, joined
element-wise by Arrow, and the contiguous data buffer of the joined column (the concatenation of
the rows) is streamed into ``hashlib.sha256``. No per-row Python runs.
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

_CHUNK = 65_536


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
    out[~valid, 1:] = 0
    return _fixed(out, 9)


def _label_part(column: pa.Array) -> pa.Array:
    codes = pl.Series(column).replace_strict(LABEL_CODES, return_dtype=pl.UInt8).to_numpy()
    return _fixed(codes.reshape(-1, 1), 1)


def _feed(hasher: hashlib._Hash, table: pa.Table, kinds: Sequence[str]) -> None:
    """Feed the encoded rows of ``table`` (already sorted) into ``hasher``."""
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
        data = joined.buffers()[2]
        hasher.update(memoryview(data)[int(offsets[0]) : int(offsets[-1])])


def _digest(tag: str, sections: Sequence[tuple[pa.Table, Sequence[str]]], raw: bytes = b"") -> str:
    hasher = hashlib.sha256()
    hasher.update(_tag(tag))
    hasher.update(raw)
    for table, kinds in sections:
        hasher.update(struct.pack("<Q", table.num_rows))
        if table.num_rows:
            _feed(hasher, table, kinds)
    return "sha256:" + hasher.hexdigest()


_CLAIM_KINDS = ("s", "i", "i", "s", "i", "s")
_EVIDENCE_KINDS = ("s", "i", "i", "s", "i")
_EDGE_KINDS = ("s", "s", "i", "i", "s")
_ADJUDICATION_KINDS = ("s", "s", "l")
_EDGE_KEY = ["claim_id", "evidence_id", "start", "end", "source_id"]


def support_digests(
    claims: pl.DataFrame,
    evidence: pl.DataFrame,
    edges: pl.DataFrame,
    adjudications: pl.DataFrame,
) -> dict[str, str]:
    """The four digests of one document, from the kernel's coded tables.

    ``claims``/``evidence`` come sorted by identifier with codes ``_c``/``_e`` in that order,
    so edges and adjudications sort by code unless they reference an unknown identifier.
    """
    claim_table = claims.select(
        "claim_id", "start", "end", "source_id", "source_length", "claim_type"
    )
    evidence_table = evidence.select("evidence_id", "start", "end", "source_id", "source_length")
    known = edges["_c"].null_count() == 0 and edges["_e"].null_count() == 0
    edge_sort = ["_c", "_e", "start", "end", "source_id"] if known else _EDGE_KEY
    edge_sorted = edges.sort(edge_sort, nulls_last=False)
    edge_table = edge_sorted.select(_EDGE_KEY)
    attached = edge_sorted.filter(pl.col("_c").is_not_null()).select(_EDGE_KEY)
    coded = adjudications.with_columns(
        pl.col("label").cast(pl.Enum(list(LABEL_CODES))).to_physical().alias("_code")
    )
    adjudication_known = coded["_c"].null_count() == 0 and coded["_e"].null_count() == 0
    adjudication_sort = (
        ["_c", "_e", "_code"] if adjudication_known else ["claim_id", "evidence_id", "_code"]
    )
    adjudication_table = coded.sort(adjudication_sort).select("claim_id", "evidence_id", "label")
    claim_digest = _digest(
        "citelens.support.claim_digest.v1",
        [(claim_table.to_arrow(), _CLAIM_KINDS), (attached.to_arrow(), _EDGE_KINDS)],
    )
    evidence_digest = _digest(
        "citelens.support.evidence_digest.v1", [(evidence_table.to_arrow(), _EVIDENCE_KINDS)]
    )
    adjudication_digest = _digest(
        "citelens.support.adjudication_digest.v1",
        [(adjudication_table.to_arrow(), _ADJUDICATION_KINDS)],
    )
    raw = b"".join(
        bytes.fromhex(d[7:]) for d in (claim_digest, evidence_digest, adjudication_digest)
    )
    input_digest = _digest(
        "citelens.support.input_digest.v1", [(edge_table.to_arrow(), _EDGE_KINDS)], raw
    )
    return {
        "adjudication_digest": adjudication_digest,
        "claim_digest": claim_digest,
        "evidence_digest": evidence_digest,
        "input_digest": input_digest,
    }
