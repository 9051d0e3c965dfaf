"""Text helpers of the reference adapters (gold-harness.md §8.4): sentences, tokens, content."""

from __future__ import annotations

import re

from citelens.gold._citations import GROUP, NUMLIST, WS, normalise_citations
from citelens.gold._grounding import neg_norm
from citelens.gold._ws import trim_ws

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

_WS_CLASS = WS[1:-1]
_WS_RUN = re.compile(WS + "+")
# Sentence-boundary candidates, found in two linear scans instead of a search of the whole
# sentence so far at every WS run (quadratic on text without boundaries). Rule 1 of §8.4 needs a
# terminator, closing marks and digits/separators right before the run; these are non-WS, so they
# lie in the last token before the run: a token start (no WS before it), the shortest stretch to a
# terminator (each terminator tried once per token: what follows it stops at the next terminator),
# the closing marks, a maximal digit/separator run (checked against NUMLIST afterwards) and the
# whole WS run. Rule "two or more LF" is the second pattern, tried only at WS-run starts.
_TERMINATED = re.compile(
    "(?<![^"
    + _WS_CLASS
    + "])[^"
    + _WS_CLASS
    + "]*?([.!?])[\"'\u2019\u201d)\\]]*+([0-9,\\-\u2010\u2011\u2012\u2013]*+)("
    + WS
    + "++)"
)
_NO_LF = "[" + _WS_CLASS.replace("\n", "") + "]"
_TWO_LF = re.compile("(?<!" + WS + ")" + _NO_LF + "*+\n" + _NO_LF + "*+\n" + WS + "*+")
_NUMLIST = re.compile(NUMLIST)
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
# Tried only where a WS run starts (or at a "["), so a long WS run not followed by a group is
# scanned once, not once per character.
_GROUP_WITH_WS = re.compile("(?<!" + WS + ")" + WS + "*+" + GROUP.pattern)
_SPACE_BEFORE_PUNCT = re.compile(" (?=[.,;:])")


def _closes_sentence(text: str, term: re.Match[str]) -> bool:
    # Rules 1-3 of §8.4 for a run preceded by a terminator (group 1), closing marks and a
    # digit/separator run (group 2).
    nxt = text[term.end(3)]
    if not (nxt.isupper() or nxt in "0123456789"):
        return False
    marker = term.group(2)
    if marker and _NUMLIST.fullmatch(marker) is None:
        return False  # rule 1: what follows the closing marks must be one NUMLIST
    if term.group(1) == ".":
        # the token before the "." lies within the current sentence: sentences start after WS
        word = text[term.start() : term.start(1)].lstrip("([\"'\u201c").lower()
        if word in _ABBREVIATIONS:
            return False
    return True


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences by the deterministic rules of §8.4."""
    two_lf = {run.start(): run.end() for run in _TWO_LF.finditer(text)}
    terminated = {term.start(3): term for term in _TERMINATED.finditer(text)}
    out: list[str] = []
    start = 0
    for s in sorted(two_lf.keys() | terminated.keys()):
        term = terminated.get(s)
        e = two_lf[s] if term is None else term.end(3)
        if e == len(text):
            continue  # a run that ends the text is never a boundary
        if s in two_lf or (term is not None and _closes_sentence(text, term)):
            piece = trim_ws(text[start:s])
            if piece:
                out.append(piece)
            start = e
    last = trim_ws(text[start:])
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
    text = trim_ws(_WS_RUN.sub(" ", text))
    return _SPACE_BEFORE_PUNCT.sub("", text)
