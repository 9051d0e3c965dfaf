"""The minimality tokenizer (minimality.md §9), vectorised with NumPy (§13).

Every code point is in exactly one class: word (``str.isalnum()`` or ``_``), whitespace
(``str.isspace()``) or punctuation (everything else, including combining marks, format
characters, lone surrogates, private use and unassigned code points). A token is a maximal run
of word characters or one punctuation code point. This is exactly what CPython's ``re`` pattern
``\\w+|[^\\w\\s]`` matches on a ``str``; the lookup table below is built from that very engine on
the running interpreter, once per process, so the classes follow its ``unicodedata`` version.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Literal

import numpy as np
import numpy.typing as npt

from citelens._fixed import attempt
from citelens.errors import CitationMinimalityError

__all__ = [
    "CLASS_PUNCT",
    "CLASS_SPACE",
    "CLASS_WORD",
    "TOKENIZER_UNICODE_VERSION",
    "class_table",
    "count_overlaps",
    "token_arrays",
    "tokenize",
]

TOKENIZER_UNICODE_VERSION: str = unicodedata.unidata_version

CLASS_SPACE = 0
CLASS_WORD = 1
CLASS_PUNCT = 2

_MAX_CODE_POINT = 0x110000

I64 = npt.NDArray[np.int64]


@functools.cache
def class_table() -> npt.NDArray[np.uint8]:
    """The read-only ``uint8`` class of every code point (0 space, 1 word, 2 punctuation).

    Built on first use, once per process (never at import).
    """
    # All code points as one str (lone surrogates included), classified by runs of the re
    # engine's own \w and \s: a few thousand runs, about 50 ms, once per process.
    every = np.arange(_MAX_CODE_POINT, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    table = np.full(_MAX_CODE_POINT, CLASS_PUNCT, dtype=np.uint8)
    for match in re.finditer(r"\w+", every):
        table[match.start() : match.end()] = CLASS_WORD
    for match in re.finditer(r"\s+", every):
        table[match.start() : match.end()] = CLASS_SPACE
    table.setflags(write=False)
    return table


def code_points(text: str) -> npt.NDArray[np.uint32]:
    """The code points of ``text`` as a ``uint32`` array (lone surrogates survive)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def token_arrays(text: str) -> tuple[I64, I64]:
    """Token ``(starts, ends)`` as strictly increasing ``int64`` code-point offsets."""
    if not text:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy()
    cls = class_table()[code_points(text)]
    word = cls == CLASS_WORD
    punct = cls == CLASS_PUNCT
    prev_word = np.empty_like(word)
    prev_word[0] = False
    prev_word[1:] = word[:-1]
    next_word = np.empty_like(word)
    next_word[-1] = False
    next_word[:-1] = word[1:]
    starts = punct | (word & ~prev_word)
    ends = punct | (word & ~next_word)
    tok_start = np.flatnonzero(starts).astype(np.int64, copy=False)
    tok_end = np.flatnonzero(ends).astype(np.int64, copy=False) + 1
    return tok_start, tok_end


def count_overlaps(
    tok_start: I64, tok_end: I64, starts: I64, ends: I64, *, sort_queries: bool = True
) -> I64:
    """For each span ``[s, e)``, the number of tokens ``[a, b)`` with ``a < e`` and ``b > s``.

    Tokens are disjoint and ordered, so the count is ``#(a < e) - #(b <= s)``: two binary
    searches per span, O(spans · log tokens), no memory proportional to span lengths. Large
    query arrays are searched in ascending order (better cache locality), then put back,
    unless ``sort_queries`` is false (queries already local, e.g. grouped by small document).
    """
    before_end = _search(tok_start, ends, "left", sort_queries)
    ended_before_start = _search(tok_end, starts, "right", sort_queries)
    counts: I64 = np.maximum(before_end - ended_before_start, 0).astype(np.int64, copy=False)
    return counts


def _search(haystack: I64, needles: I64, side: Literal["left", "right"], sort: bool) -> I64:
    if not sort or needles.size < 4096 or bool(np.all(needles[1:] >= needles[:-1])):
        found: I64 = np.searchsorted(haystack, needles, side=side).astype(np.int64, copy=False)
        return found
    order = np.argsort(needles, kind="stable")
    result = np.empty(needles.size, dtype=np.int64)
    result[order] = np.searchsorted(haystack, needles[order], side=side)
    return result


def tokenize(source_text: str) -> list[tuple[int, int]]:
    """The token spans of ``source_text`` as half-open code-point offsets, in text order.

    Raises ``CitationMinimalityError("source_text must be text")`` for a non-``str``.
    """
    if type(source_text) is not str:
        raise CitationMinimalityError("source_text must be text", "input")

    def spans() -> list[tuple[int, int]]:
        tok_start, tok_end = token_arrays(source_text)
        return list(zip(tok_start.tolist(), tok_end.tolist(), strict=True))

    return attempt(spans)
