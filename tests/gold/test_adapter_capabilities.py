"""The redaction, simplification and retrieval capabilities (issue 13): loading and checking,
the ``lexical`` reference implementations, and the ``http`` and ``openai``
adapters against a local server on 127.0.0.1."""

from __future__ import annotations

import json
import pathlib
import time
from typing import Any

import pytest

from citelens.gold import CAPABILITIES, check_adapter, load_adapter
from citelens.gold.adapters import HttpAdapter, OpenAIAdapter, lexical

from ._helpers import reply

REDACT_ONLY = """
def online_available():
    return True

def online_config_hint():
    return ""

def redact(text):
    return {"text": "[X]", "entities": [{"value": text, "type": "X"}]}
"""

# The discharge note of OpenGATE's simplify-discharge-brief case (synthetic), inline so that the
# lexical simplifier's output is checked without ../shared.
DISCHARGE = (
    "Discharge summary: You were admitted with community-acquired pneumonia. You have been "
    "started on amoxicillin 500 mg three times daily for 5 days. Please see your GP in 2 weeks "
    "for review. Return to hospital if you develop worsening breathlessness or a fever above 38 "
    "degrees."
)


# --- capabilities and load-time checking ---------------------------------------------------


def test_capabilities_order_and_lexical_has_all_six() -> None:
    assert CAPABILITIES[3:] == (
        ("redaction", "redact"),
        ("simplification", "simplify"),
        ("retrieval", "fetch_record"),
    )
    assert load_adapter("lexical").capabilities == (
        "claims",
        "verdicts",
        "grounding",
        "redaction",
        "simplification",
        "retrieval",
    )


def test_a_new_capability_alone_makes_an_adapter(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "redactor.py"
    path.write_text(REDACT_ONLY, encoding="utf-8")
    adapter = load_adapter(str(path))
    assert adapter.capabilities == ("redaction",)
    call = adapter.call("redact", "Mr A Bc")
    assert call.ok and call.value == {
        "text": "[X]",
        "entities": [{"value": "Mr A Bc", "type": "X"}],
    }


def test_non_callable_new_exports_are_problems(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(
        "def online_available():\n    return True\n\ndef online_config_hint():\n    return ''\n"
        "simplify = 3\nfetch_record = 'x'\n",
        encoding="utf-8",
    )
    check = check_adapter(str(path))
    assert check.adapter is None
    assert list(check.problems) == [
        "no capability implemented — provide split_claims() (claims), analyze_batch() "
        "(verdicts), answer() (grounding), redact() (redaction), simplify() (simplification) "
        "or fetch_record() (retrieval)",
        "export simplify is not callable",
        "export fetch_record is not callable",
    ]


# --- lexical -------------------------------------------------------------------------------


def test_lexical_redact_literal() -> None:
    text = (
        "Mrs Jane O'Neil (NHS 999 000 0018, DOB 12/03/1958) lives at 4 Elm Road, OX2 6JX. "
        "Her son Tom rang from 07700 900123; email jane.o@example.com. Seen by Dr Patel on "
        "3 March 2021."
    )
    out = lexical.redact(text)
    assert out["text"] == (
        "[PATIENT_NAME] (NHS [NHS_NUMBER], DOB [DATE_OF_BIRTH]) lives at [STREET_ADDRESS], "
        "[POSTCODE]. Her son [RELATIVE_NAME] rang from [PHONE]; email [EMAIL]. Seen by Dr Patel "
        "on [DATE]."
    )
    # in text order; the first date follows "DOB" (within 24 characters), the last does not;
    # "Dr Patel" is a clinician and is kept
    assert out["entities"] == [
        {"value": "Mrs Jane O'Neil", "type": "PATIENT_NAME"},
        {"value": "999 000 0018", "type": "NHS_NUMBER"},
        {"value": "12/03/1958", "type": "DATE_OF_BIRTH"},
        {"value": "4 Elm Road", "type": "STREET_ADDRESS"},
        {"value": "OX2 6JX", "type": "POSTCODE"},
        {"value": "Tom", "type": "RELATIVE_NAME"},
        {"value": "07700 900123", "type": "PHONE"},
        {"value": "jane.o@example.com", "type": "EMAIL"},
        {"value": "3 March 2021", "type": "DATE"},
    ]


def test_lexical_redact_leaves_clinical_numbers() -> None:
    # a blood pressure, a dose, a ratio and a 9-digit number are none of the patterns:
    # 132/84 has no second separator; 123 456 789 is 3-3-3 digits, not 3-3-4
    text = "BP 132/84 mmHg, apixaban 5 mg BD, ratio 1:2, ref 123 456 789."
    assert lexical.redact(text) == {"text": text, "entities": []}


def test_lexical_redact_bundled_cases_no_gold_value_left(opengate: pathlib.Path) -> None:
    cases = sorted((opengate / "cases").glob("redact-*.json"))
    assert len(cases) == 5
    for path in cases:
        case = json.loads(path.read_text(encoding="utf-8"))
        out = lexical.redact(case["text"])
        removed = {e["value"] for e in out["entities"]}
        for entity in case["goldEntities"]:
            assert entity["value"] not in out["text"]
            assert entity["value"] in removed  # and exactly the gold value was named


def test_lexical_redact_linear_on_hostile_text() -> None:
    # long runs that every pattern starts on and fails at the end: a quadratic pattern takes
    # minutes at this size, these take well under a second each
    for hostile in ("a" * 200_000, "a." * 100_000 + "@", "0" * 200_000, "Mr " + "Ab " * 70_000):
        start = time.perf_counter()
        lexical.redact(hostile)
        assert time.perf_counter() - start < 5.0


def test_lexical_simplify_brief_and_standard() -> None:
    brief = lexical.simplify({"text": DISCHARGE, "length": "Brief", "audience": "Adult"})
    # the admission sentence has no number, drug-like word or instruction: dropped; the other
    # three are kept as bullets, "three times daily" shortened to "three times a day"
    assert brief == {
        "text": "- You have been started on amoxicillin 500 mg three times a day for 5 days.\n"
        "- Please see your GP in 2 weeks for review.\n"
        "- Return to hospital if you develop worsening breathlessness or a fever above 38 "
        "degrees."
    }
    labs = (
        "Blood test results: your haemoglobin was 9.8 g/dL (below the normal range). "
        "Rest well. Take ferrous sulfate twice daily."
    )
    # heading label dropped and the next letter capitalised; the digit-free aside dropped;
    # "Rest well." has nothing to keep; the standard length gives prose
    assert lexical.simplify({"text": labs}) == {
        "text": "Your haemoglobin was 9.8 g/dL. Take ferrous sulfate twice a day."
    }
    # nothing to keep: the first sentence, so the reply is never empty for a non-empty text
    assert lexical.simplify({"text": "All is well. Rest."}) == {"text": "All is well."}
    assert lexical.simplify({"text": ""}) == {"text": ""}


def test_lexical_simplify_brief_caps_words_and_bullets() -> None:
    long = " ".join(f"w{i}" for i in range(30)) + "."
    text = " ".join([long, "Take 1.", "Take 2.", "Take 3."])
    lines = lexical.simplify({"text": text, "length": "brief"})["text"].split("\n")
    # 4 kept sentences → the first 3; the first has 30 words → its first 18 (w0 … w17)
    assert lines == ["- " + " ".join(f"w{i}" for i in range(18)), "- Take 1.", "- Take 2."]


def test_lexical_simplify_bad_payload() -> None:
    with pytest.raises(TypeError, match=r"^simplify expects "):
        lexical.simplify("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^simplify options must be strings$"):
        lexical.simplify({"text": "t", "length": 3})


def test_lexical_fetch_record() -> None:
    first = lexical.fetch_record({"id": "31904519"})
    assert first == {
        "record": {
            "title": "Medicare Access and CHIP Reauthorization Act and vascular surgery",
            "authors": ["Haurani MJ", "Satiani B", "Go MR", "Starr JE"],
            "year": "2020",
            "abstract_sections": [
                "The Medicare Access and CHIP Reauthorization Act of 2015 (MACRA) created a new "
                "payment system."
            ],
        }
    }
    first["record"]["authors"].clear()  # a caller's change never reaches the next call
    assert lexical.fetch_record({"id": "31904519", "type": "pubmed"}) == lexical.fetch_record(
        {"id": "31904519"}
    )
    assert len(lexical.fetch_record({"id": "31904519"})["record"]["authors"]) == 4
    for payload in ({"id": "00000000"}, {"id": "31904519", "type": "trial"}):
        with pytest.raises(LookupError) as info:
            lexical.fetch_record(payload)
        assert str(info.value) == "no local record with this id and type"  # no id echoed
    for bad in ({"id": 31904519}, {"id": "1", "type": 2}, "31904519"):
        with pytest.raises(TypeError, match=r"^fetch_record expects \{id, type\?\}$"):
            lexical.fetch_record(bad)  # type: ignore[arg-type]


def test_lexical_record_passes_the_bundled_retrieval_case(opengate: pathlib.Path) -> None:
    case = json.loads((opengate / "cases" / "retrieval-macra-vascular.json").read_text("utf-8"))
    record = lexical.fetch_record({"id": case["recordId"], "type": case["recordType"]})["record"]
    for name in case["requireFields"]:
        assert record[name]
    for anchor in case["anchors"]:
        value = record[anchor["field"]]
        joined = " ".join(value) if isinstance(value, list) else value
        if "contains" in anchor:
            assert anchor["contains"].lower() in joined.lower()
        if "equals" in anchor:
            assert joined == anchor["equals"]
        if "minCount" in anchor:
            assert len(value) >= anchor["minCount"]


def test_lexical_is_deterministic() -> None:
    text = "Mr John Smith, DOB 01/02/1990, 07700 900123. " + DISCHARGE
    assert lexical.redact(text) == lexical.redact(text)
    payload = {"text": DISCHARGE, "length": "Brief"}
    assert lexical.simplify(payload) == lexical.simplify(dict(payload))


def test_lexical_through_the_loaded_adapter() -> None:
    adapter = load_adapter("lexical")
    call = adapter.call("redact", "Call 07700 900123.")
    assert call.ok
    assert call.value == {
        "text": "Call [PHONE].",
        "entities": [{"value": "07700 900123", "type": "PHONE"}],
    }
    call = adapter.call("fetch_record", {"id": "nope"})
    assert not call.ok and call.error == "LookupError: no local record with this id and type"


# --- http ----------------------------------------------------------------------------------


def _http_config(
    tmp: pathlib.Path, url: str, monkeypatch: pytest.MonkeyPatch, endpoints: dict[str, str]
) -> None:
    config = {"baseUrl": url, "endpoints": endpoints, "retries": 0, "timeoutSeconds": 2}
    path = tmp / "http.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setenv("CITELENS_HTTP_CONFIG", str(path))


def test_http_new_endpoints(tmp_path, local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    replies: dict[str, Any] = {
        "/r": {"text": "[PHONE]", "entities": [{"value": "07700 900123", "type": "PHONE"}]},
        "/s": {"text": "short"},
        "/f": {"record": {"title": "T"}, "usage": {"prompt_tokens": 2, "completion_tokens": 1}},
    }

    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 200, replies[h.path])

    server = local_server(handler)
    endpoints = {"redact": "/r", "simplify": "/s", "fetchRecord": "/f"}
    _http_config(tmp_path, server.url, monkeypatch, endpoints)
    check = check_adapter("http")
    assert check.adapter is not None
    assert check.adapter.capabilities == ("redaction", "simplification", "retrieval")
    adapter = check.adapter.obj
    assert adapter.redact("07700 900123") == replies["/r"]
    payload = {"text": "long", "length": "Brief"}
    assert adapter.simplify(payload) == replies["/s"]
    assert adapter.fetch_record({"id": "1", "type": "pubmed"}) == replies["/f"]
    assert [(r["path"], r["body"]) for r in server.requests] == [
        ("/r", {"text": "07700 900123"}),
        ("/s", {"text": "long", "length": "Brief"}),  # the payload unchanged
        ("/f", {"id": "1", "type": "pubmed"}),
    ]
    assert len(adapter.call_latencies()) == 3
    assert adapter.token_totals()["total_tokens"] == 3  # 2 + 1


def test_http_endpoint_spellings(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _http_config(tmp_path, "http://127.0.0.1:9", monkeypatch, {"fetch_record": "/f"})
    check = check_adapter("http")
    assert check.adapter is not None and check.adapter.capabilities == ("retrieval",)
    _http_config(
        tmp_path, "http://127.0.0.1:9", monkeypatch, {"fetchRecord": "/f", "fetch_record": "/g"}
    )
    assert check_adapter("http").problems == (
        "http adapter: config.endpoints gives both fetchRecord and fetch_record. Set "
        "CITELENS_HTTP_CONFIG or create citelens.http.json.",
    )
    _http_config(tmp_path, "http://127.0.0.1:9", monkeypatch, {"redact": "r"})
    assert (
        check_adapter("http")
        .problems[0]
        .startswith("http adapter: config.endpoints.redact must be a path starting with /.")
    )
    # an adapter without these endpoints does not advertise them (§8.3)
    _http_config(tmp_path, "http://127.0.0.1:9", monkeypatch, {"answer": "/a"})
    assert not hasattr(HttpAdapter(), "redact")


# --- openai --------------------------------------------------------------------------------


def _completion(content: str) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


def _openai_env(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("CITELENS_OPENAI_BASE_URL", url + "/v1")
    monkeypatch.setenv("CITELENS_OPENAI_MODEL", "test-model")
    monkeypatch.setenv("CITELENS_OPENAI_RETRIES", "0")
    monkeypatch.setenv("CITELENS_OPENAI_TIMEOUT", "2")
    for name in ("CITELENS_OPENAI_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_openai_new_capabilities(local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        user = body["messages"][1]["content"]
        if "TEXT:\nMr A" in user:
            content = (
                '```json\n{"text": "[PATIENT_NAME] came", "entities": '
                '[{"value": "Mr A Bc", "type": "PATIENT_NAME"}, {"value": "x"}]}\n```'
            )
        elif "Rewrite the TEXT" in user:
            content = '{"text": "- Take 5 mg."}'
        else:
            content = '{"record": {"title": "T", "authors": ["A B"]}}'
        reply(h, 200, _completion(content))

    server = local_server(handler)
    _openai_env(monkeypatch, server.url)
    adapter = OpenAIAdapter()
    assert adapter.redact("Mr A Bc came") == {
        "text": "[PATIENT_NAME] came",
        "entities": [{"value": "Mr A Bc", "type": "PATIENT_NAME"}, {"value": "x", "type": ""}],
    }
    assert adapter.simplify({"text": "Take 5 mg daily.", "length": "Brief"}) == {
        "text": "- Take 5 mg."
    }
    assert adapter.fetch_record({"id": "31904519"}) == {
        "record": {"title": "T", "authors": ["A B"]}
    }
    bodies = [r["body"] for r in server.requests]
    assert {r["path"] for r in server.requests} == {"/v1/chat/completions"}
    for body in bodies:
        assert body["model"] == "test-model" and body["temperature"] == 0
        assert body["response_format"] == {"type": "json_object"}
    simplify_prompt = bodies[1]["messages"][1]["content"]
    # the given length, and the format's defaults for what the payload leaves out
    for part in ("audience: Adult", "tone: Informative", "length: Brief", "language: English"):
        assert part in simplify_prompt
    assert "Take 5 mg daily." in simplify_prompt
    assert "(type: pubmed)" in bodies[2]["messages"][1]["content"]
    assert "31904519" in bodies[2]["messages"][1]["content"]


@pytest.mark.parametrize(
    "content",
    [
        "no json",
        "[1, 2]",
        '{"entities": []}',
        '{"text": "t", "entities": "x"}',
        '{"text": "t", "entities": [{"value": 3}]}',
        '{"text": "t", "entities": [{"value": "v", "type": 3}]}',
    ],
)
def test_openai_redact_unparsable_raises(local_server, monkeypatch, content) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 200, _completion(content))

    server = local_server(handler)
    _openai_env(monkeypatch, server.url)
    with pytest.raises(ValueError, match=r"^unparsable model output$"):
        OpenAIAdapter().redact("t")


def test_openai_simplify_and_record_unparsable_raise(local_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def handler(h, body, raw):  # type: ignore[no-untyped-def]
        reply(h, 200, _completion('{"record": "T", "text": 5}'))

    server = local_server(handler)
    _openai_env(monkeypatch, server.url)
    adapter = OpenAIAdapter()
    with pytest.raises(ValueError, match=r"^unparsable model output$"):
        adapter.simplify({"text": "t"})
    with pytest.raises(ValueError, match=r"^unparsable model output$"):
        adapter.fetch_record({"id": "1"})
    assert len(server.requests) == 2
    # a payload without its text or id is refused before any request
    with pytest.raises(ValueError, match=r"^simplify payload has no text$"):
        adapter.simplify({"length": "Brief"})
    with pytest.raises(ValueError, match=r"^fetch_record payload has no id$"):
        adapter.fetch_record({"type": "pubmed"})
    assert len(server.requests) == 2
