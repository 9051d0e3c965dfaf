"""The offline scorer: citation detection on gold claims and the style fixture (gold-harness.md
§6.1)."""

from __future__ import annotations

from typing import Any

from citelens.gold._cases import GoldDataset
from citelens.gold._citations import detect_citations
from citelens.gold._metrics import exact_set_match, jaccard, mean, round_metric
from citelens.gold.scorers._session import ScorerResult, compact, finish, keys_of

__all__ = ["score_citation_detection"]


def score_citation_detection(dataset: GoldDataset) -> ScorerResult:
    """The offline scorer: detected citations of every gold claim and fixture item (§6.1)."""
    res = ScorerResult("citation-detection", "offline", "passed")
    per_claim: list[dict[str, Any]] = []
    claim_failures: list[str] = []
    exacts: list[float] = []
    jaccards: list[float] = []
    for case in dataset.qa:
        for claim in case.gold_claims:
            detected = detect_citations(claim.original_text)
            gold = keys_of(claim.citations)
            exact = exact_set_match(detected, gold)
            j = jaccard(detected, gold)
            exacts.append(1.0 if exact else 0.0)
            jaccards.append(j)
            per_claim.append(
                {
                    "case": case.id,
                    "claim": claim.text[:60],
                    "gold": gold,
                    "detected": detected,
                    "exact": exact,
                    "jaccard": round_metric(j),
                }
            )
            if not exact:
                claim_failures.append(
                    f'{case.id}: claim "{claim.text[:60]}": expected {compact(gold)} '
                    f"got {compact(detected)}"
                )
    metrics: dict[str, float | int | None] = {"n_claims": len(per_claim)}
    if per_claim:
        metrics["perClaim_exactSetRate"] = sum(exacts) / len(exacts)
        metrics["perClaim_jaccardMean"] = mean(jaccards)
    styles: list[dict[str, Any]] = []
    gaps: list[dict[str, Any]] = []
    style_failures: list[str] = []
    if dataset.fixture is not None:
        counts = {"open": 0, "closed": 0, "changed": 0}
        passes = 0
        supported = 0
        for item in dataset.fixture:
            detected = detect_citations(item.text)
            if not item.known_gap:
                supported += 1
                ok = exact_set_match(detected, item.expected)
                passes += ok
                styles.append({"style": item.style, "pass": ok, "detected": detected})
                if not ok:
                    style_failures.append(
                        f"style {item.style}: expected {compact(keys_of(item.expected))} "
                        f"got {compact(detected)}"
                    )
                continue
            if exact_set_match(detected, item.expected):
                status = "open"
            elif item.target_expected is not None and exact_set_match(
                detected, item.target_expected
            ):
                status = "closed"
                res.notes.append(
                    f"known gap {item.style} is now detected as targeted — promote it to a "
                    "supported style"
                )
            else:
                status = "changed"
                res.notes.append(f"known gap {item.style} now yields {compact(detected)}")
            counts[status] += 1
            gaps.append(
                {
                    "style": item.style,
                    "status": status,
                    "detected": detected,
                    "target": None
                    if item.target_expected is None
                    else keys_of(item.target_expected),
                }
            )
        if supported:
            metrics["supportedStyle_accuracy"] = passes / supported
        metrics["n_supported_styles"] = supported
        metrics["knownGap_open"] = counts["open"]
        metrics["knownGap_closed"] = counts["closed"]
        metrics["knownGap_changed"] = counts["changed"]
    res.metrics = metrics
    res.failures = claim_failures + style_failures
    res.detail = {
        "per_claim": per_claim,
        "styles": styles,
        "known_gaps": gaps,
        "known_gap_styles": [g["style"] for g in gaps],
    }
    return finish(res)
