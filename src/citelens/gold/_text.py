"""Text helpers of the reference adapters (gold-harness.md §8.4): sentences, tokens, content."""

from __future__ import annotations

import re

from citelens.gold._citations import GROUP, NUMLIST, WS, WS_STRIP, normalise_citations
from citelens.gold._grounding import neg_norm

__all__ = ["STOP", "content", "sentences", "stem", "strip_markers", "tokens"]

STOP: frozenset[str] = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "by",
        "from",
        "as",
        "than",
        "then",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "done",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "why",
        "how",
        "there",
        "their",
        "they",
        "them",
        "we",
        "our",
        "us",
        "he",
        "she",
        "his",
        "her",
        "i",
        "you",
        "your",
        "also",
        "both",
        "each",
        "more",
        "most",
        "less",
        "such",
        "into",
        "over",
        "under",
        "between",
        "versus",
        "vs",
        "compared",
        "after",
        "before",
        "during",
        "per",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "shall",
        "should",
        "within",
        "about",
        "among",
        "any",
        "all",
        "every",
        "no",
        "not",
        "nor",
        "never",
        "neither",
        "without",
    }
)

_WS_RUN = re.compile(WS + "+")
_TERMINATOR = re.compile("[.!?][\"'\u2019\u201d)\\]]*(?:" + NUMLIST + r")?\Z")
_NON_WS_TAIL = re.compile("[^" + WS[1:-1] + r"]*\Z")
_ABBREVIATIONS = frozenset(
    {
        "al",
        "e.g",
        "i.e",
        "vs",
        "etc",
        "fig",
        "figs",
        "cf",
        "approx",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "no",
        "st",
        "eq",
        "ref",
        "refs",
        "ca",
    }
)
_WORD_RUN = re.compile(r"[^\W_]+")
_GROUP_WITH_WS = re.compile(WS + "*" + GROUP.pattern)
_SPACE_BEFORE_PUNCT = re.compile(" (?=[.,;:])")


def _is_boundary(text: str, start: int, s: int, e: int) -> bool:
    run = text[s:e]
    if run.count("\n") >= 2:
        return True
    head = text[start:s]
    term = _TERMINATOR.search(head)
    if term is None:
        return False
    nxt = text[e]
    if not (nxt.isupper() or nxt in "0123456789"):
        return False
    if head[term.start()] == ".":
        before = head[: term.start()]
        word_match = _NON_WS_TAIL.search(before)
        word = word_match.group(0) if word_match is not None else ""
        word = word.lstrip("([\"'\u201c").lower()
        if word in _ABBREVIATIONS:
            return False
    return True


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences by the deterministic rules of §8.4."""
    out: list[str] = []
    start = 0
    for run in _WS_RUN.finditer(text):
        s, e = run.start(), run.end()
        if e == len(text):
            continue
        if _is_boundary(text, start, s, e):
            piece = text[start:s].strip(WS_STRIP)
            if piece:
                out.append(piece)
            start = e
    last = text[start:].strip(WS_STRIP)
    if last:
        out.append(last)
    return out


def tokens(s: str) -> list[str]:
    """Letter/digit runs of ``neg_norm(s)``."""
    return _WORD_RUN.findall(neg_norm(s))


def stem(t: str) -> str:
    """Drop a plural ``s`` (not ``ss``/``us``/``is``) from tokens of four or more characters."""
    if len(t) >= 4 and t.endswith("s") and not t.endswith(("ss", "us", "is")):
        return t[:-1]
    return t


def content(s: str) -> set[str]:
    """Stemmed content tokens: no stop words, no all-digit tokens."""
    return {stem(t) for t in tokens(s) if t not in STOP and not (t.isascii() and t.isdigit())}


def strip_markers(s: str) -> str:
    """The clean claim text: numeric markers removed, author-year prose kept."""
    text = _GROUP_WITH_WS.sub("", normalise_citations(s + " "))
    text = _WS_RUN.sub(" ", text).strip(WS_STRIP)
    return _SPACE_BEFORE_PUNCT.sub("", text)
