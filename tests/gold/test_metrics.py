"""Metric primitives, hand-checked (§5)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from citelens.gold import (
    VERDICT_SCALE,
    canonical_key,
    claim_match,
    exact_set_match,
    jaccard,
    norm_claim_text,
    norm_passage,
    percentile,
    precision_recall_f1,
    round_metric,
    verdict_index,
)
from citelens.gold._metrics import Confusion, display_delta, display_value, mean, passage_status
from citelens.gold._registry import METRICS


def test_verdict_scale_order_and_adjacency() -> None:
    assert VERDICT_SCALE == (
        "strong_support",
        "partial_support",
        "implied_by_data",
        "overclaim",
        "not_supported",
        "contradicted",
    )
    assert verdict_index("overclaim") == 3
    assert verdict_index("Overclaim") is None
    conf = Confusion()
    assert conf.add("implied_by_data", "overclaim") == (False, True)
    assert conf.add("overclaim", "not_supported") == (False, True)
    assert conf.add("strong_support", "contradicted") == (False, False)
    assert conf.add("contradicted", "contradicted") == (True, True)
    assert conf.add("contradicted", "maybe") == (False, False)
    assert conf.add("contradicted", None) == (False, False)
    assert conf.to_dict()["off_scale"] == {"maybe": 1}
    assert conf.matrix[2][3] == 1 and conf.matrix[0][5] == 1 and conf.matrix[5][5] == 1


def test_norm_claim_text_and_claim_match() -> None:
    assert norm_claim_text("…versus placebo.1,2 µg ≥ É") == "versusplacebo12g"
    assert claim_match("Short one", "short ONE!")  # equality, no floor
    assert not claim_match("abc", "abcdef")  # containment needs 12 characters
    # "bloodpressure" (13) is inside the longer text: match both ways
    assert claim_match("Blood pressure", "Drug A lowered blood pressure.")
    assert claim_match("Drug A lowered blood pressure.", "blood-pressure")
    # "pressurefell" has exactly 12 characters: the floor is inclusive
    assert claim_match("pressure fell", "the pressure fell today")
    assert not claim_match("", "")
    assert not claim_match("...", "...")


def test_canonical_keys_sets() -> None:
    assert canonical_key(" 007 ") == 7
    assert canonical_key("Smith 2020") == "Smith 2020"
    assert canonical_key(True) == "True"
    assert exact_set_match([1, "2", 2], ["1", 2])
    assert not exact_set_match([1], ["Smith 2020"])
    # |{1,2} ∩ {2,3}| / |{1,2,3}| = 1/3
    assert jaccard([1, 2], ["2", 3]) == pytest.approx(1 / 3)
    assert jaccard([], []) == 1.0
    assert jaccard([], [1]) == 0.0


def test_greedy_prf_is_order_dependent() -> None:
    def match(p: str, g: str) -> bool:
        return p[0] == g[0]

    # pred "ab" takes gold "aa" first; "ac" then takes "ax"; tp = 2 of 3 preds, 2 of 2 gold
    p, r, f1, tp = precision_recall_f1(["ab", "ac", "zz"], ["aa", "ax"], match)
    assert (tp, p, r) == (2, 2 / 3, 1.0)
    assert f1 == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    # one-to-one: two predictions cannot share one gold item
    assert precision_recall_f1(["a1", "a2"], ["a0"], match)[3] == 1
    assert precision_recall_f1([], [], match)[:3] == (1.0, 1.0, 1.0)
    assert precision_recall_f1([], ["a"], match)[:3] == (0.0, 0.0, 0.0)
    assert precision_recall_f1(["a"], [], match)[:3] == (0.0, 1.0, 0.0)


def test_percentile_mean_round() -> None:
    values = list(range(1, 11))
    assert percentile(values, 50) == 6  # index min(9, 500 // 10 = 5) -> 6
    assert percentile(values, 95) == 10  # index min(9, 950 // 10 = 95) -> 10
    assert percentile([], 50) is None
    assert percentile([float("nan"), 3.0], 50) == 3.0
    assert mean([]) is None
    assert mean([0.1, 0.2, 0.3]) == pytest.approx(0.2)
    assert round_metric(0.00005) == 0.0001
    assert round_metric(0.12345) == 0.1235
    assert round_metric(2 / 3) == 0.6667
    assert round_metric(-0.00005) == -0.0001


def test_norm_passage_and_status() -> None:
    assert norm_passage("Reduced LDL by 58% (p<0.001).") == "reduced ldl by 58 p 0 001"
    assert norm_passage("5.8%") == "5 8"
    assert norm_passage("ﬁne Straße") == "fine strasse"
    ref = "The drug reduced LDL by 58% (p<0.001) in adults."
    assert passage_status("reduced LDL by 58%", ref) == "verified"
    assert passage_status("LDL", ref) == "verified"  # short quotes are checked too
    assert passage_status("reduced LDL by 5.8%", ref) == "hallucinated"
    assert passage_status("  ...  ", ref) == "empty"
    assert passage_status("uced LD", ref) == "verified"  # plain substring containment


def test_display_formats() -> None:
    assert display_value(0.1905, "rate") == "19.05%"
    assert display_value(1.0, "rate") == "100.00%"
    assert display_value(163.0, "ms") == "163"
    assert display_value(299.6667, "per_claim") == "299.6667"
    assert display_value(None, "rate") == "unmeasured"
    assert display_value(68, "count") == "68"
    assert display_delta(Decimal("0.025"), "rate") == "+2.50pp"
    assert display_delta(Decimal("-0.1667"), "rate") == "-16.67pp"
    assert display_delta(Decimal("-126"), "count") == "-126"
    assert display_delta(Decimal("-3.5"), "ms") == "-3.5"


def test_registry_directions() -> None:
    by_key = {m.qualified: m for m in METRICS}
    assert by_key["verdict-accuracy.hallucination_rate"].direction == "lower"
    assert by_key["claim-extraction.nonClaim_leakRate"].direction == "lower"
    assert by_key["claim-extraction.fidelityRate"].gate == "yes"
    assert by_key["verdict-accuracy.tokens_per_claim"].gate == "opt"
    assert by_key["citation-detection.n_claims"].direction == "none"
    assert len(by_key) == len(METRICS)
