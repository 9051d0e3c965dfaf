"""The retrieval scorer (issue 13, OpenGATE 0.9.0's rules): a fetched record checked for its
required fields, its ground-truth anchors and structural invariants.

Problems name the case, the check (``requireFields[i]``, ``anchors[i]`` and its kind) and the
field, never the record's values or its id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset, RetrievalAnchor, RetrievalCase
from citelens.gold.scorers._session import ScorerResult, Session, finish, pre_skip, skip

__all__ = ["check_record", "field_text", "score_retrieval"]

_RESIDUE = re.compile(r"\[object [A-Za-z]+\]")


def _empty(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() == ""
    if isinstance(value, list | tuple | Mapping):
        return len(value) == 0
    return False


def field_text(value: object) -> str:
    """A field's comparable text: arrays joined with spaces, lower-cased, whitespace collapsed."""

    def flat(item: object) -> str:
        if isinstance(item, str):
            return item
        if isinstance(item, list | tuple):
            return " ".join(flat(x) for x in item)
        return json.dumps(item, ensure_ascii=False, sort_keys=True, default=str)

    return " ".join(flat(value).lower().split())


def _anchor_problem(record: Mapping[str, Any], anchor: RetrievalAnchor) -> str | None:
    if anchor.field not in record:
        return "field is missing"
    value = record[anchor.field]
    if anchor.kind == "minCount":
        if not isinstance(value, list | tuple):
            return "field is not an array"
        return None if len(value) >= int(anchor.expected) else "array has too few items"
    got, want = field_text(value), field_text(str(anchor.expected))
    if anchor.kind == "equals":
        return None if got == want else "value is not equal"
    return None if want in got else "value is not contained"


def _residue(value: object) -> bool:
    if isinstance(value, str):
        return _RESIDUE.search(value) is not None
    if isinstance(value, list | tuple):
        return any(_residue(x) for x in value)
    if isinstance(value, Mapping):
        return any(_residue(x) for x in value.values())
    return False


def _structural(record: Mapping[str, Any]) -> list[str]:
    out = [
        f'structure: field "{name}" holds serialisation residue'
        for name, value in record.items()
        if _residue(value)
    ]
    authors = record.get("authors")
    if not (
        isinstance(authors, list | tuple)
        and authors
        and all(isinstance(a, str) and a.strip() for a in authors)
    ):
        out.append('structure: "authors" is not a non-empty array of non-empty strings')
    title = record.get("title")
    if not (isinstance(title, str) and title.strip()):
        out.append('structure: "title" is not a non-empty string')
    return out


def check_record(case: RetrievalCase, record: Mapping[str, Any]) -> list[str]:
    """Every problem of one record: required fields, anchors (case order), then structure."""
    problems = [
        f'requireFields[{i}]: "{name}" is missing or empty'
        for i, name in enumerate(case.require_fields)
        if _empty(record.get(name))
    ]
    for i, anchor in enumerate(case.anchors):
        problem = _anchor_problem(record, anchor)
        if problem is not None:
            problems.append(f'anchors[{i}] {anchor.kind} on "{anchor.field}": {problem}')
    problems.extend(_structural(record))
    return problems


def score_retrieval(dataset: GoldDataset, adapter: LoadedAdapter, online: bool) -> ScorerResult:
    """The adapter's ``fetch_record`` against the retrieval cases (issue 13, rule 3)."""
    sid = "retrieval"
    skipped = pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = list(dataset.retrieval)
    if not cases:
        return skip(sid, "no_cases", "no retrieval case")
    res = ScorerResult(sid, "online", "passed")
    session = Session(adapter)
    checks_evaluated = failed = 0
    per_case: list[dict[str, Any]] = []
    for case in cases:
        call = session.call("fetch_record", {"id": case.record_id, "type": case.record_type})
        value = call.value if call.ok else None
        record = value.get("record") if isinstance(value, Mapping) else None
        if not isinstance(record, Mapping):
            error = call.error or "InvalidResponse: fetch_record did not return {record}"
            res.failures.append(f"case {case.id}: fetch_record failed: {error}")
            continue
        problems = check_record(case, record)
        checks_evaluated += len(case.anchors) + len(case.require_fields)
        failed += len(problems)
        res.failures.extend(f"RETRIEVAL {case.id}: {p}" for p in problems)
        per_case.append(
            {
                "case": case.id,
                "anchors": len(case.anchors),
                "require_fields": len(case.require_fields),
                "problems": problems,
            }
        )
    metrics: dict[str, float | int | None] = {
        "n_cases": len(cases),
        "n_checks": sum(len(c.anchors) + len(c.require_fields) for c in cases),
        "failed_checks": failed,
        # every loaded case has a check (validation), so only a system with no record is null
        "fidelity": 1 - min(failed, checks_evaluated) / checks_evaluated
        if checks_evaluated
        else None,
    }
    session.latency(metrics)
    res.metrics = metrics
    res.detail = {"per_case": per_case}
    return finish(res)
