"""``lexical``: the bundled deterministic reference system (gold-harness.md §8.4).

It needs no network and no key, so ``citelens gold run --online`` works out of the box, and it is
a complete example of the adapter surface: module-level functions are the adapter's exports.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citelens.gold._citations import detect_citations
from citelens.gold._grounding import neg_norm, numbers_in
from citelens.gold._text import content, sentences, strip_markers, tokens
from citelens.gold.adapters._redact import redact_text
from citelens.gold.adapters._simplify import simplify_text

__all__ = [
    "analyze_batch",
    "answer",
    "fetch_record",
    "judge",
    "meta",
    "online_available",
    "online_config_hint",
    "redact",
    "run_model",
    "simplify",
    "split_claims",
]

meta: dict[str, str] = {"name": "lexical"}
"""Adapter metadata: the display name and baseline key."""

RUN_MODEL = "lexical-1"

_NOT_STUDIED = (
    "not assessed",
    "not evaluated",
    "not studied",
    "not reported",
    "not measured",
    "not examined",
    "not investigated",
    "not designed to",
    "not among",
    "did not assess",
    "were not included",
)
_NEG = frozenset({"not", "no", "never", "neither", "nor", "without", "failed"})
_INTENSIFIERS: tuple[tuple[frozenset[str], tuple[str, ...], bool], ...] = (
    (frozenset({"significant", "significantly"}), ("significan",), True),
    (frozenset({"all", "every", "regardless"}), ("all", "every", "regardless"), False),
    (frozenset({"eliminate", "eliminated", "eliminates"}), ("elimina",), True),
    (frozenset({"halt", "halted", "halts"}), ("halt",), True),
    (frozenset({"cure", "cured", "cures"}), ("cure",), True),
    (frozenset({"always"}), ("always",), False),
    (frozenset({"superior"}), ("superior",), True),
    (frozenset({"prevent", "prevented", "prevents"}), ("prevent",), True),
)
_QUESTION_FILLER = frozenset({"many", "much", "long", "often"})
_ABSTAIN = "The answer is not in the provided context."
_RECORDS = Path(__file__).resolve().parent.parent / "data" / "records" / "records.json"
_DEFAULT_RECORD_TYPE = "pubmed"  # as the retrieval case format defaults recordType


def online_available() -> bool:
    """Always available: the reference system runs locally."""
    return True


def online_config_hint() -> str:
    """Nothing to configure."""
    return ""


def run_model() -> str:
    """The rule-set version (bumped whenever a rule changes)."""
    return RUN_MODEL


def split_claims(text: str) -> dict[str, Any]:
    """Every sentence that carries a detected citation, as a claim."""
    claims: list[dict[str, Any]] = []
    for sentence in sentences(text):
        cites = detect_citations(sentence)
        if not cites:
            continue
        claims.append(
            {"text": strip_markers(sentence), "original_text": sentence, "citations": cites}
        )
    return {"claims": claims}


def _present(ref_tokens: list[str], prefixes: tuple[str, ...], by_prefix: bool) -> bool:
    if by_prefix:
        return any(t.startswith(prefixes) for t in ref_tokens)
    return any(t in prefixes for t in ref_tokens)


def judge(claim: str, reference: str) -> tuple[str, str, float, float, str | None]:
    """Verdict of ``claim`` against ``reference``: ``(verdict, rule, best, coverage, S*)``."""
    c = content(claim)
    if not c:
        return "not_supported", "R0", 0.0, 0.0, None
    parts = sentences(reference) or [reference]
    best = -1.0
    best_sentence = parts[0]
    for sentence in parts:
        overlap = len(c & content(sentence)) / len(c)
        if overlap > best:
            best, best_sentence = overlap, sentence
    coverage = len(c & content(reference)) / len(c)
    quote: str | None = best_sentence if best > 0 else None
    claim_tokens = tokens(claim)
    ref_tokens = tokens(reference)
    if best < 0.25 and coverage < 0.4:
        return "not_supported", "R1", best, coverage, quote
    if any(phrase in neg_norm(best_sentence) for phrase in _NOT_STUDIED):
        return "not_supported", "R2", best, coverage, quote
    if _NEG.intersection(tokens(best_sentence)) and not _NEG.intersection(claim_tokens):
        return "contradicted", "R3", best, coverage, quote
    for triggers, prefixes, by_prefix in _INTENSIFIERS:
        if triggers.intersection(claim_tokens) and not _present(ref_tokens, prefixes, by_prefix):
            return "overclaim", "R4", best, coverage, quote
    ref_numbers = set(numbers_in(reference))
    if any(n not in ref_numbers for n in numbers_in(claim)):
        return "overclaim", "R5", best, coverage, quote
    digit_tokens = sum(1 for t in ref_tokens if t.isascii() and t.isdigit())
    looks_like_data = (
        "table" in ref_tokens
        or "figure" in ref_tokens
        or (bool(ref_tokens) and digit_tokens * 5 >= len(ref_tokens))
    )
    if looks_like_data and best >= 0.34:
        return "implied_by_data", "R6", best, coverage, quote
    if best >= 0.6:
        return "strong_support", "R7", best, coverage, quote
    if best >= 0.34 or coverage >= 0.6:
        return "partial_support", "R8", best, coverage, quote
    return "not_supported", "R9", best, coverage, quote


def analyze_batch(payload: dict[str, Any]) -> dict[str, Any]:
    """One analysis per (claim, document) of the payload."""
    out: list[dict[str, Any]] = []
    documents = payload.get("documents") or []
    for claim in payload.get("claims") or []:
        analyses: list[dict[str, Any]] = []
        for doc in documents:
            verdict, rule, best, coverage, quote = judge(str(claim), str(doc.get("content", "")))
            analyses.append(
                {
                    "document_name": doc.get("name"),
                    "verdict": verdict,
                    "summary": f"{RUN_MODEL} {rule}: best={best:.2f} coverage={coverage:.2f}",
                    "passages": [{"quote": quote}] if quote is not None else [],
                }
            )
        out.append({"individual_analyses": analyses})
    return {"claims": out}


def answer(question: str, context: str) -> dict[str, str]:
    """Verbatim context sentences that share at least two content words with the question."""
    q = content(question) - _QUESTION_FILLER
    parts = sentences(context)
    scores = [len(q & content(s)) for s in parts]
    if not parts or not q or max(scores) < 2:
        return {"text": _ABSTAIN}
    threshold = max(2, math.ceil(max(scores) / 2))
    chosen = [s for s, score in zip(parts, scores) if score >= threshold][:3]
    return {"text": " ".join(chosen)}


def redact(text: str) -> dict[str, Any]:
    """Regex redaction of common UK PII (NHS numbers, phone numbers, emails, postcodes, dates,
    street addresses, titled patients' and named relatives' names): each match becomes
    ``[TYPE]`` and is listed in ``entities`` as ``{value, type}``, in text order."""
    if not isinstance(text, str):
        raise TypeError("redact expects a string")
    redacted, entities = redact_text(text)
    return {"text": redacted, "entities": entities}


def _option(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError("simplify options must be strings")
    return value


def simplify(payload: dict[str, Any]) -> dict[str, str]:
    """The sentences of ``payload["text"]`` that carry numbers, drug names or instructions,
    shortened; three short bullets when ``payload["length"]`` is ``Brief``."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("text"), str):
        raise TypeError("simplify expects {text, audience?, tone?, length?, language?}")
    return {"text": simplify_text(payload["text"], _option(payload, "length"))}


@functools.cache
def _records_text() -> str:
    # read once per process; every call parses its own copy, so no caller shares mutable state
    return _RECORDS.read_text(encoding="utf-8")


def fetch_record(payload: dict[str, Any]) -> dict[str, Any]:
    """The record ``payload["id"]`` of type ``payload.get("type", "pubmed")`` from the bundled
    local record file; a ``LookupError`` when it holds no such record."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("id"), str):
        raise TypeError("fetch_record expects {id, type?}")
    kind = payload.get("type")
    if kind is None:
        kind = _DEFAULT_RECORD_TYPE
    if not isinstance(kind, str):
        raise TypeError("fetch_record expects {id, type?}")
    records = json.loads(_records_text())["records"]
    by_id = records.get(kind)
    record = by_id.get(payload["id"]) if isinstance(by_id, dict) else None
    if not isinstance(record, dict):
        raise LookupError("no local record with this id and type")
    return {"record": copy.deepcopy(record)}
