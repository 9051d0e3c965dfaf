"""Atomic file writes (conventions §5.3), atomic as a set: staged files, a journal, renames.

:class:`StagedFiles` is the one implementation: every output of a run is first written to a
temporary ``.citelens-<pid>-*.tmp`` file beside its target. When all of them are complete and
fsynced, a set of two or more files is *published*: a journal (``.citelens-publish.json``,
itself written atomically) naming every rename and removal is made durable in the directory of
the first target, then the files are renamed onto their targets and the journal is removed.
The journal is the commit point: a run killed before it leaves the old set untouched; a run
killed after it leaves a journal that the next run in that directory (or a reader of the set,
:func:`recover`) rolls forward, so every outcome is the complete old set or the complete new
one. On a failure before the commit point, and on ``KeyboardInterrupt``/termination, every
temporary file is removed and no target is touched; staging files of dead processes left by a
``SIGKILL`` are removed by the next run in the same directory. Directories are locked
(``flock``) while a set is published or recovered.

The byte, text, Parquet and multi-file helpers below are thin uses of it; ``citelens.corpus``
streams Parquet batches into its open files.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from citelens._signals import raise_pending
from citelens.errors import CitelensError

__all__ = [
    "PATH_ERRORS",
    "WRITE_ERRORS",
    "StagedFiles",
    "WriteFailure",
    "parquet_bytes",
    "recover",
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


JOURNAL = ".citelens-publish.json"
_PREFIX = ".citelens-"
_SUFFIX = ".tmp"
_JOURNAL_BYTES = 1 << 20  # our own file; a larger one was not written by citelens


def _fsync_directory(directory: Path) -> None:
    """Make renames and unlinks in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``directory`` itself (no lock file is left behind): one
    publication or recovery at a time per directory."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _stale(name: str) -> bool:
    """A staging file of a process that no longer runs (``.citelens-<pid>-*.tmp``)."""
    if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
        return False
    pid_text = name[len(_PREFIX) :].split("-", 1)[0]
    if not pid_text.isdigit():
        return True  # the unnamed staging files of earlier versions
    return not _alive(int(pid_text))


def _roll_forward(directory: Path) -> None:
    """Finish the publication a journal in ``directory`` records (the caller holds the lock)."""
    journal = directory / JOURNAL
    try:
        with open(journal, "rb") as handle:
            content = handle.read(_JOURNAL_BYTES + 1)
    except FileNotFoundError:
        return
    plan = json.loads(content.decode("utf-8")) if len(content) <= _JOURNAL_BYTES else None
    if not (isinstance(plan, dict) and plan.get("citelens_publish") == 1):
        raise WriteFailure()  # not a journal citelens wrote: leave it alone
    touched = {directory}
    for tmp_name, target in plan["rename"]:
        if os.path.exists(tmp_name):
            os.replace(tmp_name, target)
        touched.add(Path(target).parent)
    for target in plan["remove"]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        touched.add(Path(target).parent)
    for parent in touched:
        _fsync_directory(parent)
    os.unlink(journal)
    _fsync_directory(directory)


def _clean(directory: Path) -> None:
    """Roll an interrupted publication forward and remove stale staging files (the caller
    holds the lock)."""
    _roll_forward(directory)
    for entry in os.scandir(directory):
        if _stale(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)


def recover(directory: object) -> None:
    """Complete a publication that a killed run left in ``directory`` and remove staging files
    of dead runs, so that the directory holds one complete output set. Readers of output sets
    call it before reading; a missing directory has nothing to recover. Raises
    :class:`WriteFailure` when the directory cannot be locked or repaired."""
    target = _target(directory)
    failed = False
    try:
        if target.is_dir():
            with _locked(target):
                _clean(target)
    except (WriteFailure, ValueError, *PATH_ERRORS):
        failed = True
    if failed:
        raise WriteFailure()


def _write_journal(directory: Path, renames: list[tuple[str, str]], removals: list[str]) -> None:
    """Write the journal atomically and durably: after this returns, the set is committed."""
    plan = {"citelens_publish": 1, "rename": renames, "remove": removals}
    fd, tmp_name = tempfile.mkstemp(
        prefix=f"{_PREFIX}{os.getpid()}-", suffix=_SUFFIX, dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(json.dumps(plan, sort_keys=True).encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, directory / JOURNAL)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_directory(directory)


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
        self._removals: list[Path] = []
        self._cleaned: set[Path] = set()
        self._done = False

    def remove(self, path: object) -> None:
        """Remove ``path`` when the set is published (a file of the old set that the new set
        does not have, so that no old file outlives its set)."""
        self._removals.append(_target(path))

    def open(self, path: object, *, private: bool = False) -> BinaryIO:
        """A new temporary file for target ``path`` (parent directories are created);
        ``private``: owner read/write only (0600), for files marked PRIVATE."""
        if self._done:
            raise WriteFailure()
        failed = False
        handle: BinaryIO | None = None
        try:
            target = _target(path)
            missing = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
            target.parent.mkdir(parents=True, exist_ok=True)
            self._created.extend(d for d in missing if d not in self._created)
            if target.parent not in self._cleaned:  # what a killed earlier run left behind
                self._cleaned.add(target.parent)
                with _locked(target.parent):
                    _clean(target.parent)
            fd, tmp_name = tempfile.mkstemp(
                prefix=f"{_PREFIX}{os.getpid()}-", suffix=_SUFFIX, dir=target.parent
            )
            handle = os.fdopen(fd, "wb")
            self._staged.append((handle, tmp_name, target))  # from here on abort() removes it
            os.fchmod(fd, 0o600 if private else _mode())
        except (WriteFailure, json.JSONDecodeError, UnicodeDecodeError, *PATH_ERRORS):
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
        """Fsync every staged file, then publish the set (module docstring): a single file
        by one rename, two or more (or any removal) through the journal. Return the targets."""
        if self._done:
            raise WriteFailure()
        failed = False
        try:
            # a signal whose exception a finaliser dropped wins over the commit: the old
            # set stays (citelens._signals)
            raise_pending()
            for handle, _, _ in self._staged:
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()
        except WRITE_ERRORS:
            failed = True
        except BaseException:  # KeyboardInterrupt before the commit point: nothing published
            self.abort()
            raise
        if failed:
            self.abort()
            raise WriteFailure()
        self._publish()
        return [target for _, _, target in self._staged]

    def _publish(self) -> None:
        if len(self._staged) == 1 and not self._removals:
            _, tmp_name, target = self._staged[0]
            failed = False
            try:
                os.replace(tmp_name, target)
            except WRITE_ERRORS:
                failed = True
            except BaseException:
                self.abort()
                raise
            if failed:
                self.abort()
                raise WriteFailure()
            self._done = True
            return
        if not self._staged and not self._removals:
            self._done = True
            return
        first = self._staged[0][2] if self._staged else self._removals[0]
        # absolute: a later run in another working directory may roll the journal forward
        renames = [
            (os.path.abspath(tmp_name), os.path.abspath(target))
            for _, tmp_name, target in self._staged
        ]
        removals = [os.path.abspath(path) for path in self._removals]
        failed = False
        try:
            with _locked(first.parent):
                try:
                    _write_journal(first.parent, renames, removals)
                except BaseException:
                    self.abort()  # before the commit point: the old set stays
                    raise
                # committed: from here on only a roll-forward, never an abort
                self._done = True
                try:
                    _roll_forward(first.parent)
                except (KeyboardInterrupt, SystemExit):
                    _roll_forward(first.parent)  # an interrupt: finish the set, then leave
                    raise
        except (WriteFailure, ValueError, *WRITE_ERRORS):
            failed = True
        if failed:
            # a journal that reached the disk is rolled forward by the next run; one that
            # did not leaves the old set and removed staging files
            raise WriteFailure()

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


def write_many_atomic(
    files: Sequence[tuple[object, bytes]], *, private: bool = False
) -> list[Path]:
    """Write several files as one unit: every file is staged as a temporary file beside its
    target first, and only when all are staged are they renamed into place. On any failure
    the staged files are removed and no target is touched. ``private``: files are 0600."""
    with StagedFiles() as staged:
        for path, data in files:
            handle = staged.open(path, private=private)
            failed = False
            try:
                handle.write(data)
            except WRITE_ERRORS:
                failed = True
            if failed:
                raise WriteFailure()
        return staged.commit()


def write_bytes_atomic(path: object, data: bytes, *, private: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically and return the path (``private``: 0600)."""
    return write_many_atomic([(path, data)], private=private)[0]


def write_text_atomic(path: object, text: str, *, private: bool = False) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically (``private``: 0600)."""
    return write_bytes_atomic(path, text.encode("utf-8"), private=private)


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
