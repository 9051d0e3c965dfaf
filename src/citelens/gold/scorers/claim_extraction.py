"""The claim-extraction scorer: extracted claims against gold claims and non-claims
(gold-harness.md §6.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset
from citelens.gold._metrics import (
    claim_match,
    jaccard,
    mean,
    norm_claim_text,
    precision_recall_f1,
    round_metric,
)
from citelens.gold.scorers._session import ScorerResult, Session, finish, pre_skip, rounded, skip

__all__ = ["score_claim_extraction"]


def score_claim_extraction(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool
) -> ScorerResult:
    """Extracted claims against gold claims and non-claims (§6.2)."""
    sid = "claim-extraction"
    skipped = pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = [c for c in dataset.qa if c.manuscript and c.gold_claims]
    if not cases:
        return skip(sid, "no_cases", "no QA case has a manuscript and goldClaims")
    res = ScorerResult(sid, "online", "passed")
    session = Session(adapter)
    split_errors: list[str] = []
    precisions: list[float] = []
    recalls: list[float] = []
    f1s: list[float] = []
    case_jaccards: list[float] = []
    total_leaked = 0
    leaked_nc = 0
    nc_total = 0
    nc_evaluated = False
    infidelities_total = 0
    n_extracted = 0
    per_case: list[dict[str, Any]] = []
    for case in cases:
        manuscript = case.manuscript or ""
        call = session.call("split_claims", manuscript)
        items: list[tuple[str, list[object]]] | None = None
        error = call.error
        if call.ok:
            items, error = _claim_items(call.value)
        if items is None:
            split_errors.append(f"case {case.id}: split_claims failed: {error}")
            continue
        texts = [t for t, _ in items]
        gold_texts = [g.text for g in case.gold_claims]
        p, r, f1, _tp = precision_recall_f1(texts, gold_texts, claim_match)
        precisions.append(p)
        recalls.append(r)
        f1s.append(f1)
        leaked_items = sum(
            1 for t in texts if any(claim_match(t, nc) for nc in case.gold_non_claims)
        )
        leaked_non_claims = sum(
            1 for nc in case.gold_non_claims if any(claim_match(t, nc) for t in texts)
        )
        total_leaked += leaked_items
        leaked_nc += leaked_non_claims
        if case.gold_non_claims:
            nc_evaluated = True
            nc_total += len(case.gold_non_claims)
        agreements: list[float] = []
        for gold in case.gold_claims:
            for text, cites in items:
                if claim_match(text, gold.text):
                    agreements.append(jaccard(cites, gold.citations))
                    break
        case_j = mean(agreements)
        if case_j is not None:
            case_jaccards.append(case_j)
        norm_source = norm_claim_text(manuscript)
        infidel = [
            t
            for t in texts
            if len(norm_claim_text(t)) >= 12 and norm_claim_text(t) not in norm_source
        ]
        infidelities_total += len(infidel)
        n_extracted += len(items)
        per_case.append(
            {
                "case": case.id,
                "precision": round_metric(p),
                "recall": round_metric(r),
                "f1": round_metric(f1),
                "citation_jaccard": rounded(case_j),
                "extracted": len(items),
                "leaked_items": leaked_items,
                "leaked_non_claims": leaked_non_claims,
                "infidelities": [t[:80] for t in infidel],
            }
        )
    metrics: dict[str, float | int | None] = {
        "f1": mean(f1s),
        "precision": mean(precisions),
        "recall": mean(recalls),
        "citationJaccardMean": mean(case_jaccards),
        "totalLeaked": total_leaked,
        "fidelityRate": None if n_extracted == 0 else 1 - infidelities_total / n_extracted,
        "totalInfidelities": infidelities_total,
        "splitErrors": len(split_errors),
        "n_extracted": n_extracted,
        "casesEvaluated": len(per_case),
    }
    if any(c.gold_non_claims for c in cases):
        metrics["nonClaim_leakRate"] = leaked_nc / nc_total if nc_evaluated else None
    session.latency(metrics)
    res.metrics = metrics
    res.failures = list(split_errors)
    if infidelities_total > 0:
        res.failures.append(f"{infidelities_total} extracted claim(s) not verbatim from the source")
    if total_leaked > 0:
        res.failures.append(f"{total_leaked} non-claim(s) leaked into extraction")
    res.detail = {"per_case": per_case}
    return finish(res)


def _claim_items(resp: Any) -> tuple[list[tuple[str, list[object]]] | None, str | None]:
    if not isinstance(resp, Mapping):
        return None, "InvalidResponse: response is not a mapping"
    raw = resp.get("claims")
    if raw is None:
        return [], None
    if not isinstance(raw, list):
        return None, "InvalidResponse: claims is not a list"
    items: list[tuple[str, list[object]]] = []
    for i, item in enumerate(raw):
        if isinstance(item, str):
            items.append((item, []))
            continue
        if isinstance(item, Mapping) and isinstance(item.get("text"), str):
            cites = item.get("citations")
            items.append((item["text"], list(cites) if isinstance(cites, list) else []))
            continue
        return None, f"InvalidResponse: claim item {i} has no text"
    return items, None
