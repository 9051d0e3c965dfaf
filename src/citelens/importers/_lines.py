"""The lines of a JSON Lines file of exchanges, read by the readers' rules (issue 12).

:func:`read_lines` returns one row per non-blank line: ``_line`` (its 1-based number in the
file, blank lines counted) and ``raw`` (its text). The file is read block by block by the same
code as the corpus JSON Lines reader (:mod:`citelens.io._jsonl_blocks`): a ``.gz``/``.zst``
name is decompressed as a stream under the decompressed bound, a leading BOM is dropped, every
block is pre-scanned (:class:`citelens.io.JsonScan`: a line at most 64 MiB, nesting at most 32
levels, brackets and strings closed on their line) before anything parses it. A plain file may
hold at most 1 GiB. Memory follows the lines kept (the file's text once, as Polars strings),
never a Python object per line.

Then, with whole-column operations:

* a line that does not start (after spaces and tabs) with ``{`` is no JSON object:
  :func:`~citelens.importers._decode.malformed` ``line must be a JSON object``;
* every other line is parsed once by Arrow's JSON reader (as
  :func:`~citelens.importers._decode.decode` parses); the first that is not valid JSON (found
  by bisection, as a misfit is) is ``line is not valid JSON`` with its line number:
  ``anthropic line 7: line is not valid JSON`` (``NaN`` and ``Infinity`` included, which
  JSON has not).

The bounds and the pre-scan come first (they protect the parsers), so a file that breaks a
bound is refused for that even when an earlier line is malformed. A file that cannot be read
raises ``<format> input could not be read`` with the reader's fixed detail
(``anthropic file not found``, ``anthropic JSONL line 2 nests deeper than 32 levels``).
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.errors import CitationImportError
from citelens.importers._decode import _ANY_OBJECT, LINE, RAW, _first_misfit, _fits, malformed
from citelens.io import _bounds
from citelens.io._bounds import JsonRefused
from citelens.io._compressed import file_kind
from citelens.io._jsonl_blocks import DEFAULT_BLOCK_BYTES, _texts
from citelens.io._refusal import Refused, describe
from citelens.io._values import ReadFailure

__all__ = ["LINES_SCHEMA", "frame_lines", "lines_of", "read_lines", "unreadable"]

LINES_SCHEMA = pl.Schema({LINE: pl.Int64, RAW: pl.String})

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


def _blocks(path: Path, block_bytes: int) -> list[pl.DataFrame]:
    """The file's lines, one frame per block (``_line``, ``raw``), blank lines dropped."""
    kind = file_kind(path.name)
    if kind is None or kind.suffix not in _SUFFIXES:
        raise Refused("type")
    plain = kind.compression is None
    if plain and path.is_file() and path.stat().st_size > _bounds.MAX_FILE_BYTES:
        raise Refused("size")
    frames: list[pl.DataFrame] = []
    characters = 0  # at most the bytes read: a plain file that grows while read is caught too
    for text, before in _texts(path, block_bytes):
        characters += len(text)
        if plain and characters > _bounds.MAX_FILE_BYTES:
            raise Refused("size")
        # Arrow's split: Polars' str.split + explode measured 10 times slower on 8 MiB blocks
        split = pc.split_pattern(pa.array([text], pa.large_string()), "\n").flatten()
        lines = pl.Series(RAW, split, dtype=pl.String)
        frame = (
            lines.to_frame()
            .with_row_index(LINE, offset=before + 1)
            .with_columns(pl.col(RAW).str.strip_suffix("\r"), pl.col(LINE).cast(pl.Int64))
            .filter(pl.col(RAW).str.strip_chars(" \t\r") != "")
        )
        frames.append(frame)
    return frames


def read_lines(path: object, fmt: str, *, block_bytes: int = DEFAULT_BLOCK_BYTES) -> pl.DataFrame:
    """The non-blank lines of the JSON Lines file ``path`` (``.jsonl``/``.ndjson``, also
    ``.gz``/``.zst``) as ``_line`` (1-based, blank lines counted) and ``raw``, each a JSON
    object. Raises :class:`~citelens.errors.CitationImportError` naming ``fmt`` (fixed text)."""
    failure: ReadFailure | None = None
    frames: list[pl.DataFrame] = []
    try:
        frames = _blocks(Path(os.fspath(path)), block_bytes)  # type: ignore[call-overload]
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
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=LINES_SCHEMA)
    return lines_of(frame, fmt)


def lines_of(frame: pl.DataFrame, fmt: str) -> pl.DataFrame:
    """``frame`` (``_line``, ``raw``) checked line by line in whole columns: every line a
    JSON object (:func:`malformed` ``line must be a JSON object``) and valid JSON
    (``line is not valid JSON``), the first failing line named."""
    starts = frame.get_column(RAW).str.strip_chars_start(" \t").str.starts_with("{")
    objects = starts.fill_null(False)  # a null line (in a frame the caller built) is none
    if not objects.all():
        line = int(frame.get_column(LINE).filter(~objects)[0])
        raise malformed(fmt, "line", "must be a JSON object", line)
    values = frame.get_column(RAW)
    if not _fits(values, _ANY_OBJECT):  # a line that starts as an object but does not parse
        line = int(frame.get_column(LINE)[_first_misfit(values, _ANY_OBJECT)])
        raise malformed(fmt, "line", "is not valid JSON", line)
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
