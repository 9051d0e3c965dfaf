"""The backtracking reference forms of citation detection and sentence splitting (before issue 10).

These are the patterns of gold-harness.md Appendix A ("one correct rendering of §4") and the
original §8.4 splitter, kept verbatim so that the linear-time code in ``citelens.gold`` can be
checked against them on generated text. They are quadratic on hostile text: use short inputs.
"""

from __future__ import annotations

import re

from citelens.gold._citations import WS_STRIP
from citelens.gold._text import _ABBREVIATIONS

CAP = 200
WS_CHARS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
WS = "[" + WS_CHARS + "]"
DASH = "\\-\u2010\u2011\u2012\u2013"
NUMLIST = "[0-9]{1,3}(?:[," + DASH + "][0-9]{1,3})*"
SEP = re.compile("[," + DASH + "]")
P1 = re.compile(r'(?<![0-9])([A-Za-z.)"])(' + NUMLIST + ")" + WS)
P2 = re.compile(r"([A-Za-z]),([0-9]{1,3}(?:[" + DASH + "][0-9]{1,3})?)" + WS)
P3 = re.compile(r"\((" + NUMLIST + r")\)")
GROUP = re.compile(r"\[([0-9][0-9," + DASH + WS_CHARS + r"]*)\]")
RANGE = re.compile("([0-9]+)" + WS + "*[" + DASH + "]" + WS + "*([0-9]+)")
DIGITS = re.compile("[0-9]+")
NAME = "[A-Z][A-Za-z'\u2019\\-]+"
YEAR = "(?:1[89]|20)[0-9]{2}"
ETAL = r"(?:et al\.?|and colleagues|and coworkers)"
W = "[A-Za-z0-9_]"
B = "(?:(?<!" + W + ")(?=" + W + ")|(?<=" + W + ")(?!" + W + "))"
D1 = re.compile(
    B
    + "("
    + NAME
    + ")(?:"
    + WS
    + "+(?:"
    + ETAL
    + "|(?:and|&)"
    + WS
    + "+"
    + NAME
    + "))?"
    + WS
    + r"*\(("
    + YEAR
    + r"[a-z]?)\)"
)
PAREN = re.compile(r"\(([^()]+)\)")
D2_PIECE = re.compile(
    WS
    + "*("
    + NAME
    + ")(?:"
    + WS
    + "+"
    + ETAL
    + "|,?"
    + WS
    + "+(?:and|&)"
    + WS
    + "+"
    + NAME
    + ")?,?"
    + WS
    + "+("
    + YEAR
    + "[a-z]?)"
    + WS
    + "*"
)
D3 = re.compile(
    B + "(" + NAME + ")" + WS + "+" + ETAL + r"[^.;()]*?" + B + "in" + WS + "+(" + YEAR + ")" + B
)


def _in_cap(numlist: str) -> bool:
    return all(1 <= int(part) <= CAP for part in SEP.split(numlist))


def _p1(match: re.Match[str]) -> str:
    prefix, numlist = match.group(1), match.group(2)
    if not _in_cap(numlist):
        return match.group(0)
    if prefix.isascii() and prefix.isalpha() and "," not in numlist:
        return match.group(0)
    return prefix + "[" + numlist + "] "


def _p2(match: re.Match[str]) -> str:
    if not _in_cap(match.group(2)):
        return match.group(0)
    return match.group(1) + ",[" + match.group(2) + "] "


def _p3(match: re.Match[str]) -> str:
    if not _in_cap(match.group(1)):
        return match.group(0)
    return "[" + match.group(1) + "]"


def normalise_citations(text: str) -> str:
    """§4.2 by ``re.sub`` with a decision per match."""
    return P3.sub(_p3, P2.sub(_p2, P1.sub(_p1, text)))


def parse_numeric_citations(text: str) -> list[int]:
    """§4.3 expanding every range into a set."""
    found: set[int] = set()
    for group in GROUP.finditer(text):
        for raw in group.group(1).split(","):
            piece = raw.strip(WS_STRIP)
            rng = RANGE.fullmatch(piece)
            if rng is not None:
                low, high = int(rng.group(1)), int(rng.group(2))
                if low <= high and high - low + 1 <= CAP:
                    found.update(range(low, high + 1))
            elif DIGITS.fullmatch(piece) is not None:
                found.add(int(piece))
    found.discard(0)
    return sorted(found)


def detect_author_year(text: str) -> list[str]:
    """§4.4 with the three Appendix A patterns."""
    keys: set[str] = set()
    for match in D1.finditer(text):
        keys.add(match.group(1) + " " + match.group(2))
    for paren in PAREN.finditer(text):
        for piece in paren.group(1).split(";"):
            full = D2_PIECE.fullmatch(piece)
            if full is not None:
                keys.add(full.group(1) + " " + full.group(2))
    for match in D3.finditer(text):
        keys.add(match.group(1) + " " + match.group(2))
    return sorted(keys, key=lambda key: key.encode("utf-16-be"))


def detect_citations(text: str) -> list[int | str]:
    """§4.5."""
    numeric: list[int | str] = list(parse_numeric_citations(normalise_citations(text + " ")))
    return numeric + list(detect_author_year(text))


_WS_RUN = re.compile(WS + "+")
_TERMINATOR = re.compile("[.!?][\"'\u2019\u201d)\\]]*(?:" + NUMLIST + r")?\Z")
_NON_WS_TAIL = re.compile("[^" + WS[1:-1] + r"]*\Z")
_GROUP_WITH_WS = re.compile(WS + "*" + GROUP.pattern)
_SPACE_BEFORE_PUNCT = re.compile(" (?=[.,;:])")


def _is_boundary(text: str, start: int, s: int, e: int) -> bool:
    if text[s:e].count("\n") >= 2:
        return True
    head = text[start:s]
    term = _TERMINATOR.search(head)
    if term is None:
        return False
    nxt = text[e]
    if not (nxt.isupper() or nxt in "0123456789"):
        return False
    if head[term.start()] == ".":
        word_match = _NON_WS_TAIL.search(head[: term.start()])
        word = word_match.group(0) if word_match is not None else ""
        if word.lstrip("([\"'\u201c").lower() in _ABBREVIATIONS:
            return False
    return True


def sentences(text: str) -> list[str]:
    """§8.4 walking every WS run and searching the sentence so far."""
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


def strip_markers(s: str) -> str:
    """§8.4 ``strip_markers`` with the backtracking group-and-WS pattern."""
    text = _GROUP_WITH_WS.sub("", normalise_citations(s + " "))
    text = _WS_RUN.sub(" ", text).strip(WS_STRIP)
    return _SPACE_BEFORE_PUNCT.sub("", text)
