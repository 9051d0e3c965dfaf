"""The redaction scorer (issue 13, OpenGATE 0.9.0's rules): gold identifiers that survive the
adapter's ``redact``, tracked known gaps and over-redactions.

Reports name a leaked entity by its case, its index in ``goldEntities``, its type and how it
survived (``verbatim`` or ``partial``), never by its value: the values of a redaction case are
the identifiers themselves, and a report that quoted them would repeat the leak it reports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset, RedactionCase, RedactionEntity
from citelens.gold._grounding import fold
from citelens.gold.scorers._session import (
    ScorerResult,
    Session,
    finish,
    pre_skip,
    rounded,
    skip,
)

__all__ = ["RedactionCheck", "check_redaction", "leak_kind", "over_redactions", "score_redaction"]

TITLES = frozenset(("mr", "mrs", "ms", "miss", "mx", "dr", "prof"))
"""Honorifics that are never a name word on their own."""

# a word of a name: letters, apostrophes (both kinds) and hyphens; everything else splits
_NAME_SPLIT = re.compile(r"(?:[^\w'’-]|[\d_])+")
_FLANK = "A-Za-z0-9"


def present(value: str, text: str) -> bool:
    """``value`` occurs in ``text`` case-insensitively with no ASCII letter or digit on either
    side (``Ann`` is not present in ``Annabel``; ``LS8 2QT`` is present in ``ls8 2qt,``)."""
    needle = fold(value)
    if not needle:
        return False
    pattern = f"(?<![{_FLANK}]){re.escape(needle)}(?![{_FLANK}])"
    return re.search(pattern, fold(text)) is not None


def name_words(value: str) -> list[str]:
    """The words of a name value that count on their own: 3 letters or more, titles excluded."""
    words = [w for w in _NAME_SPLIT.split(value) if w]
    return [w for w in words if sum(1 for c in w if c.isalpha()) >= 3 and fold(w) not in TITLES]


def leak_kind(
    entity: RedactionEntity, output: str, known_gaps: Sequence[RedactionEntity] = ()
) -> str | None:
    """``verbatim`` when the value survived whole, ``partial`` when (for a ``*NAME*`` type) a
    word of it survived that no known-gap value covers, else ``None``."""
    if present(entity.value, output):
        return "verbatim"
    if "NAME" not in entity.type:
        return None
    for word in name_words(entity.value):
        if present(word, output) and not any(present(word, gap.value) for gap in known_gaps):
            return "partial"
    return None


def over_redactions(returned: Sequence[str], case: RedactionCase) -> list[int]:
    """Indices of returned entity values that are neither a substring of nor contain any gold
    or known-gap value (case-insensitive): what the system removed beyond the gold set."""
    targets = [fold(e.value) for e in (*case.entities, *case.known_gaps)]
    out: list[int] = []
    for i, value in enumerate(returned):
        got = fold(value)
        if not any(got in target or target in got for target in targets):
            out.append(i)
    return out


@dataclass(frozen=True)
class RedactionCheck:
    """One case's outcome: leaks as ``(goldEntities index, match)``, the indices of open known
    gaps and of over-redacted returned entities."""

    leaks: tuple[tuple[int, str], ...]
    gaps_open: tuple[int, ...]
    over: tuple[int, ...]

    def recall(self, entities: int) -> float | None:
        """``1 - leaks / entities`` (``None`` for a case without gold entities)."""
        return 1 - len(self.leaks) / entities if entities else None


def check_redaction(case: RedactionCase, output: str, returned: Sequence[str]) -> RedactionCheck:
    """Leaks, known gaps and over-redactions of one redacted text."""
    leaks: list[tuple[int, str]] = []
    for i, entity in enumerate(case.entities):
        kind = leak_kind(entity, output, case.known_gaps)
        if kind is not None:
            leaks.append((i, kind))
    gaps = tuple(i for i, gap in enumerate(case.known_gaps) if leak_kind(gap, output) is not None)
    return RedactionCheck(tuple(leaks), gaps, tuple(over_redactions(returned, case)))


def _response(value: Any) -> tuple[str, list[str]] | str:
    """``(text, returned values)`` of a ``redact`` answer, or the adapter error text."""
    if not isinstance(value, Mapping) or not isinstance(value.get("text"), str):
        return "InvalidResponse: redact did not return {text, entities}"
    entities = value.get("entities")
    if entities is None:
        return str(value["text"]), []
    if not isinstance(entities, list | tuple):
        return "InvalidResponse: entities is not an array"
    values: list[str] = []
    for item in entities:
        if not isinstance(item, Mapping) or not isinstance(item.get("value"), str):
            return "InvalidResponse: an entity has no string value"
        values.append(str(item["value"]))
    return str(value["text"]), values


def score_redaction(dataset: GoldDataset, adapter: LoadedAdapter, online: bool) -> ScorerResult:
    """The adapter's ``redact`` against the redaction cases (issue 13, rule 1)."""
    sid = "redaction"
    skipped = pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = list(dataset.redaction)
    if not cases:
        return skip(sid, "no_cases", "no redaction case")
    res = ScorerResult(sid, "online", "passed")
    session = Session(adapter)
    leaks = entities_evaluated = over = gaps_open = gaps_closed = 0
    case_recalls: list[float] = []
    per_case: list[dict[str, Any]] = []
    for case in cases:
        call = session.call("redact", case.text)
        answer = _response(call.value) if call.ok else (call.error or "")
        if isinstance(answer, str):
            res.failures.append(f"case {case.id}: redact failed: {answer}")
            continue
        output, returned = answer
        check = check_redaction(case, output, returned)
        entities_evaluated += len(case.entities)
        leaks += len(check.leaks)
        over += len(check.over)
        gaps_open += len(check.gaps_open)
        gaps_closed += len(case.known_gaps) - len(check.gaps_open)
        recall = check.recall(len(case.entities))
        if recall is not None:
            case_recalls.append(recall)
        res.failures.extend(
            f"LEAK {case.id}: goldEntities[{i}] {case.entities[i].type} survived redaction ({kind})"
            for i, kind in check.leaks
        )
        per_case.append(
            {
                "case": case.id,
                "entities": len(case.entities),
                "leaks": len(check.leaks),
                "leaked": [
                    {"entity": i, "type": case.entities[i].type, "match": kind}
                    for i, kind in check.leaks
                ],
                "recall": rounded(recall),
                "over_redactions": len(check.over),
                "known_gaps": len(case.known_gaps),
                "known_gaps_open": list(check.gaps_open),
            }
        )
    n_entities = sum(len(c.entities) for c in cases)
    metrics: dict[str, float | int | None] = {
        "n_cases": len(cases),
        "n_entities": n_entities,
        "leaks": leaks,
        "over_redactions": over,
        "knownGap_open": gaps_open,
        "knownGap_closed": gaps_closed,
    }
    if n_entities:  # absent when the dataset has no gold entity, null when none was evaluated
        metrics["recall"] = 1 - leaks / entities_evaluated if entities_evaluated else None
        metrics["mean_case_recall"] = (
            sum(case_recalls) / len(case_recalls) if case_recalls else None
        )
    session.latency(metrics)
    res.metrics = metrics
    res.detail = {"per_case": per_case}
    return finish(res)
