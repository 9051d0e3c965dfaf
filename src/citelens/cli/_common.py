"""Helpers shared by the CLI subcommands, light enough for parser modules: importing this
module loads no engine (neither Polars, PyArrow, NumPy nor DuckDB)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import shutil
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import NoReturn, TypeVar

from citelens._signals import EXIT_TERMINATED, RECEIVED, Terminated, interrupt_for, raise_pending
from citelens.errors import CitelensError, InternalError
from citelens.limits import Limits

__all__ = [
    "COMMAND_HELP",
    "EXIT_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "SIGNALLED",
    "STDIN_FORMATS",
    "STDIO",
    "Terminated",
    "add_io_flags",
    "check_output_dirs",
    "cli_io",
    "fail",
    "limits_from_args",
    "on_signal",
    "raise_pending",
    "sniff_format",
    "stdin_inputs",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it

SIGNALLED = RECEIVED
"""The signals (SIGINT, SIGTERM) this run received, set by :func:`on_signal`."""


def on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`, after noting the
    signal: a library that turns the exception into its own error (DuckDB, Arrow) cannot
    make the run report an input error instead (:func:`fail` re-raises)."""
    SIGNALLED.append(signum)
    raise interrupt_for(signum)


# The one-line help of every subcommand, in the order ``citelens --help`` lists them. The
# top-level parser shows these without importing any command module; each module's
# ``register`` passes its own entry as ``help=`` so the text exists once.
COMMAND_HELP: dict[str, str] = {
    "support": "citation support metrics: span checks, reason codes, precision and recall",
    "review": "blinded summary review: render packets, export, sealed import, gate",
    "gold": "gold-set evaluation harness: adapters, scorers, scorecards, regression gate",
    "minimality": "check that each citation is no broader than its claim's required span",
    "summary-citations": "check that every summary claim cites existing evidence exactly once",
    "corpus": "evaluate many documents (keyed by document_ref) in one pass",
    "sql": "SQL over corpus outputs: documents, reasons, edges, scorecards views",
    "report": "render a self-contained HTML report (charts, no script) of a citelens output",
    "import": "import provider or benchmark exchanges (JSON Lines) into a corpus directory",
    "provenance": "verbatim provenance: is each cited quote really in its source text?",
    "mcp": "MCP server (stdio): the deterministic checks as tools for agents",
}


def limits_from_args(args: argparse.Namespace) -> Limits:
    """A :class:`Limits` from the ``--max-claims/--max-evidence/--max-citations/
    --max-adjudications`` options a subcommand defines (absent ones keep the default).
    Raises ``LimitsError`` (exit 2 through :func:`fail`) for a bound below 1."""
    return Limits(
        claims=getattr(args, "max_claims", None),
        evidence=getattr(args, "max_evidence", None),
        citations=getattr(args, "max_citations", None),
        adjudications=getattr(args, "max_adjudications", None),
    )


def fail(error: CitelensError) -> int:
    """Print a fixed-category error line on stderr; return exit code 2 (3 for an internal
    error: a bug or a broken environment, never bad input). After a signal the error is what
    a library made of the interrupt: the interrupt is raised again instead.

    An error with a ``detail`` (why a reader refused a file: ``claims file not found``) shows
    the detail in place of the contract's message: both are fixed text, the detail says more."""
    raise_pending()
    detail = getattr(error, "detail", None)
    message = detail if isinstance(detail, str) and detail else error.args[0]
    sys.stderr.write(f"citelens: error [{error.category}]: {message}\n")
    return EXIT_INTERNAL if isinstance(error, InternalError) else EXIT_INPUT


# -- stdin, stdout and output directories (issue 11, item 2) -----------------------------------

STDIO = "-"
"""The path that names stdin (one input) or stdout (one JSON or Markdown output)."""

STDIN_FORMATS: tuple[str, ...] = ("parquet", "arrow", "jsonl", "json", "csv", "tsv")
"""The values of ``--stdin-format``: the format of the input read from stdin."""

_MAGIC = {b"PAR1": ".parquet", b"ARROW1": ".arrow", b"\xff\xff\xff\xff": ".arrow"}
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_HEAD_BYTES = 64 * 1024  # what sniffing looks at (decompressed, at most)


def add_io_flags(parser: argparse.ArgumentParser, *, stdin: bool = True) -> None:
    """Add ``--mkdir`` (create missing output directories) and, with ``stdin``,
    ``--stdin-format`` (the format of the one input named ``-``)."""
    parser.add_argument(
        "--mkdir",
        action="store_true",
        help="create missing parent directories of the outputs (else a missing one is an error)",
    )
    if stdin:
        parser.add_argument(
            "--stdin-format",
            choices=STDIN_FORMATS,
            metavar="FMT",
            help="format of the input read from stdin (an input named -): "
            f"{', '.join(STDIN_FORMATS)}; default: from its content (Parquet and Arrow by "
            "their magic bytes, gzip/zstd decompressed, then JSON for [, JSON Lines for {, "
            "else CSV, or TSV when the first line has a tab and no comma)",
        )


def check_output_dirs(paths: Iterable[object], *, mkdir: bool) -> None:
    """Refuse an output whose parent directory does not exist (``output directory does not
    exist``, category ``io``, exit 2) unless ``mkdir``: then the atomic writer creates it. A
    directory output (``--out DIR``, ``--tables DIR``) is named by its own path: its parent
    must exist. ``-`` (stdout) and unset outputs are skipped."""
    if mkdir:
        return
    for path in paths:
        if path is None or path == "" or path == STDIO:
            continue
        parent = Path(os.fspath(path)).parent  # type: ignore[call-overload]
        if parent.exists():
            continue
        # the nearest ancestor that exists: a file there makes the path unwritable, which is
        # the writer's own io error; a directory means directories are missing below it
        nearest = next((p for p in parent.parents if p.exists()), None)
        if nearest is None or nearest.is_dir():
            raise CitelensError("output directory does not exist", "io")


def _decompressed_head(head: bytes) -> bytes:
    """The first bytes that ``head`` (the start of a gzip or zstd stream) decompresses to,
    at most :data:`_HEAD_BYTES`; empty when they cannot be decoded (the reader decides)."""
    if head.startswith(_GZIP_MAGIC):
        try:
            return zlib.decompressobj(wbits=31).decompress(head, _HEAD_BYTES)
        except zlib.error:  # corrupt: the reader refuses it with its own detail
            return b""
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:  # without the package the reader refuses the file (zstd_missing)
        return b""
    try:
        return bytes(zstandard.ZstdDecompressor().stream_reader(head).read(_HEAD_BYTES))
    except zstandard.ZstdError:  # corrupt: the reader refuses it with its own detail
        return b""


def sniff_format(head: bytes) -> str:
    """The file suffix for stdin content starting with ``head`` (see ``--stdin-format``):
    ``.parquet``/``.arrow`` by magic bytes; for gzip or zstd, the suffix of the
    decompressed content plus ``.gz``/``.zst``; text: ``.json`` when it starts with ``[``,
    ``.jsonl`` with ``{`` (a JSON document that is one object needs ``--stdin-format
    json``), ``.tsv`` when the first line has a tab and no comma, else ``.csv``."""
    for magic, suffix in _MAGIC.items():
        if head.startswith(magic):
            return suffix
    for magic, ending in ((_GZIP_MAGIC, ".gz"), (_ZSTD_MAGIC, ".zst")):
        if head.startswith(magic):
            inner = sniff_format(_decompressed_head(head))
            return (inner if inner in (".json", ".jsonl", ".csv", ".tsv") else ".jsonl") + ending
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    if text.startswith(b"["):
        return ".json"
    if text.startswith(b"{"):
        return ".jsonl"
    first = text.split(b"\n", 1)[0]
    return ".tsv" if b"\t" in first and b"," not in first else ".csv"


def _suffix_for(fmt: str | None, head: bytes) -> str:
    if fmt is None:
        return sniff_format(head)
    suffix = ".arrow" if fmt == "arrow" else f".{fmt}"
    for magic, ending in ((_GZIP_MAGIC, ".gz"), (_ZSTD_MAGIC, ".zst")):
        if head.startswith(magic) and fmt not in ("parquet", "arrow"):
            return suffix + ending
    return suffix


@contextlib.contextmanager
def stdin_inputs(args: argparse.Namespace, names: Sequence[str]) -> Iterator[None]:
    """While active, the one input of ``names`` (attributes of ``args``) given as ``-`` is a
    private temporary copy of stdin (a directory only this user can read, removed on exit),
    named so that the readers know its format (``--stdin-format``, else
    :func:`sniff_format`). Two inputs named ``-`` are a usage error (category ``policy``)."""
    named = [name for name in names if getattr(args, name, None) == STDIO]
    if len(named) > 1:
        raise CitelensError("only one input may be read from stdin", "policy")
    if not named:
        yield
        return
    directory = tempfile.mkdtemp(prefix="citelens-stdin-")  # 0700: private to this user
    try:
        failed = False
        try:
            source = sys.stdin.buffer
            head = source.read(_HEAD_BYTES)
            suffix = _suffix_for(getattr(args, "stdin_format", None), head)
            target = Path(directory) / f"stdin{suffix}"
            with target.open("wb") as staged:
                staged.write(head)
                shutil.copyfileobj(source, staged)  # streamed: memory stays one buffer
        except OSError:  # stdin closed or unreadable, or the temporary disk is full
            failed = True
        if failed:
            raise CitelensError("stdin could not be read", "input")
        setattr(args, named[0], str(target))
        yield
    finally:
        shutil.rmtree(directory, ignore_errors=True)


_Run = TypeVar("_Run", bound="Callable[[argparse.Namespace], int]")


def cli_io(
    inputs: Sequence[str],
    *,
    text_outputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
) -> Callable[[_Run], _Run]:
    """Wrap a command's ``run(args)`` with the shared input/output rules (issue 11, item 2).

    * ``inputs`` (attribute names): the one named ``-`` is read from stdin
      (:func:`stdin_inputs`).
    * ``text_outputs`` (JSON, Markdown) may be ``-``: the output is written to a private
      temporary file and copied to stdout once the run has written its outputs; meanwhile
      whatever else the command prints on stdout goes to stderr, so stdout holds the report
      alone. Binary ``outputs`` named ``-``, and two outputs on stdout, are usage errors.
    * every output's parent directory must exist unless ``--mkdir``
      (:func:`check_output_dirs`).
    """

    def wrap(run: _Run) -> _Run:
        def wrapped(args: argparse.Namespace) -> int:
            try:
                with stdin_inputs(args, inputs), _stdout_outputs(args, text_outputs) as shown:
                    for name in outputs:
                        if getattr(args, name, None) == STDIO:
                            raise CitelensError(
                                "only JSON and Markdown outputs may be written to stdout",
                                "policy",
                            )
                    named = [getattr(args, name, None) for name in (*text_outputs, *outputs)]
                    check_output_dirs(named, mkdir=bool(getattr(args, "mkdir", False)))
                    if shown is None:
                        return run(args)
                    with contextlib.redirect_stdout(sys.stderr):
                        code = run(args)
                    if shown.is_file():
                        sys.stdout.flush()
                        with shown.open("rb") as staged:
                            shutil.copyfileobj(staged, sys.stdout.buffer)
                        sys.stdout.buffer.flush()
                    return code
            except CitelensError as error:
                return fail(error)

        wrapped.__doc__ = run.__doc__
        wrapped.__name__ = run.__name__
        return wrapped  # type: ignore[return-value]

    return wrap


@contextlib.contextmanager
def _stdout_outputs(args: argparse.Namespace, names: Sequence[str]) -> Iterator[Path | None]:
    """The private temporary file standing in for the one output of ``names`` named ``-``
    (``None`` when none is); two outputs named ``-`` are a usage error."""
    named = [name for name in names if getattr(args, name, None) == STDIO]
    if len(named) > 1:
        raise CitelensError("only one output may be written to stdout", "policy")
    if not named:
        yield None
        return
    directory = tempfile.mkdtemp(prefix="citelens-stdout-")  # 0700: private to this user
    try:
        target = Path(directory) / "report"
        setattr(args, named[0], str(target))
        yield target
    finally:
        shutil.rmtree(directory, ignore_errors=True)
