"""Fuzzing the redaction, simplification and retrieval capabilities (issue 13).

The HTTP and OpenAI adapters' new exports on any response body (canned transport, as in
``test_fuzz_adapters.py``): each call returns or raises the adapter's own failure
(``AdapterHTTPError`` or ``ValueError``) in bounded time, and what the OpenAI adapter returns
has the capability's shape. The lexical implementations on hostile text are deterministic and
bounded. Examples per test: ``CITELENS_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.gold.adapters import lexical
from citelens.gold.adapters._transport import AdapterHTTPError

from ._canned import CannedTransport, http, openai
from ._fuzz import FUZZ, TEXT

pytestmark = pytest.mark.fuzz

_BOUND_S = 2.0
_KEYS = st.sampled_from(["text", "entities", "value", "type", "record", "title", "authors"])
_JSON: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(TEXT, _KEYS), children, max_size=5),
    ),
    max_leaves=12,
)
_CONTENT = st.one_of(
    TEXT,
    _JSON.map(json.dumps),
    _JSON.map(lambda v: "```json\n" + json.dumps(v) + "\n```"),
    st.sampled_from(["```" + " " * 50_000 + "x", "[" * 100_000 + "]" * 100_000]),
)


@st.composite
def _bodies(draw: st.DrawFn) -> tuple[int, bytes]:
    status = draw(st.sampled_from([200, 200, 200, 400, 500]))
    if draw(st.booleans()):
        body = json.dumps(draw(_JSON)).encode("utf-8", "surrogatepass")
    else:
        data = {"choices": [{"message": {"content": draw(_CONTENT)}}]}
        body = json.dumps(data).encode("utf-8", "surrogatepass")
    return status, body


def _bounded(call: Any) -> Any:
    started = time.perf_counter()
    value: Any = None
    with contextlib.suppress(AdapterHTTPError, ValueError):
        value = call()
    assert time.perf_counter() - started < _BOUND_S
    return value


def _http_with_new_endpoints(body: bytes, status: int) -> Any:
    adapter = http(body, status)
    adapter._paths.update({"redact": "/r", "simplify": "/s", "fetch_record": "/f"})
    for export in ("redact", "simplify", "fetch_record"):  # as __init__ exposes them
        setattr(adapter, export, getattr(adapter, f"_{export}"))
    adapter.transport = CannedTransport(body, status)
    return adapter


@FUZZ
@given(_bodies())
def test_openai_new_exports_on_response_bodies(response: tuple[int, bytes]) -> None:
    status, body = response
    adapter = openai(body, status)
    redacted = _bounded(lambda: adapter.redact("Mr A Bc"))
    simplified = _bounded(lambda: adapter.simplify({"text": "Take 5 mg."}))
    record = _bounded(lambda: adapter.fetch_record({"id": "1"}))
    # what the OpenAI adapter returns always has the capability's shape (§8.2, issue 13)
    if redacted is not None:
        assert set(redacted) == {"text", "entities"} and isinstance(redacted["text"], str)
        for entity in redacted["entities"]:
            assert set(entity) == {"value", "type"}
            assert isinstance(entity["value"], str) and isinstance(entity["type"], str)
    if simplified is not None:
        assert set(simplified) == {"text"} and isinstance(simplified["text"], str)
    if record is not None:
        assert set(record) == {"record"} and isinstance(record["record"], dict)


@FUZZ
@given(_bodies())
def test_http_new_exports_on_response_bodies(response: tuple[int, bytes]) -> None:
    status, body = response
    adapter = _http_with_new_endpoints(body, status)
    for call in (
        lambda: adapter.redact("Mr A Bc"),
        lambda: adapter.simplify({"text": "t"}),
        lambda: adapter.fetch_record({"id": "1"}),
    ):
        _bounded(call)  # the body comes back as it is: the scorers read its shape


@settings(parent=FUZZ)
@given(TEXT, st.sampled_from([None, "Brief", "Standard"]))
def test_lexical_on_hostile_text(text: str, length: str | None) -> None:
    started = time.perf_counter()
    first = lexical.redact(text)
    assert first == lexical.redact(text)
    for entity in first["entities"]:
        assert entity["value"] in text and f"[{entity['type']}]" in first["text"]
    payload: dict[str, Any] = {"text": text} if length is None else {"text": text, "length": length}
    assert lexical.simplify(payload) == lexical.simplify(dict(payload))
    assert time.perf_counter() - started < _BOUND_S
