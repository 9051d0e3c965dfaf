"""Scorers with deterministic test adapters; expected values worked out by hand (§6, §7)."""

from __future__ import annotations

import pathlib

import pytest

from citelens.gold import check_adapter, load_dataset
from citelens.gold.scorers import (
    score_citation_detection,
    score_claim_extraction,
    score_grounding,
    score_verdict_accuracy,
)

from ._helpers import write_case

MOD = "gold._test_adapters"


def _dataset(tmp: pathlib.Path) -> pathlib.Path:
    write_case(
        tmp,
        "c1.json",
        {
            "id": "c1",
            "manuscript": "Alpha beta gamma delta one.1 Epsilon zeta eta theta two.2 "
            "Background sentence here.",
            "goldClaims": [
                {
                    "originalText": "Alpha beta gamma delta one.1",
                    "text": "Alpha beta gamma delta one",
                    "citations": [1],
                },
                {
                    "originalText": "Epsilon zeta eta theta two.2",
                    "text": "Epsilon zeta eta theta two",
                    "citations": [2],
                },
            ],
            "goldNonClaims": ["Background sentence here."],
            "references": {
                "1": {"name": "R1", "text": "Alpha beta gamma delta one is true."},
                "2": {"name": "R2", "text": "Unrelated."},
            },
            "goldVerdicts": [
                {
                    "claimText": "Alpha beta gamma delta one",
                    "citation": 1,
                    "verdict": "strong_support",
                },
                {
                    "claimText": "Epsilon zeta eta theta two",
                    "citation": "2",
                    "verdict": "not_supported",
                },
            ],
        },
    )
    write_case(
        tmp,
        "c2.json",
        {
            "id": "c2",
            "manuscript": "Kappa lambda mu nu xi omicron.3",
            "goldClaims": [
                {
                    "originalText": "Kappa lambda mu nu xi omicron.3",
                    "text": "Kappa lambda mu nu xi omicron",
                    "citations": [3, 4],
                }
            ],
            "references": {"3": {"name": "R3", "text": "Kappa text"}},
            "goldVerdicts": [
                {
                    "claimText": "Kappa lambda mu nu xi omicron",
                    "citation": 3,
                    "verdict": "overclaim",
                }
            ],
        },
    )
    for cid, question, ctx, extra in (
        (
            "g1",
            "How long is the notice?",
            "Notice of 90 days is required.",
            {"answerAnchors": [{"value": "90 days"}]},
        ),
        ("g2", "What price applies?", "Plans are billed monthly.", {"answerable": False}),
        ("g3", "Who signs?", "The director signs.", {}),
    ):
        write_case(
            tmp,
            f"{cid}.json",
            {"id": cid, "kind": "grounding", "question": question, "context": ctx, **extra},
        )
    return tmp


def _adapter(attr: str):  # type: ignore[no-untyped-def]
    check = check_adapter(f"{MOD}:{attr}")
    assert check.adapter is not None, check
    return check.adapter


def test_citation_detection_failures_and_absent_rates(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    res = score_citation_detection(ds)
    # c2's claim carries [3] but gold says [3, 4]: exact 2/3 claims; jaccard (1 + 1 + 1/2) / 3
    assert res.metrics["n_claims"] == 3
    assert res.metrics["perClaim_exactSetRate"] == pytest.approx(2 / 3)
    assert res.metrics["perClaim_jaccardMean"] == pytest.approx(2.5 / 3)
    assert "supportedStyle_accuracy" not in res.metrics  # no fixture
    assert "knownGap_open" not in res.metrics
    assert res.failures == ['c2: claim "Kappa lambda mu nu xi omicron": expected [3,4] got [3]']
    assert res.status == "failed"


def test_claim_extraction_hand_worked(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    res = score_claim_extraction(ds, _adapter("Scripted"), online=True)
    m = res.metrics
    # c1: 3 predictions, 2 gold, tp 1: P = 1/3, R = 1/2, F1 = 2PR/(P+R) = 0.4; c2 split error
    assert m["precision"] == pytest.approx(1 / 3)
    assert m["recall"] == pytest.approx(0.5)
    assert m["f1"] == pytest.approx(0.4)
    # gold claim A is first matched by the plain-string item (citations []): jaccard 0
    assert m["citationJaccardMean"] == 0.0
    assert m["nonClaim_leakRate"] == 1.0  # 1 leaked of 1 gold non-claim
    assert m["totalLeaked"] == 1
    assert m["totalInfidelities"] == 1
    assert m["fidelityRate"] == pytest.approx(1 - 1 / 3)
    assert (m["splitErrors"], m["n_extracted"], m["casesEvaluated"]) == (1, 3, 1)
    assert m["latency_calls"] == 2  # both calls timed by the harness, the failed one too
    assert res.failures == [
        "case c2: split_claims failed: RuntimeError: boom",
        "1 extracted claim(s) not verbatim from the source",
        "1 non-claim(s) leaked into extraction",
    ]
    assert res.detail["per_case"][0]["infidelities"] == ["Invented claim not in source at all"]


def test_verdict_accuracy_hand_worked_with_repeats(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    adapter = _adapter("Scripted")
    res = score_verdict_accuracy(ds, adapter, online=True, repeats=2)
    m = res.metrics
    # pairs: A strong→strong (exact), B no prediction (wrong), C overclaim→"maybe" (off-scale)
    assert m["verdict_exact"] == pytest.approx(1 / 3)
    assert m["verdict_adjacency"] == pytest.approx(1 / 3)
    # passages: A run 1 verified + hallucinated + empty, A run 2 verified → 1 / (2 + 1)
    assert m["hallucination_rate"] == pytest.approx(1 / 3)
    assert (m["n_passages"], m["n_passages_hallucinated"], m["n_passages_empty"]) == (3, 1, 1)
    # consistency: A runs (strong, partial) → 1/2; C runs (maybe, maybe) → 1; mean 0.75
    assert m["consistency"] == 0.75
    assert (m["n_verdicts"], m["n_pairs"], m["n_no_prediction"]) == (3, 2, 1)
    assert (m["guard_downgrades"], m["repeats"]) == (1, 2)
    # tokens from usage: (10 + 5 = 15) + 11 = 26 over 2 calls
    assert m["token_calls"] == 2
    assert (m["tokens_input_total"], m["tokens_output_total"]) == (17, 8)
    assert (m["tokens_reasoning_total"], m["tokens_total"]) == (2, 26)
    assert m["tokens_per_claim"] == 13.0
    assert res.failures == [
        'c1 "Epsilon zeta eta theta two…" run 1: InvalidResponse: response is not a mapping',
        'no prediction for "Epsilon zeta eta theta two…" in c1',
    ]
    conf = res.detail["confusion"]
    assert conf["matrix"][0][0] == 1 and sum(map(sum, conf["matrix"])) == 1
    assert conf["off_scale"] == {"maybe": 1}
    assert res.detail["pairs"][0]["runs"] == ["strong_support", "partial_support"]
    assert res.detail["pairs"][2]["downgraded"] is True
    assert adapter.obj.hooks == ["reset_timing", "reset_tokens"]
    # every call received a fresh payload with the canonical key
    assert list(m)[:3] == ["verdict_exact", "verdict_adjacency", "hallucination_rate"]


def test_grounding_hand_worked(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    res = score_grounding(ds, _adapter("Scripted"), online=True)
    m = res.metrics
    assert m["answer_recall"] == 1.0  # "90 days" found
    assert m["grounded_rate"] == 0.5  # g1 has an ungrounded 5; g2 abstained; g3 errored
    assert m["abstention_rate"] == 1.0
    assert (m["ungrounded_numbers"], m["answer_errors"]) == (1, 1)
    assert (m["n_cases"], m["n_answerable"], m["n_unanswerable"]) == (3, 2, 1)
    assert res.failures[0] == 'GROUNDING g1: ungrounded number "5" — not in the provided context'
    assert res.failures[1].startswith("case g3: answer failed: InvalidResponse: ")
    assert len(res.failures) == 2


def test_all_calls_failing_gives_null_not_zero(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    adapter = _adapter("Failing")
    ce = score_claim_extraction(ds, adapter, online=True).metrics
    assert ce["f1"] is None and ce["precision"] is None and ce["fidelityRate"] is None
    assert ce["nonClaim_leakRate"] is None and ce["citationJaccardMean"] is None
    assert ce["splitErrors"] == 2
    va = score_verdict_accuracy(ds, adapter, online=True)
    assert va.metrics["verdict_exact"] is None and va.metrics["hallucination_rate"] is None
    assert "consistency" not in va.metrics  # repeats = 1: absent
    assert va.metrics["n_no_prediction"] == 3
    assert (
        va.failures[0] == 'c1 "Alpha beta gamma delta one…" run 1: TimeoutError: system timed out'
    )
    gr = score_grounding(ds, adapter, online=True).metrics
    assert gr["grounded_rate"] is None and gr["answer_recall"] is None
    assert gr["abstention_rate"] is None and gr["answer_errors"] == 3


def test_hooks_async_latency_and_token_totals(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    adapter = _adapter("Hooked")
    va = score_verdict_accuracy(ds, adapter, online=True)
    m = va.metrics
    # call_latencies() = [5, 1, 3, 2]: sorted [1, 2, 3, 5]; p50 index 2 → 3, p95 index 3 → 5
    assert (m["latency_p50_ms"], m["latency_p95_ms"], m["latency_calls"]) == (3.0, 5.0, 4)
    assert m["tokens_total"] == 120 and m["tokens_per_claim"] == 30.0
    assert m["verdict_exact"] == pytest.approx(1 / 3)  # only C (overclaim) is right
    assert m["hallucination_rate"] is None  # no passage quoted
    gr = score_grounding(ds, adapter, online=True)
    assert gr.metrics["abstention_rate"] == 1.0
    assert adapter.obj.resets == 2
    skipped = score_claim_extraction(ds, adapter, online=True)
    assert (skipped.status, skipped.skip_code) == ("skipped", "no_capability")
    assert skipped.reason == 'adapter "hooked" has no claims capability (needs split_claims())'
    adapter.close()


def test_skip_reasons(tmp_path: pathlib.Path) -> None:
    ds = load_dataset(_dataset(tmp_path))
    offline = score_grounding(ds, _adapter("Scripted"), online=False)
    assert (offline.skip_code, offline.reason) == ("offline", "online scorer (pass --online)")
    un = score_grounding(ds, _adapter("Unavailable"), online=True)
    assert (un.skip_code, un.reason) == ("unavailable", "Set SYSTEM_URL to run online scorers.")
    ra = score_grounding(ds, _adapter("Raising"), online=True)
    assert ra.reason == "online_available() raised RuntimeError: no config"
    only_qa = tmp_path / "only-qa"
    write_case(only_qa, "x.json", {"id": "x", "goldClaims": []})
    none = score_grounding(load_dataset(only_qa), _adapter("Scripted"), online=True)
    assert (none.skip_code, none.reason) == ("no_cases", "no grounding case")
    ce = score_claim_extraction(load_dataset(only_qa), _adapter("Scripted"), online=True)
    assert ce.reason == "no QA case has a manuscript and goldClaims"
    va = score_verdict_accuracy(load_dataset(only_qa), _adapter("Scripted"), online=True)
    assert va.reason == "no QA case has goldVerdicts and references"
