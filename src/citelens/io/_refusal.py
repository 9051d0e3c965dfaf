"""Why a file was refused, precisely: the fixed ``detail`` of an error (issue 11, item 2).

Every capability keeps its contract's message for an unreadable input (the conformance vectors
fix it: ``claims file could not be read``, ``claim collection must be an iterable of records``).
The readers add *why*, as a :class:`Refused` (a :class:`ReadFailure` with a finer ``reason``
and, for JSON Lines, the 1-based line number), and :func:`describe` turns it into a fixed
sentence such as ``claims file not found`` or ``claims JSONL line 17 is not valid JSON``.
Positions may appear in it; values of the input and paths never do. Capabilities set it as
the ``detail`` of their error and the CLI prints it.
"""

from __future__ import annotations

import stat
from pathlib import Path

from citelens.io._values import ReadFailure

__all__ = ["REASONS", "Refused", "describe", "opened"]

# reason -> (the coarse ReadFailure cause, the sentence after the label). ``{line}`` is the
# 1-based line number (JSON Lines only); the bounds are spelled out as fixed text.
REASONS: dict[str, tuple[str, str]] = {
    "missing": ("unreadable", "file not found"),
    "directory": ("unreadable", "path is a directory"),
    "special": ("unreadable", "path is not a regular file"),
    "denied": ("unreadable", "file could not be opened"),
    "type": ("unreadable", "file type is not supported"),
    "parquet": ("unreadable", "file is not valid Parquet"),
    "arrow": ("unreadable", "file is not valid Arrow IPC"),
    "json": ("unreadable", "file is not valid JSON"),
    "jsonl": ("unreadable", "JSONL line {line} is not valid JSON"),
    "jsonl_table": ("unreadable", "JSONL lines do not form one table"),
    "csv": ("unreadable", "file is not valid CSV"),
    "gzip": ("unreadable", "file is not valid gzip"),
    "zstd": ("unreadable", "file is not valid zstd"),
    "zstd_missing": ("unreadable", "file is zstd-compressed: install the zstandard package"),
    "encoding": ("encoding", "file is not valid UTF-8"),
    "depth": ("depth", "file nests deeper than 32 levels"),
    "depth_line": ("depth", "JSONL line {line} nests deeper than 32 levels"),
    "size": ("size", "file is larger than 1 GiB"),
    "decompressed": ("size", "file decompresses to more than 1 GiB"),
    "line_size": ("size", "file has a line longer than 64 MiB"),
    "columns": ("columns", "file repeats a column name"),
}

# The sentence for a plain ReadFailure (a reader that gave no finer reason), by cause.
_BY_CAUSE: dict[str, str] = {
    "unreadable": "file could not be read",
    "encoding": REASONS["encoding"][1],
    "depth": REASONS["depth"][1],
    "size": "file exceeds a size bound",
    "columns": REASONS["columns"][1],
}


class Refused(ReadFailure, ValueError):
    """A :class:`ReadFailure` with a finer ``reason`` (a key of :data:`REASONS`) and, where
    one applies, the 1-based ``line``. It is also a ``ValueError``, so a caller that catches a
    parser's refusal of malformed text catches this one too. No value of the input is kept."""

    reason: str
    line: int | None

    def __init__(self, reason: str, line: int | None = None) -> None:
        if reason not in REASONS:
            reason = "json" if line is None else "jsonl"
        super().__init__(REASONS[reason][0])
        self.reason = reason
        self.line = line

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.line))


def describe(failure: ReadFailure, label: str) -> str:
    """The fixed sentence for ``failure`` about the input ``label`` (``claims``, ``evidence``,
    …): ``claims file not found``. ``label`` must be fixed text, never a value or a path."""
    if isinstance(failure, Refused):
        text = REASONS[failure.reason][1]
        line = failure.line if failure.line is not None else 0
        return f"{label} {text.format(line=line)}"
    return f"{label} {_BY_CAUSE.get(failure.cause, _BY_CAUSE['unreadable'])}"


def opened(path: Path) -> None:
    """Check that ``path`` is a regular file this process may read, else raise
    :class:`Refused` (``missing``, ``directory``, ``special`` or ``denied``). The kind is
    looked up before the file is opened: opening a FIFO would block."""
    reason: str | None = None
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            reason = "directory"
        elif not stat.S_ISREG(mode):
            reason = "special"  # a FIFO, a device, a socket: never read as a data file
        else:
            with path.open("rb"):
                pass
    except (FileNotFoundError, NotADirectoryError):  # no such file (or a parent is a file)
        reason = "missing"
    except (OSError, ValueError):  # permissions, a NUL byte in the path, a loop of links
        reason = "denied"
    if reason is not None:
        raise Refused(reason)
