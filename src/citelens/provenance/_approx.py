"""The non-verbatim statuses: ``normalized``, ``fuzzy`` and ``absent``, on the remainder.

These run on the edges the verbatim checks (:mod:`citelens.provenance._verbatim`) left open,
typically a few per cent. The normalisation of all their quotes and cited source texts is one
NumPy pass over the texts concatenated (:func:`_normalise`; in chunks of about
:data:`_CHUNK_POINTS` source code points, so that memory stays bounded); what stays a Python
loop, over the remaining edges only, is the search for the occurrence nearest the cited start
(``str.find`` on the normalised text, which stops after the first occurrence past it) and
rapidfuzz's fuzzy alignment, one call per quote not found normalised.

Normalisation (:func:`normalize`) works code point by code point, so that every position of
the normalised text maps back to the original: each code point becomes its Unicode NFKC form
taken alone, case folded (``str.casefold``), with quotes and dashes unified (:data:`QUOTES`,
:data:`DASHES`); then every run of whitespace (``str.isspace``) becomes one space. (Taken code
point by code point, NFKC does not compose a letter with a following combining mark: ``e`` +
U+0301 stays two code points and does not match a precomposed ``é``.) The quote is also
stripped of leading and trailing spaces; the source text is not.

Mapping back: with ``f(p)`` the length of the normalised ``text[:p]`` (the cumulative lengths
of the code points' pieces), a match at ``[a, b)`` of the normalised text is reported at
``[p, q)`` of the original text, ``p`` the largest with ``f(p) <= a`` and ``q`` the smallest
with ``f(q) >= b``: the smallest original span whose normalisation covers the match (a
ligature ``ﬁ`` matched by ``fi`` is reported whole).
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

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
# The normalised piece of every code point met so far (texts have few distinct ones).
_PIECES: dict[int, str] = {}
# Source code points normalised per pass: a pass holds some 30 bytes per code point (the
# UTF-32 input, piece lengths and flags, the int64 prefix lengths, the output), so 1 Mi code
# points keep it near 30 MB however large the remainder; on 32 M code points of 5 kB
# sources this size was also the fastest (0.40 s against 0.59 s at 4 Mi, 0.60 s at 256 Ki:
# the arrays of a pass stay close to the CPU caches, and a pass costs little fixed work).
_CHUNK_POINTS = 1 << 20
_SPACE = 0x20

Ints = npt.NDArray[np.int64]


def _piece(code_point: int) -> str:
    char = chr(code_point)
    if char.isspace():
        return " "
    return unicodedata.normalize("NFKC", char).casefold().translate(_UNIFY)


class _Normalised(NamedTuple):
    """Several texts normalised at once (:func:`_normalise`)."""

    text: str
    """The normalised texts, concatenated."""
    points: npt.NDArray[np.uint32]
    """The code points of ``text``."""
    prefix: Ints
    """``prefix[i]``: the length of the normalisation of the first ``i`` original code points
    of the concatenation (``n + 1`` entries); text ``t`` is ``text[prefix[s]:prefix[e]]``
    with ``[s, e)`` its original code points, and ``prefix[s + p] - prefix[s]`` is its
    ``f(p)``."""
    starts: Ints
    """Where every original text starts in the concatenation, then its length (``T + 1``)."""


def _normalise(joined: str, lengths: Ints) -> _Normalised:
    """The normalisation of the texts concatenated in ``joined`` (``lengths``: their code
    point counts), each text on its own: whitespace runs do not collapse across a boundary."""
    starts = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    if points.size == 0:
        return _Normalised("", points, np.zeros(1, dtype=np.int64), starts)
    # Tables indexed by code point, as long as the largest one (at most 0x110000 entries):
    # one gather per property where np.unique would sort.
    top = int(points.max()) + 1
    seen = np.zeros(top, dtype=bool)
    seen[points] = True
    distinct = np.flatnonzero(seen)
    pieces = []
    for code_point in distinct.tolist():  # distinct code points only
        piece = _PIECES.get(code_point)
        if piece is None:
            piece = _PIECES[code_point] = _piece(code_point)
        pieces.append(piece)
    sizes = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    flat = np.frombuffer("".join(pieces).encode("utf-32-le", "surrogatepass"), dtype="<u4")
    first = np.zeros(len(pieces), dtype=np.int64)
    np.cumsum(sizes[:-1], out=first[1:])
    size_of = np.zeros(top, dtype=np.min_scalar_type(int(sizes.max())))
    size_of[distinct] = sizes
    blank_of = np.zeros(top, dtype=bool)
    blank_of[distinct] = np.fromiter((piece == " " for piece in pieces), dtype=bool)
    sized = size_of[points]
    blank = blank_of[points]
    # a whitespace code point right after another one adds nothing (runs collapse to one),
    # unless it opens a text: a run never continues from the previous text
    repeat = np.zeros(points.size, dtype=bool)
    np.logical_and(blank[1:], blank[:-1], out=repeat[1:])
    opening = starts[:-1]
    repeat[opening[opening < points.size]] = False
    sized[repeat] = 0
    prefix = np.zeros(points.size + 1, dtype=np.int64)
    np.cumsum(sized, out=prefix[1:])
    # Every code point with a one-code-point piece gives it; the few longer pieces are
    # written into their place of the output after.
    single = np.zeros(top, dtype="<u4")
    one = sizes == 1
    single[distinct[one]] = flat[first[one]]
    if one.all():
        out = single[points] if not repeat.any() else single[points[~repeat]]
    else:
        out = np.repeat(single[points], sized)
        longer = np.flatnonzero(sized > 1)
        counts = sized[longer].astype(np.int64)
        begins = np.zeros(longer.size, dtype=np.int64)
        np.cumsum(counts[:-1], out=begins[1:])
        within = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(begins, counts)
        taken = np.repeat(first[np.searchsorted(distinct, points[longer])], counts) + within
        out[np.repeat(prefix[longer], counts) + within] = flat[taken]
    text = str(out.data, "utf-32-le", "surrogatepass")
    return _Normalised(text, out, prefix, starts)


def _normalized(text: str) -> tuple[str, Ints]:
    """The normalised ``text`` and ``f``: ``f[p]`` is the length of the normalised
    ``text[:p]`` (``len(text) + 1`` entries, from 0)."""
    done = _normalise(text, np.array([len(text)], dtype=np.int64))
    return done.text, done.prefix


def normalize(text: str) -> str:
    """NFKC and case folding per code point, quote/dash unification, whitespace runs
    collapsed to one space (module docstring)."""
    return _normalized(text)[0]


def _spans(prefix: Ints, a: Ints, b: Ints) -> tuple[Ints, Ints]:
    """The original spans ``[p, q)`` of the normalised matches ``[a, b)`` (module docstring),
    all in the coordinates of the concatenation. Searching the whole ``prefix`` is searching
    the match's own text: every entry before the text is at most ``a`` and every entry after
    it at least ``b`` (a match is non-empty and inside its text)."""
    return np.searchsorted(prefix, a, side="right") - 1, np.searchsorted(prefix, b, side="left")


def _stripped(done: _Normalised, lo: Ints, hi: Ints) -> tuple[Ints, Ints]:
    """The bounds of every normalised text ``[lo, hi)`` of ``done`` stripped of leading and
    trailing spaces (an empty span at ``lo`` when nothing is left)."""
    base = int(lo.min()) if lo.size else 0
    kept = np.flatnonzero(done.points[base:] != _SPACE) + base
    # a sentinel past the end, so that "no kept code point from lo on" needs no test
    kept = np.append(kept, done.points.size)
    head = kept[np.searchsorted(kept, lo, side="left")]
    tail = kept[np.maximum(np.searchsorted(kept, hi, side="left") - 1, 0)] + 1
    empty = head >= hi
    return np.where(empty, lo, head), np.where(empty, lo, tail)


def _nearest(haystack: str, needle: str, ref: int, lo: int, hi: int) -> int:
    """The start of the occurrence of ``needle`` in ``haystack[lo:hi]`` nearest ``ref`` (left
    to right, not overlapping; the earlier on a tie), in ``haystack``'s coordinates; -1 when
    there is none."""
    best = -1
    at = haystack.find(needle, lo, hi)
    while at >= 0:
        if best < 0 or abs(at - ref) < abs(best - ref):
            best = at
        if at > ref:
            break  # later occurrences are farther
        at = haystack.find(needle, at + len(needle), hi)
    return best


# The settled statuses, by their code in _settle.
_SETTLED = pl.Series("_status", ["normalized", "fuzzy", "absent"], dtype=pl.String)
_NORMALIZED, _FUZZY, _ABSENT = 0, 1, 2


def _settle(edges: pl.DataFrame, texts: pl.Series, threshold: float) -> pl.DataFrame:
    """``_edge``, ``_status``, ``_at``, ``_to`` and ``_score`` of every edge of ``edges``
    (columns ``_edge``, ``_local``: the row of its source in ``texts``, ``quote``, ``start``),
    with the quotes and ``texts`` normalised in one pass."""
    m, k = texts.len(), edges.height
    quotes = edges.get_column("quote")
    joined = pl.concat([texts, quotes]).str.join("").item()
    lengths = pl.concat([texts.str.len_chars(), quotes.str.len_chars()]).cast(pl.Int64)
    done = _normalise(joined, lengths.to_numpy())
    local = edges.get_column("_local").cast(pl.Int64).to_numpy()
    src_lo, src_hi = done.starts[local], done.starts[local + 1]
    quote_lo, quote_hi = done.starts[m : m + k], done.starts[m + 1 : m + k + 1]
    # the cited start clamped to the text, then normalised (its f), in done.text coordinates
    cited = edges.get_column("start").fill_null(0).to_numpy()
    ref = done.prefix[src_lo + np.clip(cited, 0, src_hi - src_lo)]
    bounds = done.prefix[done.starts]
    want_lo, want_hi = _stripped(done, bounds[m : m + k], bounds[m + 1 : m + k + 1])
    found = np.full(k, -1, dtype=np.int64)
    searched = zip(
        ref.tolist(),
        want_lo.tolist(),
        want_hi.tolist(),
        bounds[local].tolist(),
        bounds[local + 1].tolist(),
        strict=True,
    )
    # The first Python loop: the nearest occurrence, over the remainder's edges only.
    haystack = done.text
    for row, (at, w_lo, w_hi, lo, hi) in enumerate(searched):
        if w_hi > w_lo:
            found[row] = _nearest(haystack, haystack[w_lo:w_hi], at, lo, hi)
    hit = found >= 0
    status = np.full(k, _NORMALIZED, dtype=np.int64)
    score = np.ones(k, dtype=np.float64)
    p, q = _spans(done.prefix, found, found + (want_hi - want_lo))
    first, last = p - src_lo, q - src_lo
    # The second: rapidfuzz on the original quote and text of every edge not found normalised.
    misses = zip(
        np.flatnonzero(~hit).tolist(),
        src_lo[~hit].tolist(),
        src_hi[~hit].tolist(),
        quote_lo[~hit].tolist(),
        quote_hi[~hit].tolist(),
        strict=True,
    )
    for row, s_lo, s_hi, q_lo, q_hi in misses:
        aligned = fuzz.partial_ratio_alignment(joined[q_lo:q_hi], joined[s_lo:s_hi])
        score[row] = 0.0 if aligned is None else aligned.score / 100.0
        if aligned is not None and score[row] >= threshold:
            status[row] = _FUZZY
            first[row], last[row] = aligned.dest_start, aligned.dest_end
        else:
            status[row] = _ABSENT
    located = pl.col("_status") != _SETTLED[_ABSENT]
    return pl.DataFrame(
        {
            "_edge": edges.get_column("_edge"),
            "_status": _SETTLED.gather(status),
            "_at": first,
            "_to": last,
            "_score": score,
        }
    ).with_columns(
        _at=pl.when(located).then(pl.col("_at")), _to=pl.when(located).then(pl.col("_to"))
    )


def approximate_statuses(
    frame: pl.DataFrame, sources: pl.DataFrame, threshold: float
) -> pl.DataFrame:
    """``frame`` (verbatim statuses set) with every open row settled as ``normalized``,
    ``fuzzy`` (similarity ≥ ``threshold``) or ``absent``, with offsets and score."""
    open_rows = frame.filter(pl.col("status").is_null())
    if open_rows.height == 0:
        return frame
    # The cited sources in row order, cut into chunks of about _CHUNK_POINTS code points (a
    # longer text is a chunk of its own); each chunk is one normalisation pass together with
    # the quotes of the edges citing it.
    cited = open_rows.get_column("_src").unique().sort()
    texts = sources.get_column("text").gather(cited)
    sizes = texts.str.len_chars().cast(pl.Int64).to_numpy()
    chunk = (np.cumsum(sizes) - sizes) // _CHUNK_POINTS
    _, first_of, which = np.unique(chunk, return_index=True, return_inverse=True)
    placed = pl.DataFrame(
        {"_src": cited, "_chunk": which, "_local": np.arange(cited.len()) - first_of[which]}
    )
    edges = open_rows.select("_edge", "_src", "quote", "start").join(placed, on="_src")
    ends = [*first_of[1:].tolist(), cited.len()]
    settled = pl.concat(
        [
            _settle(
                edges.filter(pl.col("_chunk") == index),
                texts.slice(begin, end - begin),
                threshold,
            )
            for index, (begin, end) in enumerate(zip(first_of.tolist(), ends, strict=True))
        ]
    )
    frame = frame.join(settled, on="_edge", how="left")
    chosen = pl.col("status").is_null()

    def take(name: str, new: str) -> pl.Expr:
        return pl.when(chosen).then(pl.col(new)).otherwise(pl.col(name)).alias(name)

    frame = frame.with_columns(
        take("found_start", "_at"), take("found_end", "_to"), take("score", "_score")
    ).with_columns(take("status", "_status"))
    return frame.drop("_status", "_at", "_to", "_score").sort("_edge")
