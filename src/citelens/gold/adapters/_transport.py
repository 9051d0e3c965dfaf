"""JSON-over-HTTP transport shared by the ``http`` and ``openai`` adapters (standard library).

Timeouts per attempt, retries on connection errors, timeouts and HTTP 429/500/502/503/504 with
exponential backoff (``Retry-After`` honoured on 429/503, capped at 60 s), one latency value per
logical call (the final attempt) and the responses' ``usage`` mappings.
"""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AdapterHTTPError", "JsonTransport", "token_totals_from"]

_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class AdapterHTTPError(RuntimeError):
    """A request failed: final non-2xx status, non-JSON body, timeout or connection error."""


@dataclass
class _Attempt:
    status: int | None
    body: bytes
    headers: Mapping[str, str]
    error: str | None


def _seconds(text: str) -> float:
    try:
        return max(0.0, float(text))
    except ValueError:
        return 0.0


def _num(value: object) -> int:
    # a response's usage count; JSON allows Infinity and NaN (int() of them raises) and numbers
    # of any size (the history column is int64): anything but a finite real within int64
    # counts as absent
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    count = int(value)
    return count if -(2**63) < count < 2**63 else 0


def token_totals_from(usages: list[Mapping[str, Any]]) -> dict[str, int]:
    """``{calls, prompt_tokens, completion_tokens, reasoning_tokens, total_tokens}``."""
    totals = {
        "calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "reasoning_tokens": 0,
        "total_tokens": 0,
    }
    for usage in usages:
        prompt = _num(usage.get("prompt_tokens", usage.get("input_tokens")))
        completion = _num(usage.get("completion_tokens", usage.get("output_tokens")))
        reasoning = _num(usage.get("reasoning_tokens"))
        for nested in ("completion_tokens_details", "output_tokens_details"):
            inner = usage.get(nested)
            if not reasoning and isinstance(inner, Mapping):
                reasoning = _num(inner.get("reasoning_tokens"))
        total = usage.get("total_tokens")
        totals["calls"] += 1
        totals["prompt_tokens"] += prompt
        totals["completion_tokens"] += completion
        totals["reasoning_tokens"] += reasoning
        totals["total_tokens"] += _num(total) if total is not None else prompt + completion
    return totals


@dataclass
class JsonTransport:
    """POST JSON, parse JSON, with retries, per-attempt timeout and measurements."""

    timeout: float = 60.0
    retries: int = 2
    backoff: float = 0.5
    headers: dict[str, str] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    usages: list[Mapping[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    def _attempt(self, url: str, data: bytes) -> tuple[_Attempt, float]:
        request = urllib.request.Request(url, data=data, method="POST")
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json")
        for key, value in self.headers.items():
            request.add_header(key, value)
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
                attempt = _Attempt(response.status, body, dict(response.headers), None)
        except urllib.error.HTTPError as exc:
            body = b""
            try:
                body = exc.read()
            except Exception:  # reading an error response from the network: no body
                body = b""
            attempt = _Attempt(exc.code, body, dict(exc.headers or {}), None)
        except TimeoutError:
            attempt = _Attempt(None, b"", {}, "timed out")
        except urllib.error.URLError as exc:
            timed_out = isinstance(exc.reason, TimeoutError)
            attempt = _Attempt(None, b"", {}, "timed out" if timed_out else "connection failed")
        except (OSError, ValueError):
            attempt = _Attempt(None, b"", {}, "connection failed")
        return attempt, (time.perf_counter() - start) * 1000.0

    def post(self, base: str, path: str, payload: Any) -> Any:
        """POST ``payload`` to ``base + path``; returns the decoded JSON body."""
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        url = base + path
        retries_done = 0
        attempt: _Attempt
        elapsed = 0.0
        while True:
            attempt, elapsed = self._attempt(url, data)
            retryable = attempt.error is not None or attempt.status in _RETRY_STATUS
            if not retryable or retries_done >= self.retries:
                break
            retries_done += 1
            wait = self.backoff * (2 ** (retries_done - 1))
            if attempt.status in (429, 503):
                retry_after = attempt.headers.get("Retry-After") or attempt.headers.get(
                    "retry-after"
                )
                if retry_after:
                    wait = max(wait, min(60.0, _seconds(retry_after)))
            if wait > 0:
                time.sleep(wait)
        self.latencies.append(elapsed)
        self.log.append({"path": path, "status": attempt.status, "retries": retries_done})
        if attempt.error == "timed out":
            raise AdapterHTTPError(f"{path} → timed out after {self.timeout:g}s")
        if attempt.error is not None:
            raise AdapterHTTPError(f"{path} → connection failed")
        status = attempt.status or 0
        parsed: Any = None
        parse_ok = True
        try:
            parsed = json.loads(attempt.body.decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            parse_ok = False  # RecursionError: nested deeper than json can decode, not JSON to us
        if not 200 <= status < 300:
            if parse_ok and isinstance(parsed, Mapping) and isinstance(parsed.get("error"), str):
                raise AdapterHTTPError(parsed["error"])
            raise AdapterHTTPError(f"{path} → HTTP {status}")
        if not parse_ok:
            raise AdapterHTTPError(f"{path} → non-JSON response")
        if isinstance(parsed, Mapping) and isinstance(parsed.get("usage"), Mapping):
            self.usages.append(parsed["usage"])
        return parsed

    def reset_timing(self) -> None:
        """Forget recorded latencies."""
        self.latencies.clear()

    def reset_tokens(self) -> None:
        """Forget recorded usage."""
        self.usages.clear()
