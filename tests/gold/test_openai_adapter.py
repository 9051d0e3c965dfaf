"""The ``openai`` adapter against a real local chat-completions server on 127.0.0.1 (§8.6)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from citelens.gold import check_adapter
from citelens.gold.adapters import OpenAIAdapter

from ._helpers import reply


def _completion(content: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    if usage is not None:
        out["usage"] = usage
    return out


def _env(monkeypatch: pytest.MonkeyPatch, url: str, key: str | None = None) -> None:
    monkeypatch.setenv("CITELENS_OPENAI_BASE_URL", url + "/v1")
    monkeypatch.setenv("CITELENS_OPENAI_MODEL", "test-model")
    monkeypatch.setenv("CITELENS_OPENAI_RETRIES", "2")
    monkeypatch.setenv("CITELENS_OPENAI_TIMEOUT", "2")
    for name in ("CITELENS_OPENAI_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    if key:
        monkeypatch.setenv("CITELENS_OPENAI_API_KEY", key)


def test_protocol_json_modes_and_usage(local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        user = body["messages"][1]["content"]
        if "verifiable claims" in user:
            reply(
                h,
                200,
                _completion('```json\n{"claims": [{"original_text": "Drug A works.1,2"}]}\n```'),
            )
        elif "CLAIM:" in user:
            reply(
                h,
                200,
                _completion(
                    '{"verdict": "Partial Support", "summary": "s", "passages": [{"quote": "q"}]}',
                    {
                        "prompt_tokens": 50,
                        "completion_tokens": 10,
                        "total_tokens": 60,
                        "completion_tokens_details": {"reasoning_tokens": 4},
                    },
                ),
            )
        else:
            reply(h, 200, _completion("  The answer is 4.  "))

    server = local_server(handler)
    _env(monkeypatch, server.url, key="sk-test")
    adapter = OpenAIAdapter()
    assert adapter.online_available() and adapter.run_model() == "test-model"
    claims = adapter.split_claims("Drug A works.1,2 Background.")
    assert claims == {
        "claims": [
            {"text": "Drug A works.", "original_text": "Drug A works.1,2", "citations": [1, 2]}
        ]
    }
    result = adapter.analyze_batch(
        {"claims": ["Drug A works"], "documents": [{"name": "R1", "content": "Drug A works."}]}
    )
    analysis = result["claims"][0]["individual_analyses"][0]
    assert analysis["verdict"] == "partial_support" and analysis["document_name"] == "R1"
    assert result["usage"]["total_tokens"] == 60
    assert adapter.answer("q", "c") == "The answer is 4."
    paths = {r["path"] for r in server.requests}
    assert paths == {"/v1/chat/completions"}
    first, second, third = (r["body"] for r in server.requests)
    assert first["model"] == "test-model" and first["temperature"] == 0
    assert first["response_format"] == {"type": "json_object"}
    assert second["response_format"] == {"type": "json_object"}
    assert "response_format" not in third
    for label in ("strong_support", "implied_by_data", "contradicted", "Tie-breakers"):
        assert label in second["messages"][1]["content"]
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-test"
    assert adapter.token_totals()["reasoning_tokens"] == 4
    assert len(adapter.call_latencies()) == 3


def test_no_key_no_authorization_and_invalid_verdict(local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 200, _completion('{"verdict": "probably"}'))

    server = local_server(handler)
    _env(monkeypatch, server.url)
    adapter = OpenAIAdapter()
    result = adapter.analyze_batch({"claims": ["c"], "documents": [{"name": "R", "content": "x"}]})
    analysis = result["claims"][0]["individual_analyses"][0]
    assert analysis["verdict"] is None and analysis["passages"] == []
    assert analysis["summary"].startswith("unparsable model output: ")
    assert "Authorization" not in server.requests[0]["headers"]


def test_retry_then_success_400_no_retry_timeout_retried(local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = {"n": 0}

    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        state["n"] += 1
        user = body["messages"][1]["content"]
        if "QUESTION" in user and "slow" in user:
            time.sleep(0.5)
            reply(h, 200, _completion("late"))
        elif "QUESTION" in user and "bad" in user:
            reply(h, 400, {"error": "bad request"})
        elif state["n"] == 1:
            reply(h, 500, {})
        else:
            reply(h, 200, _completion("fine"))

    server = local_server(handler)
    _env(monkeypatch, server.url)
    monkeypatch.setenv("CITELENS_OPENAI_TIMEOUT", "0.2")
    monkeypatch.setenv("CITELENS_OPENAI_RETRIES", "1")
    adapter = OpenAIAdapter()
    adapter.transport.backoff = 0
    assert adapter.answer("ok", "c") == "fine"
    assert len(server.requests) == 2
    with pytest.raises(RuntimeError, match=r"^bad request$"):
        adapter.answer("bad", "c")
    assert len(server.requests) == 3
    with pytest.raises(RuntimeError, match="timed out"):
        adapter.answer("slow", "c")
    assert len(server.requests) == 5


def test_unparsable_split_raises_and_unavailable_hint(local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 200, _completion("no json here"))

    server = local_server(handler)
    _env(monkeypatch, server.url)
    with pytest.raises(ValueError):
        OpenAIAdapter().split_claims("x")
    monkeypatch.delenv("CITELENS_OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    check = check_adapter("openai")
    assert check.adapter is not None
    assert check.adapter.call("online_available").value is False
    assert check.adapter.call("online_config_hint").value.startswith(
        "Set CITELENS_OPENAI_BASE_URL and CITELENS_OPENAI_MODEL"
    )
