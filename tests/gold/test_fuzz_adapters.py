"""Fuzzing the HTTP and OpenAI adapters' response handling (issue 10, item 2).

The response body is what the system under test controls. Each example is one status and one body
(raw bytes, or JSON with hostile fields, or a chat completion whose ``content`` is hostile text:
fences, WS runs, deep nesting, huge numbers, ``Infinity`` usage); the transport is canned
(``_canned``), so every line of body handling runs as it does against a server. Property: each
adapter call returns, or raises the adapter's own failure (``AdapterHTTPError`` or ``ValueError``,
which the harness records as a scorer failure, §6.0), in bounded time; never a ``TypeError``,
``RecursionError``, ``OverflowError`` or the like. Through the verdict scorer the same bodies give
a ``ScorerResult``, never an exception. Examples per test: ``CITELENS_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citelens.gold as gold
from citelens.gold._adapters import LoadedAdapter
from citelens.gold.adapters._transport import AdapterHTTPError
from citelens.gold.scorers import score_verdict_accuracy

from ._canned import PAYLOAD, http, openai
from ._fuzz import CANARY, EXAMPLES, FUZZ, TEXT, check_call

pytestmark = pytest.mark.fuzz  # `make fuzz` runs these with 100,000 examples

_BOUND_S = 2.0  # each call: well under a few seconds (the fence regex took 10 s at 2,000 spaces)

_JSON: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([63, 64, 1024, 14000]).map(lambda bits: 2**bits),
        st.floats(),  # NaN and infinities: json.dumps writes NaN / Infinity, json.loads reads them
        TEXT,
        st.sampled_from(list(gold.VERDICT_SCALE)),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(
                TEXT,
                st.sampled_from(
                    [
                        "verdict",
                        "summary",
                        "passages",
                        "claims",
                        "original_text",
                        "text",
                        "answer",
                        "usage",
                        "error",
                        "choices",
                        "message",
                        "content",
                        "prompt_tokens",
                        "completion_tokens",
                        "total_tokens",
                        "completion_tokens_details",
                        "reasoning_tokens",
                        "individual_analyses",
                    ]
                ),
            ),
            children,
            max_size=5,
        ),
    ),
    max_leaves=12,
)
# Model replies: text, JSON text, fenced JSON, and the shapes that were slow or raised.
_CONTENT = st.one_of(
    TEXT,
    _JSON.map(lambda v: json.dumps(v)),
    _JSON.map(lambda v: "```json\n" + json.dumps(v) + "\n```"),
    st.sampled_from(
        [
            "```" + " " * 50_000 + "x",  # cubic in the former fence pattern
            "```" + " \n" * 20_000 + "```",
            "```json" + "a" * 100_000 + "```",
            "[" * 100_000 + "]" * 100_000,  # deeper than json can decode
            '{"verdict": "' + "\u3000" * 10_000 + 'overclaim"}',
            '{"verdict": "\\u001cstrong_support", "summary": "' + CANARY + '"}',
            '{"verdict": ' + "9" * 5000 + "}",  # beyond the int digit limit
            "\ud800" + CANARY,
        ]
    ),
)
_USAGE = st.fixed_dictionaries(
    {},
    optional={
        k: st.one_of(st.integers(), st.floats(), TEXT, st.none(), _JSON)
        for k in ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens")
    },
)


@st.composite
def _bodies(draw: st.DrawFn) -> tuple[int, bytes]:
    status = draw(st.sampled_from([200, 200, 200, 201, 400, 404, 500, 503]))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        body = draw(
            st.one_of(
                st.binary(max_size=40),
                st.sampled_from(
                    [
                        b"[" * 100_000 + b"]" * 100_000,
                        b"\xef\xbb\xbf" + b'{"text": "x"}',
                        b'{"text": "\xff"}',
                        b"9" * 5000,
                        b'{"error": "' + CANARY.encode() + b'"}',
                        b'{"usage": {"prompt_tokens": Infinity, "total_tokens": NaN}}',
                        b"",
                    ]
                ),
            )
        )
    elif kind == 1:
        body = json.dumps(draw(_JSON)).encode("utf-8", "surrogatepass")
    else:
        data: dict[str, Any] = {"choices": [{"message": {"content": draw(_CONTENT)}}]}
        if draw(st.booleans()):
            data["usage"] = draw(_USAGE)
        body = json.dumps(data).encode("utf-8", "surrogatepass")
    return status, body


def _bounded(call: Any) -> None:
    started = time.perf_counter()
    # the adapters' own failures: a non-2xx or non-JSON response, an unparsable reply
    with contextlib.suppress(AdapterHTTPError, ValueError):
        call()
    assert time.perf_counter() - started < _BOUND_S


@FUZZ
@given(_bodies())
def test_openai_response_bodies(response: tuple[int, bytes]) -> None:
    """Every OpenAI adapter call and hook on any response body."""
    status, body = response
    adapter = openai(body, status)
    _bounded(lambda: adapter.split_claims("Drug A works.1"))
    _bounded(lambda: adapter.analyze_batch(PAYLOAD))
    _bounded(lambda: adapter.answer("q", "c"))
    assert isinstance(adapter.token_totals()["total_tokens"], int)


@FUZZ
@given(_bodies())
def test_http_response_bodies(response: tuple[int, bytes]) -> None:
    """Every HTTP adapter endpoint and hook on any response body."""
    status, body = response
    adapter = http(body, status)
    _bounded(lambda: adapter.split_claims("Drug A works.1"))
    _bounded(lambda: adapter.analyze_batch(PAYLOAD))
    _bounded(lambda: adapter.answer("q", "c"))
    assert isinstance(adapter.token_totals()["total_tokens"], int)


_DATASET = gold.load_dataset(None)
_ONE = type(_DATASET)(
    _DATASET.root, _DATASET.qa[:1], (), {}, None, _DATASET.digest, (_DATASET.qa[0].id,)
)


@settings(parent=FUZZ, max_examples=max(10, EXAMPLES // 4))
@given(_bodies(), st.sampled_from(["openai", "http"]))
def test_verdict_scorer_on_response_bodies(response: tuple[int, bytes], which: str) -> None:
    """Whatever the system answers, the verdict scorer returns a result (failures measured)."""
    status, body = response
    obj = openai(body, status) if which == "openai" else http(body, status)
    adapter = LoadedAdapter(obj, which, which, ("verdicts",))
    result = check_call(lambda: score_verdict_accuracy(_ONE, adapter, online=True))
    assert not isinstance(result, Exception)
