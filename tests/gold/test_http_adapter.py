"""The ``http`` adapter against a real local HTTP server on 127.0.0.1 (§8.5)."""

from __future__ import annotations

import json
import pathlib
import time
from typing import Any

import pytest

from citelens.gold import check_adapter, load_dataset
from citelens.gold.adapters import HttpAdapter
from citelens.gold.scorers import score_verdict_accuracy

from ._helpers import SAMPLES, reply

SPLIT = {"claims": [{"text": "A claim", "citations": [1]}]}


def _config(tmp: pathlib.Path, url: str, monkeypatch: pytest.MonkeyPatch, **extra: Any) -> None:
    config = {
        "name": "my-system",
        "baseUrl": url + "/",
        "endpoints": {"splitClaims": "/split", "analyzeBatch": "/verify", "answer": "/answer"},
        "timeoutSeconds": 2,
        "retries": 2,
        "backoffSeconds": 0,
    }
    config.update(extra)
    path = tmp / "http.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setenv("CITELENS_HTTP_CONFIG", str(path))


def test_success_latency_usage_and_headers(tmp_path, local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        if h.path == "/split":
            reply(h, 200, SPLIT)
        elif h.path == "/verify":
            reply(h, 200, {"claims": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
        else:
            reply(h, 200, {"answer": "forty"})

    server = local_server(handler)
    monkeypatch.setenv("SYSTEM_TOKEN", "t0ken")
    _config(tmp_path, server.url, monkeypatch, headers={"Authorization": "Bearer ${SYSTEM_TOKEN}"})
    adapter = HttpAdapter()
    assert adapter.online_available()
    assert adapter.split_claims("text") == SPLIT  # type: ignore[attr-defined]
    assert adapter.answer("q", "c") == {"text": "forty"}  # type: ignore[attr-defined]
    adapter.analyze_batch({"claims": ["x"]})  # type: ignore[attr-defined]
    assert server.requests[0]["path"] == "/split"
    assert server.requests[0]["body"] == {"text": "text"}
    assert server.requests[0]["headers"]["Authorization"] == "Bearer t0ken"
    assert server.requests[0]["headers"]["Content-Type"] == "application/json"
    assert server.requests[1]["body"] == {"question": "q", "context": "c"}
    assert len(adapter.call_latencies()) == 3
    assert all(v > 0 for v in adapter.call_latencies())
    assert adapter.token_totals() == {
        "calls": 1,
        "prompt_tokens": 3,
        "completion_tokens": 2,
        "reasoning_tokens": 0,
        "total_tokens": 5,
    }
    check = check_adapter("http")
    assert check.adapter is not None and check.adapter.name == "my-system"


def test_slow_response_times_out_and_is_retried(tmp_path, local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        time.sleep(0.6)
        reply(h, 200, SPLIT)

    server = local_server(handler)
    _config(tmp_path, server.url, monkeypatch, timeoutSeconds=0.2, retries=1)
    adapter = HttpAdapter()
    with pytest.raises(RuntimeError, match="timed out"):
        adapter.split_claims("x")  # type: ignore[attr-defined]
    assert len(server.requests) == 2  # first attempt + one retry
    assert adapter.request_log[-1]["retries"] == 1


def test_5xx_retried_then_unmeasured(tmp_path, local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 503, {"error": "overloaded"})

    server = local_server(handler)
    _config(tmp_path, server.url, monkeypatch)
    check = check_adapter("http")
    assert check.adapter is not None
    ds = load_dataset(SAMPLES)
    res = score_verdict_accuracy(ds, check.adapter, online=True)
    # every call: 1 + 2 retries, all 503 → adapter error, never a zero or a pass
    assert res.metrics["verdict_exact"] is None
    assert res.metrics["verdict_adjacency"] is None
    assert res.metrics["n_no_prediction"] == res.metrics["n_verdicts"]
    assert res.status == "failed"
    assert res.failures[0].endswith("run 1: AdapterHTTPError: overloaded")
    assert len(server.requests) == 3 * res.metrics["n_verdicts"]


def test_500_then_200_succeeds_400_not_retried(tmp_path, local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = {"n": 0}

    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        state["n"] += 1
        if h.path == "/split":
            reply(h, 500 if state["n"] == 1 else 200, SPLIT)
        else:
            reply(h, 400, {"detail": "bad"})

    server = local_server(handler)
    _config(tmp_path, server.url, monkeypatch)
    adapter = HttpAdapter()
    assert adapter.split_claims("x") == SPLIT  # type: ignore[attr-defined]
    assert adapter.request_log[0] == {"path": "/split", "status": 200, "retries": 1}
    with pytest.raises(RuntimeError, match=r"^/answer → HTTP 400$"):
        adapter.answer("q", "c")  # type: ignore[attr-defined]
    assert len(server.requests) == 3


def test_malformed_json(tmp_path, local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 200, None, raw=b"{not json")

    server = local_server(handler)
    _config(tmp_path, server.url, monkeypatch)
    adapter = HttpAdapter()
    with pytest.raises(RuntimeError, match=r"^/split → non-JSON response$"):
        adapter.split_claims("x")  # type: ignore[attr-defined]
    assert len(server.requests) == 1


def test_config_problems_and_missing_variables(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CITELENS_HTTP_CONFIG", str(tmp_path / "absent.json"))
    check = check_adapter("http")
    assert check.problems == (
        f"http adapter: no config found at {tmp_path / 'absent.json'}. Set "
        "CITELENS_HTTP_CONFIG or create citelens.http.json.",
    )
    bad = tmp_path / "bad.json"
    for config, problem in (
        ({"endpoints": {"answer": "/a"}}, "config has no baseUrl"),
        (
            {"baseUrl": "x", "endpoints": {"other": "/a"}},
            "config.endpoints defines no known endpoint",
        ),
        (
            {"baseUrl": "x", "endpoints": {"answer": "/a"}, "retries": -1},
            "config.retries must be an integer >= 0",
        ),
        (
            {"baseUrl": "x", "endpoints": {"splitClaims": "/a", "split_claims": "/b"}},
            "config.endpoints gives both splitClaims and split_claims",
        ),
    ):
        bad.write_text(json.dumps(config))
        monkeypatch.setenv("CITELENS_HTTP_CONFIG", str(bad))
        assert check_adapter("http").problems[0].startswith(f"http adapter: {problem}.")
    bad.write_text("{oops")
    assert "could not parse" in check_adapter("http").problems[0]
    # unset variables do not fail loading: the online scorers are skipped as unavailable
    monkeypatch.delenv("UNSET_URL", raising=False)
    monkeypatch.delenv("UNSET_TOKEN", raising=False)
    bad.write_text(
        json.dumps(
            {
                "baseUrl": "${UNSET_URL}",
                "headers": {"X": "${UNSET_TOKEN}"},
                "endpoints": {"answer": "/a"},
            }
        )
    )
    check = check_adapter("http")
    assert check.adapter is not None
    assert check.adapter.capabilities == ("grounding",)
    assert check.adapter.call("online_available").value is False
    assert check.adapter.call("online_config_hint").value == (
        "http adapter: unset environment variable(s): UNSET_TOKEN, UNSET_URL."
    )
