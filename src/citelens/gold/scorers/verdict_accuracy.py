"""The verdict-accuracy scorer: verdicts, passages and consistency over repeated calls
(gold-harness.md §6.3)."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import CitationKey, GoldDataset, QACase, canonical_key
from citelens.gold._metrics import Confusion, mean, passage_status
from citelens.gold._ws import normalise_label
from citelens.gold.scorers._session import ScorerResult, Session, finish, pre_skip, skip

__all__ = ["normalise_label", "score_verdict_accuracy"]

_GUARD_PHRASES = (
    "could not be verified against the document",
    "no explicit textual statement was found",
    "no explicit textual support found",
)


def _analysis(resp: Mapping[str, Any], doc_name: str) -> Mapping[str, Any] | None:
    claims = resp.get("claims")
    if not isinstance(claims, list) or not claims or not isinstance(claims[0], Mapping):
        return None
    analyses = claims[0].get("individual_analyses")
    if not isinstance(analyses, list) or not analyses:
        return None
    for entry in analyses:
        if isinstance(entry, Mapping) and entry.get("document_name") == doc_name:
            return entry
    first = analyses[0]
    return first if isinstance(first, Mapping) else None


def _quote(passage: object) -> str:
    if isinstance(passage, str):
        return passage
    if isinstance(passage, Mapping):
        for key in ("quote", "text", "passage", "snippet"):
            if key in passage and passage[key] is not None:
                value = passage[key]
                return value if isinstance(value, str) else ""
    return ""


def _count(value: object) -> int | None:
    # a token count from the system's response: JSON gives Infinity, NaN (int() of them raises)
    # and integers of any size (the history column is int64); those count as absent
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    count = int(value)
    return count if -(2**63) < count < 2**63 else None


def _usage_counts(usage: Mapping[str, Any]) -> dict[str, int]:
    def num(*values: object) -> int:
        for v in values:
            count = _count(v)
            if count is not None:
                return count
        return 0

    def nested(name: str) -> object:
        inner = usage.get(name)
        return inner.get("reasoning_tokens") if isinstance(inner, Mapping) else None

    inp = num(usage.get("prompt_tokens"), usage.get("input_tokens"))
    out = num(usage.get("completion_tokens"), usage.get("output_tokens"))
    reasoning = num(
        usage.get("reasoning_tokens"),
        nested("completion_tokens_details"),
        nested("output_tokens_details"),
    )
    total_raw = _count(usage.get("total_tokens"))
    total = total_raw if total_raw is not None else inp + out
    return {"input": inp, "output": out, "reasoning": reasoning, "total": total}


def _payload(case: QACase, claim_text: str, key: CitationKey, name: str, text: str) -> Any:
    return {
        "claims": [claim_text],
        "documents": [{"name": name, "type": "text", "content": text}],
        "citationMapping": {str(key): {"refId": f"upload:{name}"}},
        "claimCitations": [{"citations": [key]}],
        "document_name": f"eval-{case.id}",
    }


def score_verdict_accuracy(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool, repeats: int = 1
) -> ScorerResult:
    """Predicted verdicts against gold verdicts, passages, consistency, tokens (§6.3)."""
    sid = "verdict-accuracy"
    skipped = pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = [c for c in dataset.qa if c.gold_verdicts and c.references]
    if not cases:
        return skip(sid, "no_cases", "no QA case has goldVerdicts and references")
    res = ScorerResult(sid, "online", "passed")
    session = Session(adapter)
    confusion = Confusion()
    exact_n = adjacent_n = 0
    n_verdicts = n_pairs = n_no_prediction = 0
    verified = hallucinated = empty = 0
    downgrades = 0
    any_completed = False
    shares: list[float] = []
    usage_calls = 0
    usage_totals = {"input": 0, "output": 0, "reasoning": 0, "total": 0}
    pairs: list[dict[str, Any]] = []
    for case in cases:
        for gold in case.gold_verdicts:
            n_verdicts += 1
            key = canonical_key(gold.citation)
            ref = case.reference(key)
            if ref is None:  # validation guarantees it; defensive
                continue
            template = _payload(case, gold.claim_text, key, ref.name, ref.text)
            runs: list[str | None] = []
            analyses: list[Mapping[str, Any] | None] = []
            passages: list[dict[str, Any]] = []
            for k in range(1, repeats + 1):
                call = session.call("analyze_batch", copy.deepcopy(template))
                error = call.error
                if call.ok and not isinstance(call.value, Mapping):
                    error = "InvalidResponse: response is not a mapping"
                if error is not None:
                    res.failures.append(f'{case.id} "{gold.claim_text[:30]}…" run {k}: {error}')
                    break
                any_completed = True
                resp: Mapping[str, Any] = call.value
                usage = resp.get("usage")
                if isinstance(usage, Mapping):
                    usage_calls += 1
                    for name, value in _usage_counts(usage).items():
                        usage_totals[name] += value
                analysis = _analysis(resp, ref.name)
                analyses.append(analysis)
                runs.append(normalise_label(analysis.get("verdict")) if analysis else None)
                raw_passages = analysis.get("passages") if analysis else None
                if isinstance(raw_passages, list):
                    for passage in raw_passages:
                        quote = _quote(passage)
                        status = passage_status(quote, ref.text)
                        if status == "verified":
                            verified += 1
                        elif status == "hallucinated":
                            hallucinated += 1
                        else:
                            empty += 1
                        passages.append({"run": k, "quote": quote[:120], "status": status})
            predicted = runs[0] if runs else None
            if predicted is None:
                n_no_prediction += 1
                res.failures.append(f'no prediction for "{gold.claim_text[:40]}…" in {case.id}')
            else:
                n_pairs += 1
            exact, adjacent = confusion.add(gold.verdict, predicted)
            exact_n += exact
            adjacent_n += adjacent
            summary = ""
            downgraded = False
            first = analyses[0] if analyses else None
            if first is not None:
                raw_summary = first.get("summary")
                summary = raw_summary if isinstance(raw_summary, str) else ""
                lowered = summary.lower()
                downgraded = any(phrase in lowered for phrase in _GUARD_PHRASES)
            downgrades += downgraded
            if repeats > 1 and runs:
                counts: dict[str | None, int] = {}
                for v in runs:
                    counts[v] = counts.get(v, 0) + 1
                shares.append(max(counts.values()) / len(runs))
            pairs.append(
                {
                    "case": case.id,
                    "claim": gold.claim_text[:60],
                    "gold": gold.verdict,
                    "predicted": predicted,
                    "runs": runs,
                    "exact": exact,
                    "adjacent": adjacent,
                    "downgraded": downgraded,
                    "summary": summary[:200],
                    "passages": passages,
                }
            )
    checked = verified + hallucinated
    metrics: dict[str, float | int | None] = {
        "verdict_exact": exact_n / n_verdicts if any_completed and n_verdicts else None,
        "verdict_adjacency": adjacent_n / n_verdicts if any_completed and n_verdicts else None,
        "hallucination_rate": hallucinated / checked if checked else None,
        "n_verdicts": n_verdicts,
        "n_pairs": n_pairs,
        "n_no_prediction": n_no_prediction,
        "n_passages": checked,
        "n_passages_hallucinated": hallucinated,
        "n_passages_empty": empty,
        "guard_downgrades": downgrades,
        "repeats": repeats,
    }
    if repeats > 1:
        metrics["consistency"] = mean(shares)
    session.latency(metrics)
    _tokens(adapter, metrics, usage_calls, usage_totals)
    res.metrics = metrics
    res.detail = {"confusion": confusion.to_dict(), "pairs": pairs}
    return finish(res)


def _tokens(
    adapter: LoadedAdapter,
    metrics: dict[str, float | int | None],
    usage_calls: int,
    usage_totals: dict[str, int],
) -> None:
    calls = usage_calls
    totals = dict(usage_totals)
    hooked = adapter.hook("token_totals")
    if hooked is not None:
        value = hooked.value if hooked.ok else None
        calls = 0
        if isinstance(value, Mapping):
            counted = _usage_counts(value)
            raw_calls = value.get("calls")
            calls = (
                int(raw_calls)
                if isinstance(raw_calls, int | float) and not isinstance(raw_calls, bool)
                else 0
            )
            totals = counted
    if calls <= 0:
        return
    metrics["token_calls"] = calls
    metrics["tokens_input_total"] = totals["input"]
    metrics["tokens_output_total"] = totals["output"]
    metrics["tokens_reasoning_total"] = totals["reasoning"]
    metrics["tokens_total"] = totals["total"]
    metrics["tokens_per_claim"] = totals["total"] / calls
