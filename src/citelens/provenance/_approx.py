"""The non-verbatim statuses: ``normalized``, ``fuzzy`` and ``absent``, on the remainder.

These run on the edges the verbatim checks (:mod:`citelens.provenance._verbatim`) left open,
typically a few per cent, in one Python loop over those edges only: normalisation must map
its offsets back to the original text, and the fuzzy alignment is rapidfuzz's, one call per
quote. Each source text is normalised once however many edges cite it.

Normalisation (:func:`normalize`) works code point by code point, so that every position of
the normalised text maps back to the original: each code point becomes its Unicode NFKC form
taken alone, case folded (``str.casefold``), with quotes and dashes unified (:data:`QUOTES`,
:data:`DASHES`); then every run of whitespace (``str.isspace``) becomes one space. (Taken code
point by code point, NFKC does not compose a letter with a following combining mark: ``e`` +
U+0301 stays two code points and does not match a precomposed ``é``.) The quote is also
stripped of leading and trailing whitespace; the source text is not.

Mapping back: with ``f(p)`` the length of the normalised ``text[:p]`` (the cumulative lengths
of the code points' pieces, one NumPy pass), a match at ``[a, b)`` of the normalised text is
reported at ``[p, q)`` of the original text, ``p`` the largest with ``f(p) <= a`` and ``q`` the
smallest with ``f(q) >= b``: the smallest original span whose normalisation covers the match
(a ligature ``ﬁ`` matched by ``fi`` is reported whole).
"""

from __future__ import annotations

import unicodedata

import numpy as np
import numpy.typing as npt
import polars as pl
from rapidfuzz import fuzz

__all__ = ["DASHES", "QUOTES", "approximate_statuses", "normalize"]

QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u00b4\u0060"
"""Characters read as an apostrophe ``'`` (after NFKC and case folding)."""
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb"
"""Characters read as ``"``."""
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d"
"""Characters read as a hyphen-minus ``-``."""

_UNIFY = str.maketrans(
    {
        **dict.fromkeys(QUOTES, "'"),
        **dict.fromkeys(DOUBLE_QUOTES, '"'),
        **dict.fromkeys(DASHES, "-"),
    }
)
# The normalised piece of every code point met so far (a text has few distinct ones).
_PIECES: dict[int, str] = {}


def _piece(code_point: int) -> str:
    char = chr(code_point)
    if char.isspace():
        return " "
    return unicodedata.normalize("NFKC", char).casefold().translate(_UNIFY)


def _normalized(text: str) -> tuple[str, npt.NDArray[np.int64]]:
    """The normalised ``text`` and ``f``: ``f[p]`` is the length of the normalised
    ``text[:p]`` (``len(text) + 1`` entries, from 0)."""
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    distinct, where = np.unique(points, return_inverse=True)
    pieces = np.empty(distinct.size, dtype=object)
    for position, code_point in enumerate(distinct.tolist()):  # distinct code points only
        piece = _PIECES.get(code_point)
        if piece is None:
            piece = _PIECES[code_point] = _piece(code_point)
        pieces[position] = piece
    sizes = np.fromiter((len(piece) for piece in pieces), dtype=np.int64, count=pieces.size)
    chosen = pieces[where]
    lengths = sizes[where]
    space = np.fromiter((piece == " " for piece in pieces), dtype=bool, count=pieces.size)[where]
    # a whitespace code point right after another one adds nothing (runs collapse to one)
    repeat = space & np.concatenate(([False], space[:-1]))
    chosen[repeat] = ""
    lengths[repeat] = 0
    prefix = np.zeros(points.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=prefix[1:])
    return "".join(chosen.tolist()), prefix


def normalize(text: str) -> str:
    """NFKC and case folding per code point, quote/dash unification, whitespace runs
    collapsed to one space (module docstring)."""
    return _normalized(text)[0]


def _back(prefix: npt.NDArray[np.int64], a: int, b: int) -> tuple[int, int]:
    """The original span ``[p, q)`` of the normalised match ``[a, b)`` (module docstring)."""
    start = int(np.searchsorted(prefix, a, side="right")) - 1
    end = int(np.searchsorted(prefix, b, side="left"))
    return start, end


def _nearest(haystack: str, needle: str, ref: int) -> int:
    """The start of the occurrence of ``needle`` in ``haystack`` nearest ``ref`` (left to
    right, not overlapping; the earlier on a tie); -1 when there is none."""
    best = -1
    at = haystack.find(needle)
    while at >= 0:
        if best < 0 or abs(at - ref) < abs(best - ref):
            best = at
        if at > ref:
            break  # later occurrences are farther
        at = haystack.find(needle, at + len(needle))
    return best


def approximate_statuses(
    frame: pl.DataFrame, sources: pl.DataFrame, threshold: float
) -> pl.DataFrame:
    """``frame`` (verbatim statuses set) with every open row settled as ``normalized``,
    ``fuzzy`` (similarity ≥ ``threshold``) or ``absent``, with offsets and score."""
    open_rows = frame.filter(pl.col("status").is_null())
    if open_rows.height == 0:
        return frame
    texts = sources.get_column("text")
    normalised: dict[int, tuple[str, npt.NDArray[np.int64]]] = {}
    rows: dict[str, list[object]] = {
        "_edge": [],
        "_status": [],
        "_at": [],
        "_to": [],
        "_score": [],
    }
    # The one Python loop of the check: over the remainder only (module docstring).
    for edge, source, quote, start in open_rows.select("_edge", "_src", "quote", "start").rows():
        text = texts[source]
        status, at, to, score = _one(text, quote, start, threshold, normalised, source)
        rows["_edge"].append(edge)
        rows["_status"].append(status)
        rows["_at"].append(at)
        rows["_to"].append(to)
        rows["_score"].append(score)
    settled = pl.DataFrame(
        rows,
        schema={
            "_edge": pl.UInt32,
            "_status": pl.String,
            "_at": pl.Int64,
            "_to": pl.Int64,
            "_score": pl.Float64,
        },
    )
    frame = frame.join(settled, on="_edge", how="left")
    chosen = pl.col("status").is_null()

    def take(name: str, new: str) -> pl.Expr:
        return pl.when(chosen).then(pl.col(new)).otherwise(pl.col(name)).alias(name)

    frame = frame.with_columns(
        take("found_start", "_at"), take("found_end", "_to"), take("score", "_score")
    ).with_columns(take("status", "_status"))
    return frame.drop("_status", "_at", "_to", "_score").sort("_edge")


def _one(
    text: str,
    quote: str,
    start: int | None,
    threshold: float,
    cache: dict[int, tuple[str, npt.NDArray[np.int64]]],
    source: int,
) -> tuple[str, int | None, int | None, float]:
    """The status, found offsets and score of one remaining edge."""
    wanted = normalize(quote).strip(" ")
    if wanted:
        if source not in cache:
            cache[source] = _normalized(text)
        haystack, prefix = cache[source]
        ref = 0 if start is None else int(prefix[max(0, min(start, len(text)))])
        at = _nearest(haystack, wanted, ref)
        if at >= 0:
            found_start, found_end = _back(prefix, at, at + len(wanted))
            return "normalized", found_start, found_end, 1.0
    aligned = fuzz.partial_ratio_alignment(quote, text)
    score = 0.0 if aligned is None else aligned.score / 100.0
    if aligned is not None and score >= threshold:
        return "fuzzy", aligned.dest_start, aligned.dest_end, score
    return "absent", None, None, score
