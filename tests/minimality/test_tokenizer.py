"""The tokenizer equals Python's ``re`` rule ``\\w+|[^\\w\\s]`` on the running interpreter."""

from __future__ import annotations

import re
import unicodedata

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.minimality import TOKENIZER_UNICODE_VERSION, tokenize
from citelens.minimality._tokenize import CLASS_PUNCT, CLASS_SPACE, CLASS_WORD, class_table

RULE = re.compile(r"\w+|[^\w\s]")
ALL = "".join(map(chr, range(0x110000)))  # every code point, lone surrogates included


def reference(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in RULE.finditer(text)]


def test_unicode_version_is_the_interpreters() -> None:
    assert unicodedata.unidata_version == TOKENIZER_UNICODE_VERSION


def test_class_of_every_code_point_matches_the_category_rule() -> None:
    # §9: word = isalnum() or "_", whitespace = isspace(), punctuation = everything else.
    expected = np.fromiter(
        (
            CLASS_WORD
            if (ch.isalnum() or ch == "_")
            else CLASS_SPACE
            if ch.isspace()
            else CLASS_PUNCT
            for ch in ALL
        ),
        dtype=np.uint8,
        count=len(ALL),
    )
    assert np.array_equal(class_table(), expected)
    assert int((expected == CLASS_SPACE).sum()) == sum(ch.isspace() for ch in ALL)


def test_every_code_point_alone_and_in_context() -> None:
    # All code points in one string: word runs and single punctuation tokens must coincide.
    assert tokenize(ALL) == reference(ALL)
    # Each code point between two letters ("a" + cp + "b"), all at once, separated by spaces.
    wrapped = " ".join("a" + ch + "b" for ch in ALL)
    assert tokenize(wrapped) == reference(wrapped)
    # Each code point on its own, separated by spaces (including surrogates U+D800–U+DFFF).
    spaced = " ".join(ALL)
    assert tokenize(spaced) == reference(spaced)


def test_lone_surrogates_are_punctuation() -> None:
    for code in (0xD800, 0xDBFF, 0xDC00, 0xDFFF):
        text = "x" + chr(code) + "y"
        assert tokenize(text) == [(0, 1), (1, 2), (2, 3)] == reference(text)


SAMPLES = (
    "a_Z09 \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"
    "\u0301\u0300\u0903\u20dd\u200d\u200c\ufe0f\ufeff\u200b\u2060"  # marks, ZWJ/ZWNJ, format
    "\U0001f600\U0001f44d\U0001f3fd\U0001f468\u2764\u24b6\u2460\xbd\xb2\u216b"  # emoji, No, Nl
    "\u9ad8\u8840\u538b\u65e5\u672c\u3068\u30ab\ud55c\uad6d"  # CJK, kana, Hangul
    "\u0645\u0631\u062d\u0628\u0627\u05e9\u05b8\u05c1\u200f\u200e\u202b\u0661"  # RTL, marks
    "\u0939\u093f\u094d\u0e01\u0e34\u203f.,;:!?'\"-\u2014\u2019()[]$%#@/\\\x00\x01\x7f"
    "\ue000\U000e0001\u0378\U00011f00\U0002ebf0\ud800\udfff"
)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(SAMPLES), max_size=60))
def test_hypothesis_strings_from_hard_alphabet(text: str) -> None:
    assert tokenize(text) == reference(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=80))
def test_hypothesis_any_code_points(text: str) -> None:
    assert tokenize(text) == reference(text)


def test_token_arrays_are_strictly_increasing() -> None:
    from citelens.minimality._tokenize import token_arrays

    starts, ends = token_arrays("don't stop\u200d\U0001f600 now_ok 3.5mg")
    assert np.all(starts < ends)
    assert np.all(ends[:-1] <= starts[1:])
    assert starts.dtype == np.int64 and ends.dtype == np.int64
