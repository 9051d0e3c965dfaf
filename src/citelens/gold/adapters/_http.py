"""Bundled adapter ``http``: a no-code adapter for systems exposing JSON endpoints (§8.5)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from citelens.gold.adapters._transport import JsonTransport, token_totals_from

__all__ = ["HttpAdapter"]

_VAR = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
_ENDPOINTS = (
    ("splitClaims", "split_claims"),
    ("analyzeBatch", "analyze_batch"),
    ("answer", "answer"),
    ("redact", "redact"),
    ("simplify", "simplify"),
    ("fetchRecord", "fetch_record"),
)
_SUFFIX = ". Set CITELENS_HTTP_CONFIG or create citelens.http.json."


def _interpolate(value: Any, env: Mapping[str, str], missing: set[str]) -> Any:
    if isinstance(value, str):

        def sub(match: re.Match[str]) -> str:
            found = env.get(match.group(1), "")
            if not found:
                missing.add(match.group(1))
            return found

        return _VAR.sub(sub, value)
    if isinstance(value, list):
        return [_interpolate(v, env, missing) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate(v, env, missing) for k, v in value.items()}
    return value


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class HttpAdapter:
    """Adapter configured by ``CITELENS_HTTP_CONFIG`` (default ``./citelens.http.json``).

    Only the configured endpoints are exposed as capabilities. Config problems are reported
    through ``adapter_config_problems`` (the loader turns them into validation errors); unset
    ``${VAR}`` references make ``online_available()`` false instead.
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        environ = os.environ if env is None else env
        self._env = dict(environ)
        self.adapter_config_problems: list[str] = []
        self.meta: dict[str, str] = {"name": "http"}
        self._missing: list[str] = []
        self._base = ""
        self._paths: dict[str, str] = {}
        self._model_env: str | None = None
        self.transport = JsonTransport()
        path = environ.get("CITELENS_HTTP_CONFIG") or "citelens.http.json"
        problem = self._configure(path)
        if problem is not None:
            self.adapter_config_problems.append(f"http adapter: {problem}{_SUFFIX}")
            return
        for _camel, snake in _ENDPOINTS:
            if snake in self._paths:
                setattr(self, snake, getattr(self, f"_{snake}"))

    def __repr__(self) -> str:
        return f"HttpAdapter(name={self.meta['name']!r})"

    def _configure(self, path: str) -> str | None:
        if not os.path.isfile(path):
            return f"no config found at {path}"
        raw: Any = None
        error: str | None = None
        try:
            with open(path, encoding="utf-8-sig") as handle:
                raw = json.load(handle)
        except (OSError, ValueError) as exc:
            error = f"could not parse {path}: {type(exc).__name__}: {exc}"
        if error is not None:
            return error
        if not isinstance(raw, dict):
            return f"could not parse {path}: config must be a JSON object"
        missing: set[str] = set()
        config = _interpolate(raw, self._env, missing)
        self._missing = sorted(missing)
        name = config.get("name", "http")
        if not isinstance(name, str) or not name:
            return "config.name must be a non-empty string"
        base = config.get("baseUrl")
        if base is None:
            return "config has no baseUrl"
        if not isinstance(base, str):
            return "config.baseUrl must be a string"
        headers = config.get("headers", {})
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            return "config.headers must be an object of strings"
        endpoints = config.get("endpoints", {})
        if not isinstance(endpoints, dict):
            return "config.endpoints must be an object"
        paths: dict[str, str] = {}
        for camel, snake in _ENDPOINTS:
            given = [k for k in (camel, snake) if k in endpoints]
            if len(given) == 2 and camel != snake:
                return f"config.endpoints gives both {camel} and {snake}"
            if not given:
                continue
            value = endpoints[given[0]]
            if not isinstance(value, str) or not value.startswith("/"):
                return f"config.endpoints.{given[0]} must be a path starting with /"
            paths[snake] = value
        if not paths:
            return "config.endpoints defines no known endpoint"
        model_env = config.get("modelEnv")
        if model_env is not None and not isinstance(model_env, str):
            return "config.modelEnv must be a string"
        timeout = config.get("timeoutSeconds", 60)
        if not _number(timeout) or timeout <= 0:
            return "config.timeoutSeconds must be a number > 0"
        retries = config.get("retries", 2)
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            return "config.retries must be an integer >= 0"
        backoff = config.get("backoffSeconds", 0.5)
        if not _number(backoff) or backoff < 0:
            return "config.backoffSeconds must be a number >= 0"
        self.meta = {"name": name}
        self._base = base.rstrip("/") if base.endswith("/") else base
        self._paths = paths
        self._model_env = model_env
        self.transport = JsonTransport(
            timeout=float(timeout), retries=retries, backoff=float(backoff), headers=headers
        )
        return None

    def online_available(self) -> bool:
        """False while a referenced environment variable is unset."""
        return not self._missing and not self.adapter_config_problems

    def online_config_hint(self) -> str:
        """Which variables to set."""
        if self._missing:
            return f"http adapter: unset environment variable(s): {', '.join(self._missing)}."
        return ""

    def run_model(self) -> str | None:
        """``modelEnv``'s variable, else ``CITELENS_EVAL_MODEL``."""
        env = dict(os.environ)
        if self._model_env and env.get(self._model_env):
            return env[self._model_env]
        return env.get("CITELENS_EVAL_MODEL") or None

    def _split_claims(self, text: str) -> Any:
        return self.transport.post(self._base, self._paths["split_claims"], {"text": text})

    def _analyze_batch(self, payload: dict[str, Any]) -> Any:
        return self.transport.post(self._base, self._paths["analyze_batch"], payload)

    def _answer(self, question: str, context: str) -> Any:
        data = self.transport.post(
            self._base, self._paths["answer"], {"question": question, "context": context}
        )
        if isinstance(data, Mapping):
            for key in ("text", "answer"):
                if isinstance(data.get(key), str):
                    return {"text": data[key]}
        return data

    def _redact(self, text: str) -> Any:
        return self.transport.post(self._base, self._paths["redact"], {"text": text})

    def _simplify(self, payload: dict[str, Any]) -> Any:
        return self.transport.post(self._base, self._paths["simplify"], payload)

    def _fetch_record(self, payload: dict[str, Any]) -> Any:
        return self.transport.post(self._base, self._paths["fetch_record"], payload)

    def reset_timing(self) -> None:
        """Start a new latency sample."""
        self.transport.reset_timing()

    def call_latencies(self) -> list[float]:
        """Milliseconds per logical call (final attempt) since :meth:`reset_timing`."""
        return list(self.transport.latencies)

    def reset_tokens(self) -> None:
        """Start a new token tally."""
        self.transport.reset_tokens()

    def token_totals(self) -> dict[str, int]:
        """Token usage reported by the responses since :meth:`reset_tokens`."""
        return token_totals_from(self.transport.usages)

    @property
    def request_log(self) -> list[dict[str, Any]]:
        """Per call: path, final status and number of retries."""
        return list(self.transport.log)
