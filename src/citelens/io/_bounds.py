"""Bounds checked before any reader converts a file (issue 10: readers that cannot be crashed).

Arrow's and Polars' readers, and Python's :mod:`json`, recurse over nested values and crash
(segfault), run for minutes or take gigabytes on a small hostile file: a 1.4 kB JSON Lines
line nested 700 levels costs 18 s and 9 GB, 100,000 levels kill the process. Everything a
reader hands to them is therefore checked first, in time linear in the bytes:

* :data:`MAX_DEPTH` (32): arrays and objects nested at most 32 levels in JSON and JSON Lines
  (:class:`JsonScan`, a bracket-depth counter that respects JSON strings and their escapes,
  vectorised with NumPy), and types nested at most 32 levels in Arrow schemas
  (:func:`check_schema`). No record of any contract comes near it (the deepest, a citation
  inside a claim inside a compact mapping, is 4 levels).
* :data:`MAX_LINE_BYTES` (64 MiB): one JSON Lines line, or one CSV row of a staged corpus file
  (a line is one record; a document's whole source text fits in it many times over).
* :data:`MAX_FILE_BYTES` (1 GiB): a text file (``.json``, ``.jsonl``/``.ndjson``, ``.csv``)
  read whole into memory (:func:`read_bounded`). The corpus readers stream JSON Lines and CSV
  block by block instead: their memory follows one block, so only the line bound applies.
* Column names: distinct in every schema, at every level of nesting (:func:`check_schema`);
  Polars panics on two columns of one name, and a record cannot hold two values of one field.

A file beyond a bound raises :class:`ReadFailure` (cause ``depth``, ``size`` or ``columns``)
before anything else reads it. The bounds are module constants, not :class:`citelens.Limits`
fields (conventions §2 keeps that class to record counts).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from citelens.io._refusal import Refused
from citelens.io._values import ReadFailure

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "READER_PANICS",
    "JsonRefused",
    "JsonScan",
    "check_json",
    "check_schema",
    "read_bounded",
]

MAX_DEPTH = 32
MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 1024 * 1024 * 1024

# A Rust panic inside Polars surfaces as ``pyo3_runtime.PanicException``, a ``BaseException``
# that no ``except Exception`` catches. At a reader boundary it is Polars refusing a hostile
# file (two IPC columns of one name trip an assertion), so the readers treat it as an
# unreadable input; anywhere else it stays what it is.
READER_PANICS: tuple[type[BaseException], ...] = (pl.exceptions.PanicException,)

# Bytes scanned per step: the arrays of one step stay within a few tens of MiB even when every
# byte is a bracket.
_SCAN_BYTES = 4 * 1024 * 1024

# What the scan keeps of the text once escapes are removed: quotes, brackets and newlines.
_KEEP = b'"[]{}\n'
_DROP = bytes(byte for byte in range(256) if byte not in _KEEP)
_CLASS = np.zeros(256, dtype=np.int8)
_CLASS[ord("[")] = _CLASS[ord("{")] = 1
_CLASS[ord("]")] = _CLASS[ord("}")] = -1
_QUOTE, _NEWLINE = ord('"'), ord("\n")


class JsonRefused(Refused):
    """The pre-scan refused JSON text (``cause`` as for :class:`ReadFailure`; ``reason`` and,
    for JSON Lines, the 1-based ``line`` as for :class:`Refused`). It is also the
    ``ValueError`` a JSON parser raises on malformed text, so every caller that catches the
    parser's refusal catches this one too."""


def _structure(text: bytes) -> bytes:
    """The quotes, brackets and newlines of ``text`` that are not escaped. ``\\`` pairs go
    first, left to right (in a run of backslashes only its parity is left), then every ``\"``
    (an escaped quote), then every other byte; ``text`` must not end inside a backslash run.
    Plain byte operations: a few passes at memory speed, however hostile the text."""
    return text.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _DROP)


class JsonScan:
    """A linear pre-scan of JSON text fed in pieces: the nesting depth of arrays and objects
    outside strings, never above :data:`MAX_DEPTH`.

    With ``lines`` (JSON Lines), no line may exceed :data:`MAX_LINE_BYTES`, and a line that
    ends inside a string or with unbalanced brackets is malformed (no JSON value spans lines),
    so depth and string state start afresh on every line. Without it (one JSON document),
    they run over the whole text. In both, closing more brackets than were opened is
    malformed.

    Why this bounds the parsers: on valid JSON the count is exact. On invalid JSON it agrees
    with a left-to-right parser up to the first invalid byte, where the parser stops, so the
    parser never nests deeper than the count allowed. Escapes are read the same way inside
    and outside strings (outside, a backslash is invalid JSON).

    Raises :class:`JsonRefused` with cause ``depth`` (too deep), ``size`` (a line too long) or
    ``unreadable`` (a malformed line or text); with ``lines``, the refusal names the line.
    """

    def __init__(self, *, lines: bool) -> None:
        self._lines = lines
        self._in_string = False  # the text so far ends inside a string
        self._odd_backslash = False  # the text so far ends in an odd run of backslashes
        self._depth = 0  # nesting depth at the end of the text so far
        self._line_bytes = 0  # bytes of the last, unfinished line
        self._newlines = 0  # newlines scanned so far (the line numbers of refusals)

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Scan the next piece of the text (pieces may split lines and UTF-8 characters)."""
        view = memoryview(data).cast("B")
        for start in range(0, len(view), _SCAN_BYTES):
            piece = bytes(view[start : start + _SCAN_BYTES])
            self._line_lengths(piece)
            if self._odd_backslash:
                piece = b"\\" + piece
            # a backslash run at the end escapes the next piece's first byte: only its parity
            # is carried over
            kept = piece.rstrip(b"\\")
            self._odd_backslash = (len(piece) - len(kept)) % 2 == 1
            self._step(np.frombuffer(_structure(kept), dtype=np.uint8))

    def finish(self) -> None:
        """The text has ended: with ``lines``, its last line must be complete JSON too."""
        if self._lines and (self._depth or self._in_string):
            raise JsonRefused("jsonl", self._newlines + 1)

    def _line_lengths(self, piece: bytes) -> None:
        if not self._lines:
            return
        newlines = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == _NEWLINE)
        if newlines.size:
            inner = int(np.diff(newlines).max(initial=1)) - 1  # lines between two newlines
            longest = max(self._line_bytes + int(newlines[0]), inner)
            tail = len(piece) - 1 - int(newlines[-1])
        else:
            longest, tail = 0, self._line_bytes + len(piece)
        if max(longest, tail) > MAX_LINE_BYTES:
            raise JsonRefused("line_size")
        self._line_bytes = tail

    def _step(self, kinds: npt.NDArray[np.uint8]) -> None:
        """Advance over the structure of one piece (quotes, brackets, newlines).

        The counts run over the whole piece, without restarting at newlines: while every
        line so far ended outside strings at depth 0 (checked at each newline), the running
        counts are the line's own. The first line that does not is malformed, and every
        failure is reported at the first position where one occurs."""
        if not kinds.size:
            return
        inside = np.cumsum(kinds == _QUOTE, dtype=np.int32) % 2 != int(self._in_string)
        depths = np.cumsum(np.where(inside, 0, _CLASS[kinds]), dtype=np.int32)
        depths += self._depth
        # closing more than was opened: no JSON text does (a parser stops there)
        malformed = depths < 0
        if self._lines:  # a line that ends in a string or not at depth 0
            malformed |= (kinds == _NEWLINE) & (inside | (depths != 0))
        failures = [(_first(depths > MAX_DEPTH), "depth"), (_first(malformed), "json")]
        first, cause = min(failures)
        newlines = kinds == _NEWLINE
        if first < kinds.size:
            if not self._lines:
                raise JsonRefused(cause)
            # the line of the failing byte: a newline that fails belongs to the line it ends
            line = self._newlines + int(np.count_nonzero(newlines[:first])) + 1
            raise JsonRefused("depth_line" if cause == "depth" else "jsonl", line)
        self._newlines += int(np.count_nonzero(newlines))
        self._depth, self._in_string = int(depths[-1]), bool(inside[-1])


def _first(mask: npt.NDArray[np.bool_]) -> int:
    """The index of the first true element of ``mask``, else its length."""
    index = int(np.argmax(mask))
    return index if mask[index] else mask.size


def check_json(data: bytes | bytearray | memoryview, *, lines: bool) -> None:
    """Pre-scan JSON (``lines=False``) or JSON Lines text: :class:`JsonScan` over all of it."""
    scan = JsonScan(lines=lines)
    scan.feed(data)
    scan.finish()


def read_bounded(path: Path, bound: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``bound`` bytes (:data:`MAX_FILE_BYTES` by
    default), read without taking more than ``bound + 1`` bytes (a file that grows while read
    is caught too). Raises :class:`ReadFailure` (``size``) beyond it, ``OSError`` if the file
    cannot be read."""
    limit = MAX_FILE_BYTES if bound is None else bound
    with path.open("rb") as handle:
        if os.fstat(handle.fileno()).st_size > limit:
            raise Refused("size")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise Refused("size")
    return data


def _type_problem(data_type: pa.DataType, depth: int) -> str | None:
    """``columns`` when a struct repeats a field name, ``depth`` when types nest deeper than
    :data:`MAX_DEPTH`, else ``None`` (the first found, depth first)."""
    if depth > MAX_DEPTH:
        return "depth"
    if pa.types.is_dictionary(data_type):
        return _type_problem(data_type.value_type, depth)
    if isinstance(data_type, pa.ExtensionType):
        return _type_problem(data_type.storage_type, depth)
    if pa.types.is_struct(data_type):
        names = [data_type.field(i).name for i in range(data_type.num_fields)]
        if len(set(names)) != len(names):
            return "columns"
    # structs, lists of every kind, maps (lists of key/value structs) and unions nest fields
    for index in range(data_type.num_fields):
        problem = _type_problem(data_type.field(index).type, depth + 1)
        if problem is not None:
            return problem
    return None


def check_schema(schema: pa.Schema) -> None:
    """Refuse a schema that repeats a column name, at any level (``columns``), or nests types
    deeper than :data:`MAX_DEPTH` (``depth``), before any engine converts its data."""
    names = schema.names
    if len(set(names)) != len(names):
        raise ReadFailure("columns")
    for field in schema:
        problem = _type_problem(field.type, 1)
        if problem is not None:
            raise ReadFailure(problem)
