"""The public dataset, adapter, history, gate and run functions of :mod:`citelens.gold` with
their argument checks (issue 10, item 2); the value functions are in ``_public_values``.

Each one checks its arguments with :mod:`citelens.gold._guard` (an unusable argument raises
``GoldError("gold input is invalid")``), copies caller collections and mappings under a guard,
and runs the implementation inside :func:`citelens._fixed.attempt`, so that anything else that
escapes is an ``InternalError`` (a bug), never a foreign exception. The implementations in the
private modules stay unchecked: the scorers call them on data the harness has already read, and an
adapter's odd value there is a scorer matter (gold-harness.md §6.0), not an argument error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any, cast

import pyarrow as pa

from citelens._fixed import attempt
from citelens.errors import GoldError
from citelens.gold import (
    _adapters,
    _baseline,
    _dataset,
    _gate,
    _history,
    _run,
)
from citelens.gold import scorers as _scorers
from citelens.gold._cases import DatasetCheck, GoldDataset
from citelens.gold._guard import (
    as_flag,
    as_items,
    as_optional_path,
    as_optional_text,
    as_path,
    as_text,
    as_text_items,
    as_text_mapping,
    caller,
    invalid,
)

__all__ = [
    "baseline_file_name",
    "check_adapter",
    "check_dataset",
    "compute_gate",
    "dataset_digest",
    "evaluated_commit",
    "history_view_sql",
    "load_adapter",
    "load_dataset",
    "parse_tolerances",
    "read_history",
    "report",
    "run",
    "run_scorers",
]


# --- datasets, history, gate (§2, §9) -------------------------------------------------------


def check_dataset(root: str | os.PathLike[str] | None = None) -> DatasetCheck:
    """Load and validate a dataset directory, collecting every problem (§2.7); never raises.

    ``root`` defaults to the bundled sample dataset; a ``root`` that is not a usable path is a
    dataset without cases (``no_cases``, empty ``root``). An unexpected exception inside
    citelens raises :class:`~citelens.errors.InternalError`.
    """
    path: str | None = None
    usable = True
    try:
        path = as_optional_path(root)
    except GoldError:  # raised by the checks above, never by the caller: it carries nothing
        usable = False
    if not usable:
        return DatasetCheck("", (), None, no_cases=True)
    return _dataset.check_dataset(path)


def load_dataset(root: str | os.PathLike[str] | None = None) -> GoldDataset:
    """Load a dataset directory; raises :class:`GoldError` when it has no cases or is invalid
    (:class:`~citelens.errors.InternalError` for an unexpected exception inside citelens)."""
    check = check_dataset(root)
    if check.no_cases:
        raise GoldError("gold dataset has no cases", "input")
    if check.dataset is None:
        raise GoldError("gold dataset is invalid", "input")
    return check.dataset


def dataset_digest(files: list[tuple[str, bytes]]) -> str:
    """``sha256:`` digest over ``(relative path, raw bytes)`` pairs (§2.9)."""
    pairs: list[tuple[str, bytes]] = []
    for pair in as_items(files):
        items = as_items(pair)
        if len(items) != 2 or not isinstance(items[1], bytes | bytearray):
            raise invalid()
        rel = as_path(items[0])  # encodable as a file name, as the digest encodes it
        pairs.append((rel, bytes(items[1])))
    return attempt(lambda: _dataset.dataset_digest(pairs))


def baseline_file_name(adapter_name: str) -> str:
    """``baseline.<safe>.json`` for an adapter name (§9.8)."""
    name = as_text(adapter_name)
    return attempt(lambda: _baseline.baseline_file_name(name))


def read_history(results_dir: str | os.PathLike[str], adapter: str | None = None) -> pa.Table:
    """Every history row under ``<results>/history`` (optionally one adapter's), run order."""
    folder, name = as_path(results_dir), as_optional_text(adapter)
    return attempt(lambda: _history.read_history(folder, name))


def history_view_sql(results_dir: str | os.PathLike[str]) -> str | None:
    """``CREATE VIEW gold_history`` statement for ``citelens sql`` (§9.7); ``None`` if no file."""
    folder = as_path(results_dir)
    return attempt(lambda: _history.history_view_sql(folder))


def parse_tolerances(specs: Sequence[str]) -> _gate.Tolerances | str:
    """Parse ``--tolerance`` values; returns the offending spec (a ``str``) when one is invalid."""
    values = as_text_items(specs)
    return attempt(lambda: _gate.parse_tolerances(values))


def compute_gate(
    results: Sequence[Mapping[str, Any]],
    baseline: Mapping[str, Any] | None,
    baseline_name: str | None,
    tolerances: _gate.Tolerances,
    *,
    enforced: bool,
    dataset_digest: str,
    compare: bool = True,
) -> dict[str, Any]:
    """The scorecard's ``gate`` section from rounded scorecard entries and a baseline document.

    ``results`` is a collection of mappings; the fields the gate reads are copied (§9.8), and a
    field of the wrong type counts as absent.
    """
    entries = [_gate.gate_entry(entry) for entry in as_items(results)]
    if any(entry is None for entry in entries):
        raise invalid()
    if baseline is not None and not isinstance(baseline, Mapping):
        raise invalid()
    base = None if baseline is None else _gate.gate_baseline(baseline)
    name = as_optional_text(baseline_name)
    checked = _gate.checked_tolerances(tolerances)
    flags = as_flag(enforced), as_flag(compare)
    digest = as_text(dataset_digest)
    plain = [entry for entry in entries if entry is not None]
    return attempt(
        lambda: _gate.compute_gate(
            plain,
            base,
            name,
            checked,
            enforced=flags[0],
            dataset_digest=digest,
            compare=flags[1],
        )
    )


def evaluated_commit(repo: str | os.PathLike[str] | None, env: Mapping[str, str]) -> dict[str, Any]:
    """``{sha, dirty, source}`` of the evaluated repository (§9.6)."""
    where, environ = as_optional_path(repo), as_text_mapping(env)
    return attempt(lambda: _run.evaluated_commit(where, environ))


# --- adapters and scorers (§6, §8) ---------------------------------------------------------


def check_adapter(spec: str) -> _adapters.AdapterCheck:
    """Resolve, import and validate an adapter spec, collecting every problem (§8.1, §8.3).

    A failure to import the adapter (its own code) is reported in ``load_error``; a ``spec``
    that is not text raises ``GoldError`` (``gold input is invalid``); an unexpected exception
    inside citelens raises :class:`~citelens.errors.InternalError`.
    """
    return _adapters.check_adapter(as_text(spec))


def load_adapter(spec: str) -> _adapters.LoadedAdapter:
    """Load and validate an adapter; raises :class:`GoldError` when it cannot be used."""
    return _adapters.load_adapter(as_text(spec))


def run_scorers(
    dataset: GoldDataset, adapter: _adapters.LoadedAdapter, online: bool, repeats: int = 1
) -> list[_scorers.ScorerResult]:
    """Run the seven scorers in order; returns one entry per scorer.

    ``repeats`` is an integer from 1 to 100 (as ``--repeats``). Adapter errors are scorer
    failures (gold-harness.md §6.0); an unexpected exception inside citelens raises
    :class:`~citelens.errors.InternalError`.
    """
    if not isinstance(dataset, GoldDataset) or not isinstance(adapter, _adapters.LoadedAdapter):
        raise invalid()
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= 100:
        raise invalid()
    return _scorers.run_scorers(dataset, adapter, as_flag(online), int.__index__(repeats))


# --- the run and the report (§9) ------------------------------------------------------------


class _Stream:
    """The caller's output stream; a ``write`` or ``flush`` that raises is an unwritable output."""

    def __init__(self, stream: object) -> None:
        write = caller(lambda: getattr(stream, "write", None))
        if not callable(write):
            raise invalid()
        self._write = write
        self._stream = stream

    def write(self, text: str) -> int:
        failed = False
        try:
            self._write(text)
        except Exception:  # the caller's stream: its failure is an output failure
            failed = True
        if failed:
            raise GoldError("gold results could not be written", "io")
        return len(text)

    def flush(self) -> None:
        flush = caller(lambda: getattr(self._stream, "flush", None))
        if not callable(flush):
            return
        failed = False
        try:
            flush()
        except Exception:  # the caller's stream, as in write
            failed = True
        if failed:
            raise GoldError("gold results could not be written", "io")


def _stream(value: object) -> IO[str] | None:
    return None if value is None else cast(IO[str], _Stream(value))


def run(
    *,
    online: bool = False,
    adapter: str | None = None,
    datasets: str | os.PathLike[str] | None = None,
    results: str | os.PathLike[str] | None = None,
    repeats: int | str | None = None,
    model: str | None = None,
    baseline: bool = False,
    ci: bool = False,
    tolerance: Sequence[str] = (),
    format: str = "console",
    out: str | os.PathLike[str] | None = None,
    repo: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> _run.GoldRun:
    """Run the gold harness (the library form of ``citelens gold run``).

    Returns a :class:`GoldRun` whose ``exit_code`` is 0 or 1 (1 only with ``ci=True`` and a
    failing gate). ``env`` defaults to ``os.environ``; console output goes to ``stdout``
    (default ``sys.stdout``).

    Raises:
        GoldError: a usage or input problem (gold-harness.md §9.12), an argument of the wrong
            type (``gold input is invalid``).
        InternalError: an unexpected exception inside citelens (a bug, never bad input);
            adapter errors are scorer failures, not exceptions (§6.0).
    """
    if not (repeats is None or isinstance(repeats, str)) and (
        isinstance(repeats, bool)
        or not isinstance(repeats, int)
        or not -(2**63) <= repeats < 2**63  # an integer outside int64 is an input error
    ):
        raise invalid()
    return _run.run(
        online=as_flag(online),
        adapter=as_optional_text(adapter),
        datasets=as_optional_path(datasets),
        results=as_optional_path(results),
        repeats=repeats if repeats is None or isinstance(repeats, str) else int.__index__(repeats),
        model=None if model is None else as_path(model),  # it is set as an environment variable
        baseline=as_flag(baseline),
        ci=as_flag(ci),
        tolerance=tuple(as_text_items(tolerance)),
        format=as_text(format),
        out=as_optional_path(out),
        repo=as_optional_path(repo),
        env=None if env is None else as_text_mapping(env),
        stdout=_stream(stdout) or _stream(sys.stdout),
        stderr=_stream(stderr) or _stream(sys.stderr),
    )


def report(
    scorecard: str | os.PathLike[str] | None = None,
    *,
    results: str | os.PathLike[str] | None = None,
    format: str = "html",
    out: str | os.PathLike[str] | None = None,
    stdout: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Render a saved scorecard (the library form of ``citelens gold report``); returns the exit
    code. Raises :class:`GoldError` (``gold scorecard not found``, an invalid format, an argument
    of the wrong type) or :class:`~citelens.errors.InternalError` for a bug."""
    return _run.report(
        as_optional_path(scorecard),
        results=as_optional_path(results),
        format=as_text(format),
        out=as_optional_path(out),
        stdout=_stream(stdout) or _stream(sys.stdout),
        env=None if env is None else as_text_mapping(env),
    )
