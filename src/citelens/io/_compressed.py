"""File kinds by name, and text files read whole: plain, gzip or zstd (issue 11, item 2).

A data file's format comes from its name: ``.parquet``, ``.arrow``/``.feather``/``.ipc``,
``.jsonl``/``.ndjson``, ``.csv``, ``.tsv`` (CSV with a tab) and ``.json``. A text format may
be compressed: ``claims.jsonl.gz``, ``evidence.tsv.zst``. Parquet and Arrow IPC compress
internally and are not accepted compressed again.

A compressed file is decompressed as a stream, never more than
:data:`~citelens.io.MAX_FILE_BYTES` + 1 decompressed bytes: the bound applies to what the
file decompresses to, so a small "zip bomb" is refused (``decompressed``) after reading at most
one bound's worth. gzip uses the standard library; zstd the ``zstandard`` package when it is
installed, else the standard library's ``compression.zstd`` (Python 3.14), else the file is
refused with ``zstd_missing`` (``pip install 'citelens[zstd]'``).

One implementation serves every reader: :func:`read_text_file` joins the decompressed pieces
of a file (the single-document readers), :func:`open_text_file` hands them on as a stream (the
corpus readers stage JSON Lines and CSV from it block by block); both count the same pieces
against the same bound.
"""

from __future__ import annotations

import gzip
import importlib
import io
import zlib
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from citelens.io import _bounds
from citelens.io._refusal import Refused, opened

__all__ = ["FileKind", "file_kind", "open_text_file", "read_text_file"]

# name suffix -> (format suffix, CSV delimiter)
_FORMATS: dict[str, tuple[str, str]] = {
    ".parquet": (".parquet", ","),
    ".arrow": (".arrow", ","),
    ".feather": (".feather", ","),
    ".ipc": (".ipc", ","),
    ".jsonl": (".jsonl", ","),
    ".ndjson": (".ndjson", ","),
    ".csv": (".csv", ","),
    ".tsv": (".csv", "\t"),
    ".json": (".json", ","),
}
_TEXT_FORMATS = (".jsonl", ".ndjson", ".csv", ".tsv", ".json")
_COMPRESSIONS = {".gz": "gzip", ".zst": "zstd"}

# Compressed bytes fed to a zstd decompressor per step. zstd's densest block (RLE) turns a few
# bytes into 128 KiB, so one step yields at most about 90 MiB whatever the input.
_ZSTD_STEP = 2048
# Decompressed bytes taken per read (gzip and the standard library's zstd bound their output),
# and the buffer of a decompressing stream.
_CHUNK = 4 * 1024 * 1024


@dataclass(frozen=True)
class FileKind:
    """How a data file is read: ``suffix`` is the format (``.tsv`` reads as ``.csv``),
    ``delimiter`` the CSV field separator, ``compression`` ``gzip``, ``zstd`` or ``None``."""

    suffix: str
    delimiter: str
    compression: str | None


def file_kind(name: str) -> FileKind | None:
    """The kind of a data file named ``name`` (any case), else ``None``."""
    lowered = name.lower()
    compression: str | None = None
    for ending, method in _COMPRESSIONS.items():
        if lowered.endswith(ending):
            compression, lowered = method, lowered[: -len(ending)]
            break
    for ending, (suffix, delimiter) in _FORMATS.items():
        if lowered.endswith(ending):
            if compression is not None and ending not in _TEXT_FORMATS:
                return None  # Parquet and Arrow compress internally
            return FileKind(suffix, delimiter, compression)
    return None


def read_text_file(path: Path, compression: str | None) -> bytes:
    """The (decompressed) bytes of a text data file, at most
    :data:`~citelens.io.MAX_FILE_BYTES` of them. Raises :class:`Refused`: ``missing``,
    ``directory``, ``special``, ``denied``, ``size`` (a plain file beyond the bound),
    ``decompressed`` (a compressed one that decompresses beyond it), ``gzip``/``zstd``
    (corrupt or truncated) or ``zstd_missing``."""
    opened(path)
    if compression is None:
        return _bounds.read_bounded(path)
    with _source(path, compression) as handle:
        return b"".join(_bounded(handle, compression))


@contextmanager
def open_text_file(path: Path, compression: str | None) -> Iterator[BinaryIO]:
    """``path`` opened for reading as a binary stream of its (decompressed) bytes: the
    corpus readers stage a text file from it block by block, so memory follows one block (and
    one decompressed piece), not the file.

    A compressed file decompresses as it is read, by the same code and bound as
    :func:`read_text_file`: a read past :data:`~citelens.io.MAX_FILE_BYTES` decompressed bytes
    raises :class:`Refused` (``decompressed``), as does a corrupt or truncated stream
    (``gzip``/``zstd``, when the read reaches it) or a missing zstd decoder
    (``zstd_missing``). A plain file is not bounded here (the corpus readers bound its lines).
    Opening raises :class:`Refused` (``missing``, ``directory``, ``special``, ``denied``)."""
    opened(path)
    with _source(path, compression) as handle:
        if compression is None:
            yield handle
            return
        with io.BufferedReader(_Decompressed(_bounded(handle, compression)), _CHUNK) as stream:
            yield stream


@contextmanager
def _source(path: Path, compression: str | None) -> Iterator[BinaryIO]:
    """The file's own bytes; a file that cannot be opened (after :func:`opened` accepted it:
    it changed since) is refused as :func:`read_text_file` always refused it."""
    handle: BinaryIO | None = None
    try:
        handle = path.open("rb")
    except OSError:
        handle = None
    if handle is None:
        raise Refused("gzip" if compression == "gzip" else "denied")
    with handle:
        yield handle


def _bounded(handle: BinaryIO, compression: str) -> Generator[bytes, None, None]:
    """The decompressed pieces of ``handle``, refused (:class:`Refused`, ``decompressed``)
    once they add up to more than :data:`~citelens.io.MAX_FILE_BYTES`: the one decompressed
    bound of every reader. A piece is refused before it is handed on, so at most one bound's
    worth (and one piece) is ever read."""
    limit = _bounds.MAX_FILE_BYTES
    total = 0
    pieces = _gunzip(handle) if compression == "gzip" else _unzstd(handle)
    while True:
        reason: str | None = None
        piece = b""
        try:
            piece = next(pieces, b"")
        except Refused as refused:
            reason = refused.reason
        except OSError:  # reading the file failed
            reason = "gzip" if compression == "gzip" else "denied"
        if reason is not None:
            raise Refused(reason)
        if not piece:
            return
        total += len(piece)
        if total > limit:
            raise Refused("decompressed")
        yield piece


class _Decompressed(io.RawIOBase):
    """A readable raw stream over decompressed pieces (for :class:`io.BufferedReader`)."""

    def __init__(self, pieces: Generator[bytes, None, None]) -> None:
        super().__init__()
        self._pieces = pieces
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._pieces.close()  # the decompressor's own stream is closed now, not when collected
        super().close()

    def readinto(self, buffer: Any) -> int:
        while not len(self._pending):
            piece = next(self._pieces, b"")
            if not piece:
                return 0
            self._pending = memoryview(piece)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def _gunzip(handle: BinaryIO) -> Iterator[bytes]:
    """gzip pieces of at most ``_CHUNK`` bytes; a corrupt or truncated stream is
    :class:`Refused` (``gzip``)."""
    with gzip.GzipFile(fileobj=handle, mode="rb") as stream:
        while True:
            failed = False
            piece = b""
            try:
                piece = stream.read(_CHUNK)
            # gzip.BadGzipFile is an OSError too; EOFError is a truncated stream
            except (OSError, EOFError, zlib.error):
                failed = True
            if failed:
                raise Refused("gzip")
            if not piece:
                return
            yield piece


def _unzstd(handle: BinaryIO) -> Iterator[bytes]:
    """zstd pieces through ``zstandard``, else ``compression.zstd``, else :class:`Refused`
    (``zstd_missing``); corrupt or truncated: ``zstd``."""
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        zstandard = None
    if zstandard is not None:
        yield from _unzstd_package(zstandard, handle)
        return
    try:
        stdlib = importlib.import_module("compression.zstd")
    except ImportError:
        stdlib = None
    if stdlib is None:
        raise Refused("zstd_missing")
    with stdlib.ZstdFile(handle, "rb") as stream:
        while True:
            failed = False
            piece = b""
            try:
                piece = stream.read(_CHUNK)
            except (stdlib.ZstdError, EOFError):  # corrupt or truncated
                failed = True
            if failed:
                raise Refused("zstd")
            if not piece:
                return
            yield piece


def _unzstd_package(zstandard: Any, handle: BinaryIO) -> Iterator[bytes]:
    """Frame by frame with ``zstandard``'s decompressor objects, fed a small step at a time
    (their output is unbounded per call). A stream that ends inside a frame is truncated, and
    one without a single complete frame (an empty file, garbage) is no zstd either."""
    frames = 0
    codec = zstandard.ZstdDecompressor()
    current = codec.decompressobj()
    fed = False  # the current frame has received input
    while step := handle.read(_ZSTD_STEP):
        while step:
            failed = False
            out = b""
            try:
                out = current.decompress(step)
            except zstandard.ZstdError:  # corrupt input
                failed = True
            if failed:
                raise Refused("zstd")
            fed = True
            step = b""
            if out:
                yield out
            if current.eof:  # a frame ended: the rest of the step starts the next one
                step, frames = current.unused_data, frames + 1
                current, fed = codec.decompressobj(), False
    if fed or frames == 0:
        raise Refused("zstd")
