"""Loading, validating and calling adapters (gold-harness.md §8.1–§8.3)."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import itertools
import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citelens._fixed import attempt
from citelens.errors import GoldError
from citelens.gold.adapters import lexical
from citelens.gold.adapters._http import HttpAdapter
from citelens.gold.adapters._openai import OpenAIAdapter

__all__ = [
    "CAPABILITIES",
    "AdapterCall",
    "AdapterCheck",
    "LoadedAdapter",
    "check_adapter",
    "error_text",
    "load_adapter",
]

CAPABILITIES: tuple[tuple[str, str], ...] = (
    ("claims", "split_claims"),
    ("verdicts", "analyze_batch"),
    ("grounding", "answer"),
    ("redaction", "redact"),
    ("simplification", "simplify"),
    ("retrieval", "fetch_record"),
)
"""(capability, export) pairs in capability order."""

_REQUIRED = ("online_available", "online_config_hint")
_OPTIONAL = ("run_model", "reset_timing", "call_latencies", "reset_tokens", "token_totals")
_BUNDLED = ("lexical", "http", "openai")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_MISSING = object()
# the line lists every capability from CAPABILITIES, so a new one can never be left out of it
_NO_CAPABILITY = (
    "no capability implemented — provide "
    + ", ".join(f"{export}() ({cap})" for cap, export in CAPABILITIES[:-1])
    + f" or {CAPABILITIES[-1][1]}() ({CAPABILITIES[-1][0]})"
)
_COUNTER = itertools.count(1)


def error_text(exc: BaseException) -> str:
    """``<ExceptionType>: <message>`` for an adapter error."""
    return f"{type(exc).__name__}: {exc}"


def _attr(obj: object, name: str) -> Any:
    failed = False
    value: Any = _MISSING
    try:
        value = getattr(obj, name, _MISSING)
    except Exception:  # the adapter's attribute lookup raised: the export is missing (§8.3)
        failed = True
    return _MISSING if failed else value


@dataclass
class AdapterCall:
    """Outcome of one adapter function call."""

    ok: bool
    value: Any = None
    error: str | None = None
    elapsed_ms: float = 0.0


@dataclass
class LoadedAdapter:
    """A validated adapter: its object, display name and capabilities.

    Calls are made one at a time; coroutine results are awaited on one event loop owned by the
    adapter for the duration of the run.
    """

    obj: Any
    spec: str
    name: str
    capabilities: tuple[str, ...]
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return f"LoadedAdapter(name={self.name!r}, capabilities={self.capabilities!r})"

    def has(self, export: str) -> bool:
        """True when ``export`` is a callable attribute of the adapter."""
        return callable(_attr(self.obj, export))

    def _resolve(self, value: Any) -> Any:
        if inspect.isawaitable(value):
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            awaitable: Any = value
            if not asyncio.iscoroutine(awaitable):
                awaitable = _wrap(awaitable)
            return self._loop.run_until_complete(awaitable)
        return value

    def call(self, export: str, *args: Any) -> AdapterCall:
        """Call ``export(*args)``, awaiting it when needed; never raises for adapter errors."""
        func = _attr(self.obj, export)
        start = time.perf_counter()
        value: Any = None
        error: str | None = None
        try:
            if not callable(func):
                raise AttributeError(f"adapter has no {export}()")
            value = self._resolve(func(*args))
        except Exception as exc:  # adapter errors never escape (§6.0)
            error = error_text(exc)
        elapsed = (time.perf_counter() - start) * 1000.0
        if error is not None:
            return AdapterCall(False, None, error, elapsed)
        return AdapterCall(True, value, None, elapsed)

    def hook(self, export: str, *args: Any) -> AdapterCall | None:
        """Call an optional hook when defined; ``None`` when absent."""
        if not self.has(export):
            return None
        return self.call(export, *args)

    def close(self) -> None:
        """Close the event loop if one was created."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None


async def _wrap(awaitable: Any) -> Any:
    return await awaitable


@dataclass(frozen=True)
class AdapterCheck:
    """Structured result of loading and validating an adapter spec (never raises)."""

    spec: str
    adapter: LoadedAdapter | None
    load_error: str | None = None
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the adapter loaded and validated."""
        return self.adapter is not None


def _import_file(spec: str) -> Any:
    path = Path(spec)
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {spec}")
    module_name = f"citelens_gold_adapter_{next(_COUNTER)}_{os.getpid()}"
    mod_spec = importlib.util.spec_from_file_location(module_name, path)
    if mod_spec is None or mod_spec.loader is None:
        raise ImportError(f"cannot import {spec}")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[module_name] = module
    try:
        mod_spec.loader.exec_module(module)
    finally:
        sys.modules.pop(module_name, None)
    return module


def _bundled(name: str) -> Any:
    """A bundled adapter: the ``lexical`` module, or a fresh HTTP or OpenAI adapter object."""
    if name == "lexical":
        return lexical
    if name == "http":
        return HttpAdapter()
    return OpenAIAdapter()


def _load_object(spec: str) -> tuple[Any, str]:
    if spec in _BUNDLED:
        return _bundled(spec), spec
    if spec.endswith(".py") or "/" in spec or os.sep in spec:
        return _import_file(spec), Path(spec).stem
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        if not _DOTTED.fullmatch(module_name) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", attr):
            raise ValueError("expected module:attribute")
        module = importlib.import_module(module_name)
        obj = getattr(module, attr)
        if inspect.isclass(obj):
            obj = obj()
        return obj, attr
    if _DOTTED.fullmatch(spec):
        return importlib.import_module(spec), spec.rsplit(".", 1)[-1]
    raise ValueError("not a bundled adapter name, a .py file, module:attribute or a module name")


def _problems(obj: Any) -> list[str]:
    config_problems = _attr(obj, "adapter_config_problems")
    if isinstance(config_problems, list | tuple) and config_problems:
        return [str(p) for p in config_problems]
    problems: list[str] = []
    for name in _REQUIRED:
        if _attr(obj, name) is _MISSING:
            problems.append(f"missing required export: {name}()")
    for name in _REQUIRED:
        value = _attr(obj, name)
        if value is not _MISSING and not callable(value):
            problems.append(f"export {name} is not callable")
    if not any(callable(_attr(obj, export)) for _, export in CAPABILITIES):
        problems.append(_NO_CAPABILITY)
    for _, export in CAPABILITIES:
        value = _attr(obj, export)
        if value is not _MISSING and not callable(value):
            problems.append(f"export {export} is not callable")
    for name in _OPTIONAL:
        value = _attr(obj, name)
        if value is not _MISSING and value is not None and not callable(value):
            problems.append(f"optional export {name} is not callable")
    meta = _attr(obj, "meta")
    if meta is not _MISSING and meta is not None:
        bad = not isinstance(meta, Mapping)
        if not bad and "name" in meta:
            bad = not (isinstance(meta["name"], str) and meta["name"] != "")
        if bad:
            problems.append('meta must be a mapping with a non-empty string "name"')
    return problems


def check_adapter(spec: str) -> AdapterCheck:
    """Resolve, import and validate an adapter spec, collecting every problem (§8.1, §8.3).

    A failure to import the adapter (its own code) is reported in ``load_error``; an unexpected
    exception inside citelens raises :class:`~citelens.errors.InternalError`.
    """
    return attempt(lambda: _check_adapter(spec))


def _check_adapter(spec: str) -> AdapterCheck:
    obj: Any = None
    default_name = ""
    load_error: str | None = None
    try:
        obj, default_name = _load_object(spec)
    except Exception as exc:  # importing the adapter (user code) failed: reported (§8.1)
        load_error = error_text(exc)
    if load_error is not None:
        return AdapterCheck(spec, None, load_error)
    problems = _problems(obj)
    if problems:
        return AdapterCheck(spec, None, None, tuple(problems))
    meta = _attr(obj, "meta")
    name = default_name
    if isinstance(meta, Mapping) and isinstance(meta.get("name"), str) and meta["name"]:
        name = meta["name"]
    caps = tuple(cap for cap, export in CAPABILITIES if callable(_attr(obj, export)))
    return AdapterCheck(spec, LoadedAdapter(obj, spec, name, caps))


def load_adapter(spec: str) -> LoadedAdapter:
    """Load and validate an adapter; raises :class:`GoldError` when it cannot be used."""
    check = check_adapter(spec)
    if check.load_error is not None:
        raise GoldError("gold adapter could not be loaded", "input")
    if check.adapter is None:
        raise GoldError("gold adapter is invalid", "input")
    return check.adapter
