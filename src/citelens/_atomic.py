"""Atomic file writes (conventions §5.3): temp file in the target's directory, fsync, rename.

:class:`StagedFiles` is the one implementation: every output of a run is first written to a
temporary ``.citelens-*.tmp`` file beside its target; only when all of them are complete and
fsynced are they renamed onto their targets. On any failure, and on ``KeyboardInterrupt``,
every temporary file is removed and no target is touched. The byte, text, Parquet and
multi-file helpers below are thin uses of it; ``citelens.corpus`` streams Parquet batches into
its open files.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from citelens.errors import CitelensError

__all__ = [
    "PATH_ERRORS",
    "WRITE_ERRORS",
    "StagedFiles",
    "WriteFailure",
    "parquet_bytes",
    "write_bytes_atomic",
    "write_many_atomic",
    "write_outputs",
    "write_parquet_atomic",
    "write_text_atomic",
]

# What writing an output can raise without a bug in citelens: the file system (OSError, Arrow's
# ArrowIOError included). Opening a target can also meet a path the OS refuses, such as one
# with a NUL byte (ValueError). Anything else (an Arrow type error, a closed file) is a bug.
WRITE_ERRORS = (OSError,)
PATH_ERRORS = (OSError, ValueError)


class WriteFailure(Exception):
    """Private marker: an output file could not be written. Carries no message."""


@functools.cache
def _mode() -> int:
    """The permission bits of a new file under the process umask (read once, on first use:
    ``os.umask`` can only be read by setting it)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _target(path: object) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise WriteFailure()
    raw = os.fspath(path)
    if not isinstance(raw, str) or raw == "":
        raise WriteFailure()
    return Path(raw)


class StagedFiles:
    """Output files staged beside their targets and renamed into place as a set.

    ``open(path)`` returns a binary file (a temporary file in the target's directory);
    ``commit()`` flushes and fsyncs every one, then renames each onto its target;
    ``abort()`` closes and removes every temporary file. Used as a context manager, leaving
    the block without ``commit()`` (an exception, ``KeyboardInterrupt``) aborts.

    Failures raise :class:`WriteFailure` (after removing the temporary files); the caller
    turns it into its fixed ``io`` error.
    """

    def __init__(self) -> None:
        self._staged: list[tuple[BinaryIO, str, Path]] = []
        self._created: list[Path] = []  # directories this set made, deepest first
        self._done = False

    def open(self, path: object) -> BinaryIO:
        """A new temporary file for target ``path`` (parent directories are created)."""
        if self._done:
            raise WriteFailure()
        failed = False
        handle: BinaryIO | None = None
        try:
            target = _target(path)
            missing = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
            target.parent.mkdir(parents=True, exist_ok=True)
            self._created.extend(d for d in missing if d not in self._created)
            fd, tmp_name = tempfile.mkstemp(prefix=".citelens-", suffix=".tmp", dir=target.parent)
            handle = os.fdopen(fd, "wb")
            self._staged.append((handle, tmp_name, target))  # from here on abort() removes it
            os.fchmod(fd, _mode())
        except (WriteFailure, *PATH_ERRORS):
            failed = True
        if failed or handle is None:
            self.abort()
            raise WriteFailure()
        return handle

    def temporary_path(self, handle: BinaryIO) -> Path:
        """The temporary file behind ``handle`` (readable once ``handle`` is flushed)."""
        for staged, tmp_name, _ in self._staged:
            if staged is handle:
                return Path(tmp_name)
        raise WriteFailure()

    def commit(self) -> list[Path]:
        """Fsync and rename every staged file onto its target; return the targets."""
        if self._done:
            raise WriteFailure()
        failed = False
        try:
            for handle, _, _ in self._staged:
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()
            for _, tmp_name, target in self._staged:
                os.replace(tmp_name, target)
        except WRITE_ERRORS:
            failed = True
        except BaseException:  # KeyboardInterrupt mid-commit: leave no temporary file
            self.abort()
            raise
        if failed:
            self.abort()
            raise WriteFailure()
        self._done = True
        return [target for _, _, target in self._staged]

    def abort(self) -> None:
        """Close and remove every temporary file not yet renamed (idempotent)."""
        if self._done:
            return
        self._done = True
        for handle, tmp_name, _ in self._staged:
            with contextlib.suppress(*WRITE_ERRORS):
                handle.close()
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        for directory in sorted(self._created, key=lambda d: len(d.parts), reverse=True):
            with contextlib.suppress(OSError):  # not empty: someone else wrote there
                directory.rmdir()

    def __enter__(self) -> StagedFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.abort()


def write_many_atomic(files: Sequence[tuple[object, bytes]]) -> list[Path]:
    """Write several files as one unit: every file is staged as a temporary file beside its
    target first, and only when all are staged are they renamed into place. On any failure
    the staged files are removed and no target is touched."""
    with StagedFiles() as staged:
        for path, data in files:
            handle = staged.open(path)
            failed = False
            try:
                handle.write(data)
            except WRITE_ERRORS:
                failed = True
            if failed:
                raise WriteFailure()
        return staged.commit()


def write_bytes_atomic(path: object, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically and return the path."""
    return write_many_atomic([(path, data)])[0]


def write_text_atomic(path: object, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_parquet_atomic(path: object, table: pa.Table) -> Path:
    """Write ``table`` as Parquet to ``path`` atomically."""
    return write_bytes_atomic(path, parquet_bytes(table))


def parquet_bytes(table: pa.Table) -> bytes:
    """Serialise ``table`` as a Parquet file in memory (zstd)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    data: bytes = sink.getvalue().to_pybytes()
    return data


def write_outputs(outputs: Sequence[tuple[object, str | pa.Table]], error: CitelensError) -> None:
    """Write every output of one run as a unit: text as UTF-8, tables as Parquet, all staged
    beside their targets before any is renamed, so a failing run leaves none behind.
    ``error`` is the command's fixed ``io`` error, raised (unchained) on any failure."""
    files = [
        (path, content.encode("utf-8") if isinstance(content, str) else parquet_bytes(content))
        for path, content in outputs
    ]
    failed = False
    try:
        write_many_atomic(files)
    except WriteFailure:
        failed = True
    if failed:
        raise error
