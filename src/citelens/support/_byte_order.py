"""Identifier byte order for the kernel (§6): the permutation that sorts identifiers by
(document, UTF-8 bytes), keyed mostly on integers (the 8 bytes after the common prefix)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

__all__ = ["by_identifier", "byte_order"]

DOC = "_d"


def by_identifier(frame: pl.DataFrame, column: str, single: bool) -> pl.DataFrame:
    """``frame`` sorted by (document, ``column``), or by ``column`` alone when it holds one
    document; the identifiers of a document are unique."""
    if frame.height < 2:
        return frame
    return frame[byte_order(frame[column], None if single else frame[DOC])]


def _common_prefix(low: str, high: str) -> int:
    """The length in bytes of the common prefix of ``low`` and ``high``."""
    a, b = low.encode(), high.encode()
    size = min(len(a), len(b))
    differ = np.flatnonzero(
        np.frombuffer(a[:size], dtype=np.uint8) != np.frombuffer(b[:size], dtype=np.uint8)
    )
    return int(differ[0]) if len(differ) else size


def _windows(ids: pl.Series, skip: int) -> np.ndarray:
    """Each identifier's 8 bytes after its first ``skip`` bytes as a big-endian integer,
    zero-padded past its end."""
    array = ids.rechunk().to_arrow().cast(pa.large_string())
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[
        array.offset : array.offset + len(array) + 1
    ]
    buffer = array.buffers()[2]
    end = int(offsets[-1])
    if buffer is None or end == 0:
        return np.zeros(len(array), dtype=np.uint64)
    data = np.frombuffer(buffer, dtype=np.uint8, count=end)
    starts = offsets[:-1] + skip
    available = offsets[1:] - starts
    # One byte position at a time (eight gathers of one byte per row): an n x 8 index
    # matrix would be the largest allocation of the kernel's sort.
    window = np.empty((len(array), 8), dtype=np.uint8)
    for position in range(8):
        column = data[np.minimum(starts + position, end - 1)]
        column[available <= position] = 0
        window[:, position] = column
    keys: np.ndarray = window.view(">u8").ravel().astype(np.uint64)
    return keys


def byte_order(ids: pl.Series, documents: pl.Series | None) -> pl.Series:
    """The permutation sorting non-null identifiers by (document, UTF-8 bytes).

    The main key is the 8 bytes that follow the identifiers' common prefix (big-endian,
    zero-padded), sorted as integers; only rows whose (document, key) ties with a neighbour
    are sorted by their full strings. Integer order of the key never contradicts byte order:
    all identifiers share the prefix, and where two 8-byte windows first differ the smaller
    one has the smaller byte or has ended."""
    if ids.null_count():
        frame = pl.DataFrame([ids.alias("s")] + ([] if documents is None else [documents]))
        names = ["s"] if documents is None else [documents.name, "s"]
        return frame.select(pl.arg_sort_by(names, nulls_last=False)).to_series()
    key = _windows(ids, _common_prefix(str(ids.min()), str(ids.max())))
    if documents is None:
        order = np.argsort(key, kind="stable")
        tie = key[order][1:] == key[order][:-1]
    else:
        doc = documents.to_numpy()
        order = np.lexsort((key, doc))
        tie = (key[order][1:] == key[order][:-1]) & (doc[order][1:] == doc[order][:-1])
    if tie.any():
        positions = np.flatnonzero(np.r_[tie, False] | np.r_[False, tie])
        rows = order[positions]
        columns = {"k": key[rows], "s": ids.gather(rows)}
        if documents is not None:
            columns = {"d": documents.to_numpy()[rows], **columns}
        within = pl.DataFrame(columns).select(pl.arg_sort_by(list(columns))).to_series()
        order[positions] = rows[within.to_numpy()]
    return pl.Series(order, dtype=pl.UInt32)
