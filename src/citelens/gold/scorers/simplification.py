"""The simplification scorer (issue 13, OpenGATE 0.9.0's rules): critical facts that must
survive the adapter's ``simplify``, numbers it must not invent, the length contract and the
Flesch-Kincaid grade (reported, never gated).

Failures and detail quote anchor values and numbers as the grounding scorer does (gold-set
text, gold-harness.md §6.4), and keep the output's first 600 characters like its ``answer``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset, SimplificationCase
from citelens.gold._grounding import contains
from citelens.gold.scorers._session import (
    ScorerResult,
    Session,
    compact,
    finish,
    pre_skip,
    rounded,
    skip,
)

__all__ = [
    "SimplificationCheck",
    "bullets",
    "check_simplification",
    "contract_violations",
    "fabricated_numbers",
    "grade",
    "numbers",
    "score_simplification",
    "syllables",
]

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_BULLET = re.compile(r"[ \t]*(?:[-•*]|[0-9]+[.)])[ \t]+(.*)")
_WORD = re.compile(r"[A-Za-z]+")
_VOWELS = re.compile(r"[aeiouy]+")
_SENTENCE_END = re.compile(r"[.!?]+")


def numbers(text: str) -> list[str]:
    """Distinct numbers ``[0-9]+(.[0-9]+)?`` of ``text`` in order, leading zeros dropped
    (``007`` → ``7``, ``0.5`` stays); the fraction is kept as written."""
    out: list[str] = []
    for match in _NUMBER.finditer(text):
        whole, dot, frac = match.group(0).partition(".")
        value = (whole.lstrip("0") or "0") + dot + frac
        if value not in out:
            out.append(value)
    return out


def fabricated_numbers(output: str, case: SimplificationCase) -> list[str]:
    """Numbers of ``output`` absent from the source, the anchors, their aliases and
    ``allowedNewNumbers``."""
    sources = [case.text, *(str(n) for n in case.allowed_new_numbers)]
    for anchor in case.anchors:
        sources.extend((anchor.value, *anchor.aliases))
    legit = {n for source in sources for n in numbers(source)}
    return [n for n in numbers(output) if n not in legit]


def bullets(output: str) -> list[str]:
    """The text of each bullet line (``-``, ``•``, ``*``, ``1.`` or ``1)`` then a space)."""
    found = (_BULLET.fullmatch(line) for line in output.splitlines())
    return [m.group(1) for m in found if m is not None]


def contract_violations(output: str, case: SimplificationCase) -> list[str]:
    """The length-contract problems of ``output`` when the case declares ``maxBullets`` or
    ``maxWordsPerBullet``; no bullet at all is a violation then."""
    if case.max_bullets is None and case.max_words_per_bullet is None:
        return []
    items = bullets(output)
    if not items:
        return ["no bullets (a bulleted answer is expected)"]
    out: list[str] = []
    if case.max_bullets is not None and len(items) > case.max_bullets:
        out.append(f"{len(items)} bullets (max {case.max_bullets})")
    if case.max_words_per_bullet is not None:
        for i, item in enumerate(items, 1):
            words = len(item.split())
            if words > case.max_words_per_bullet:
                out.append(f"bullet {i} has {words} words (max {case.max_words_per_bullet})")
    return out


def syllables(word: str) -> int:
    """Vowel groups (``aeiouy``) of a word, one less for a silent final ``e``, at least 1."""
    lower = word.lower()
    groups = len(_VOWELS.findall(lower))
    if lower.endswith("e") and groups > 1:
        groups -= 1
    return max(1, groups)


def grade(text: str) -> float | None:
    """Flesch-Kincaid grade: ``0.39 words/sentences + 11.8 syllables/words - 15.59``, words
    being runs of ASCII letters and sentences the non-blank pieces between ``.``, ``!``, ``?``
    (``None`` for a text without a word)."""
    words = _WORD.findall(text)
    if not words:
        return None
    sentences = sum(1 for piece in _SENTENCE_END.split(text) if piece.strip())
    total = sum(syllables(w) for w in words)
    return 0.39 * len(words) / sentences + 11.8 * total / len(words) - 15.59


@dataclass(frozen=True)
class SimplificationCheck:
    """One case's outcome: missed anchor indices, fabricated numbers, contract violations,
    bullet count and grade."""

    missed: tuple[int, ...]
    fabricated: tuple[str, ...]
    violations: tuple[str, ...]
    bullets: int
    grade: float | None


def check_simplification(case: SimplificationCase, output: str) -> SimplificationCheck:
    """Every rule on one simplified text."""
    missed = tuple(
        i
        for i, anchor in enumerate(case.anchors)
        if not any(contains(output, v) for v in (anchor.value, *anchor.aliases))
    )
    return SimplificationCheck(
        missed,
        tuple(fabricated_numbers(output, case)),
        tuple(contract_violations(output, case)),
        len(bullets(output)),
        grade(output),
    )


def _request(case: SimplificationCase) -> dict[str, str]:
    return {"text": case.text, **dict(case.options)}


def _output(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("text"), str):
        return str(value["text"])
    return None


def score_simplification(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool
) -> ScorerResult:
    """The adapter's ``simplify`` against the simplification cases (issue 13, rule 2)."""
    sid = "simplification"
    skipped = pre_skip(sid, adapter, online)
    if skipped is not None:
        return skipped
    cases = list(dataset.simplification)
    if not cases:
        return skip(sid, "no_cases", "no simplification case")
    res = ScorerResult(sid, "online", "passed")
    session = Session(adapter)
    anchors_evaluated = dropped = fabricated = violations = 0
    grades: list[float] = []
    per_case: list[dict[str, Any]] = []
    for case in cases:
        call = session.call("simplify", _request(case))
        output = _output(call.value) if call.ok else None
        if output is None:
            error = call.error or "InvalidResponse: simplify did not return a string or {text}"
            res.failures.append(f"case {case.id}: simplify failed: {error}")
            continue
        check = check_simplification(case, output)
        anchors_evaluated += len(case.anchors)
        dropped += len(check.missed)
        fabricated += len(check.fabricated)
        violations += len(check.violations)
        if check.grade is not None:
            grades.append(check.grade)
        res.failures.extend(
            f"DROPPED FACT {case.id}: anchor {compact(case.anchors[i].value)} is missing"
            for i in check.missed
        )
        res.failures.extend(
            f'FABRICATED NUMBER {case.id}: "{n}" is in the output but not in the source'
            for n in check.fabricated
        )
        res.failures.extend(f"CONTRACT {case.id}: {v}" for v in check.violations)
        per_case.append(
            {
                "case": case.id,
                "anchors": len(case.anchors),
                "anchors_missed": [case.anchors[i].value for i in check.missed],
                "fabricated": list(check.fabricated),
                "contract_violations": list(check.violations),
                "grade": rounded(check.grade),
                "output_chars": len(output),
                "bullets": check.bullets,
                "output": output[:600],
            }
        )
    n_anchors = sum(len(c.anchors) for c in cases)
    metrics: dict[str, float | int | None] = {
        "n_cases": len(cases),
        "n_anchors": n_anchors,
        "dropped_facts": dropped,
        "fabricated_numbers": fabricated,
        "contract_violations": violations,
        "mean_grade": sum(grades) / len(grades) if grades else None,
    }
    if n_anchors:  # absent without anchors in the dataset, null when none was evaluated
        metrics["anchor_recall"] = 1 - dropped / anchors_evaluated if anchors_evaluated else None
    session.latency(metrics)
    res.metrics = metrics
    res.detail = {"per_case": per_case}
    return finish(res)
