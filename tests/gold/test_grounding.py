"""The grounding check and its text helpers (§6.4)."""

from __future__ import annotations

from citelens.gold import DEFAULT_ABSTAIN_MARKERS, check_grounding
from citelens.gold.grounding import contains, neg_norm, numbers_in


def test_numbers_in() -> None:
    assert numbers_in("1,000 and 1000") == ["1000"]
    assert numbers_in("0.50 2.0 007 -3") == ["0.5", "2", "7", "3"]
    assert numbers_in("1,2") == ["1", "2"]
    assert numbers_in("12,3456") == ["12", "3456"]  # not a thousands group


def test_neg_norm() -> None:
    assert neg_norm("I can't  say") == "i cannot say"
    assert neg_norm("It won’t and DOESN'T") == "it will not and does not"
    assert neg_norm("isn’t") == "is not"
    assert neg_norm("scan'tx") == "scan'tx"  # no word boundary before can't, none after n't


def test_contains_ignores_whitespace_and_case() -> None:
    assert contains("Take 5mg daily", "5 MG")
    assert not contains("anything", "   ")


def test_defaults() -> None:
    assert len(DEFAULT_ABSTAIN_MARKERS) == 24
    assert DEFAULT_ABSTAIN_MARKERS[0] == "not in the provided context"


def test_abstention_default_custom_empty() -> None:
    ok = check_grounding("Sorry, I can't answer that.", "ctx", answerable=False)
    assert ok.grounded and ok.abstained and ok.issues == ()
    custom = check_grounding("Unknown.", "ctx", answerable=False, abstain_markers=["unknown"])
    assert custom.abstained
    custom_miss = check_grounding(
        "The answer is not in the provided context.",
        "ctx",
        answerable=False,
        abstain_markers=["unknown"],
    )
    assert custom_miss.abstained is False
    empty = check_grounding("I don't know", "ctx", answerable=False, abstain_markers=[])
    assert empty.abstained is False
    assert empty.issues == ("unanswerable question — the answer did not abstain",)
    blank = check_grounding("anything", "ctx", answerable=False, abstain_markers=["  "])
    assert blank.abstained is False


def test_anchors_aliases_and_numbers() -> None:
    context = "Either party may terminate on ninety (90) days' notice under Section 8."
    result = check_grounding(
        "Ninety days notice is required, per clause 8.2, costing 500.",
        context,
        anchors=[{"value": "90 days", "aliases": ["ninety days"]}, {"value": "in writing"}],
        allowed_new_numbers=["8.2"],
    )
    assert result.anchors_missed == ("in writing",)
    assert result.ungrounded_numbers == ("500",)
    assert result.issues == (
        'missing answer fact "in writing"',
        'ungrounded number "500" — not in the provided context',
    )
    assert not result.grounded
    assert check_grounding("90 days", [context, "more"], anchors=["90 days"]).grounded
