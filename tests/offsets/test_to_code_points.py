"""``citelens._offsets.to_code_points``: UTF-8 byte and UTF-16 unit offsets as code points,
checked by hand on literal texts and against a plain-Python oracle (decode the prefix)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens import _offsets


def _convert(
    texts: list[str | None], pairs: list[tuple[int, int]], unit: _offsets.OffsetUnit
) -> list[int]:
    index = np.array([t for t, _ in pairs], dtype=np.int64)
    offsets = np.array([o for _, o in pairs], dtype=np.int64)
    converted = _offsets.to_code_points(pa.array(texts, pa.string()), index, offsets, unit)
    return [int(value) for value in converted]


# "h" 1 byte, "é" 2 bytes, "😀" 4 bytes (2 UTF-16 units), "日" 3 bytes (1 unit)
TEXTS = ["héllo", "a😀b", "日本", None, ""]


def test_utf8_bytes_by_hand() -> None:
    pairs = [
        (0, 0),  # start: 0
        (0, 1),  # after "h": 1
        (0, 2),  # inside "é" (bytes 1-2): -1
        (0, 3),  # after "é": 2
        (0, 6),  # the end (6 bytes): 5 code points
        (0, 7),  # beyond: -1
        (1, 1),  # after "a": 1
        (1, 3),  # inside the emoji (bytes 1-4): -1
        (1, 5),  # after the emoji: 2
        (1, 6),  # end: 3
        (2, 3),  # after "日": 1
        (2, 6),  # end: 2
        (3, 0),  # a null text is empty: 0
        (4, 0),  # an empty text: 0
        (4, 1),  # beyond the empty text: -1
        (5, 0),  # no such text: -1
        (0, -1),  # negative: -1
    ]
    assert _convert(TEXTS, pairs, "utf8") == [
        0,
        1,
        -1,
        2,
        5,
        -1,
        1,
        -1,
        2,
        3,
        1,
        2,
        0,
        0,
        -1,
        -1,
        -1,
    ]


def test_utf16_units_by_hand() -> None:
    pairs = [
        (0, 2),  # "hé": 2 units, 2 code points
        (0, 5),  # end: 5
        (1, 1),  # after "a": 1
        (1, 2),  # inside the surrogate pair: -1
        (1, 3),  # after the emoji: 2
        (1, 4),  # end: 3
        (1, 5),  # beyond: -1
        (2, 1),  # after "日" (one unit): 1
        (3, 0),  # null text: 0
    ]
    assert _convert(TEXTS, pairs, "utf16") == [2, 5, 1, -1, 2, 3, -1, 1, 0]


def _oracle(text: str | None, offset: int, unit: _offsets.OffsetUnit) -> int:
    data = (text or "").encode("utf-8" if unit == "utf8" else "utf-16-le")
    width = 1 if unit == "utf8" else 2
    if offset < 0 or offset * width > len(data):
        return -1
    try:
        return len(data[: offset * width].decode("utf-8" if unit == "utf8" else "utf-16-le"))
    except UnicodeDecodeError:  # the offset falls inside a code point
        return -1


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.none() | st.text(max_size=12), min_size=1, max_size=8),
    queries=st.lists(st.tuples(st.integers(-1, 9), st.integers(-2, 50)), max_size=40),
    block=st.sampled_from([1, 5, 1 << 24]),
    unit=st.sampled_from(["utf8", "utf16"]),
)
def test_matches_the_prefix_decoding_oracle(
    texts: list[str | None],
    queries: list[tuple[int, int]],
    block: int,
    unit: _offsets.OffsetUnit,
) -> None:
    surrogate_free = [t.encode("utf-8", "replace").decode() if t else t for t in texts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_offsets, "BLOCK_BYTES", block)
        got = _convert(surrogate_free, queries, unit)
    expected = [
        _oracle(surrogate_free[t], o, unit) if 0 <= t < len(texts) else -1 for t, o in queries
    ]
    assert got == expected
