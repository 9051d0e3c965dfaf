"""The lines of a JSON Lines file of exchanges, read by the readers' rules (issue 12).

:func:`line_batches` yields the non-blank lines in batches, one row per line: ``_line`` (its
1-based number in the file, blank lines counted) and ``raw`` (its text). The file is read
block by block by the same code as the corpus JSON Lines reader
(:mod:`citelens.io._jsonl_blocks`): a ``.gz``/``.zst`` name is decompressed as a stream under
the decompressed bound, a leading BOM is dropped, every block is pre-scanned
(:class:`citelens.io.JsonScan`: a line at most 64 MiB, nesting at most 32 levels, brackets
and strings closed on their line) before anything parses it. A plain file may hold at most
1 GiB. Memory follows the lines of a batch (as Polars strings), never a Python object per line.

Then, with whole-column operations:

* a line that does not start (after spaces and tabs) with ``{`` is no JSON object:
  :func:`~citelens.importers._decode.malformed` ``line must be a JSON object``;
* whether the others are valid JSON is left to the importer's first
  :func:`~citelens.importers._decode.decode`, which parses every line once with Arrow's JSON
  reader: the first that is not (found by bisection, as a misfit is) is ``line is not valid
  JSON`` with its line number, ``anthropic line 7: line is not valid JSON`` (``NaN`` and
  ``Infinity`` included, which JSON has not), before any field is blamed.

The bounds and the pre-scan come first (they protect the parsers), so a file that breaks a
bound is refused for that even when an earlier line is malformed. A file that cannot be read
raises ``<format> input could not be read`` with the reader's fixed detail
(``anthropic file not found``, ``anthropic JSONL line 2 nests deeper than 32 levels``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.errors import CitationImportError
from citelens.importers._decode import LINE, RAW, malformed
from citelens.io import _bounds
from citelens.io._bounds import JsonRefused
from citelens.io._compressed import file_kind
from citelens.io._jsonl_blocks import DEFAULT_BLOCK_BYTES, line_blocks
from citelens.io._refusal import Refused, describe
from citelens.io._values import ReadFailure

__all__ = [
    "DEFAULT_BATCH_BYTES",
    "LINES_SCHEMA",
    "frame_batches",
    "frame_lines",
    "line_batches",
    "lines_of",
    "unreadable",
]

LINES_SCHEMA = pl.Schema({LINE: pl.Int64, RAW: pl.String})
# The lines an importer converts at a time, about this many bytes of them: every exchange
# converts on its own, so batches give the same tables, and a batch's parse and intermediate
# frames stay small (100,000 exchanges of 5.5 kB parsed in one batch took 4.4 s, 20,000 at a
# time 1.9 s in all; freed batches are reused instead of new memory faulted in).
DEFAULT_BATCH_BYTES = 64 * 1024 * 1024

# The file formats an exchange file may have (any case, optionally .gz or .zst compressed).
_SUFFIXES = (".jsonl", ".ndjson")
# The causes of a refusal that are a bound exceeded (category ``limit``), not an unreadable file.
_LIMIT_CAUSES = ("depth", "size")


def unreadable(fmt: str, failure: ReadFailure) -> CitationImportError:
    """The fixed error of an exchange file a reader refused: ``<fmt> input could not be
    read``, the reader's sentence as the detail. A line that is not valid JSON (the pre-scan
    saw its brackets or strings unclosed) is :func:`malformed` as Polars' refusal is."""
    if isinstance(failure, Refused) and failure.reason == "jsonl":
        return malformed(fmt, "line", "is not valid JSON", failure.line)
    category = "limit" if failure.cause in _LIMIT_CAUSES else "input"
    return CitationImportError(f"{fmt} input could not be read", category, describe(failure, fmt))


def _binary(data: bytes) -> pa.Array:
    """``data`` as one Arrow binary value over the same memory (no copy)."""
    offsets = pa.array([0, len(data)], pa.int64()).buffers()[1]
    return pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)]
    )


def _blocks(path: Path, block_bytes: int) -> Iterator[tuple[pl.DataFrame, int]]:
    """The file's lines, one frame per block (``_line``, ``raw``; blank lines dropped) with
    the block's size in bytes, as the file is read."""
    kind = file_kind(path.name)
    if kind is None or kind.suffix not in _SUFFIXES:
        raise Refused("type")
    plain = kind.compression is None
    if plain and path.is_file() and path.stat().st_size > _bounds.MAX_FILE_BYTES:
        raise Refused("size")
    size = 0  # the bytes read: a plain file that grows while read is caught too
    for data, before in line_blocks(path, block_bytes):
        size += len(data)
        if plain and size > _bounds.MAX_FILE_BYTES:
            raise Refused("size")
        # Arrow checks the UTF-8 and splits the lines: a Python decode and Polars' str.split +
        # explode measured 20 and 10 times slower on 8 MiB blocks
        try:
            text = _binary(data).cast(pa.large_string())  # checked, not copied
        except pa.ArrowInvalid:  # the cast's refusal of invalid UTF-8
            raise UnicodeError from None
        lines = pl.Series(RAW, pc.split_pattern(text, "\n").flatten(), dtype=pl.String)
        frame = lines.to_frame().with_row_index(LINE, offset=before + 1)
        if b"\r" in data:  # CRLF lines (a scan of the bytes: stripping copies every line)
            frame = frame.with_columns(pl.col(RAW).str.strip_suffix("\r"))
        blank = pl.col(RAW).str.contains(r"^[ \t\r]*$")
        yield frame.filter(~blank).with_columns(pl.col(LINE).cast(pl.Int64)), len(data)


def line_batches(
    path: object,
    fmt: str,
    *,
    block_bytes: int | None = None,
    batch_bytes: int | None = None,
) -> Iterator[pl.DataFrame]:
    """The non-blank lines of the JSON Lines file ``path`` (``.jsonl``/``.ndjson``, also
    ``.gz``/``.zst``) as frames of ``_line`` (1-based, blank lines counted) and ``raw``, each
    of the whole blocks (of about ``block_bytes``, default 8 MiB) read until about
    ``batch_bytes`` (default :data:`DEFAULT_BATCH_BYTES`; at least one frame, empty for a
    file without lines), yielded as the file is read: memory follows the batch. Every line
    of a batch has been pre-scanned; :func:`lines_of` is left to the caller. A file the
    reader refuses raises :class:`~citelens.errors.CitationImportError` naming ``fmt`` (fixed
    text) when the refusing block is reached."""
    limit = DEFAULT_BATCH_BYTES if batch_bytes is None else batch_bytes
    block = DEFAULT_BLOCK_BYTES if block_bytes is None else block_bytes
    failure: ReadFailure | None = None
    pending: list[pl.DataFrame] = []
    size = 0
    yielded = False
    try:
        for frame, block_size in _blocks(Path(os.fspath(path)), block):  # type: ignore[call-overload]
            pending.append(frame)
            size += block_size
            if size >= limit:
                yield pl.concat(pending)
                pending, size, yielded = [], 0, True
    except JsonRefused as refused:  # the pre-scan: line numbers from the file's start
        failure = Refused(refused.reason, refused.line)
    except ReadFailure as refused:  # a bound, the file's kind, opening or decompressing it
        failure = refused
    except UnicodeError:  # invalid UTF-8
        failure = Refused("encoding")
    except (TypeError, ValueError):  # not a path at all (os.fspath), or a NUL byte in it
        failure = Refused("denied")
    if failure is not None:
        raise unreadable(fmt, failure)
    if pending or not yielded:
        yield pl.concat(pending) if pending else pl.DataFrame(schema=LINES_SCHEMA)


def frame_batches(lines: pl.DataFrame, batch_bytes: int | None = None) -> Iterator[pl.DataFrame]:
    """Lines held in memory in consecutive slices of about ``batch_bytes`` (default
    :data:`DEFAULT_BATCH_BYTES`), as :func:`line_batches` gives a file's (at least one)."""
    limit = DEFAULT_BATCH_BYTES if batch_bytes is None else batch_bytes
    sizes = lines.get_column(RAW).str.len_bytes().cast(pl.Int64).fill_null(0)
    # a line's batch: the bytes before it, in batch sizes (non-decreasing down the lines)
    counts = ((sizes.cum_sum() - sizes) // limit).unique_counts().to_list()
    start = 0
    for count in counts or [0]:
        yield lines.slice(start, count)
        start += count


def lines_of(frame: pl.DataFrame, fmt: str) -> pl.DataFrame:
    """``frame`` (``_line``, ``raw``) checked in whole columns: every line starts as a JSON
    object (:func:`malformed` ``line must be a JSON object``, the first such line named).
    Whether it is valid JSON the importer's first decode tells, which parses every line
    anyway (:func:`~citelens.importers._decode.decode`): a second parse here measured 0.5 s
    per 110 MB."""
    starts = frame.get_column(RAW).str.contains(r"^[ \t]*\{")  # no copy of the lines
    objects = starts.fill_null(False)  # a null line (in a frame the caller built) is none
    if not objects.all():
        line = int(frame.get_column(LINE).filter(~objects)[0])
        raise malformed(fmt, "line", "must be a JSON object", line)
    return frame.select(pl.col(LINE).cast(pl.Int64), pl.col(RAW).cast(pl.String))


def frame_lines(frame: pl.DataFrame, fmt: str) -> pl.DataFrame:
    """Lines the caller holds in memory (``_line``, ``raw``) checked as a file's are: the
    pre-scan's bounds (line size, nesting depth, closed brackets) over all of them, then
    :func:`lines_of`. A newline inside a line can only be whitespace between JSON tokens (JSON
    escapes it inside strings), so it is read as a space."""
    if frame.schema != LINES_SCHEMA:
        raise malformed(fmt, "line", "must be a JSON object", None)
    flat = frame.with_columns(pl.col(RAW).str.replace_all("\n", " ", literal=True))
    text = flat.get_column(RAW).fill_null("{}").str.join("\n").item()
    failure: ReadFailure | None = None
    try:
        _bounds.check_json(text.encode("utf-8"), lines=True)
    except JsonRefused as refused:  # ``line`` counts the frame's rows: map it to its _line
        row = None if refused.line is None else refused.line - 1
        line = None if row is None else int(flat.get_column(LINE)[row])
        failure = Refused(refused.reason, line)
    if failure is not None:
        raise unreadable(fmt, failure)
    blank = pl.col(RAW).str.strip_chars(" \t\r") == ""
    return lines_of(flat.filter(~blank.fill_null(False)), fmt)
