"""Bounds and limit + 1 consumption (support-metrics.md §3.2, §10; conventions.md §2)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

from ._helpers import compute


class Counter:
    """A generator wrapper that counts the items pulled."""

    def __init__(self, items: Any) -> None:
        self.items = iter(items)
        self.pulled = 0

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        item = next(self.items)
        self.pulled += 1
        return item


class CountingMapping(Mapping[Any, Any]):
    """A mapping whose key iteration is counted."""

    def __init__(self, data: dict[Any, Any]) -> None:
        self.data = data
        self.pulled = 0

    def __getitem__(self, key: Any) -> Any:
        return self.data[key]

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[Any]:
        for key in self.data:
            self.pulled += 1
            yield key


def limit_error(*args: Any, **kwargs: Any) -> tuple[str, str]:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        compute(*args, **kwargs)
    assert info.value.__cause__ is None and info.value.__context__ is None
    return str(info.value), info.value.category


def claims_gen(count: int | None) -> Iterator[dict[str, Any]]:
    numbers = itertools.count() if count is None else range(count)
    return ({"claim_id": f"c{k}"} for k in numbers)


def L(**fields: int) -> Any:
    import citelens

    return citelens.Limits(**fields)


@pytest.mark.parametrize(
    ("position", "field", "name", "item"),
    [
        (0, "claims", "claim", {"claim_id": "c"}),
        (1, "evidence", "evidence", {"evidence_id": "e"}),
        (2, "citations", "citation", ("c", "e")),
        (3, "adjudications", "adjudication", {"claim_id": "c", "evidence_id": "e", "label": "x"}),
    ],
)
def test_generator_consumed_by_limit_plus_one(
    position: int, field: str, name: str, item: Any
) -> None:
    # Limit 3, an endless generator: exactly 4 items pulled, nothing normalised (the items
    # would fail later: duplicate ids, bad labels).
    source = Counter(itertools.repeat(item))
    args: list[Any] = [[], [], None, None]
    args[position] = source
    assert limit_error(*args, limits=L(**{field: 3})) == (
        f"{name} collection exceeds the record limit",
        "limit",
    )
    assert source.pulled == 4


def test_exactly_the_limit_is_accepted() -> None:
    source = Counter(claims_gen(3))
    report = compute(source, limits=L(claims=3))
    assert report.claim_count == 3
    assert source.pulled == 3


def test_default_claim_bound_endless_generator() -> None:
    # Default bound 100,000: 100,001 items pulled.
    source = Counter(claims_gen(None))
    assert limit_error(source) == ("claim collection exceeds the record limit", "limit")
    assert source.pulled == 100_001


def test_default_evidence_bound_endless_generator() -> None:
    source = Counter({"evidence_id": "e"} for _ in itertools.count())
    assert limit_error([], source) == ("evidence collection exceeds the record limit", "limit")
    assert source.pulled == 200_001


def test_default_citation_and_adjudication_bounds() -> None:
    source = Counter(itertools.repeat(("c", "e")))
    assert limit_error([], [], source) == ("citation collection exceeds the record limit", "limit")
    assert source.pulled == 500_001
    adjudications = Counter(itertools.repeat({"claim_id": "c"}))
    assert limit_error([], [], None, adjudications) == (
        "adjudication collection exceeds the record limit",
        "limit",
    )
    assert adjudications.pulled == 500_001


def test_list_longer_than_limit() -> None:
    claims = [{"claim_id": f"c{k}"} for k in range(3)]
    assert limit_error(claims, limits=L(claims=2)) == (
        "claim collection exceeds the record limit",
        "limit",
    )
    assert compute(claims, limits=L(claims=3)).claim_count == 3


def test_compact_claim_mapping_bound() -> None:
    mapping = CountingMapping({f"c{k}": [] for k in range(10)})
    assert limit_error(mapping, limits=L(claims=2)) == (
        "record collection exceeds the record limit",
        "limit",
    )
    assert mapping.pulled == 3


def test_compact_evidence_and_adjudication_mapping_bounds() -> None:
    evidence = CountingMapping({f"e{k}": [0, 1] for k in range(10)})
    assert limit_error([], evidence, limits=L(evidence=2)) == (
        "record collection exceeds the record limit",
        "limit",
    )
    assert evidence.pulled == 3
    adjudications = CountingMapping(
        {f"c{k}": {"evidence_id": "e", "label": "supports"} for k in range(5)}
    )
    assert limit_error([], [], None, adjudications, limits=L(adjudications=4)) == (
        "record collection exceeds the record limit",
        "limit",
    )
    assert adjudications.pulled == 5


def test_compact_citation_mapping_bound() -> None:
    # Entries pulled as "citation collection" (citation limit).
    mapping = CountingMapping({f"c{k}": "e" for k in range(10)})
    assert limit_error([], [], mapping, limits=L(citations=2)) == (
        "citation collection exceeds the record limit",
        "limit",
    )
    # Running edge total: two keys with two ids each under limit 3.
    assert limit_error([], [], {"a": ["e1", "e2"], "b": ["e1", "e2"]}, limits=L(citations=3)) == (
        "citation collection exceeds the record limit",
        "limit",
    )


def test_source_lengths_bound_uses_evidence_limit() -> None:
    lengths = CountingMapping({f"s{k}": k for k in range(10)})
    assert limit_error([], source_lengths=lengths, limits=L(evidence=2)) == (
        "source collection exceeds the record limit",
        "limit",
    )
    assert lengths.pulled == 3
    assert compute([], source_lengths={"a": 1, "b": 2}, limits=L(evidence=2)).claim_count == 0


def test_one_claim_citation_list_bound() -> None:
    claim = {"claim_id": "c", "citations": ["e1", "e2", "e3"]}
    assert limit_error([claim], limits=L(citations=2)) == (
        "citation collection exceeds the record limit",
        "limit",
    )


def test_running_embedded_edge_bound() -> None:
    # 2 + 2 claim-embedded edges under limit 3: the running total fails after the second claim.
    claims = [
        {"claim_id": "a", "citations": ["e1", "e2"]},
        {"claim_id": "b", "citations": ["e1", "e2"]},
    ]
    assert limit_error(claims, limits=L(citations=3)) == (
        "citation collection exceeds the record limit",
        "limit",
    )
    assert compute(claims, limits=L(citations=4)).citation_count == 4


def test_combined_edge_bound_counts_duplicates() -> None:
    # 2 embedded + 2 explicit = 4 edges before de-duplication (2 after) under limit 3.
    claims = [{"claim_id": "a", "citations": ["e1", "e2"]}]
    explicit = [("a", "e1"), ("a", "e2")]
    assert limit_error(claims, [], explicit, limits=L(citations=3)) == (
        "citation collection exceeds the record limit",
        "limit",
    )
    report = compute(claims, [], explicit, limits=L(citations=4))
    assert report.citation_count == 2
    assert report.deterministic.duplicate_citation_count == 2


def test_embedded_adjudication_bounds() -> None:
    evidence = [{"evidence_id": f"e{k}", "claim_id": "c", "label": "supports"} for k in range(3)]
    # Running embedded total: 3 rows under limit 2.
    assert limit_error([], evidence, limits=L(adjudications=2)) == (
        "adjudication collection exceeds the record limit",
        "limit",
    )
    # Combined: 2 embedded + 1 explicit under limit 2.
    explicit = [{"claim_id": "c", "evidence_id": "e0", "label": "supports"}]
    assert limit_error([], evidence[:2], None, explicit, limits=L(adjudications=2)) == (
        "adjudication collection exceeds the record limit",
        "limit",
    )
    report = compute([], evidence[:2], None, explicit, limits=L(adjudications=3))
    assert report.adjudication.unmatched_adjudication_count == 3


def test_table_bounds() -> None:
    table = pa.table({"claim_id": ["a", "b", "c"]})
    for value in (table, table.to_batches()[0], pl.from_arrow(table)):
        assert limit_error(value, limits=L(claims=2)) == (
            "claim collection exceeds the record limit",
            "limit",
        )
        assert compute(value, limits=L(claims=3)).claim_count == 3


def test_stream_read_only_to_limit_plus_one() -> None:
    schema = pa.schema([("claim_id", pa.string())])
    pulled = 0

    def batches() -> Iterator[pa.RecordBatch]:
        nonlocal pulled
        for k in range(100):
            pulled += 1
            yield pa.record_batch([pa.array([f"c{k}"])], schema=schema)

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    assert limit_error(reader, limits=L(claims=2)) == (
        "claim collection exceeds the record limit",
        "limit",
    )
    assert pulled <= 3


def test_limits_must_be_a_limits_instance_before_anything() -> None:
    source = Counter(claims_gen(5))
    for bad in ({"claims": 2}, 5, "limits", (1, 2)):
        assert limit_error(source, limits=bad) == ("limits must be a Limits instance", "policy")
    assert source.pulled == 0
    # Even before source_lengths are read.
    assert limit_error([], source_lengths=7, limits=5) == (
        "limits must be a Limits instance",
        "policy",
    )


@pytest.mark.parametrize("value", [0, -1, True, 1.0, "3", 2.5])
def test_invalid_limits_fields(value: Any) -> None:
    import citelens

    for field in ("claims", "evidence", "citations", "adjudications"):
        with pytest.raises(citelens.LimitsError) as info:
            citelens.Limits(**{field: value})
        assert (str(info.value), info.value.category) == (
            "record limits must be positive integers",
            "limit",
        )
        assert info.value.__cause__ is None and info.value.__context__ is None
        with pytest.raises(citelens.LimitsError):
            dataclasses.replace(citelens.Limits(), **{field: value})


def test_limits_reexported() -> None:
    import citelens
    import citelens.support

    assert citelens.support.Limits is citelens.Limits
    assert compute([], limits=citelens.Limits()).claim_count == 0
    assert compute([], limits=None).claim_count == 0
    # Raising a bound is allowed (no ceiling).
    assert compute([], limits=citelens.Limits(claims=10**9)).claim_count == 0
