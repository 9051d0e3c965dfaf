"""``support_digests`` on a hand-built kernel result: identifiers gathered by rank from the
names of every rank (known and unknown, of equal and of different byte lengths), rank keys
too large for the packed sort key and empty sections among many documents give the Appendix A
recipe's digests."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

from citelens.support import _digest
from citelens.support._kernel import RANK, KernelResult

from ._digest_reference import citelens_digests

DOC = "_d"
NAMES = ("claim_digest", "evidence_digest", "adjudication_digest", "input_digest")

# One document. Byte order of the identifiers: claims a < b (known) < q (unknown); evidence
# e (known) < x (unknown); so the claim rank is a=0, b=1, q=2 and the evidence rank e=0, x=1,
# and an edge/adjudication's rank key is claim rank * 2**32 + evidence rank.
CLAIMS = [("a", 0, 3, "", None, ""), ("b", None, None, "s", 5, "t")]
EVIDENCE = [("e", 1, 2, "s", None)]
EDGES = [  # sorted by (claim, evidence, start, end, source id), as the kernel returns them
    ("a", "e", None, None, ""),
    ("b", "x", 1, 2, "s"),
    ("q", "e", None, None, ""),
]
ADJUDICATIONS = [("b", "x", "unclear"), ("a", "e", "supports"), ("a", "e", "contradicts")]
CLAIM_RANK = {"a": 0, "b": 1, "q": 2}
EVIDENCE_RANK = {"e": 0, "x": 1}


def _frames(document: int = 0) -> dict[str, Any]:
    claim_code = {"a": 0, "b": 1}
    evidence_code = {"e": 0}
    ints = {"start": pl.Int64, "end": pl.Int64, "source_length": pl.Int64}
    claims = pl.DataFrame(
        {
            "_c": [0, 1],
            "claim_id": [r[0] for r in CLAIMS],
            "start": [r[1] for r in CLAIMS],
            "end": [r[2] for r in CLAIMS],
            "source_id": [r[3] for r in CLAIMS],
            "source_length": [r[4] for r in CLAIMS],
            "claim_type": [r[5] for r in CLAIMS],
            DOC: [document] * 2,
        },
        schema_overrides={"_c": pl.UInt32, DOC: pl.UInt32, **ints},
    )
    evidence = pl.DataFrame(
        {
            "_e": [0],
            "evidence_id": ["e"],
            "start": [1],
            "end": [2],
            "source_id": ["s"],
            "source_length": [None],
            DOC: [document],
        },
        schema_overrides={"_e": pl.UInt32, DOC: pl.UInt32, **ints},
    )

    def coded(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
        # No identifier strings: the rank key names both identifiers.
        return {
            "_c": [claim_code.get(r[0]) for r in rows],
            "_e": [evidence_code.get(r[1]) for r in rows],
            RANK: [(CLAIM_RANK[r[0]] << 32) + EVIDENCE_RANK[r[1]] for r in rows],
            DOC: [document] * len(rows),
        }

    codes = {"_c": pl.UInt32, "_e": pl.UInt32, RANK: pl.UInt64, DOC: pl.UInt32}
    edges = pl.DataFrame(
        coded(EDGES)
        | {
            "start": [r[2] for r in EDGES],
            "end": [r[3] for r in EDGES],
            "source_id": [r[4] for r in EDGES],
        },
        schema_overrides=codes | ints,
    )
    adjudications = pl.DataFrame(
        coded(ADJUDICATIONS) | {"label": [r[2] for r in ADJUDICATIONS]},
        schema_overrides=codes,
    )
    return {
        "claims": claims,
        "evidence": evidence,
        "edges": edges,
        "adj": adjudications,
        # The identifier of every rank (sorted by rank), unknown "q" and "x" included.
        "claim_names": sorted(CLAIM_RANK, key=CLAIM_RANK.__getitem__),
        "evidence_names": sorted(EVIDENCE_RANK, key=EVIDENCE_RANK.__getitem__),
    }


def _digests(frames: dict[str, Any], documents: list[int]) -> list[dict[str, str]]:
    kernel = KernelResult(
        documents=pl.DataFrame(),
        claims=frames["claims"],
        evidence=frames["evidence"],
        coded_edges=frames["edges"],
        coded_adjudications=frames["adj"],
        claim_names=pl.Series(frames["claim_names"], dtype=pl.String),
        evidence_names=pl.Series(frames["evidence_names"], dtype=pl.String),
    )
    out = _digest.support_digests(np.array(documents, dtype=np.uint32), kernel)
    return [{name: row[name] for name in NAMES} for row in out.iter_rows(named=True)]


EXPECTED = citelens_digests(CLAIMS, EVIDENCE, EDGES, ADJUDICATIONS)


@pytest.mark.parametrize("chunk", [1, 2, _digest._CHUNK])
def test_one_document(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every identifier is one byte: the names are fixed-width items, gathered by rank.
    monkeypatch.setattr(_digest, "_CHUNK", chunk)
    assert _digests(_frames(), [0]) == [EXPECTED]


@pytest.mark.parametrize("chunk", [1, 2, _digest._CHUNK])
def test_names_of_different_lengths(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # The unknown claim is "qq" (two bytes where the known ones have one): the names are
    # variable-width, gathered by rank as Arrow binary values. Same ranks, same order.
    monkeypatch.setattr(_digest, "_CHUNK", chunk)
    frames = _frames()
    frames["claim_names"] = ["a", "b", "qq"]
    edges = [("qq", *edge[1:]) if edge[0] == "q" else edge for edge in EDGES]
    assert _digests(frames, [0]) == [citelens_digests(CLAIMS, EVIDENCE, edges, ADJUDICATIONS)]


def test_adjudication_order_beyond_the_packed_sort_key() -> None:
    # Ranks of 2**62 and more cannot be packed with the label code into 64 bits: the rows are
    # sorted by (rank, label code) with lexsort instead; the order is the same either way.
    for base in (0, 1 << 62):
        frame = pl.DataFrame({RANK: [base + 5, base + 1, base + 5, base]}, schema={RANK: pl.UInt64})
        labels = np.array([1, 3, 0, 2], dtype=np.uint8)
        # (rank, label): (5,1) (1,3) (5,0) (0,2) -> (0,2) (1,3) (5,0) (5,1): rows 3, 1, 2, 0.
        assert _digest._adjudication_order(frame, labels).tolist() == [3, 1, 2, 0]


def test_many_documents_with_empty_sections() -> None:
    # Document 4 is the document above; document 7 has one claim "z" and nothing else, so
    # its evidence, edge and adjudication sections are empty (its ranks come after doc 4's).
    one = _frames(document=4)
    lonely = {
        "_c": [2],
        "claim_id": ["z"],
        "start": [None],
        "end": [None],
        "source_id": [""],
        "source_length": [None],
        "claim_type": [""],
        DOC: [7],
    }
    one["claims"] = pl.concat([one["claims"], pl.DataFrame(lonely, schema=one["claims"].schema)])
    one["claim_names"] = [*one["claim_names"], "z"]  # rank 3, after document 4's
    alone = citelens_digests([("z", None, None, "", None, "")], [], [], [])
    assert _digests(one, [4, 7]) == [EXPECTED, alone]
    # Without any edge or adjudication in the whole batch, every document's sections are
    # empty but for its claims and evidence.
    one["edges"] = one["edges"].clear()
    one["adj"] = one["adj"].clear()
    expected = citelens_digests(CLAIMS, EVIDENCE, [], [])
    assert _digests(one, [4, 7]) == [expected, alone]
