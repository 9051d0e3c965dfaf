"""The four scorers (gold-harness.md §6): one citation-detection pass and three online ones."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from citelens.gold._adapters import AdapterCall, LoadedAdapter
from citelens.gold._cases import CitationKey, GoldDataset, QACase, canonical_key
from citelens.gold._citations import detect_citations
from citelens.gold._grounding import check_grounding
from citelens.gold._metrics import (
    Confusion,
    claim_match,
    exact_set_match,
    jaccard,
    mean,
    norm_claim_text,
    passage_status,
    percentile,
    precision_recall_f1,
    round_metric,
)
from citelens.gold._registry import SCORERS, scorer_metrics

__all__ = [
    "ScorerResult",
    "normalise_label",
    "run_scorers",
    "score_citation_detection",
    "score_claim_extraction",
    "score_grounding",
    "score_verdict_accuracy",
]

_CAPABILITY = {
    "claim-extraction": ("claims", "split_claims"),
    "verdict-accuracy": ("verdicts", "analyze_batch"),
    "grounding": ("grounding", "answer"),
}
_GUARD_PHRASES = (
    "could not be verified against the document",
    "no explicit textual statement was found",
    "no explicit textual support found",
)
_LABEL_SEP = re.compile(r"[\s\-]+")


@dataclass
class ScorerResult:
    """One scorer's entry: status, unrounded metrics (``None`` = unmeasured), failures, detail."""

    id: str
    mode: str
    status: str
    metrics: dict[str, float | int | None] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)
    skip_code: str | None = None
    reason: str | None = None

    @property
    def ran(self) -> bool:
        """True when the scorer ran (passed or failed)."""
        return self.status in ("passed", "failed")


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _r(value: float | None) -> float | None:
    return None if value is None else round_metric(value)


def _ordered(scorer: str, metrics: dict[str, float | int | None]) -> dict[str, float | int | None]:
    return {
        spec.name: metrics[spec.name] for spec in scorer_metrics(scorer) if spec.name in metrics
    }


def _finish(result: ScorerResult) -> ScorerResult:
    result.metrics = _ordered(result.id, result.metrics)
    result.status = "failed" if result.failures else "passed"
    return result


def _keys(values: tuple[CitationKey, ...] | list[CitationKey]) -> list[CitationKey]:
    return [canonical_key(v) for v in values]


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
            gold = _keys(claim.citations)
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
                    f'{case.id}: claim "{claim.text[:60]}": expected {_compact(gold)} '
                    f"got {_compact(detected)}"
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
                        f"style {item.style}: expected {_compact(_keys(item.expected))} "
                        f"got {_compact(detected)}"
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
                res.notes.append(f"known gap {item.style} now yields {_compact(detected)}")
            counts[status] += 1
            gaps.append(
                {
                    "style": item.style,
                    "status": status,
                    "detected": detected,
                    "target": None if item.target_expected is None else _keys(item.target_expected),
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
    return _finish(res)


def _skip(scorer: str, code: str, reason: str) -> ScorerResult:
    return ScorerResult(scorer, "online", "skipped", skip_code=code, reason=reason)


def _availability(adapter: LoadedAdapter) -> str | None:
    """``None`` when available, else the skip reason."""
    call = adapter.call("online_available")
    if not call.ok:
        return f"online_available() raised {call.error}"
    if call.value:
        return None
    hint = adapter.call("online_config_hint")
    return str(hint.value) if hint.ok and hint.value is not None else ""


def _pre_skip(scorer: str, adapter: LoadedAdapter, online: bool) -> ScorerResult | None:
    if not online:
        return _skip(scorer, "offline", "online scorer (pass --online)")
    capability, export = _CAPABILITY[scorer]
    if capability not in adapter.capabilities:
        return _skip(
            scorer,
            "no_capability",
            f'adapter "{adapter.name}" has no {capability} capability (needs {export}())',
        )
    reason = _availability(adapter)
    if reason is not None:
        return _skip(scorer, "unavailable", reason)
    return None


class _Session:
    """Hooks, latency sample and response usage of one online scorer."""

    def __init__(self, adapter: LoadedAdapter) -> None:
        self.adapter = adapter
        self.started = False
        self.wall: list[float] = []

    def call(self, export: str, *args: Any) -> AdapterCall:
        if not self.started:
            self.started = True
            self.adapter.hook("reset_timing")
            self.adapter.hook("reset_tokens")
        result = self.adapter.call(export, *args)
        self.wall.append(result.elapsed_ms)
        return result

    def latency(self, metrics: dict[str, float | int | None]) -> None:
        sample: list[float] = list(self.wall)
        hooked = self.adapter.hook("call_latencies")
        if hooked is not None and hooked.ok and isinstance(hooked.value, list | tuple):
            sample = [
                float(v)
                for v in hooked.value
                if isinstance(v, int | float) and not isinstance(v, bool)
            ]
        p50 = percentile(sample, 50)
        p95 = percentile(sample, 95)
        if sample and p50 is not None and p95 is not None:
            metrics["latency_p50_ms"] = float(p50)
            metrics["latency_p95_ms"] = float(p95)
            metrics["latency_calls"] = len(sample)


def score_claim_extraction(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool
) -> ScorerResult:
    """Extracted claims against gold claims and non-claims (§6.2)."""
    sid = "claim-extraction"
    skipped = _pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = [c for c in dataset.qa if c.manuscript and c.gold_claims]
    if not cases:
        return _skip(sid, "no_cases", "no QA case has a manuscript and goldClaims")
    res = ScorerResult(sid, "online", "passed")
    session = _Session(adapter)
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
                "citation_jaccard": _r(case_j),
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
    return _finish(res)


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


def normalise_label(value: object) -> str | None:
    """A predicted verdict label: stripped, lowercased, spaces/hyphens → ``_`` (§3.4)."""
    if not isinstance(value, str):
        return None
    label = _LABEL_SEP.sub("_", value.strip().lower())
    return label or None


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


def _usage_counts(usage: Mapping[str, Any]) -> dict[str, int]:
    def num(*values: object) -> int:
        for v in values:
            if isinstance(v, int | float) and not isinstance(v, bool):
                return int(v)
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
    total_raw = usage.get("total_tokens")
    total = (
        int(total_raw)
        if isinstance(total_raw, int | float) and not isinstance(total_raw, bool)
        else inp + out
    )
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
    skipped = _pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = [c for c in dataset.qa if c.gold_verdicts and c.references]
    if not cases:
        return _skip(sid, "no_cases", "no QA case has goldVerdicts and references")
    res = ScorerResult(sid, "online", "passed")
    session = _Session(adapter)
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
    return _finish(res)


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


def _answer_text(resp: Any) -> str | None:
    if isinstance(resp, str):
        return resp
    if isinstance(resp, Mapping):
        for key in ("text", "answer"):
            if isinstance(resp.get(key), str):
                return str(resp[key])
    return None


def score_grounding(dataset: GoldDataset, adapter: LoadedAdapter, online: bool) -> ScorerResult:
    """Answers checked against their context: anchors, new numbers, abstention (§6.4)."""
    sid = "grounding"
    skipped = _pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = list(dataset.grounding)
    if not cases:
        return _skip(sid, "no_cases", "no grounding case")
    res = ScorerResult(sid, "online", "passed")
    session = _Session(adapter)
    errors = 0
    anchors_total = anchors_found = 0
    anchors_evaluated = False
    grounded = evaluated = 0
    abstained_n = unanswerable_evaluated = 0
    ungrounded = 0
    per_case: list[dict[str, Any]] = []
    for case in cases:
        call = session.call("answer", case.question, case.context)
        text = _answer_text(call.value) if call.ok else None
        if text is None:
            error = call.error or "InvalidResponse: answer is not a string or {text|answer}"
            res.failures.append(f"case {case.id}: answer failed: {error}")
            errors += 1
            continue
        check = check_grounding(
            text,
            case.context,
            question=case.question,
            anchors=case.anchors,
            allowed_new_numbers=case.allowed_new_numbers,
            answerable=case.answerable,
            abstain_markers=case.abstain_markers,
        )
        evaluated += 1
        grounded += check.grounded
        if case.answerable:
            if case.anchors:
                anchors_evaluated = True
                anchors_total += len(case.anchors)
                anchors_found += len(case.anchors) - len(check.anchors_missed)
            ungrounded += len(check.ungrounded_numbers)
        else:
            unanswerable_evaluated += 1
            abstained_n += bool(check.abstained)
        res.failures.extend(f"GROUNDING {case.id}: {issue}" for issue in check.issues)
        per_case.append(
            {
                "case": case.id,
                "answerable": case.answerable,
                "anchors": len(case.anchors) if case.answerable else 0,
                "anchors_missed": list(check.anchors_missed),
                "ungrounded_numbers": list(check.ungrounded_numbers),
                "abstained": None if case.answerable else check.abstained,
                "issues": list(check.issues),
                "answer": text[:600],
            }
        )
    n_unanswerable = sum(1 for c in cases if not c.answerable)
    metrics: dict[str, float | int | None] = {
        "grounded_rate": grounded / evaluated if evaluated else None,
        "ungrounded_numbers": ungrounded,
        "answer_errors": errors,
        "n_cases": len(cases),
        "n_answerable": len(cases) - n_unanswerable,
        "n_unanswerable": n_unanswerable,
    }
    if any(c.answerable and c.anchors for c in cases):
        metrics["answer_recall"] = anchors_found / anchors_total if anchors_evaluated else None
    if n_unanswerable:
        metrics["abstention_rate"] = (
            abstained_n / unanswerable_evaluated if unanswerable_evaluated else None
        )
    session.latency(metrics)
    res.metrics = metrics
    res.detail = {"per_case": per_case}
    return _finish(res)


def run_scorers(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool, repeats: int = 1
) -> list[ScorerResult]:
    """Run the four scorers in order; returns one entry per scorer."""
    results = [
        score_citation_detection(dataset),
        score_claim_extraction(dataset, adapter, online),
        score_verdict_accuracy(dataset, adapter, online, repeats),
        score_grounding(dataset, adapter, online),
    ]
    assert [r.id for r in results] == list(SCORERS)
    return results
