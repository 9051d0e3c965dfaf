"""Deterministic citation detection (gold-harness.md §4).

Character classes are written out (no ``\\s``, ``\\d``, ``\\b``): the contract fixes ASCII digits
and letters and its own whitespace set.
"""

from __future__ import annotations

import re

__all__ = [
    "CAP",
    "GROUP",
    "NUMLIST",
    "WS",
    "WS_CHARS",
    "WS_STRIP",
    "detect_author_year",
    "detect_citations",
    "normalise_citations",
    "parse_numeric_citations",
]

CAP = 200
WS_CHARS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
WS = "[" + WS_CHARS + "]"
DASH = "\\-\u2010\u2011\u2012\u2013"
NUMLIST = "[0-9]{1,3}(?:[," + DASH + "][0-9]{1,3})*"
_SEP_RE = re.compile("[," + DASH + "]")
_P1 = re.compile(r'(?<![0-9])([A-Za-z.)"])(' + NUMLIST + ")" + WS)
_P2 = re.compile(r"([A-Za-z]),([0-9]{1,3}(?:[" + DASH + "][0-9]{1,3})?)" + WS)
_P3 = re.compile(r"\((" + NUMLIST + r")\)")
GROUP = re.compile(r"\[([0-9][0-9," + DASH + WS_CHARS + r"]*)\]")
_RANGE = re.compile("([0-9]+)" + WS + "*[" + DASH + "]" + WS + "*([0-9]+)")
_DIGITS = re.compile("[0-9]+")
WS_STRIP = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
_NAME = "[A-Z][A-Za-z'\u2019\\-]+"
_YEAR = "(?:1[89]|20)[0-9]{2}"
_ETAL = r"(?:et al\.?|and colleagues|and coworkers)"
_W = "[A-Za-z0-9_]"
_B = "(?:(?<!" + _W + ")(?=" + _W + ")|(?<=" + _W + ")(?!" + _W + "))"
_D1 = re.compile(
    _B
    + "("
    + _NAME
    + ")(?:"
    + WS
    + "+(?:"
    + _ETAL
    + "|(?:and|&)"
    + WS
    + "+"
    + _NAME
    + "))?"
    + WS
    + r"*\(("
    + _YEAR
    + r"[a-z]?)\)"
)
_PAREN = re.compile(r"\(([^()]+)\)")
_D2_PIECE = re.compile(
    WS
    + "*("
    + _NAME
    + ")(?:"
    + WS
    + "+"
    + _ETAL
    + "|,?"
    + WS
    + "+(?:and|&)"
    + WS
    + "+"
    + _NAME
    + ")?,?"
    + WS
    + "+("
    + _YEAR
    + "[a-z]?)"
    + WS
    + "*"
)
_D3 = re.compile(
    _B
    + "("
    + _NAME
    + ")"
    + WS
    + "+"
    + _ETAL
    + r"[^.;()]*?"
    + _B
    + "in"
    + WS
    + "+("
    + _YEAR
    + ")"
    + _B
)


def _numbers(numlist: str) -> list[int]:
    return [int(part) for part in _SEP_RE.split(numlist)]


def _in_cap(numlist: str) -> bool:
    return all(1 <= n <= CAP for n in _numbers(numlist))


def _p1(match: re.Match[str]) -> str:
    prefix, numlist = match.group(1), match.group(2)
    if not _in_cap(numlist):
        return match.group(0)
    if prefix.isascii() and prefix.isalpha() and "," not in numlist:
        return match.group(0)  # fix F1
    return prefix + "[" + numlist + "] "


def _p2(match: re.Match[str]) -> str:
    letter, numlist = match.group(1), match.group(2)
    if not _in_cap(numlist):
        return match.group(0)  # fix F2
    return letter + ",[" + numlist + "] "


def _p3(match: re.Match[str]) -> str:
    numlist = match.group(1)
    if not _in_cap(numlist):
        return match.group(0)
    return "[" + numlist + "]"


def normalise_citations(text: str) -> str:
    """Rewrite glued superscript, comma-glued and parenthesised markers as ``[...]`` groups."""
    text = _P1.sub(_p1, text)
    text = _P2.sub(_p2, text)
    return _P3.sub(_p3, text)


def parse_numeric_citations(text: str) -> list[int]:
    """The distinct integers of every bracket group, ascending (ranges expanded, 0 dropped)."""
    found: set[int] = set()
    for group in GROUP.finditer(text):
        for raw in group.group(1).split(","):
            piece = raw.strip(WS_STRIP)
            rng = _RANGE.fullmatch(piece)
            if rng is not None:
                low, high = int(rng.group(1)), int(rng.group(2))
                if low <= high and high - low + 1 <= CAP:  # fix F4
                    found.update(range(low, high + 1))
            elif _DIGITS.fullmatch(piece) is not None:
                found.add(int(piece))
    found.discard(0)  # fix F3
    return sorted(found)


def _utf16_key(value: str) -> bytes:
    return value.encode("utf-16-be")


def detect_author_year(text: str) -> list[str]:
    """Author-year keys (``"Smith 2020"``, ``"Meyer 2020a"``) found in ``text``, sorted."""
    keys: set[str] = set()
    for match in _D1.finditer(text):
        keys.add(match.group(1) + " " + match.group(2))
    for paren in _PAREN.finditer(text):
        for piece in paren.group(1).split(";"):
            full = _D2_PIECE.fullmatch(piece)
            if full is not None:
                keys.add(full.group(1) + " " + full.group(2))
    for match in _D3.finditer(text):
        keys.add(match.group(1) + " " + match.group(2))
    return sorted(keys, key=_utf16_key)


def detect_citations(text: str) -> list[int | str]:
    """Numeric citations (ascending) followed by author-year keys (sorted) found in ``text``."""
    numeric: list[int | str] = list(parse_numeric_citations(normalise_citations(text + " ")))
    return numeric + list(detect_author_year(text))
