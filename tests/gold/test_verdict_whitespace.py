"""Every label, key and reply trim of ``citelens.gold`` uses the contract's WS set (issue 10).

gold-harness.md §4.1 defines WS as tab, LF, VT, FF, CR, space, U+00A0, U+1680, U+2000-U+200A,
U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF, "(Not U+001C-U+001F, not U+0085.) This is the
whitespace set used everywhere in this contract." Python's ``str.strip()`` and regex ``\\s`` also
take U+001C-U+001F and U+0085, so before the shared ``trim_ws`` a predicted label
``"\\x1cstrong_support"`` was read as ``strong_support``; the contract makes it off-scale (§3.4:
"strip it, lowercase it, replace each run of whitespace and/or hyphens with `_`").
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

import citelens.gold as gold
from citelens.gold._adapters import LoadedAdapter
from citelens.gold._ws import WS_STRIP, trim_ws
from citelens.gold.scorers import normalise_label, score_verdict_accuracy

from ._canned import PAYLOAD, completion, openai
from ._fuzz import HostileText
from ._helpers import qa_case, write_case

# U+001C-U+001F (information separators) and U+0085 (NEL): str.isspace() is true for all five,
# the contract's WS excludes them.
NOT_WS = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85"]


def test_the_set_is_the_contracts() -> None:
    """WS_STRIP is exactly the 25 characters of the §4.1 table."""
    expected = set("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff")
    expected |= {chr(c) for c in range(0x2000, 0x200B)}  # U+2000-U+200A: 11 characters
    assert set(WS_STRIP) == expected and len(expected) == 25
    assert all(c.isspace() for c in NOT_WS) and not set(NOT_WS) & set(WS_STRIP)
    assert "\ufeff".isspace() is False  # the other way round: WS holds one str.strip() keeps
    assert trim_ws("\ufeff\u3000 x \u2028") == "x"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" Strong Support ", "strong_support"),  # spaces trimmed, inner space -> "_"
        ("\u3000Partial-Support\ufeff", "partial_support"),  # U+3000, U+FEFF are WS
        ("\u00a0implied \u2028- by\u2009data\t", "implied_by_data"),  # one run of WS/hyphens
        ("\ufeffoverclaim", "overclaim"),  # str.strip() keeps U+FEFF (not isspace): now trimmed
        ("\x1cstrong_support", "\x1cstrong_support"),  # U+001C is not WS: kept, off-scale
        ("contradicted\x85", "contradicted\x85"),  # NEL kept
        ("not\x1fsupported", "not\x1fsupported"),  # U+001F is no separator either
        (" \x1d ", "\x1d"),  # WS trimmed around it, the U+001D itself stays: a (bad) label
        (" \t\u3000 ", None),  # nothing left: no verdict
        ("", None),
        (5, None),  # a non-string: no verdict
        (None, None),
    ],
)
def test_normalise_label(raw: object, expected: str | None) -> None:
    """§3.4 with the WS set of §4.1."""
    assert normalise_label(raw) == expected


def test_normalise_label_copies_a_str_subclass() -> None:
    """A ``str`` subclass whose methods raise is read as its characters (it raised before)."""
    assert normalise_label(HostileText(" Over-Claim ")) == "over_claim"


def test_openai_verdict_uses_the_same_normalisation() -> None:
    """The adapter keeps a label only when its normal form is one of the six (§8.6)."""
    plain = openai(completion('{"verdict": "\\u3000Strong Support "}'))
    analysis = plain.analyze_batch(PAYLOAD)["claims"][0]["individual_analyses"][0]
    assert analysis["verdict"] == "strong_support"
    for bad in NOT_WS:
        body = completion('{"verdict": "' + f"\\u{ord(bad):04x}" + 'strong_support"}')
        analysis = openai(body).analyze_batch(PAYLOAD)["claims"][0]["individual_analyses"][0]
        assert analysis["verdict"] is None  # off-scale: measured as no prediction
        assert analysis["summary"].startswith("unparsable model output: ")


def test_openai_reply_trim_and_fence() -> None:
    """The answer is "the message content, stripped" (§8.6) of WS only; a fence is found after
    trimming WS only."""
    assert openai(completion("\u00a0The answer is 4.\u3000\n")).answer("q", "c") == (
        "The answer is 4."
    )
    assert openai(completion("\x85The answer is 4.\x1c")).answer("q", "c") == (
        "\x85The answer is 4.\x1c"  # NEL and U+001C are not WS: part of the answer
    )
    fenced = completion('\u2003```json\n{"verdict": "overclaim"}\n```\u2003')
    analysis = openai(fenced).analyze_batch(PAYLOAD)["claims"][0]["individual_analyses"][0]
    assert analysis["verdict"] == "overclaim"
    hidden = completion('\x1e```json\n{"verdict": "overclaim"}\n```')  # U+001E: no fence start
    analysis = openai(hidden).analyze_batch(PAYLOAD)["claims"][0]["individual_analyses"][0]
    assert analysis["verdict"] is None


def test_tolerance_specs_trim_ws_only() -> None:
    """A tolerance SPEC is trimmed of WS; ``0.01`` followed by NEL is a garbled VALUE (§9.8)."""
    parsed = gold.parse_tolerances(["\u00a0f1=0.01\u3000"])
    assert isinstance(parsed, gold.Tolerances)
    assert str(parsed.bare["f1"]) == "0.01"
    assert gold.parse_tolerances(["f1=0.01\x85"]) == "f1=0.01\x85"  # the offending spec
    assert gold.parse_tolerances(["\x1c0.5"]) == "\x1c0.5"


def test_keys_and_helpers_trim_ws_only() -> None:
    """Citation keys (§2.5) and the reference adapters' text helpers (§8.4)."""
    assert gold.canonical_key("\u2000 12 \u205f") == 12
    assert gold.canonical_key("\x1f12") == "\x1f12"  # not a digit string: stays text
    assert gold.parse_numeric_citations("[1, 2\u3000]") == [1, 2]  # pieces trimmed of WS
    assert gold.detect_citations("Drug A works [1,\x1c2].") == []  # U+001C: not a group
    assert gold.adapters.strip_markers("\u3000Drug A works.\u3000") == "Drug A works."
    assert gold.adapters.strip_markers("\x85Drug A works.") == "\x85Drug A works."


class _Labels:
    """A verdict system returning one fixed label for every pair."""

    def __init__(self, label: str) -> None:
        self.label = label

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def analyze_batch(self, payload: dict[str, Any]) -> dict[str, Any]:
        analysis = {"document_name": payload["documents"][0]["name"], "verdict": self.label}
        return {"claims": [{"individual_analyses": [analysis]}]}


@pytest.mark.parametrize(
    ("label", "exact", "off_scale"),
    [
        ("\u3000Strong-Support\ufeff", 1.0, {}),  # WS trimmed: the gold label strong_support
        ("\x1cStrong-Support", 0.0, {"\x1cstrong_support": 1}),  # kept: off-scale, counted
        ("strong_support\x85", 0.0, {"strong_support\x85": 1}),
    ],
)
def test_verdict_scorer(
    tmp_path: pathlib.Path, label: str, exact: float, off_scale: dict[str, int]
) -> None:
    """The one gold pair of ``qa_case`` is ``strong_support``; an off-scale prediction counts as
    a prediction (no ``n_no_prediction``) that is never exact (§3.4)."""
    write_case(tmp_path, "c1.json", qa_case())
    dataset = gold.load_dataset(tmp_path)
    adapter = LoadedAdapter(_Labels(label), "test", "test", ("verdicts",))
    result = score_verdict_accuracy(dataset, adapter, online=True)
    assert result.metrics["verdict_exact"] == exact
    assert result.metrics["n_no_prediction"] == 0
    assert result.detail["confusion"]["off_scale"] == off_scale
