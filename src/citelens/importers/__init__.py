"""Real citation data in: provider and benchmark outputs converted to corpus tables (issue 12).

:func:`import_exchanges` reads one JSON Lines file of exchanges (one request/response or
benchmark item per line) in one of the :data:`FORMATS` and returns the four tables of
:class:`ImportTables` (``claims``, ``evidence``, ``citations``, ``sources``, keyed by
``document_ref``); :func:`write_corpus` writes them as a corpus directory that
``citelens corpus support DIR`` and ``citelens provenance DIR`` read as they are. The
``sources`` table holds the cited documents' text: it is PRIVATE (written 0600).

Every failure is a :class:`~citelens.errors.CitationImportError` with a fixed message that
names the format and the field, the line number in its ``detail``; anything unexpected is an
:class:`~citelens.errors.InternalError`. Importing this package loads no format module: each
is imported when it is first used.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from citelens._fixed import attempt
from citelens.errors import CitationImportError
from citelens.importers._decode import LINE, RAW
from citelens.importers._lines import (
    LINES_SCHEMA,
    frame_batches,
    frame_lines,
    line_batches,
    lines_of,
)
from citelens.importers._tables import ImportTables
from citelens.importers._write import write_batches as _write_batches
from citelens.importers._write import write_corpus as _write_corpus

__all__ = [
    "FORMATS",
    "CitationImportError",
    "ImportSummary",
    "ImportTables",
    "import_corpus",
    "import_exchanges",
    "write_corpus",
]

Converter = Callable[[pl.DataFrame], ImportTables]

# format name -> the private module that converts it (``FORMAT`` and ``convert(raw)``)
_MODULES: dict[str, str] = {
    "anthropic": "citelens.importers._anthropic",
    "openai": "citelens.importers._openai",
    "gemini": "citelens.importers._gemini",
    "cohere": "citelens.importers._cohere",
    "bedrock": "citelens.importers._bedrock",
    "alce": "citelens.importers._alce",
    "longbench-cite": "citelens.importers._longbench_cite",
}

_UNSUPPORTED = "import format is not supported"


class _Formats(Mapping[str, Converter]):
    """The formats by name, each mapped to its converter (``convert(raw) -> ImportTables``).
    A format's module is imported on first use; a name whose module is not present is not
    listed."""

    def __getitem__(self, name: str) -> Converter:
        module = _MODULES[name]  # KeyError for an unknown name, as a mapping does
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as missing:
            if missing.name != module:  # the module is there but imports something absent
                raise
            loaded = None
        if loaded is None:
            raise KeyError(name)
        convert: Converter = loaded.convert
        return convert

    def __iter__(self) -> Iterator[str]:
        return (name for name in _MODULES if _present(_MODULES[name]))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in _MODULES and _present(_MODULES[name])

    def __repr__(self) -> str:
        return f"FORMATS({', '.join(self)})"


def _present(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


FORMATS: Mapping[str, Converter] = _Formats()
"""The import formats by name (``anthropic``, ``openai``, ``gemini``, ``cohere``, ``bedrock``,
``alce``, ``longbench-cite``: those whose module is present), each mapped to its converter."""


def _converter(fmt: object) -> Converter:
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise CitationImportError(_UNSUPPORTED, "policy")
    return FORMATS[fmt]


def _line_batches(fmt: str, source: object) -> Iterator[pl.DataFrame]:
    """The lines of ``source`` in batches (:func:`~citelens.importers._lines.line_batches`)."""
    if isinstance(source, str | os.PathLike):
        return line_batches(source, fmt)
    if isinstance(source, pl.DataFrame):
        return frame_batches(frame_lines(source, fmt))
    if isinstance(source, Sequence) and all(isinstance(line, str) for line in source):
        frame = pl.DataFrame(
            {LINE: list(range(1, len(source) + 1)), RAW: list(source)}, schema=LINES_SCHEMA
        )
        return frame_batches(frame_lines(frame, fmt))
    raise CitationImportError(f"{fmt} input must be a path, a frame or a list of lines", "input")


def import_exchanges(fmt: str, source: object) -> ImportTables:
    """The tables of the exchanges in ``source``, read as format ``fmt`` (a name of
    :data:`FORMATS`). ``source`` is a path to a JSON Lines file (``.jsonl``/``.ndjson``,
    optionally ``.gz``/``.zst``), a Polars frame of ``_line`` (Int64, 1-based) and ``raw``
    (String, one JSON object per row), or a list of JSON strings (line ``i + 1`` each).
    Raises :class:`~citelens.errors.CitationImportError`."""

    return attempt(lambda: ImportTables.concat(list(_converted(fmt, source, _Counted()))))


@dataclass
class _Counted:
    """What an import has converted so far (counts only)."""

    exchanges: int = 0
    rows: dict[str, int] = field(default_factory=dict)


def _converted(fmt: str, source: object, counted: _Counted) -> Iterator[ImportTables]:
    """The tables of ``source``, batch by batch, converted as it is read."""
    convert = _converter(fmt)
    batches = _line_batches(fmt, source)
    malformed: CitationImportError | None = None
    for batch in batches:
        try:
            tables = convert(lines_of(batch, fmt))
        except CitationImportError as error:
            malformed = error
            break
        counted.exchanges += batch.height
        for role, frame in tables.tables().items():
            counted.rows[role] = counted.rows.get(role, 0) + frame.height
        yield tables
    if malformed is not None:
        # the reader's refusals come first (a bound, an unreadable line further on): the
        # rest of the file is read for them, then the malformed line is named
        for _ in batches:
            pass
        raise malformed


@dataclass(frozen=True)
class ImportSummary:
    """What :func:`import_corpus` wrote: counts and paths only."""

    exchanges: int
    """Exchanges (non-blank lines) read."""
    rows: Mapping[str, int]
    """Rows written per table (``claims``, ``evidence``, ``citations``, ``sources``)."""
    paths: tuple[Path, ...]
    """The four files written."""


def import_corpus(
    fmt: str, source: object, out_dir: object, *, mkdir: bool = False
) -> ImportSummary:
    """:func:`import_exchanges` and :func:`write_corpus` in one pass that streams: each batch
    of about 64 MiB of lines is converted and written (one Parquet row group per batch and
    file) while the file is read, so memory follows the batch and the tables, never the
    file's whole text. The directory is published as one set, or left as it was when the
    input is refused. Raises :class:`~citelens.errors.CitationImportError`."""

    def run() -> ImportSummary:
        counted = _Counted()
        paths = _write_batches(_converted(fmt, source, counted), out_dir, mkdir=mkdir)
        rows = {role: counted.rows.get(role, 0) for role in ImportTables.empty().tables()}
        return ImportSummary(counted.exchanges, rows, tuple(paths))

    return attempt(run)


def write_corpus(tables: ImportTables, out_dir: object, *, mkdir: bool = False) -> list[Path]:
    """Write ``tables`` into ``out_dir`` as one atomic set: ``claims.parquet``,
    ``evidence.parquet``, ``citations.parquet`` and ``sources.parquet`` (PRIVATE: mode 0600,
    Parquet metadata ``citelens.privacy = PRIVATE``); byte-identical for equal tables. Returns
    the paths written. Raises :class:`~citelens.errors.CitationImportError` (category ``io``)."""
    return attempt(lambda: _write_corpus(tables, out_dir, mkdir=mkdir))
