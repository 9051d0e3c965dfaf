"""The grounding check (gold-harness.md §6.4) and its text helpers."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citelens.gold._guard import invalid
from citelens.gold._ws import WS, trim_ws

__all__ = [
    "DEFAULT_ABSTAIN_MARKERS",
    "GroundingResult",
    "check_grounding",
    "contains",
    "fold",
    "neg_norm",
    "numbers_in",
]

DEFAULT_ABSTAIN_MARKERS: tuple[str, ...] = (
    "not in the provided context",
    "not in the context",
    "no information",
    "don't know",
    "do not know",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "not enough information",
    "not stated",
    "not mentioned",
    "no answer",
    "not available",
    "insufficient information",
    "not specified",
    "not provided",
    "does not state",
    "does not specify",
    "does not say",
    "does not mention",
    "does not provide",
    "does not contain",
    "does not include",
    "no mention",
)

_WS_ANY = re.compile(WS)
_WS_RUN = re.compile(WS + "+")
_NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")
_W = "[A-Za-z0-9_]"
_B = "(?:(?<!" + _W + ")(?=" + _W + ")|(?<=" + _W + ")(?!" + _W + "))"
_CANT = re.compile(_B + "can['\u2019]t" + _B)
_WONT = re.compile(_B + "won['\u2019]t" + _B)
_NT = re.compile("n['\u2019]t" + _B)


def fold(s: str) -> str:
    """NFKC then casefold."""
    return unicodedata.normalize("NFKC", s).casefold()


def contains(haystack: str, needle: str) -> bool:
    """Whitespace-insensitive, case-folded containment; an empty needle never matches."""
    h = _WS_ANY.sub("", fold(haystack))
    n = _WS_ANY.sub("", fold(needle))
    return n != "" and n in h


def _canon_number(raw: str) -> str:
    text = raw.replace(",", "")
    if "." in text:
        whole, frac = text.split(".", 1)
    else:
        whole, frac = text, ""
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return whole + "." + frac if frac else whole


def numbers_in(s: str) -> list[str]:
    """Distinct canonical numbers of ``s`` in order of first appearance."""
    out: list[str] = []
    seen: set[str] = set()
    for match in _NUMBER.finditer(s):
        value = _canon_number(match.group(0))
        if value not in seen:
            seen.add(value)
            out.append(value)
    return out


def neg_norm(s: str) -> str:
    """Fold, collapse whitespace and expand negative contractions (``can't`` → ``cannot``)."""
    text = _WS_RUN.sub(" ", fold(s))
    text = _CANT.sub("cannot", text)
    text = _WONT.sub("will not", text)
    text = _NT.sub(" not", text)
    return _WS_RUN.sub(" ", text)


@dataclass(frozen=True)
class GroundingResult:
    """Structured result of :func:`check_grounding`."""

    grounded: bool
    anchors_missed: tuple[str, ...]
    ungrounded_numbers: tuple[str, ...]
    abstained: bool | None
    issues: tuple[str, ...]
    anchors: int = 0

    def __getitem__(self, name: str) -> object:
        """A field by name (``result["grounded"]``); any other name is ``GoldError``."""
        if type(name) is not str or name not in _RESULT_FIELDS:
            raise invalid()  # exact text only: `in` would run a str subclass's __eq__
        return getattr(self, name)


_RESULT_FIELDS = frozenset(
    ("grounded", "anchors_missed", "ungrounded_numbers", "abstained", "issues", "anchors")
)


def _anchor_parts(anchor: object) -> tuple[str, list[str]]:
    if isinstance(anchor, str):
        return anchor, []
    if isinstance(anchor, dict):
        value = anchor.get("value")
        aliases = anchor.get("aliases") or []
        return (value if isinstance(value, str) else ""), [a for a in aliases if isinstance(a, str)]
    value = getattr(anchor, "value", "")
    aliases = getattr(anchor, "aliases", ()) or ()
    return (value if isinstance(value, str) else ""), [a for a in aliases if isinstance(a, str)]


def check_grounding(
    answer: str,
    context: str | Sequence[str],
    question: str | None = None,
    anchors: Iterable[object] | None = None,
    allowed_new_numbers: Iterable[object] | None = None,
    answerable: bool = True,
    abstain_markers: Iterable[str] | None = None,
) -> GroundingResult:
    """Check one answer against its context: anchors, new numbers, abstention (§6.4)."""
    ctx = context if isinstance(context, str) else "\n".join(context)
    if not answerable:
        markers = DEFAULT_ABSTAIN_MARKERS if abstain_markers is None else tuple(abstain_markers)
        norm_answer = neg_norm(answer)
        abstained = any(
            trim_ws(marker) != "" and neg_norm(marker) in norm_answer for marker in markers
        )
        issues = () if abstained else ("unanswerable question — the answer did not abstain",)
        return GroundingResult(not issues, (), (), abstained, issues)
    anchor_list = [_anchor_parts(a) for a in (anchors or ())]
    missed: list[str] = []
    issues_list: list[str] = []
    for value, aliases in anchor_list:
        if not any(contains(answer, candidate) for candidate in [value, *aliases]):
            missed.append(value)
            issues_list.append(f'missing answer fact "{value}"')
    legit: set[str] = set(numbers_in(ctx))
    legit.update(numbers_in(question or ""))
    for value, aliases in anchor_list:
        for candidate in [value, *aliases]:
            legit.update(numbers_in(candidate))
    for extra in allowed_new_numbers or ():
        legit.update(numbers_in(str(extra)))
    ungrounded: list[str] = []
    for number in numbers_in(answer):
        if number not in legit:
            ungrounded.append(number)
            issues_list.append(f'ungrounded number "{number}" — not in the provided context')
    return GroundingResult(
        not issues_list,
        tuple(missed),
        tuple(ungrounded),
        None,
        tuple(issues_list),
        anchors=len(anchor_list),
    )
