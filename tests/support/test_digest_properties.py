"""Provenance digests equal the contract's plain-Python recipe (Appendix A) on random inputs.

The engine sorts by integer codes instead of comparing identifier strings, including for edges
and adjudications that name unknown claims or evidence; these inputs mix known and unknown
identifiers, non-ASCII identifiers (byte order ≠ UTF-16 order) and null offsets.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import citelens

from ._digest_reference import citelens_digests

IDS = st.sampled_from(["a", "b", "ab", "\u00e9", "\U0001f600", "z", "\uff21", "0", "a\u0301"])
OFFSET = st.one_of(st.none(), st.integers(-1, 6))
LABEL = st.sampled_from(["supports", "contradicts", "irrelevant", "unclear"])


@settings(max_examples=120, deadline=None)
@given(
    claim_ids=st.lists(IDS, unique=True, max_size=5),
    evidence_ids=st.lists(IDS, unique=True, max_size=5),
    edges=st.lists(
        st.tuples(IDS, IDS, OFFSET, OFFSET, st.sampled_from(["", "s1", "s\u00e9"])), max_size=8
    ),
    adjudications=st.lists(st.tuples(IDS, IDS, LABEL), max_size=6),
    length=st.one_of(st.none(), st.integers(0, 9)),
)
def test_digests_equal_the_reference_recipe(
    claim_ids: list[str],
    evidence_ids: list[str],
    edges: list[tuple[str, str, int | None, int | None, str]],
    adjudications: list[tuple[str, str, str]],
    length: int | None,
) -> None:
    claims = [{"claim_id": c, "start": 0, "end": 3, "source_length": length} for c in claim_ids]
    evidence = [{"evidence_id": e, "start": 1, "end": 4} for e in evidence_ids]
    citations: list[dict[str, Any]] = [
        {"claim_id": c, "evidence_id": e, "start": s, "end": t, "source_id": src}
        for c, e, s, t, src in edges
    ]
    labels = [{"claim_id": c, "evidence_id": e, "label": lab} for c, e, lab in adjudications]
    report = citelens.compute_citation_support_metrics(claims, evidence, citations, labels)
    expected = citelens_digests(
        claims=[(c, 0, 3, "", length, "") for c in claim_ids],
        evidence=[(e, 1, 4, "", None) for e in evidence_ids],
        edges=list(set(edges)),
        adjudications=adjudications,
    )
    assert report.to_dict()["provenance"] == expected
