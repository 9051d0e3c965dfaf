"""The columnar ``normalized``/``fuzzy``/``absent`` step (``_approx.approximate_statuses``):
many texts normalised in one pass, checked against a plain per-edge oracle written here, and
hand-checked boundary cases."""

from __future__ import annotations

import random
import unicodedata

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from citelens.provenance import _approx

# --- the oracle: docs/provenance.md read literally, one edge at a time, no NumPy -------------

_UNIFY = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035\u00b4\u0060", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d", "-"),
    }
)


def _oracle_normalize(text: str) -> str:
    out = []
    previous_blank = False
    for char in text:
        if char.isspace():
            piece = " "
        else:
            piece = unicodedata.normalize("NFKC", char).casefold().translate(_UNIFY)
        blank = piece == " "
        if not (blank and previous_blank):  # a whitespace run keeps its first space only
            out.append(piece)
        previous_blank = blank
    return "".join(out)


def _oracle_edge(
    text: str, quote: str, start: int | None, threshold: float
) -> tuple[str, int | None, int | None, float]:
    wanted = _oracle_normalize(quote).strip(" ")
    if wanted:
        haystack = _oracle_normalize(text)
        f = [len(_oracle_normalize(text[:p])) for p in range(len(text) + 1)]
        ref = f[min(max(0 if start is None else start, 0), len(text))]
        occurrences = []
        at = haystack.find(wanted)
        while at >= 0:  # left to right, not overlapping
            occurrences.append(at)
            at = haystack.find(wanted, at + len(wanted))
        if occurrences:
            a = min(occurrences, key=lambda o: (abs(o - ref), o))  # nearest, earlier on a tie
            b = a + len(wanted)
            p = max(p for p in range(len(text) + 1) if f[p] <= a)
            q = min(q for q in range(len(text) + 1) if f[q] >= b)
            return "normalized", p, q, 1.0
    aligned = fuzz.partial_ratio_alignment(quote, text)
    score = 0.0 if aligned is None else aligned.score / 100.0
    if aligned is not None and score >= threshold:
        return "fuzzy", aligned.dest_start, aligned.dest_end, score
    return "absent", None, None, score


# --- building the step's input directly (every row open unless told) ------------------------


def _frame(
    edges: list[tuple[int, str, int | None]], settled: frozenset[int] = frozenset()
) -> pl.DataFrame:
    """One row per (source row, quote, cited start); rows in ``settled`` already ``exact``."""
    n = len(edges)
    return pl.DataFrame(
        {
            "_edge": list(range(n)),
            "_src": [src for src, _, _ in edges],
            "quote": [quote for _, quote, _ in edges],
            "start": [start for _, _, start in edges],
            "status": ["exact" if i in settled else None for i in range(n)],
            "found_start": [0 if i in settled else None for i in range(n)],
            "found_end": [1 if i in settled else None for i in range(n)],
            "score": [1.0 if i in settled else None for i in range(n)],
        },
        schema={
            "_edge": pl.UInt32,
            "_src": pl.UInt32,
            "quote": pl.String,
            "start": pl.Int64,
            "status": pl.String,
            "found_start": pl.Int64,
            "found_end": pl.Int64,
            "score": pl.Float64,
        },
    )


def _run(
    texts: list[str], edges: list[tuple[int, str, int | None]], threshold: float = 0.9
) -> list[tuple[str, int | None, int | None, float]]:
    out = _approx.approximate_statuses(_frame(edges), pl.DataFrame({"text": texts}), threshold)
    return out.select("status", "found_start", "found_end", "score").rows()


# --- the differential test ------------------------------------------------------------------

# ligatures, combining marks and a precomposed letter, curly quotes, dashes, mixed whitespace,
# non-BMP (an emoji; a mathematical bold A, NFKC "A"), letters whose pieces are longer (ß ss,
# İ i + U+0307, ½ 1⁄2) or start with a space (¨ is " " + U+0308), fullwidth letters
_ALPHABET = (
    "abcAB.,"
    "\ufb01\ufb02\ufb03"
    "e\u0301\u0308\u00e9"
    "\u2018\u2019\u201c\u201d'\"`"
    "-\u2013\u2014\u2212"
    " \t\n\u00a0\u2003\u3000"
    "\U0001f600\U0001d400"
    "\u00df\u0130\u00bd\u00a8\uff21"
)
# how a quote may differ from its span and still be found normalised
_VARIANTS = {
    "'": "\u2019",
    "\u2019": "'",
    "-": "\u2014",
    "\u2013": "-",
    "\ufb01": "fi",
    "a": "A",
    "\u00df": "SS",
    " ": " \t ",
    "\t": "\n",
}


def _random_case(
    rng: random.Random,
) -> tuple[list[str], list[tuple[int, str, int | None]]]:
    texts = ["".join(rng.choices(_ALPHABET, k=rng.randrange(0, 40))) for _ in range(12)]
    edges: list[tuple[int, str, int | None]] = []
    for _ in range(80):
        src = rng.randrange(len(texts))
        text = texts[src]
        kind = rng.random()
        if kind < 0.5 and text:
            lo = rng.randrange(len(text))
            span = text[lo : lo + rng.randrange(1, 8)]
            quote = "".join(_VARIANTS.get(c, c) if rng.random() < 0.5 else c for c in span)
            if rng.random() < 0.3:
                quote = rng.choice(" \t\u3000") + quote + rng.choice(" \n\u00a0")
        elif kind < 0.6:
            quote = "".join(rng.choices(" \t\n\u00a0\u2003\u3000", k=rng.randrange(1, 4)))
        else:
            quote = "".join(rng.choices(_ALPHABET, k=rng.randrange(1, 6)))
        start = None if rng.random() < 0.2 else rng.randrange(-3, len(text) + 4)
        edges.append((src, quote, start))
    return texts, edges


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
@pytest.mark.parametrize("seed", range(6))
def test_columnar_step_equals_the_per_edge_oracle(
    monkeypatch: pytest.MonkeyPatch, seed: int, chunk: int
) -> None:
    # chunk 1: every non-empty source is a pass of its own; 7: a few sources per pass;
    # 1 << 20: all of them in one pass
    monkeypatch.setattr(_approx, "_CHUNK_POINTS", chunk)
    texts, edges = _random_case(random.Random(seed))
    got = _run(texts, edges, threshold=0.6)
    expected = [_oracle_edge(texts[src], quote, start, 0.6) for src, quote, start in edges]
    assert got == expected
    # the case reaches all three statuses (else it would test less than it claims)
    assert {status for status, *_ in expected} == {"normalized", "fuzzy", "absent"}


_SHORT = st.text(alphabet=st.sampled_from(" \t\na\ufb01\u00df\u00a8\U0001f600"))


@settings(max_examples=150, deadline=None)
@given(st.lists(_SHORT, max_size=5))
def test_one_pass_is_every_text_on_its_own(texts: list[str]) -> None:
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    done = _approx._normalise("".join(texts), lengths)
    assert done.text == "".join(_oracle_normalize(t) for t in texts)
    for index, text in enumerate(texts):
        lo, hi = int(done.starts[index]), int(done.starts[index + 1])
        f = (done.prefix[lo : hi + 1] - done.prefix[lo]).tolist()
        assert f == [len(_oracle_normalize(text[:p])) for p in range(len(text) + 1)]


# --- hand-checked cases ---------------------------------------------------------------------


def test_whitespace_runs_stop_at_text_boundaries() -> None:
    # "a " | " \t" | " b": each text's opening space is its own, the tab repeats its space
    done = _approx._normalise("a  \t b", np.array([2, 2, 2], dtype=np.int64))
    assert done.text == "a   b"  # "a " + " " + " b"
    # a 1, its space 2, the second text's space 3, the tab 3, the third's space 4, b 5
    assert done.prefix.tolist() == [0, 1, 2, 3, 3, 4, 5]
    assert done.starts.tolist() == [0, 2, 4, 6]


def test_a_text_of_whitespace_only() -> None:
    assert _approx.normalize(" \t\u3000\n") == " "
    assert _approx._normalized(" \t\u3000\n")[1].tolist() == [0, 1, 1, 1, 1]
    # an all-whitespace source between two others, in one pass with a quote citing it:
    # its only space is at original 2; a quote " " strips to nothing, so it is never
    # "normalized": rapidfuzz finds " " itself at [2, 3), similarity 1.0
    assert _run(["x ", "\t\n ", " y"], [(1, " ", 0)]) == [("fuzzy", 2, 3, 1.0)]


def test_a_quote_empty_after_stripping() -> None:
    # em space + tab: normalised " ", stripped "": not searched normalised; rapidfuzz shares
    # no character with "ab", similarity 0
    assert _run(["ab"], [(0, "\u2003\t", 0)]) == [("absent", None, None, 0.0)]


def test_stripping_reaches_into_a_piece() -> None:
    # "¨" is NFKC " " + U+0308; stripped, U+0308 alone, found after the "a" of "a" + U+0308:
    # f = [0, 1, 2], match [1, 2) -> original [1, 2)
    assert _run(["a\u0308"], [(0, "\u00a8", None)]) == [("normalized", 1, 2, 1.0)]


def test_nearest_occurrence_through_ligatures() -> None:
    # "ﬁx ﬁx" normalises to "fix fix": f = [0, 2, 3, 4, 6, 7]; "FIX" at 0 and 4
    texts = ["\ufb01x \ufb01x"]
    edges: list[tuple[int, str, int | None]] = [
        (0, "FIX", 2),  # ref f(2) = 3: |4 - 3| = 1 < 3: [a, b) = [4, 7) -> [3, 5)
        (0, "FIX", 1),  # ref f(1) = 2: a tie (2 and 2), the earlier: [0, 3) -> [0, 2)
        (0, "FIX", -5),  # clamped to 0: ref 0, the first
        (0, "FIX", 999),  # clamped to 5: ref f(5) = 7, the second
        (0, "IX", 0),  # "ix" at 1: p = 0 (f(0) = 0 <= 1 < f(1)), the ligature reported whole
    ]
    assert _run(texts, edges) == [
        ("normalized", 3, 5, 1.0),
        ("normalized", 0, 2, 1.0),
        ("normalized", 0, 2, 1.0),
        ("normalized", 3, 5, 1.0),
        ("normalized", 0, 2, 1.0),
    ]


def test_non_bmp_and_several_sources_per_pass() -> None:
    # "😀 Ｆｕｌｌ" -> "😀 full": the emoji is one code point, "full" at [2, 6); the second
    # source "Straße" -> "strasse": "SS" at normalised [4, 6), f(4) = 4, f(5) = 6 -> [4, 5)
    texts = ["\U0001f600 \uff26\uff55\uff4c\uff4c", "Stra\u00dfe"]
    assert _run(texts, [(1, "ss", 0), (0, " FULL ", 0)]) == [
        ("normalized", 4, 5, 1.0),
        ("normalized", 2, 6, 1.0),
    ]


def test_settled_rows_are_left_alone() -> None:
    frame = _frame([(0, "A", 0), (0, "zzz", 0)], settled=frozenset({1}))
    out = _approx.approximate_statuses(frame, pl.DataFrame({"text": ["a"]}), 0.9)
    # row 0: "a" at [0, 1); row 1 was exact [0, 1) and stays so
    assert out.select("status", "found_start", "found_end", "score").rows() == [
        ("normalized", 0, 1, 1.0),
        ("exact", 0, 1, 1.0),
    ]
