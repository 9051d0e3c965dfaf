"""Offsets in other units than code points, converted to code points for many texts at once.

The contracts measure spans in code points of the text (half-open ``[start, end)``). Providers
measure them otherwise: Gemini in UTF-8 bytes, JavaScript-based tools in UTF-16 code units. Both
conversions here work on the UTF-8 bytes of the texts as Arrow holds them, with NumPy: no
Python loop over offsets or texts. A byte (or unit) offset that falls inside a code point, or
outside its text, has no code-point position: it converts to ``-1``.

How: in UTF-8 every code point starts with one *lead* byte (any byte but ``10xxxxxx``). The
code-point index of a byte position is the number of lead bytes before it; a code point takes
two UTF-16 units when its lead byte is ``11110xxx`` (four bytes), one otherwise. Texts are
processed a block of about :data:`BLOCK_BYTES` at a time, so memory follows the block (a text
larger than the block is one block of its own).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["BLOCK_BYTES", "OffsetUnit", "to_code_points"]

OffsetUnit = Literal["utf8", "utf16"]
I64 = npt.NDArray[np.int64]

# UTF-8 bytes of text handled per block (its per-byte arrays take ~9 bytes per text byte).
BLOCK_BYTES = 16 * 1024 * 1024


def _buffers(texts: pa.Array | pa.ChunkedArray) -> tuple[I64, npt.NDArray[np.uint8]]:
    """The byte offsets (``len + 1``, from 0) and UTF-8 bytes of ``texts`` (nulls: empty)."""
    array = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    array = array.cast(pa.large_string())
    array = array.fill_null("") if array.null_count else array
    buffers = array.buffers()
    offsets = np.frombuffer(
        buffers[1], dtype=np.int64, count=len(array) + 1, offset=array.offset * 8
    )
    data = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, dtype=np.uint8)
    )
    return offsets - offsets[0], data[offsets[0] : offsets[-1]]


def to_code_points(
    texts: pa.Array | pa.ChunkedArray, text_index: I64, offsets: I64, unit: OffsetUnit
) -> I64:
    """The code-point position of every ``offsets[i]`` (in ``unit``: UTF-8 bytes or UTF-16
    code units) within the text ``texts[text_index[i]]``; ``-1`` where the offset is negative,
    beyond the text, or inside a code point (or a null text, or an index beyond ``texts``)."""
    text_index = np.asarray(text_index, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    result = np.full(offsets.shape, -1, dtype=np.int64)
    if offsets.size == 0:
        return result
    starts, data = _buffers(texts)
    known = (text_index >= 0) & (text_index < len(starts) - 1) & (offsets >= 0)
    if not known.any():
        return result
    # In an ASCII text every unit is one code point: the offset is its own position (within
    # the text's length). Only the other texts' bytes are read.
    array = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    byte_lengths = np.diff(starts)
    ascii_text = np.asarray(pc.utf8_length(array.fill_null("")), dtype=np.int64) == byte_lengths
    plain = known & ascii_text[np.where(known, text_index, 0)]
    inside = plain & (offsets <= byte_lengths[np.where(plain, text_index, 0)])
    result[inside] = offsets[inside]
    known &= ~plain
    if not known.any():
        return result
    # the other texts cited, each once, as their own array: work follows their bytes only
    needed = np.unique(text_index[known])
    starts, data = _buffers(array.take(pa.array(needed)))
    text_index = np.where(known, np.searchsorted(needed, text_index), -1)
    queries = np.flatnonzero(known)
    queries = queries[np.argsort(text_index[queries], kind="stable")]
    # blocks of whole texts: a block ends at the first text boundary past BLOCK_BYTES
    first = 0
    n_texts = len(starts) - 1
    while first < n_texts:
        last = int(np.searchsorted(starts, starts[first] + BLOCK_BYTES, side="right")) - 1
        last = max(last, first + 1)  # at least one text, however large
        last = min(last, n_texts)
        lo = int(np.searchsorted(text_index[queries], first, side="left"))
        hi = int(np.searchsorted(text_index[queries], last, side="left"))
        if hi > lo:
            chosen = queries[lo:hi]
            result[chosen] = _block(
                starts, data, first, last, text_index[chosen], offsets[chosen], unit
            )
        first = last
    return result


def _block(
    starts: I64,
    data: npt.NDArray[np.uint8],
    first: int,
    last: int,
    text_index: I64,
    offsets: I64,
    unit: OffsetUnit,
) -> I64:
    """:func:`to_code_points` for the texts ``first:last`` (all queries fall in them)."""
    base = int(starts[first])
    block = data[base : int(starts[last])]
    lead = (block & 0xC0) != 0x80
    # code points before each byte position (exclusive prefix count; one entry past the end)
    before = np.zeros(block.size + 1, dtype=np.int64)
    np.cumsum(lead, out=before[1:])
    text_start = starts[text_index] - base  # block-relative byte position of each text
    text_end = starts[text_index + 1] - base
    # a position is a code-point boundary when it is a lead byte or the block's end (a text's
    # end is the next text's first byte, or the block's end)
    boundary_at = np.append(lead, True)
    if unit == "utf8":
        position = text_start + offsets
        inside = position <= text_end
        safe = np.where(inside, position, 0)
        exact = inside & boundary_at[safe]
        return np.where(exact, before[safe] - before[text_start], -1)
    # UTF-16: units before each code-point boundary (lead positions and each text's end)
    width = np.where(block >= 0xF0, 2, 1) * lead
    units = np.zeros(block.size + 1, dtype=np.int64)
    np.cumsum(width, out=units[1:])
    target = units[text_start] + offsets
    bounds = np.flatnonzero(boundary_at)
    # the first boundary with at least ``target`` units before it; it is the offset's code
    # point only if exactly ``target`` units lie before it and it is within the text
    found = np.minimum(np.searchsorted(units[bounds], target, side="left"), bounds.size - 1)
    position = bounds[found]
    exact = (units[position] == target) & (position >= text_start) & (position <= text_end)
    return np.where(exact, before[position] - before[text_start], -1)
