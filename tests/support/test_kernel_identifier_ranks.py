"""Kernel identifier ranks and names: every identifier an edge or adjudication names, known or
unknown, gets its position in byte order per document (``_with_ranks``), and the kernel's
coded tables give their strings back from ``claim_names``/``evidence_names``."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from citelens.support import _kernel

DOC = "_d"
_INTS = {"start": pl.Int64, "end": pl.Int64, "source_length": pl.Int64, DOC: pl.UInt32}


def _frame(rows: list[dict[str, Any]], names: list[str]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={name: _INTS.get(name, pl.String) for name in names})


def _known(ids: list[tuple[int, str]]) -> pl.DataFrame:
    # Sorted by (document, identifier) as the kernel sorts them; the code is the position.
    frame = pl.DataFrame(
        {DOC: [d for d, _ in ids], "claim_id": [i for _, i in ids]},
        schema={DOC: pl.UInt32, "claim_id": pl.String},
    )
    return frame.sort(DOC, "claim_id").with_row_index("_c")


@pytest.mark.parametrize("single", [True, False])
def test_unknown_identifiers_are_ranked_between_the_known_ones(single: bool) -> None:
    if single:
        known = _known([(0, "b"), (0, "d")])
        key = ["claim_id"]
        frame = pl.DataFrame(
            {DOC: [0, 0, 0, 0], "claim_id": ["d", "c", "a", "b"], "_c": [1, None, None, 0]},
            schema={DOC: pl.UInt32, "claim_id": pl.String, "_c": pl.UInt32},
        )
        # Byte order of the union: a (unknown), b (code 0), c (unknown), d (code 1):
        # ranks d=3, c=2, a=0, b=1; names in rank order.
        expected_ranks, expected_names = [3, 2, 0, 1], ["a", "b", "c", "d"]
    else:
        known = _known([(0, "b"), (1, "a"), (1, "c")])
        key = [DOC, "claim_id"]
        frame = pl.DataFrame(
            {
                DOC: [1, 0, 1, 0, 1],
                "claim_id": ["c", "z", "b", "a", "a"],
                "_c": [2, None, None, None, 1],
            },
            schema={DOC: pl.UInt32, "claim_id": pl.String, "_c": pl.UInt32},
        )
        # Union in (document, identifier) order: (0,a) unknown -> 0, (0,b) code 0 -> 1,
        # (0,z) unknown -> 2, (1,a) code 1 -> 3, (1,b) unknown -> 4, (1,c) code 2 -> 5.
        expected_ranks, expected_names = [5, 2, 4, 0, 3], ["a", "b", "z", "a", "b", "c"]
    missing = _kernel._missing(frame, frame["_c"], key)
    (ranked,), names = _kernel._with_ranks(known, key, "_c", "_rc", [frame], [missing])
    assert ranked["_rc"].to_list() == expected_ranks
    assert names.to_list() == expected_names


def test_without_unknown_identifiers_the_rank_is_the_code() -> None:
    known = _known([(0, "x"), (0, "y")])
    frame = pl.DataFrame(
        {DOC: [0, 0], "claim_id": ["y", "x"], "_c": [1, 0]},
        schema={DOC: pl.UInt32, "claim_id": pl.String, "_c": pl.UInt32},
    )
    missing = _kernel._missing(frame, frame["_c"], ["claim_id"])
    (ranked,), names = _kernel._with_ranks(known, ["claim_id"], "_c", "_rc", [frame], [missing])
    assert ranked["_rc"].to_list() == [1, 0]
    assert names.to_list() == ["x", "y"]


def test_kernel_tables_give_back_every_identifier_string() -> None:
    # Two documents; document 1 cites an unknown claim "q" and an unknown evidence "zz", and
    # adjudicates an unknown pair. The coded tables hold no identifier strings; the edges and
    # adjudications properties rebuild them from the names (known and unknown alike).
    claims = _frame(
        [
            {"claim_id": "c2", "start": 0, "end": 1, "source_id": "", "claim_type": "", DOC: 0},
            {"claim_id": "c1", "start": 0, "end": 1, "source_id": "", "claim_type": "", DOC: 1},
        ],
        ["claim_id", "start", "end", "source_id", "source_length", "claim_type", DOC],
    )
    evidence = _frame(
        [
            {"evidence_id": "e1", "start": 0, "end": 5, "source_id": "", DOC: 0},
            {"evidence_id": "e1", "start": 0, "end": 5, "source_id": "", DOC: 1},
        ],
        ["evidence_id", "start", "end", "source_id", "source_length", DOC],
    )
    edges = _frame(
        [
            {"claim_id": "c2", "evidence_id": "e1", "source_id": "", DOC: 0},
            {"claim_id": "q", "evidence_id": "e1", "source_id": "", DOC: 1},
            {"claim_id": "c1", "evidence_id": "zz", "source_id": "", DOC: 1},
        ],
        ["claim_id", "evidence_id", "start", "end", "source_id", DOC],
    )
    adjudications = _frame(
        [
            {"claim_id": "q", "evidence_id": "e9", "label": "supports", "origin": "x", DOC: 1},
            {"claim_id": "c2", "evidence_id": "e1", "label": "supports", "origin": "x", DOC: 0},
        ],
        ["claim_id", "evidence_id", "label", "origin", DOC],
    )
    tables = [claims, evidence, edges, adjudications]
    documents = pl.DataFrame({DOC: [0, 1]}, schema={DOC: pl.UInt32})
    result = _kernel.run_kernel(tables, documents)
    assert tables == []  # the kernel took the only references
    assert "claim_id" not in result.coded_edges.columns
    assert "evidence_id" not in result.coded_adjudications.columns
    # Edges come back de-duplicated in (document, claim, evidence) byte order.
    assert result.edges.select(DOC, "claim_id", "evidence_id").rows() == [
        (0, "c2", "e1"),
        (1, "c1", "zz"),
        (1, "q", "e1"),
    ]
    assert sorted(result.adjudications.select(DOC, "claim_id", "evidence_id").rows()) == [
        (0, "c2", "e1"),
        (1, "q", "e9"),
    ]
    # Names per (document, identifier), in byte order: claims (0,c2) (1,c1) (1,q); evidence
    # (0,e1) (1,e1) (1,e9) (1,zz).
    assert result.claim_names.to_list() == ["c2", "c1", "q"]
    assert result.evidence_names.to_list() == ["e1", "e1", "e9", "zz"]


def _first_letter_hash(frame: pl.DataFrame, *args: Any, **kwargs: Any) -> pl.Series:
    # A deliberately weak row hash: the first letter of the last column's value, so that
    # "ax" collides with "a" and the lookup's equality check has to reject it.
    return frame.select(pl.col(frame.columns[-1]).str.head(1).hash()).to_series()


@pytest.mark.parametrize("key", [["claim_id"], [DOC, "claim_id"]])
def test_lookup_rejects_a_hash_collision_with_an_absent_key(
    monkeypatch: pytest.MonkeyPatch, key: list[str]
) -> None:
    monkeypatch.setattr(pl.DataFrame, "hash_rows", _first_letter_hash)
    table = pl.DataFrame(
        {DOC: [0, 0], "claim_id": ["a", "b"], "_c": [0, 1]},
        schema={DOC: pl.UInt32, "claim_id": pl.String, "_c": pl.UInt32},
    ).select(*key, "_c")
    probe = pl.DataFrame(
        {DOC: [0, 0, 0, 0], "claim_id": ["b", "ax", "a", "c"]},
        schema={DOC: pl.UInt32, "claim_id": pl.String},
    )
    # "ax" hashes like "a" but is not in the table: null, like the absent "c".
    assert _kernel._lookup(probe, table, key).to_list() == [1, None, 0, None]


def test_lookup_joins_on_the_keys_when_the_table_has_colliding_hashes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pl.DataFrame, "hash_rows", _first_letter_hash)
    # "ab" and "ac" share a hash: the join on the keys themselves still tells them apart.
    table = pl.DataFrame(
        {"claim_id": ["ab", "ac", "b"], "_c": [0, 1, 2]},
        schema={"claim_id": pl.String, "_c": pl.UInt32},
    )
    probe = pl.DataFrame({"claim_id": ["ac", "zz", "b", "ab", "a"]})
    assert _kernel._lookup(probe, table, ["claim_id"]).to_list() == [1, None, 2, 0, None]


def test_lookup_in_an_empty_table_finds_nothing() -> None:
    table = pl.DataFrame(
        {"claim_id": [], "_c": []}, schema={"claim_id": pl.String, "_c": pl.UInt32}
    )
    probe = pl.DataFrame({"claim_id": ["a", "b"]})
    assert _kernel._lookup(probe, table, ["claim_id"]).to_list() == [None, None]
