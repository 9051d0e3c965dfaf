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
"""

from __future__ import annotations

import gzip
import importlib
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from citelens.io import _bounds
from citelens.io._refusal import Refused, opened

__all__ = ["FileKind", "file_kind", "read_text_file"]

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
# Decompressed bytes taken per read (gzip and the standard library's zstd bound their output).
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
    limit = _bounds.MAX_FILE_BYTES
    reason: str | None = None
    data = b""
    try:
        with path.open("rb") as handle:
            data = _gunzip(handle, limit) if compression == "gzip" else _unzstd(handle, limit)
    except Refused as refused:
        reason = refused.reason
    except OSError:  # gzip.BadGzipFile is an OSError too: the file is no valid gzip
        reason = "gzip" if compression == "gzip" else "denied"
    except (EOFError, zlib.error):  # a truncated or corrupt gzip stream
        reason = "gzip"
    if reason is not None:
        raise Refused(reason)
    return data


def _gather(read: Any, limit: int) -> bytes:
    """Call ``read(n)`` until it returns nothing; refuse past ``limit`` bytes in all."""
    parts: list[bytes] = []
    total = 0
    while True:
        part = read(_CHUNK)
        if not part:
            return b"".join(parts)
        total += len(part)
        if total > limit:
            raise Refused("decompressed")
        parts.append(part)


def _gunzip(handle: BinaryIO, limit: int) -> bytes:
    with gzip.GzipFile(fileobj=handle, mode="rb") as stream:
        return _gather(stream.read, limit)


def _unzstd(handle: BinaryIO, limit: int) -> bytes:
    """zstd through ``zstandard``, else ``compression.zstd``, else :class:`Refused`."""
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        zstandard = None
    if zstandard is not None:
        return _unzstd_package(zstandard, handle, limit)
    try:
        stdlib = importlib.import_module("compression.zstd")
    except ImportError:
        stdlib = None
    if stdlib is None:
        raise Refused("zstd_missing")
    failed = False
    data = b""
    try:
        with stdlib.ZstdFile(handle, "rb") as stream:
            data = _gather(stream.read, limit)
    except (stdlib.ZstdError, EOFError):  # corrupt or truncated
        failed = True
    if failed:
        raise Refused("zstd")
    return data


def _unzstd_package(zstandard: Any, handle: BinaryIO, limit: int) -> bytes:
    """Frame by frame with ``zstandard``'s decompressor objects, fed a small step at a time
    (their output is unbounded per call). A stream that ends inside a frame is truncated, and
    one without a single complete frame (an empty file, garbage) is no zstd either."""
    parts: list[bytes] = []
    total = frames = 0
    failed = False
    codec = zstandard.ZstdDecompressor()
    current = codec.decompressobj()
    fed = False  # the current frame has received input
    try:
        while step := handle.read(_ZSTD_STEP):
            while step:
                out = current.decompress(step)
                fed = True
                total += len(out)
                if total > limit:
                    raise Refused("decompressed")
                parts.append(out)
                step = b""
                if current.eof:  # a frame ended: the rest of the step starts the next one
                    step, frames = current.unused_data, frames + 1
                    current, fed = codec.decompressobj(), False
    except zstandard.ZstdError:  # corrupt input
        failed = True
    if failed or fed or frames == 0:
        raise Refused("zstd")
    return b"".join(parts)
