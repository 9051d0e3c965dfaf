"""Atomic file writes (conventions §5.3): temp file in the target's directory, fsync, rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pyarrow as pa

__all__ = [
    "WriteFailure",
    "parquet_bytes",
    "write_bytes_atomic",
    "write_many_atomic",
    "write_parquet_atomic",
    "write_text_atomic",
]


class WriteFailure(Exception):
    """Private marker: an output file could not be written. Carries no message."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()


def _target(path: object) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise WriteFailure()
    raw = os.fspath(path)
    if not isinstance(raw, str) or raw == "":
        raise WriteFailure()
    return Path(raw)


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
    """Serialise ``table`` as a Parquet file in memory."""
    failed = False
    data = b""
    try:
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        data = sink.getvalue().to_pybytes()
    except Exception:
        failed = True
    if failed:
        raise WriteFailure()
    return data


def write_many_atomic(files: list[tuple[object, bytes]]) -> list[Path]:
    """Write several files as one unit: every file is staged as a temporary file beside its
    target first, and only when all are staged are they renamed into place. On any failure
    the staged files are removed and no target is touched."""
    staged: list[tuple[str, Path]] = []
    failed = False
    try:
        for path, data in files:
            target = _target(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(prefix=".citelens-", suffix=".tmp", dir=target.parent)
            staged.append((tmp_name, target))
            os.fchmod(fd, _MODE)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        for tmp_name, target in staged:
            os.replace(tmp_name, target)
    except Exception:
        failed = True
    if failed:
        for tmp_name, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        raise WriteFailure()
    return [target for _, target in staged]
