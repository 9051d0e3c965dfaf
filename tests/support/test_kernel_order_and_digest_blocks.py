"""Kernel and digest internals (issue 9 performance pass): the byte-order sort, the pair runs,
and the many-document digests, checked by hand and against the plain recipe / one-document
evaluation on random inputs (unknown identifiers, duplicates, null offsets included)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.support import _byte_order, _digest, _kernel

from ._digest_reference import citelens_digests

DOC = "_d"


def _order(ids: list[str], docs: list[int] | None = None) -> list[int]:
    series = pl.Series("s", ids, dtype=pl.String)
    documents = None if docs is None else pl.Series(DOC, docs, dtype=pl.UInt32)
    return _byte_order.byte_order(series, documents).to_list()


def test_byte_order_is_utf8_byte_order() -> None:
    ids = ["b", "ab", "a", "\u00e9", "a\u0301", "\U0001f600"]
    # UTF-8: a=61, ab=61 62, a+U+0301=61 cc 81 (62 < cc), b=62, é=c3 a9, 😀=f0 9f 98 80;
    # a proper prefix sorts first. So: a, ab, a\u0301, b, é, 😀 (positions 2, 1, 4, 0, 3, 5).
    assert _order(ids) == [2, 1, 4, 0, 3, 5]


def test_byte_order_resolves_window_ties_by_the_full_string() -> None:
    prefix = "sha256:" + "0" * 30
    ids = [prefix + "12345678z", prefix + "12345678a", prefix + "1234567", "sha256:1"]
    # Common prefix of min/max is "sha256:"; the first three share the next 8 bytes
    # "00000000", so only their full strings order them: "...1234567" (shorter, a prefix of
    # the others) < "...12345678a" < "...12345678z"; "sha256:1" is last ("1" > "0").
    assert _order(ids) == [2, 1, 0, 3]


def test_byte_order_zero_byte_against_end_of_string() -> None:
    # "a" and "a\x00" have the same zero-padded window; "a" is a proper prefix, so first.
    assert _order(["a\x00", "a", "a\x00b"]) == [1, 0, 2]


def test_byte_order_by_document_first() -> None:
    # (0, "b") at 1, (0, "c") at 3, (1, "a") at 2, (1, "b") at 0.
    assert _order(["b", "b", "a", "c"], [1, 0, 1, 0]) == [1, 3, 2, 0]


IDS = st.text(
    alphabet=st.sampled_from(["a", "b", "\x00", "\u00e9", "\U0001f600", "z"]), max_size=12
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), IDS), max_size=40), st.text(max_size=9))
def test_byte_order_equals_sorting_by_bytes(rows: list[tuple[int, str]], prefix: str) -> None:
    ids = [prefix + text for _, text in rows]
    docs = [doc for doc, _ in rows]
    expected_single = sorted(range(len(ids)), key=lambda k: ids[k].encode())
    got_single = _order(ids)
    assert [ids[k] for k in got_single] == [ids[k] for k in expected_single]
    expected = sorted(range(len(ids)), key=lambda k: (docs[k], ids[k].encode()))
    got = _order(ids, docs)
    assert [(docs[k], ids[k]) for k in got] == [(docs[k], ids[k]) for k in expected]


def test_pair_runs_match_and_collapse_labels() -> None:
    enum = pl.Enum(list(_kernel.LABELS))
    adjudications = pl.DataFrame(
        {
            _kernel.RANK: pl.Series([7, 5, 5, 9, 7, 5], dtype=pl.UInt64),
            "_c": pl.Series([1, 0, 0, 2, 1, 0], dtype=pl.UInt32),
            "label": pl.Series(
                ["irrelevant", "supports", "supports", "supports", "contradicts", "supports"],
                dtype=enum,
            ),
        }
    )
    # Valid edges have rank keys 5 and 7 (twice: two spans of one pair); 9 has no valid edge.
    pairs = _kernel._pair_runs(adjudications, np.array([5, 7, 7], dtype=np.uint64))
    assert pairs.matched.to_list() == [True, True, True, False, True, True]
    # Pair 5: three "supports" rows -> supports, no conflict. Pair 7: irrelevant and
    # contradicts disagree -> unclear, a conflict.
    assert pairs.labels.select(_kernel.RANK, "_c", "pair_label", "_conflict").rows() == [
        (5, 0, "supports", False),
        (7, 1, "unclear", True),
    ]


def test_pair_runs_without_valid_edges_or_rows() -> None:
    enum = pl.Enum(list(_kernel.LABELS))
    empty = pl.DataFrame(
        {
            _kernel.RANK: pl.Series([], dtype=pl.UInt64),
            "_c": pl.Series([], dtype=pl.UInt32),
            "label": pl.Series([], dtype=enum),
        }
    )
    pairs = _kernel._pair_runs(empty, np.array([3], dtype=np.uint64))
    assert pairs.matched.to_list() == [] and pairs.labels.height == 0
    one = pl.DataFrame(
        {
            _kernel.RANK: pl.Series([3], dtype=pl.UInt64),
            "_c": pl.Series([0], dtype=pl.UInt32),
            "label": pl.Series(["supports"], dtype=enum),
        }
    )
    pairs = _kernel._pair_runs(one, np.array([], dtype=np.uint64))
    assert pairs.matched.to_list() == [False] and pairs.labels.height == 0


# -- many documents in one kernel pass equal each document alone --------------------------

SMALL_IDS = st.sampled_from(["a", "b", "ab", "\u00e9", "c0", "sha256:" + "1" * 64])
OFFSET = st.one_of(st.none(), st.integers(-1, 8))
LABEL = st.sampled_from(list(_kernel.LABELS))
DOCUMENT = st.fixed_dictionaries(
    {
        "claims": st.lists(SMALL_IDS, unique=True, max_size=4),
        "evidence": st.lists(
            st.tuples(SMALL_IDS, OFFSET, OFFSET), unique_by=lambda r: r[0], max_size=4
        ),
        "edges": st.lists(
            st.tuples(SMALL_IDS, SMALL_IDS, OFFSET, OFFSET, st.sampled_from(["", "s1", "s2"])),
            max_size=7,
        ),
        "adjudications": st.lists(st.tuples(SMALL_IDS, SMALL_IDS, LABEL), max_size=6),
        "length": st.one_of(st.none(), st.integers(0, 9)),
    }
)


def _frames(documents: list[dict[str, Any]], codes: list[int]) -> list[pl.DataFrame]:
    claims: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    adjudications: list[dict[str, Any]] = []
    for doc, code in zip(documents, codes):
        claims += [
            {"claim_id": c, "start": 0, "end": 3, "source_id": "s1", "source_length": doc["length"]}
            | {"claim_type": "", DOC: code}
            for c in doc["claims"]
        ]
        evidence += [
            {"evidence_id": e, "start": s, "end": t, "source_id": "s2", "source_length": 8}
            | {DOC: code}
            for e, s, t in doc["evidence"]
        ]
        edges += [
            {"claim_id": c, "evidence_id": e, "start": s, "end": t, "source_id": src, DOC: code}
            for c, e, s, t, src in doc["edges"]
        ]
        adjudications += [
            {"claim_id": c, "evidence_id": e, "label": lab, "origin": "explicit", DOC: code}
            for c, e, lab in doc["adjudications"]
        ]
    ints = {"start": pl.Int64, "end": pl.Int64, "source_length": pl.Int64, DOC: pl.UInt32}

    def frame(rows: list[dict[str, Any]], names: list[str]) -> pl.DataFrame:
        schema = {name: ints.get(name, pl.String) for name in names}
        return pl.DataFrame(rows, schema=schema)

    return [
        frame(
            claims, ["claim_id", "start", "end", "source_id", "source_length", "claim_type", DOC]
        ),
        frame(evidence, ["evidence_id", "start", "end", "source_id", "source_length", DOC]),
        frame(edges, ["claim_id", "evidence_id", "start", "end", "source_id", DOC]),
        frame(adjudications, ["claim_id", "evidence_id", "label", "origin", DOC]),
        pl.DataFrame({DOC: codes}, schema={DOC: pl.UInt32}),
    ]


def _assert_recipe_digests(frame: pl.DataFrame, doc: dict[str, Any]) -> None:
    """The one report row of ``frame`` carries the Appendix A recipe's digests of ``doc``."""
    expected = citelens_digests(
        claims=[(c, 0, 3, "s1", doc["length"], "") for c in doc["claims"]],
        evidence=[(e, s, t, "s2", 8) for e, s, t in doc["evidence"]],
        edges=list(set(doc["edges"])),
        adjudications=doc["adjudications"],
    )
    row = frame.row(0, named=True)
    assert {name: row[name] for name in expected} == expected


def _evaluate(documents: list[dict[str, Any]], codes: list[int]) -> pl.DataFrame:
    frames = _frames(documents, codes)
    kernel = _kernel.run_kernel(frames[:4], frames[4])
    digests = _digest.support_digests(np.sort(np.array(codes, dtype=np.uint32)), kernel)
    return kernel.documents.join(digests, on=DOC).sort(DOC)


@settings(max_examples=60, deadline=None)
@given(st.lists(DOCUMENT, min_size=2, max_size=4))
def test_many_documents_equal_each_document_alone(documents: list[dict[str, Any]]) -> None:
    codes = [3 * k + 1 for k in range(len(documents))][::-1]  # not in input order
    together = _evaluate(documents, codes)
    for doc, code in zip(documents, codes):
        alone = _evaluate([doc], [code])
        assert together.filter(pl.col(DOC) == code).rows() == alone.rows()
        _assert_recipe_digests(alone, doc)


def test_digest_blocks_and_chunks_do_not_change_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    documents: list[dict[str, Any]] = [
        {
            "claims": ["a", "b", "c0"],
            "evidence": [("a", 0, 4), ("b", None, None)],
            "edges": [("a", "a", None, None, ""), ("b", "x", 1, 2, "s1"), ("q", "a", 0, 1, "")],
            "adjudications": [("a", "a", "supports"), ("a", "a", "unclear")],
            "length": 9,
        },
        {
            "claims": ["a"],
            "evidence": [],
            "edges": [],
            "adjudications": [],
            "length": None,
        },
        {
            "claims": [],
            "evidence": [("e", 1, 3)],
            "edges": [("c", "e", None, None, "")],
            "adjudications": [("c", "e", "irrelevant")],
            "length": None,
        },
    ]
    codes = [0, 1, 2]
    default = _evaluate(documents, codes)
    alone = [_evaluate([doc], [code]) for doc, code in zip(documents, codes)]
    # One document per block (every message is longer than one byte), and one-row chunks
    # for a single document's streamed encoding.
    monkeypatch.setattr(_digest, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(_digest, "_CHUNK", 1)
    assert _evaluate(documents, codes).rows() == default.rows()
    assert [_evaluate([d], [c]).rows() for d, c in zip(documents, codes)] == [
        frame.rows() for frame in alone
    ]
    for frame, doc in zip(alone, documents):
        _assert_recipe_digests(frame, doc)
