"""Vectorised token counts equal a naive per-span overlap count (minimality.md §8, §13)."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.minimality._tokenize import count_overlaps, token_arrays

from ._helpers import ref

RULE = re.compile(r"\w+|[^\w\s]")
ALPHABET = "ab _-,.\u0301\u200d \t\n\u3000\U0001f600\u9ad8\ud800\xa0"


def naive(text: str, start: int, end: int) -> int:
    # A token [a, b) overlaps [s, e) iff a < e and b > s (partial words count in full).
    return sum(1 for m in RULE.finditer(text) if m.start() < end and m.end() > start)


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=50),
    st.lists(st.tuples(st.integers(0, 60), st.integers(1, 60)), min_size=1, max_size=20),
)
def test_counts_equal_naive(text: str, pairs: list[tuple[int, int]]) -> None:
    spans = [(min(s, len(text) - 1), min(s + w, len(text))) for s, w in pairs]
    spans = [(s, e) for s, e in spans if e > s]
    if not spans:
        return
    tok_start, tok_end = token_arrays(text)
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    counts = count_overlaps(tok_start, tok_end, starts, ends).tolist()
    assert counts == [naive(text, s, e) for s, e in spans]


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=40),
    st.data(),
)
def test_report_counts_equal_naive(text: str, data: st.DataObject) -> None:
    from citelens.minimality import check_citation_minimality

    tokens = [m.span() for m in RULE.finditer(text)]
    if not tokens:
        return
    a, b = data.draw(st.sampled_from(tokens))
    cs = data.draw(st.integers(0, len(text) - 1))
    ce = data.draw(st.integers(cs + 1, len(text)))
    report = check_citation_minimality(
        text,
        [{"claim_id": ref("c"), "required_span": [a, b]}],
        [{"claim_id": ref("c"), "source_span": [cs, ce]}],
    )
    (record,) = report.records
    assert record.citation_token_count == naive(text, cs, ce)
    assert record.required_token_count == naive(text, a, b)
    covers = cs <= a and ce >= b
    assert record.excess_token_count == (naive(text, cs, ce) - naive(text, a, b) if covers else 0)


def test_hand_checked_example() -> None:
    # "alpha beta gamma delta": tokens [0,5) [6,10) [11,16) [17,22).
    tok_start, tok_end = token_arrays("alpha beta gamma delta")
    spans = np.array([[6, 16], [0, 22], [5, 11], [7, 9], [10, 11]], dtype=np.int64)
    counts = count_overlaps(tok_start, tok_end, spans[:, 0], spans[:, 1]).tolist()
    # [6,16): beta, gamma = 2; [0,22): 4; [5,11): beta only (5 and 10 are spaces) = 1;
    # [7,9): inside beta = 1; [10,11): the space after beta = 0.
    assert counts == [2, 4, 1, 1, 0]


def test_large_unsorted_queries_take_the_sorted_search_path() -> None:
    rng = np.random.default_rng(7)
    text = " ".join(rng.choice(["ab", "c,d", "\u9ad8", "x\u0301"], 3000).tolist())
    tok_start, tok_end = token_arrays(text)
    starts = rng.integers(0, len(text) - 1, 6000)
    ends = np.minimum(starts + rng.integers(1, 40, 6000), len(text))
    sorted_path = count_overlaps(tok_start, tok_end, starts, ends)  # ≥ 4096 queries: sorted
    direct = count_overlaps(tok_start, tok_end, starts, ends, sort_queries=False)
    assert np.array_equal(sorted_path, direct)
    for i in range(0, 6000, 97):
        assert sorted_path[i] == naive(text, int(starts[i]), int(ends[i]))
