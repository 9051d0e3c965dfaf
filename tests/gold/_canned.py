"""Adapters whose transport answers from a canned response body, without a network.

``JsonTransport._attempt`` is the one method that touches the network; replacing it keeps every
line of response handling (status, body decoding, JSON parsing, usage capture) as it runs against a
server. The HTTP and OpenAI adapters are then driven exactly as in ``test_http_adapter.py`` and
``test_openai_adapter.py``.
"""

from __future__ import annotations

import json
from typing import Any

from citelens.gold.adapters import HttpAdapter, OpenAIAdapter
from citelens.gold.adapters._transport import JsonTransport, _Attempt


class CannedTransport(JsonTransport):
    """A transport whose every attempt gets ``status`` and ``body`` (no retries, no waits)."""

    def __init__(self, body: bytes, status: int = 200) -> None:
        super().__init__(timeout=1.0, retries=0, backoff=0.0)
        self.body = body
        self.status = status

    def _attempt(self, url: str, data: bytes) -> tuple[_Attempt, float]:
        return _Attempt(self.status, self.body, {}, None), 1.0


def completion(content: object) -> bytes:
    """A chat-completions body whose ``choices[0].message.content`` is ``content``."""
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode("utf-8")


def openai(body: bytes, status: int = 200) -> OpenAIAdapter:
    """An OpenAI adapter (base URL and model set) answering ``body``."""
    adapter = OpenAIAdapter(
        {"CITELENS_OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "CITELENS_OPENAI_MODEL": "m"}
    )
    adapter.transport = CannedTransport(body, status)
    return adapter


def http(body: bytes, status: int = 200) -> Any:
    """An HTTP adapter with all three endpoints answering ``body`` (configured by hand: the
    config file's parsing is not what is fuzzed)."""
    adapter = HttpAdapter({"CITELENS_HTTP_CONFIG": "/nonexistent/citelens.http.json"})
    adapter.adapter_config_problems.clear()
    adapter._base = "http://127.0.0.1:9"  # the config step, done by hand
    adapter._paths = {"split_claims": "/s", "analyze_batch": "/a", "answer": "/q"}
    for export in ("split_claims", "analyze_batch", "answer"):  # as __init__ exposes them
        setattr(adapter, export, getattr(adapter, f"_{export}"))
    adapter.transport = CannedTransport(body, status)
    return adapter


PAYLOAD: dict[str, Any] = {
    "claims": ["Drug A works"],
    "documents": [{"name": "R1", "type": "text", "content": "Drug A works."}],
    "citationMapping": {"1": {"refId": "upload:R1"}},
    "claimCitations": [{"citations": [1]}],
    "document_name": "eval-c1",
}
"""An ``analyze_batch`` payload as the verdict scorer builds it (§6.3 step 2)."""
