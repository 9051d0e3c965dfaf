"""The provenance normalisation, code point by code point (``_approx._normalized``): the map
back to the original text is the normalised length of every prefix."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.provenance import _approx, normalize


def test_by_hand() -> None:
    # "ﬁ" (one code point) -> "fi"; "Ä" -> "ä"; the three spaces collapse to one; "’" -> "'";
    # "–" -> "-"; "ß" case folds to "ss"
    text = "ﬁne  \tÄ’s – Straße"
    assert normalize(text) == "fine ä's - strasse"
    _, prefix = _approx._normalized(text)
    # prefix lengths: ﬁ 2, n 3, e 4, the whitespace run 5, 5, 5, Ä 6, ’ 7, s 8, space 9,
    # – 10, space 11, S 12, t 13, r 14, a 15, ß 17, e 18
    assert prefix.tolist() == [0, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18]
    # "fi" at [0, 2) of the normalised text is the ligature [0, 1); "ss" [15, 17) is "ß"
    starts, ends = _approx._spans(prefix, np.array([0, 15]), np.array([2, 17]))
    assert (starts.tolist(), ends.tolist()) == ([0, 16], [1, 17])
    empty, at = _approx._normalized("")
    assert (empty, at.tolist()) == ("", [0])


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("aB ﬁ\t\n’–ßé\u0301Ä😀x"), max_size=30))
def test_the_map_is_the_length_of_every_normalised_prefix(text: str) -> None:
    normalised, prefix = _approx._normalized(text)
    assert normalised == normalize(text)
    assert prefix.tolist() == [len(normalize(text[:p])) for p in range(len(text) + 1)]
