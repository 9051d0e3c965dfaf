"""The simplification scorer (issue 13, rule 2): literal, hand-checked cases per rule."""

from __future__ import annotations

from typing import Any

import pytest

from citelens.gold import Anchor, GoldDataset, LoadedAdapter, SimplificationCase
from citelens.gold.scorers import score_simplification
from citelens.gold.scorers.simplification import (
    bullets,
    check_simplification,
    contract_violations,
    fabricated_numbers,
    grade,
    numbers,
    syllables,
)


def _case(
    text: str = "Take 500 mg for 5 days.",
    anchors: tuple[Anchor, ...] = (),
    allowed: tuple[str | int | float, ...] = (),
    max_bullets: int | None = None,
    max_words: int | None = None,
    case_id: str = "s1",
) -> SimplificationCase:
    options = (("audience", "Adult"),)
    return SimplificationCase(
        case_id, f"{case_id}.json", text, options, anchors, allowed, max_bullets, max_words
    )


def test_numbers_drop_leading_zeros_and_keep_fractions() -> None:
    # 007 -> 7, 0.50 keeps its fraction as written, 00.5 -> 0.5, repeats counted once
    assert numbers("007 and 0.50 and 00.5, 7 again, 1,2") == ["7", "0.50", "0.5", "1", "2"]


def test_fabricated_numbers_excuse_source_anchors_aliases_and_allowed() -> None:
    case = _case(
        text="Take 500 mg for 05 days.",
        anchors=(Anchor("two weeks", ("14 days",)),),
        allowed=("3", 2),
    )
    # output numbers 1, 500, 5, 3, 14, 2, 38: source gives 500 and 5 (05 -> 5), the alias 14,
    # the allowed list 3 and 2; 1 and 38 remain
    out = "1. Take 500 mg 3 times a day for 5 days (14 days, 2 weeks), fever 38"
    assert fabricated_numbers(out, case) == ["1", "38"]


def test_anchor_matches_value_or_alias_ignoring_case_and_all_whitespace() -> None:
    case = _case(
        anchors=(Anchor("500 mg", ("500 milligrams",)), Anchor("Amoxicillin"), Anchor("zinc"))
    )
    # "500mg" = "500 mg" without whitespace; "AMOXI cillin" folds and loses its space too
    check = check_simplification(case, "AMOXI cillin 500mg")
    assert check.missed == (2,)


def test_bullets_of_each_marker() -> None:
    text = "- a\n• b\n* c\n1. d\n2) e\n-f\n**bold**\n10. g\nplain"
    # "-f" and "**bold**" have no space after the marker; "plain" has no marker
    assert bullets(text) == ["a", "b", "c", "d", "e", "g"]


def test_length_contract() -> None:
    assert contract_violations("no list here", _case()) == []  # no contract declared
    assert contract_violations("no list here", _case(max_bullets=3)) == [
        "no bullets (a bulleted answer is expected)"
    ]
    out = "- one two three\n- a b\n- c\n- d e f g"
    # 4 bullets > 3; bullet 1 has 3 words > 2, bullet 4 has 4 words > 2
    assert contract_violations(out, _case(max_bullets=3, max_words=2)) == [
        "4 bullets (max 3)",
        "bullet 1 has 3 words (max 2)",
        "bullet 4 has 4 words (max 2)",
    ]


def test_syllables_vowel_groups_with_silent_e() -> None:
    assert syllables("take") == 1  # a, e = 2 groups, final e silent -> 1
    assert syllables("the") == 1  # one group only: the e stays
    assert syllables("beautiful") == 3  # eau, i, u
    assert syllables("rhythm") == 1  # y is a vowel: one group
    assert syllables("psst") == 1  # no vowel: at least 1


def test_flesch_kincaid_grade() -> None:
    # "The cat sat. The dog ran." 6 words, 2 sentences, 6 syllables:
    # 0.39 * 3 + 11.8 * 1 - 15.59 = 1.17 + 11.8 - 15.59 = -2.62
    assert grade("The cat sat. The dog ran.") == pytest.approx(-2.62)
    # "Take amoxicillin.": take (a, e: 2 groups, silent e -> 1), amoxicillin (a, o, i, i, i
    # -> 5): 2 words, 1 sentence, 6 syllables: 0.39 * 2 + 11.8 * 3 - 15.59 = 20.59
    assert grade("Take amoxicillin.") == pytest.approx(20.59)
    assert grade("500 / 38") is None  # no word


class _Simplifier:
    def __init__(self, replies: dict[str, Any]) -> None:
        self.replies = replies
        self.requests: list[Any] = []

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def simplify(self, request: Any) -> Any:
        self.requests.append(request)
        return self.replies[request["text"]]


def _dataset(*cases: SimplificationCase) -> GoldDataset:
    ids = tuple(c.id for c in cases)
    return GoldDataset("mem", (), (), {}, None, "sha256:0", ids, (), cases)


def test_scorer_metrics_and_failures() -> None:
    a = _case(
        text="Take 500 mg for 5 days.",
        anchors=(Anchor("500 mg"), Anchor("5 days")),
        max_bullets=2,
        case_id="a",
    )
    b = _case(text="Rest.", anchors=(Anchor("rest"),), case_id="b")
    sim = _Simplifier(
        {
            "Take 500 mg for 5 days.": {"text": "- Take 500 mg.\n- For 7 days."},
            "Rest.": "Please rest.",
        }
    )
    r = score_simplification(_dataset(a, b), LoadedAdapter(sim, "t", "t", ()), True)
    assert sim.requests[0] == {"text": "Take 500 mg for 5 days.", "audience": "Adult"}
    # anchors 2 + 1 = 3, "5 days" dropped: recall 1 - 1/3 = 2/3; 7 is fabricated
    m = r.metrics
    assert (m["n_cases"], m["n_anchors"], m["dropped_facts"]) == (2, 3, 1)
    assert (m["fabricated_numbers"], m["contract_violations"]) == (1, 0)
    assert m["anchor_recall"] == pytest.approx(2 / 3)
    # grades: a "Take 500 mg. For 7 days." words take, mg, for, days (4), 2 sentences,
    # syllables 1 + 1 (no vowel) + 1 + 1 = 4: 0.39 * 2 + 11.8 - 15.59 = -3.01;
    # b "Please rest." 2 words, 1 sentence, 1 + 1 syllables: 0.78 + 11.8 - 15.59 = -3.01
    assert m["mean_grade"] == pytest.approx(-3.01)
    assert r.failures == [
        'DROPPED FACT a: anchor "5 days" is missing',
        'FABRICATED NUMBER a: "7" is in the output but not in the source',
    ]
    assert r.detail["per_case"][0]["bullets"] == 2
    assert r.detail["per_case"][0]["grade"] == -3.01


def test_error_makes_rates_null_and_no_anchor_makes_recall_absent() -> None:
    a = _case(anchors=(Anchor("x"),), case_id="a")
    sim = _Simplifier({a.text: {"answer": "wrong key"}})
    r = score_simplification(_dataset(a), LoadedAdapter(sim, "t", "t", ()), True)
    assert r.failures == [
        "case a: simplify failed: InvalidResponse: simplify did not return a string or {text}"
    ]
    assert r.metrics["anchor_recall"] is None and r.metrics["mean_grade"] is None
    bare = _case(case_id="a")
    ok = _Simplifier({bare.text: "Fine."})
    r2 = score_simplification(_dataset(bare), LoadedAdapter(ok, "t", "t", ()), True)
    assert "anchor_recall" not in r2.metrics and r2.status == "passed"
