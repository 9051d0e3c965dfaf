"""Citation detection and sentence splitting in linear time (issue 10 item 3).

The linear code must give exactly what the backtracking reference patterns give
(``_reference_detection``: Appendix A of gold-harness.md and the original §8.4 splitter) on
generated text, and stay linear on adversarial text: 2 MiB costs less than 22.6 times 256 KiB
(a linear scan costs about 8 times, a quadratic one 64 times) and at most 10 s.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens.gold import (
    detect_author_year,
    detect_citations,
    normalise_citations,
    parse_numeric_citations,
)
from citelens.gold._text import sentences, strip_markers

from . import _reference_detection as ref

# Pieces of the syntax of §4 and §8.4 (names, years, markers, separators, brackets, WS of the
# contract's set and characters outside it), so that joined lists hit the detectors' corner cases.
_FRAGMENTS = (
    "Smith",
    "Lee",
    "O'Connor",
    "D\u2019Arcy",
    "Lloyd-Evans",
    "A",
    "a",
    "x",
    "Fig",
    "e.g",
    "al",
    "_",
    "-",
    "'",
    "\u2013",
    "\u2014",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\u00a0",
    "\u2009",
    "\u0085",
    "\u001c",
    "(",
    ")",
    "[",
    "]",
    '"',
    "\u201d",
    ",",
    ";",
    ".",
    "!",
    "?",
    "0",
    "1",
    "007",
    "12",
    "200",
    "201",
    "1800",
    "2020",
    "2020a",
    "2099",
    "et al",
    "et al.",
    "and",
    "&",
    "and colleagues",
    "in",
    "in 2019",
)
_TEXT = st.one_of(
    st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map("".join),
    st.text(alphabet=st.sampled_from("Aa1.,-( )[]\n;'e&9\u00a0"), max_size=60),
)
_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_TEXT)
def test_detection_equals_the_reference_patterns(text: str) -> None:
    """Every public detection function returns what the Appendix A patterns return."""
    assert normalise_citations(text) == ref.normalise_citations(text)
    assert parse_numeric_citations(text) == ref.parse_numeric_citations(text)
    normalised = ref.normalise_citations(text + " ")
    assert parse_numeric_citations(normalised) == ref.parse_numeric_citations(normalised)
    assert detect_author_year(text) == ref.detect_author_year(text)
    assert detect_citations(text) == ref.detect_citations(text)


@_SETTINGS
@given(_TEXT)
def test_sentences_and_markers_equal_the_reference(text: str) -> None:
    """The splitter and ``strip_markers`` of the lexical adapter return what the originals did."""
    assert sentences(text) == ref.sentences(text)
    assert strip_markers(text) == ref.strip_markers(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Hand-checked corner cases of the rewritten detectors:
        ("A-Smith (2020)", ["A-Smith 2020"]),  # the run's leftmost capital starts the NAME
        ("x-Smith (2020)", ["Smith 2020"]),  # "x" is no capital: the NAME starts after "-"
        ("1Smith (2020)", []),  # no word boundary before "S", none later in the run
        ("Smith, Jones and Lee (2020)", ["Jones 2020"]),  # "Lee" is consumed by the Jones match
        ("Smith et al Jones et al in 2019", ["Smith 2019"]),  # Jones lies inside Smith's match
        ("Smith et al. in 2019", ["Smith 2019"]),  # the dot belongs to ETAL, not to the run
        ("Smith et al; Jones et al in 2019", ["Jones 2019"]),  # ";" stops Smith's run
        ("Smith et al in 20199", []),  # no word boundary after the year
        ("x.1,2 y,3 (4) [5-7] z1,8 ", [1, 2, 3, 4, 5, 6, 7, 8]),  # P1, P2, P3, range, P1 letter
        ("x.0,2 y,3-250 (0) a1-3 ", []),  # F3 (0), F2 (250), F3, F1 (no comma after a letter)
        ("[" + "0" * 5000 + "7]", [7]),  # leading zeros do not count against the digit limit
        ("[" + "1" * 5000 + "]", []),  # too long to be a number: adds nothing, raises nothing
    ],
)
def test_detection_corner_cases(text: str, expected: list[int | str]) -> None:
    """Each corner case gives the key list worked out by hand from §4."""
    assert detect_citations(text) == expected


_ADVERSARIAL = (
    "Smith et al ",  # issue 10: 48 kB took 19.7 s (D3's lazy run to every later head)
    "A-",  # issue 10: 32 kB took 74.5 s (every capital of one name run retried)
    "[",
    "(",
    "1",
    "Smith et al. ",
    "Smith, Jones and ",
    ",",
    "[1-200,",
    "x.1 ",
    "Smith et al in ",
    "(Smith ",
)


def _cpu_seconds(func: Callable[[str], object], text: str) -> float:
    # CPU time of this process: the machine is shared, wall time would measure the neighbours.
    # The cyclic garbage collector is paused while the helper runs: a full collection walks
    # every live object of the process (pytest's and Hypothesis' included), so with hundreds
    # of thousands of new sentences it made linear code look superlinear (2 MiB of "x.1 "
    # cost 34 times 256 KiB in a clean-clone run, 9 times with the collector paused).
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        func(text)
        return time.process_time() - started
    finally:
        gc.enable()


# 8 times the text: linear code takes about 8 times as long, quadratic code 64 times. The
# bound between them, 22.6 (their geometric mean), leaves a factor of 2.8 either way: a run on
# a shared machine can be inflated (cache, memory bandwidth, allocator) or a small run be
# lucky by less than that, and a quadratic helper still fails. (With 4 times the text and a
# bound of 8 the margin was 2 either way, and a loaded CI run once measured 10.4 for linear
# code: 0.239 s against 0.023 s.)
_GROWTH = 8
_BOUND = (_GROWTH * _GROWTH**2) ** 0.5


def _assert_linear(func: Callable[[str], object], pattern: str) -> None:
    small = (pattern * (2**18 // len(pattern) + 1))[: 2**18]
    size = 2**18 * _GROWTH
    large = (pattern * (size // len(pattern) + 1))[:size]
    # the best of up to three runs of each size: one run on a loaded machine can be inflated
    # by its neighbours, not by the algorithm; quadratic code fails all three
    small_time = large_time = float("inf")
    for _ in range(3):
        small_time = min(small_time, max(_cpu_seconds(func, small), 0.01))  # timer floor
        large_time = min(large_time, _cpu_seconds(func, large))
        if large_time / small_time < _BOUND:
            break
    assert large_time < 10.0
    assert large_time / small_time < _BOUND


@pytest.mark.parametrize("pattern", _ADVERSARIAL)
def test_detect_citations_is_linear(pattern: str) -> None:
    """2 MiB of each adversarial pattern costs less than 22.6 times 256 KiB (linear: 8 times,
    quadratic: 64 times), and under 10 s."""
    _assert_linear(detect_citations, pattern)


@pytest.mark.parametrize("pattern", ["Smith et al. ", "x.1 ", " ", "a a "])
@pytest.mark.parametrize("func", [sentences, strip_markers])
def test_lexical_text_helpers_are_linear(func: Callable[[str], object], pattern: str) -> None:
    """The splitter and ``strip_markers`` are linear too (they searched every sentence so far)."""
    _assert_linear(func, pattern)
