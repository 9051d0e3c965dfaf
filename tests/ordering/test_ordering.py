"""citelens.ordering (ordering.md): canonical order, primary markers, fixed errors."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import pytest

from citelens import Limits
from citelens.errors import CitationOrderingError, CitelensError
from citelens.ordering import (
    CITATION_ORDERING_SCHEMA_VERSION,
    CitationOrdering,
    OrderingCitation,
    order_citations,
)

CANARY = "CANARY-ordering-secret"


def ref(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()


D, S, E1, E2 = ref("doc"), ref("section"), ref("e1"), ref("e2")

EXPECTED_JSON = (
    '{"citations":[{"document_id":"sha256:139d544b821b13ebea14f1b0fe18577222e415c2966e3a3511c4196055232202",'
    '"evidence_id":"sha256:8b5cc4df7eec7d32a7814eca4af047ae33b2d52342667715682e19c25b0b9faa","primary":true,'
    '"section":"sha256:3fb45623cb3075a8af9a2f81ef3beaa4038541cd71f08e4bf6c79c088f7a4026",'
    '"source_offset":{"end":5,"start":0}},'
    '{"document_id":"sha256:139d544b821b13ebea14f1b0fe18577222e415c2966e3a3511c4196055232202",'
    '"evidence_id":"sha256:8b5cc4df7eec7d32a7814eca4af047ae33b2d52342667715682e19c25b0b9faa","primary":false,'
    '"section":"sha256:3fb45623cb3075a8af9a2f81ef3beaa4038541cd71f08e4bf6c79c088f7a4026",'
    '"source_offset":{"end":20,"start":10}},'
    '{"document_id":"sha256:139d544b821b13ebea14f1b0fe18577222e415c2966e3a3511c4196055232202",'
    '"evidence_id":"sha256:ac0f09c0f8bf5e7a4b063d863255f16d8ce9abe600e288d934cf313bcbff63eb","primary":false,'
    '"section":"sha256:3fb45623cb3075a8af9a2f81ef3beaa4038541cd71f08e4bf6c79c088f7a4026",'
    '"source_offset":{"end":20,"start":10}}],"schema_version":1}\n'
)


def expect(call: Any, message: str, category: str) -> None:
    with pytest.raises(CitelensError) as info:
        call()
    exc = info.value
    assert type(exc) is CitationOrderingError
    assert str(exc) == message and exc.args == (message,)
    assert exc.category == category
    assert exc.__cause__ is None and exc.__context__ is None
    assert CANARY not in str(exc) and CANARY not in repr(exc)


def test_contract_example_exact_json() -> None:
    citations = [
        OrderingCitation(D, S, 10, 20, E2),
        OrderingCitation(D, S, 0, 5, E1, primary=True),
        OrderingCitation(D, S, 10, 20, E1),
    ]
    ordering = CitationOrdering(tuple(citations))
    assert ordering.to_json() == EXPECTED_JSON
    assert CITATION_ORDERING_SCHEMA_VERSION == 1
    assert list(ordering.to_dict()) == ["schema_version", "citations"]
    assert list(citations[0].to_dict()) == [
        "document_id", "section", "source_offset", "evidence_id", "primary",
    ]  # fmt: skip
    assert citations[1].source_offset == (0, 5) and citations[1].is_primary


def test_order_is_stable_and_keeps_duplicates() -> None:
    a = OrderingCitation(D, S, 0, 5, E1, primary=True)
    b = OrderingCitation(D, S, 0, 5, E1, primary=True)
    c = OrderingCitation(ref("a"), S, 9, 10, E2)  # sha256:ca97… sorts after D = sha256:139d…
    result = order_citations([c, a, b])
    assert result == (a, b, c)
    assert result[0] is a and result[1] is b
    assert order_citations([]) == ()
    assert order_citations(x for x in [a]) == (a,)


@pytest.mark.parametrize("field", ["document_id", "section", "evidence_id"])
@pytest.mark.parametrize("bad", [CANARY, ref("x").upper(), ref("x") + "\n", 5, None])
def test_identifier_errors(field: str, bad: Any) -> None:
    values: dict[str, Any] = {
        "document_id": D,
        "section": S,
        "source_start": 0,
        "source_end": 5,
        "evidence_id": E1,
    }
    values[field] = bad
    expect(lambda: OrderingCitation(**values), "invalid citation metadata identifier", "identifier")


@pytest.mark.parametrize(("start", "end"), [(-1, 5), (5, 5), (6, 5), (True, 5), (0, 5.0), ("0", 5)])
def test_offset_errors(start: Any, end: Any) -> None:
    expect(lambda: OrderingCitation(D, S, start, end, E1), "invalid citation source offset", "span")


@pytest.mark.parametrize("primary", [1, 0, "true", None])
def test_primary_errors(primary: Any) -> None:
    expect(
        lambda: OrderingCitation(D, S, 0, 5, E1, primary),
        "invalid citation primary marker",
        "value",
    )


def test_collection_errors() -> None:
    good = OrderingCitation(D, S, 0, 5, E1)

    def raising() -> Iterator[OrderingCitation]:
        yield good
        raise RuntimeError(CANARY)

    for value in ("citations", b"x", bytearray(b"x")):
        expect(
            lambda value=value: order_citations(value), "invalid citation collection", "collection"
        )
    for value in (None, 5, raising(), [good, {"document_id": D}], [CANARY]):
        expect(
            lambda value=value: order_citations(value), "invalid citation collection", "collection"
        )
    expect(
        lambda: order_citations([good] * 3, limits=Limits(citations=2)),
        "invalid citation collection",
        "limit",
    )
    assert len(order_citations([good] * 2, limits=Limits(citations=2))) == 2
    expect(lambda: order_citations([good] * 4097), "invalid citation collection", "limit")
    expect(lambda: order_citations([good], limits=5), "limits must be a Limits instance", "policy")  # type: ignore[arg-type]


def test_primary_conflicts() -> None:
    a = OrderingCitation(D, S, 0, 5, E1, primary=True)
    a_not = OrderingCitation(D, S, 0, 5, E1, primary=False)
    b = OrderingCitation(D, S, 6, 9, E1, primary=True)
    expect(lambda: order_citations([a, a_not]), "conflicting citation primary markers", "reference")
    expect(lambda: order_citations([a, b]), "conflicting citation primary markers", "reference")
    assert order_citations([a, a]) == (a, a)


def test_artifact_schema_error() -> None:
    for version in (2, True, "1"):
        expect(
            lambda version=version: CitationOrdering((), version),
            "unsupported citation ordering schema",
            "report",
        )
    expect(lambda: CitationOrdering("x"), "invalid citation collection", "collection")  # type: ignore[arg-type]


def test_reordering_gives_identical_json() -> None:
    items = [OrderingCitation(D, S, i % 3, 10 + i, ref(str(i)), primary=(i == 4)) for i in range(8)]
    base = CitationOrdering(tuple(items)).to_json()
    assert CitationOrdering(tuple(reversed(items))).to_json() == base


def _rows(n_claims: int, seed: int) -> list[dict[str, Any]]:
    import random

    rng = random.Random(seed)
    rows = []
    for c in range(n_claims):
        primary_key = rng.randrange(0, 4)
        for k in range(rng.randrange(1, 6)):
            rows.append(
                {
                    "claim_id": ref(f"claim{c}"),
                    "document_id": ref(f"doc{rng.randrange(2)}"),
                    "section": S,
                    "source_start": k,
                    "source_end": k + rng.randrange(1, 5),
                    "evidence_id": ref(f"e{rng.randrange(3)}"),
                    "primary": (k == primary_key) or None,
                }
            )
    rng.shuffle(rows)
    return rows


def _per_claim(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from citelens.ordering import order_citations

    out = []
    for claim in sorted({r["claim_id"] for r in rows}):
        mine = [r for r in rows if r["claim_id"] == claim]
        items = [
            OrderingCitation(
                r["document_id"],
                r["section"],
                r["source_start"],
                r["source_end"],
                r["evidence_id"],
                bool(r["primary"]),
            )
            for r in mine
        ]
        for c in order_citations(items):
            out.append({"claim_id": claim, "document_id": c.document_id, "section": c.section,
                        "source_start": c.source_start, "source_end": c.source_end,
                        "evidence_id": c.evidence_id, "primary": c.primary})  # fmt: skip
    return out


@pytest.mark.parametrize("seed", range(5))
def test_table_form_equals_per_claim_calls(seed: int, tmp_path: Any) -> None:
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    from citelens.ordering import order_citations_table

    rows = _rows(6, seed)
    table = pa.Table.from_pylist(rows)
    expected = _per_claim(rows)
    assert order_citations_table(table).to_pylist() == expected
    assert order_citations_table(pl.from_arrow(table)).to_pylist() == expected
    path = tmp_path / "c.parquet"
    pq.write_table(table, path)
    assert order_citations_table(path).to_pylist() == expected


def test_table_form_errors() -> None:
    import pyarrow as pa

    from citelens.ordering import order_citations_table

    good = {"claim_id": ref("c"), "document_id": D, "section": S, "source_start": 0,
            "source_end": 5, "evidence_id": E1, "primary": False}  # fmt: skip
    t = pa.Table.from_pylist
    expect(lambda: order_citations_table(t([{**good, "claim_id": CANARY}])),
           "invalid citation metadata identifier", "identifier")  # fmt: skip
    expect(lambda: order_citations_table(t([good, {**good, "source_end": 0}])),
           "invalid citation source offset", "span")  # fmt: skip
    expect(lambda: order_citations_table(t([{**good, "primary": 1}])),
           "invalid citation primary marker", "value")  # fmt: skip
    expect(lambda: order_citations_table(t([good, {**good, "primary": True}])),
           "conflicting citation primary markers", "reference")  # fmt: skip
    expect(lambda: order_citations_table(t([good] * 3), limits=Limits(citations=2)),
           "invalid citation collection", "limit")  # fmt: skip
    expect(lambda: order_citations_table(t([{"claim_id": ref("c")}])),
           "invalid citation collection", "input")  # fmt: skip
    expect(lambda: order_citations_table("not-a-table"), "invalid citation collection", "input")
    expect(lambda: order_citations_table(t([good]), limits=3),  # type: ignore[arg-type]
           "limits must be a Limits instance", "policy")  # fmt: skip
    assert order_citations_table(t([good, {**good, "claim_id": ref("d")}])).num_rows == 2
    none_primary = t([{k: v for k, v in good.items() if k != "primary"} | {"primary": None}])
    assert order_citations_table(none_primary).column("primary").to_pylist() == [False]
