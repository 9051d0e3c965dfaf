"""Literal regression tests for what the gold fuzz tests of issue 10 found (each one raised a
foreign exception, an ``InternalError`` or took seconds before its fix)."""

from __future__ import annotations

import dataclasses
import io
import json
import pathlib
import time
from decimal import Decimal
from typing import Any

import pytest

import citelens.gold as gold
from citelens.errors import GoldError
from citelens.gold import scorers
from citelens.gold._adapters import LoadedAdapter
from citelens.gold._records import checked_dataset
from citelens.gold.adapters._openai import _parse_json_content
from citelens.gold.adapters._transport import AdapterHTTPError, token_totals_from

from ._canned import PAYLOAD, completion, http, openai
from ._fuzz import CANARY, Hostile, HostileText, check_call

_DATASET = gold.load_dataset(None)
_LEXICAL = gold.load_adapter("lexical")
_any: Any = None  # typed as Any: the calls below pass wrong types on purpose
_one: Any = 1
_hostile: Any = Hostile()


def _invalid(call: Any) -> None:
    error = check_call(call)
    assert isinstance(error, GoldError), error
    assert (str(error), error.category) == ("gold input is invalid", "input")


def test_fence_removal_is_linear() -> None:
    """``"```"`` then 100,000 spaces: the former fence regex was cubic here (2,000 spaces took
    10 s); now one slice. The reply is not JSON: unparsable, measured as no verdict."""
    reply = "```" + " " * 100_000 + "x"
    started = time.perf_counter()
    with pytest.raises(ValueError):
        _parse_json_content(reply)
    analysis = openai(completion(reply)).analyze_batch(PAYLOAD)["claims"][0]
    assert analysis["individual_analyses"][0]["verdict"] is None
    assert time.perf_counter() - started < 1.0
    # the fence itself still goes: info string, body, closing backticks (§8.6)
    assert _parse_json_content('```json\n{"a": 1}\n```') == {"a": 1}
    assert _parse_json_content('```{"a": 2}```') == {"a": 2}
    assert _parse_json_content(" \n```JSON  \n [3] \n```\n") == [3]


def test_deep_reply_is_unparsable_not_a_crash() -> None:
    """A reply nested 100,000 deep raised RecursionError out of ``analyze_batch``; §8.6: an
    unparsable body does not raise, the analysis gets ``verdict: null``."""
    reply = "[" * 100_000 + "]" * 100_000
    analysis = openai(completion(reply)).analyze_batch(PAYLOAD)["claims"][0]
    first = analysis["individual_analyses"][0]
    assert first["verdict"] is None and first["passages"] == []
    assert first["summary"] == "unparsable model output: " + "[" * 120  # first 120 characters


def test_deep_body_is_a_non_json_response() -> None:
    """A body nested 100,000 deep raised RecursionError out of the transport."""
    adapter = http(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(AdapterHTTPError) as caught:
        adapter.answer("q", "c")
    assert str(caught.value) == "/q → non-JSON response"


def test_non_finite_and_huge_usage_counts_are_absent() -> None:
    """``Infinity``/``NaN`` (JSON allows them) raised OverflowError/ValueError in ``int()``; an
    int beyond int64 would overflow the history column."""
    totals = token_totals_from(
        [{"prompt_tokens": float("inf"), "completion_tokens": 5, "total_tokens": float("nan")}]
    )
    # prompt not a count -> 0; a total that is given but not a count -> 0 (the transport's rule
    # for any non-number total; only a missing total is prompt + completion)
    assert totals == {
        "calls": 1,
        "prompt_tokens": 0,
        "completion_tokens": 5,
        "reasoning_tokens": 0,
        "total_tokens": 0,
    }
    assert token_totals_from([{"prompt_tokens": 2**63}])["prompt_tokens"] == 0
    body = json.dumps(
        {
            "choices": [{"message": {"content": '{"verdict": "overclaim"}'}}],
            "usage": {"prompt_tokens": float("inf"), "completion_tokens": 3},
        }
    ).encode()
    result = openai(body).analyze_batch(PAYLOAD)
    assert result["usage"]["prompt_tokens"] == 0 and result["usage"]["total_tokens"] == 3


class _Usage:
    """A verdict system answering strong_support with a hostile ``usage`` mapping."""

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def analyze_batch(self, payload: dict[str, Any]) -> dict[str, Any]:
        analysis = {"document_name": payload["documents"][0]["name"], "verdict": "overclaim"}
        usage = {"prompt_tokens": float("inf"), "completion_tokens": 2**70, "input_tokens": 4}
        return {"claims": [{"individual_analyses": [analysis]}], "usage": usage}


def test_verdict_scorer_usage_counts() -> None:
    """The scorer's own reading of ``usage`` (§6.3): inf prompt_tokens is skipped for
    input_tokens (4); 2**70 completion_tokens is absent (0); no total: 4 + 0."""
    one = dataclasses.replace(_DATASET, qa=_DATASET.qa[:1], grounding=(), fixture=None)
    adapter = LoadedAdapter(_Usage(), "t", "t", ("verdicts",))
    metrics = scorers.score_verdict_accuracy(one, adapter, online=True).metrics
    pairs = sum(1 for v in one.qa[0].gold_verdicts)  # one call per gold pair, each 4 + 0
    assert metrics["token_calls"] == pairs
    assert metrics["tokens_input_total"] == 4 * pairs
    assert metrics["tokens_output_total"] == 0
    assert metrics["tokens_total"] == 4 * pairs


def test_lone_surrogate_from_an_adapter_is_written(tmp_path: pathlib.Path) -> None:
    """An adapter's error text and answer with U+D800 made the scorecard's UTF-8 write fail
    (``internal error (UnicodeEncodeError)``); now the surrogate is written as ``?``."""
    outcome = gold.run(
        adapter="gold._surrogate_adapter:adapter",
        online=True,
        results=tmp_path,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    text = outcome.scorecard_path.read_text(encoding="utf-8")
    assert "RuntimeError: bad ? reply" in text
    assert "\ud800" not in json.loads(text)["results"][2]["failures"][0]


def test_scorers_check_their_arguments() -> None:
    """Wrong types raised AttributeError/TypeError (score_*) or InternalError (run_scorers)."""
    _invalid(lambda: scorers.score_citation_detection(_any))
    _invalid(lambda: scorers.score_grounding(_DATASET, _any, True))
    _invalid(lambda: scorers.score_claim_extraction(_DATASET, _LEXICAL, _one))  # 1 is no flag
    _invalid(lambda: scorers.score_verdict_accuracy(_DATASET, _LEXICAL, True, 0))  # 1..100
    _invalid(lambda: gold.run_scorers(_any, _LEXICAL, online=False))
    renamed = LoadedAdapter(_LEXICAL.obj, "lexical", HostileText("x"), _LEXICAL.capabilities)
    _invalid(lambda: gold.run_scorers(_DATASET, renamed, online=True))


def _changed(**fields: Any) -> Any:
    qa = _DATASET.qa[0]
    claim = dataclasses.replace(qa.gold_claims[0], **fields.pop("claim", {}))
    verdict = dataclasses.replace(qa.gold_verdicts[0], **fields.pop("verdict", {}))
    case = dataclasses.replace(
        qa, gold_claims=(claim, *qa.gold_claims[1:]), gold_verdicts=(verdict,)
    )
    return dataclasses.replace(_DATASET, qa=(case,), **fields)


@pytest.mark.parametrize(
    "dataset",
    [
        _changed(verdict={"verdict": "maybe"}),  # a gold label outside the six (§3.4)
        _changed(claim={"citations": (2**20000,)}),  # str() of it exceeds the digit limit
        _changed(claim={"citations": (0,)}),  # keys are positive (§2.5)
        _changed(claim={"text": Hostile()}),
        _changed(ignored={"redaction": -1}),
        _changed(grounding=None),
    ],
)
def test_changed_datasets_are_invalid(dataset: Any) -> None:
    """A dataset the loader could not have produced: ``gold input is invalid`` everywhere."""
    _invalid(lambda: scorers.score_citation_detection(dataset))
    _invalid(lambda: gold.run_scorers(dataset, _LEXICAL, online=True))


def test_loaded_dataset_is_kept_and_str_subclasses_are_copied() -> None:
    """The check gives back a loaded dataset unchanged; a ``str`` subclass whose methods raise
    is read as its characters, so the score is the plain text's."""
    assert checked_dataset(_DATASET) == _DATASET
    plain = scorers.score_citation_detection(_DATASET)
    text = _DATASET.qa[0].gold_claims[0].original_text
    copied = scorers.score_citation_detection(_changed(claim={"original_text": HostileText(text)}))
    reference = scorers.score_citation_detection(_changed())  # the same dataset, plain text
    assert copied.metrics == reference.metrics and copied.failures == reference.failures
    assert plain.metrics["n_claims"] == sum(len(c.gold_claims) for c in _DATASET.qa)


def test_hand_built_tolerances() -> None:
    """``compute_gate`` checked only the class, then raised InternalError on the fields."""
    entries = [{"id": "citation-detection", "status": "passed", "metrics": {"n_claims": 3}}]

    def gate(tolerances: Any) -> Any:
        return gold.compute_gate(
            entries, None, None, tolerances, enforced=True, dataset_digest="sha256:x"
        )

    _invalid(lambda: gate(gold.Tolerances(_any, {}, None, False)))
    _invalid(lambda: gate(gold.Tolerances({}, {"f1": Decimal(-1)}, None, False)))  # negative
    _invalid(lambda: gate(gold.Tolerances({}, {}, Decimal("NaN"), True)))
    _invalid(lambda: gate(gold.Tolerances({}, {}, None, _any)))
    parsed = gold.parse_tolerances(["f1=0.01"])
    assert isinstance(parsed, gold.Tolerances)
    assert isinstance(gate(parsed), dict)
    spec = next(m for m in gold.METRICS if m.name == "f1" and m.gate == "yes")
    assert parsed.resolve(spec) == (True, Decimal("0.01"))  # bare name entry (§9.8)
    _invalid(lambda: parsed.resolve(_any))
    _invalid(lambda: parsed.resolve(dataclasses.replace(spec, name=HostileText("f1"))))


def test_record_methods() -> None:
    """``QACase.reference`` ran the key's ``__str__``; ``GroundingResult[name]`` raised
    AttributeError/TypeError for a name that is no field."""
    case = _DATASET.qa[0]
    key = next(iter(case.references))
    assert case.reference(key) is case.references[key]
    assert case.reference(HostileText(key)) is case.references[key]  # its characters
    assert case.reference("no such key") is None
    _invalid(lambda: case.reference(_hostile))
    result = gold.check_grounding("The dose is 5 mg.", "The dose is 5 mg.")
    assert result["grounded"] is result.grounded
    _invalid(lambda: result[CANARY])
    _invalid(lambda: result[_hostile])


def test_record_properties() -> None:
    """Properties of hand-built records raised the caller's or a foreign exception."""
    _invalid(lambda: gold.MetricSpec(_any, CANARY, "rate", "higher", "yes").qualified)
    assert gold.MetricSpec("a", "b", "rate", "higher", "yes").qualified == "a.b"
    assert gold.ScorerResult("x", "offline", _hostile).ran is False
    assert gold.ScorerResult("x", "offline", "failed").ran is True
    _invalid(lambda: dataclasses.replace(_DATASET, qa=_any).case_count)
    kinds = (_DATASET.qa, _DATASET.grounding, _DATASET.redaction)
    kinds += (_DATASET.simplification, _DATASET.retrieval)
    assert _DATASET.case_count == sum(len(cases) for cases in kinds)  # none ignored


def test_mean_of_values_whose_sum_overflows() -> None:
    """Found by test_fuzz_functions.test_mean: fsum of two values near the float maximum
    overflows (their sum, about 1.8e308, exceeds 1.797e308) although their mean does not. The
    two are adjacent floats, so the mean rounds to one of them."""
    from citelens.gold import metrics

    low, high = 8.988465674311579e307, 8.98846567431158e307
    assert metrics.mean([low, high]) in (low, high)
    assert metrics.mean([1.0, 2.0, 4.0]) == 7.0 / 3  # the ordinary path: fsum / len
