"""The grounding scorer: answers checked against their sources, abstention on unanswerable
cases (gold-harness.md §6.4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset
from citelens.gold._grounding import check_grounding
from citelens.gold.scorers._session import ScorerResult, Session, finish, pre_skip, skip

__all__ = ["score_grounding"]


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
    skipped = pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = list(dataset.grounding)
    if not cases:
        return skip(sid, "no_cases", "no grounding case")
    res = ScorerResult(sid, "online", "passed")
    session = Session(adapter)
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
    return finish(res)
