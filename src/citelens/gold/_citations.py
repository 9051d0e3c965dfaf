"""Deterministic citation detection (gold-harness.md §4).

Character classes are written out (no ``\\s``, ``\\d``, ``\\b``): the contract fixes ASCII digits
and letters and its own whitespace set.
"""

from __future__ import annotations

import re

from citelens.gold._ws import WS, WS_CHARS, WS_STRIP, trim_ws

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
DASH = "\\-\u2010\u2011\u2012\u2013"
NUMLIST = "[0-9]{1,3}(?:[," + DASH + "][0-9]{1,3})*"
# The passes of §4.2 as splits: each pattern matches only the markers its pass rewrites, with the
# prefix (P1), or the letter and comma (P2), checked by look-behind so that the capture is exactly
# the text inside the new brackets. A marker the pass leaves alone may stay unmatched instead of
# being consumed: none of its characters after the first can start another match of the same pass
# (digits, separators, WS and ")" start none), so the other matches are the same. ``_CAPPED`` is one
# number 1..200 of 1-3 digits, leading zeros allowed (fixes F2, F3).
_CAPPED = "(?:00[1-9]|0?[1-9][0-9]?|1[0-9]{2}|200)"
_CAPPED_LIST = _CAPPED + "(?:[," + DASH + "]" + _CAPPED + ")*"
_CAPPED_COMMA = _CAPPED + "(?:[" + DASH + "]" + _CAPPED + ")*," + _CAPPED_LIST
_P1 = re.compile(
    '(?<![0-9](?s:.))((?<=[.)"])'
    + _CAPPED_LIST
    + "|(?<=[A-Za-z])"
    + _CAPPED_COMMA  # fix F1: after a letter only a list with a comma
    + ")"
    + WS
)
_P2 = re.compile("(?<=[A-Za-z],)(" + _CAPPED + "(?:[" + DASH + "]" + _CAPPED + ")?)" + WS)
_P3 = re.compile(r"\((" + _CAPPED_LIST + r")\)")
GROUP = re.compile(r"\[([0-9][0-9," + DASH + WS_CHARS + r"]*)\]")
_RANGE = re.compile("([0-9]+)" + WS + "*[" + DASH + "]" + WS + "*([0-9]+)")
_DIGITS = re.compile("[0-9]+")
_NAMECH = "A-Za-z'\u2019\\-"
_NAME = "[A-Z][" + _NAMECH + "]+"
_YEAR = "(?:1[89]|20)[0-9]{2}"
_ETAL = r"(?:et al\.?|and colleagues|and coworkers)"
_W = "[A-Za-z0-9_]"
_B = "(?:(?<!" + _W + ")(?=" + _W + ")|(?<=" + _W + ")(?!" + _W + "))"
# Linear-time forms of the detectors of §4.4 (the prose there, and the reference patterns of
# Appendix A, stay the definition; tests/gold check these against them). Every NAME of D1 and D3 is
# followed by WS or "(", neither a name character, so a NAME always ends where its maximal run of
# name characters ends, and every NAME start inside one run shares one continuation: the run's
# leftmost start (an ASCII capital preceded by no WORDCH, i.e. at a word boundary) is the only one
# ``finditer`` can report. The pattern is tried only at run starts, finds that start inside an
# atomic group (so a failure never retries a later start of the same run: that retry made
# "A-A-A-…" quadratic) and takes the run possessively.
_RUN_NAME = (
    "(?<!["
    + _NAMECH
    + "])(?>["
    + _NAMECH
    + "]*?(?<!"
    + _W
    + ")(?=[A-Z]))([A-Z]["
    + _NAMECH
    + "]++)"
)
_NAME_POSS = "[A-Z][" + _NAMECH + "]++"
_D1 = re.compile(
    _RUN_NAME
    + "(?:"
    + WS
    + "++(?:"
    + _ETAL
    + "|(?:and|&)"
    + WS
    + "++"
    + _NAME_POSS
    + "))?"
    + WS
    + r"*+\(("
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
# D3 as two scans instead of one lazy ``[^.;()]*?`` per head (each head scanned to the next
# barrier: quadratic on "Smith et al Smith et al …"): the heads (NAME, WS, ETAL with its dot when
# there is one, since without it the run would start on a barrier), the "in YEAR" tails, and the
# barrier characters. A head matches the first tail at or after its end when no barrier lies in
# between; heads inside an earlier match are skipped, as ``finditer`` would.
_D3_HEAD = re.compile(_RUN_NAME + WS + "++" + _ETAL)
_D3_TAIL = re.compile("(?<!" + _W + ")in" + WS + "++(" + _YEAR + ")(?!" + _W + ")")
_D3_BARRIER = re.compile("[.;()]")
_MAX_DIGITS = 4300
"""Longest digit run read as an integer: Python's default ``int``/``str`` conversion limit, fixed
here so that the result does not depend on ``sys.set_int_max_str_digits``."""


def _rewrite(pattern: re.Pattern[str], text: str, wrap: str) -> str:
    # ``split`` with one group alternates kept text and captures, all built in C: a callback per
    # match made dense marker text ("a.1 " repeated) cost seconds per megabyte.
    parts = pattern.split(text)
    parts[1::2] = map(wrap.format, parts[1::2])
    return "".join(parts)


def normalise_citations(text: str) -> str:
    """Rewrite glued superscript, comma-glued and parenthesised markers as ``[...]`` groups."""
    text = _rewrite(_P1, text, "[{}] ")  # the consumed WS is written back as one space
    text = _rewrite(_P2, text, "[{}] ")
    return _rewrite(_P3, text, "[{}]")


def _to_int(digits: str) -> int | None:
    # Leading zeros do not count against the conversion limit (``[007]`` is 7); a longer run is
    # no reference number and could not be written back as JSON, so it adds nothing.
    significant = digits.lstrip("0")
    if len(significant) > _MAX_DIGITS:
        return None
    return int(significant) if significant else 0


def _union(singles: set[int], ranges: set[tuple[int, int]]) -> list[int]:
    # Merged intervals instead of expanding every range into a set: "[1-200,1-200,…]" would
    # otherwise cost 200 set insertions per piece; the output is still every member, ascending.
    out: list[int] = []
    done = 0  # every value <= done is emitted or dropped; 0 is never a citation (fix F3)
    for low, high in sorted(ranges | {(value, value) for value in singles}):
        if high > done:
            out.extend(range(max(low, done + 1), high + 1))
            done = high
    return out


def parse_numeric_citations(text: str) -> list[int]:
    """The distinct integers of every bracket group, ascending (ranges expanded, 0 dropped)."""
    singles: set[int] = set()
    ranges: set[tuple[int, int]] = set()
    # Each distinct group inside is read once: the result is a set, and dense text repeats groups.
    for inside in set(GROUP.findall(text)):
        for raw in inside.split(","):
            piece = trim_ws(raw)
            rng = _RANGE.fullmatch(piece)
            if rng is not None:
                low, high = _to_int(rng.group(1)), _to_int(rng.group(2))
                if low is not None and high is not None and low <= high and high - low + 1 <= CAP:
                    ranges.add((low, high))  # fix F4: a reversed or > CAP range adds nothing
            elif _DIGITS.fullmatch(piece) is not None:
                value = _to_int(piece)
                if value is not None:
                    singles.add(value)
    return _union(singles, ranges)


def _utf16_key(value: str) -> bytes:
    return value.encode("utf-16-be")


def _prose_keys(text: str, keys: set[str]) -> None:
    # D3 (§4.4 item 3) with the first-tail and next-barrier searches cached: heads come in order,
    # so each search resumes past the previous one and the text is scanned a bounded number of
    # times in all.
    last_end = 0
    tail: re.Match[str] | None = None
    barrier = -1
    for head in _D3_HEAD.finditer(text):
        if head.start() < last_end:
            continue  # inside the previous match: finditer never tries it
        end = head.end()
        if tail is None or tail.start() < end:
            tail = _D3_TAIL.search(text, end)
            if tail is None:
                return  # no tail after this head, hence none after any later head
        if barrier < end:
            found = _D3_BARRIER.search(text, end)
            barrier = len(text) if found is None else found.start()
        if barrier < tail.start():
            continue  # the shortest run to the tail would cross ".", ";", "(" or ")"
        keys.add(head.group(1) + " " + tail.group(1))
        last_end = tail.end()


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
    _prose_keys(text, keys)
    return sorted(keys, key=_utf16_key)


def detect_citations(text: str) -> list[int | str]:
    """Numeric citations (ascending) followed by author-year keys (sorted) found in ``text``."""
    numeric: list[int | str] = list(parse_numeric_citations(normalise_citations(text + " ")))
    return numeric + list(detect_author_year(text))
