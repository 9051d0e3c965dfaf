"""Input forms (§4): files, tables, record views, mappings, and bounded consumption (§3)."""

from __future__ import annotations

import itertools
import pathlib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pytest

from citelens import Limits
from citelens.errors import SummaryCitationError
from citelens.summary_citations import compute_summary_citation_metrics

EVIDENCE = [{"id": "e1", "start": 0, "end": 5}, {"id": "e2", "start": 6, "end": 10}]


def test_csv_offsets_typed_and_mixed_columns(tmp_path: pathlib.Path) -> None:
    claims = tmp_path / "claims.csv"
    # "start" holds "x" in one row: that cell stays text (an invalid offset), the others
    # become ints; "007" is an int too; "+5" is not (-?[0-9]+ only).
    claims.write_text(
        "\ufeffclaim,evidence_id,start,end\nt1,e1,0,5\nt2,,006,010\nt3,,x,5\nt4,,+6,10\n\n",
        encoding="utf-8",
    )
    m = compute_summary_citation_metrics(claims, EVIDENCE)
    # t1 one direct item {e1, (0,5)} valid; t2 (6,10) valid; t3, t4 direct items without refs
    assert (m.claim_count, m.citation_count, m.valid_citation_count) == (4, 4, 2)
    assert m.invalid_citation_count == 2 and m.missing_source_record_count == 0


def test_csv_all_int_column_and_empty_file(tmp_path: pathlib.Path) -> None:
    evidence = tmp_path / "ev.csv"
    evidence.write_text('id,start,end,value\ne1,0,5,"a, b"\ne2,6,10,\n', encoding="utf-8")
    claims = tmp_path / "claims.csv"
    claims.write_text("citation\ne1\n e2 \n", encoding="utf-8")
    m = compute_summary_citation_metrics(claims, evidence)
    assert (m.valid_citation_count, m.valid_evidence_record_count) == (2, 2)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    assert compute_summary_citation_metrics(empty, evidence).claim_count == 0


def test_json_values_and_ipc_files(tmp_path: pathlib.Path) -> None:
    one = tmp_path / "one.json"
    one.write_text('"e1"', encoding="utf-8")
    assert compute_summary_citation_metrics([{"citations": ["e1"]}], one).passed
    null = tmp_path / "null.JSON"
    null.write_text("null", encoding="utf-8")
    assert compute_summary_citation_metrics(null, EVIDENCE).claim_count == 0
    table = pa.table({"citations": [["e1"], ["e2"]]})
    path = tmp_path / "claims.feather"
    feather.write_feather(table, path)
    m = compute_summary_citation_metrics(path, EVIDENCE)
    assert m.valid_citation_count == 2
    stream = tmp_path / "claims.arrows.ipc"
    with pa.OSFile(str(stream), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    assert compute_summary_citation_metrics(stream, EVIDENCE).valid_citation_count == 2


def test_table_objects_and_special_columns() -> None:
    dict_col = pa.array(["e1", "e2", "e1"]).dictionary_encode()
    claims = pa.table({"evidence_id": dict_col})
    assert compute_summary_citation_metrics(claims, EVIDENCE).valid_citation_count == 3
    # Integer ids in a table unify with string ids; uint64 offsets go through the walker.
    ev = pa.table({"id": pa.array([1, 2], pa.int32()), "start": pa.array([0, 6], pa.uint64())})
    m = compute_summary_citation_metrics(pa.table({"citations": [["1", "2"]]}), ev)
    assert m.valid_citation_count == 2
    # Map columns are mappings; a nested struct span on evidence goes through the walker.
    mapped = pa.table(
        {"citations": pa.array([[("evidence_id", "e2")]], pa.map_(pa.string(), pa.string()))}
    )
    assert compute_summary_citation_metrics(mapped, EVIDENCE).valid_citation_count == 1
    batch = pa.RecordBatch.from_pydict({"citations": [["e1"]]})
    assert compute_summary_citation_metrics(batch, EVIDENCE).valid_citation_count == 1
    frame = pl.DataFrame({"citations": [["e1"], None, []]})
    m = compute_summary_citation_metrics(frame, pl.DataFrame(EVIDENCE))
    assert (m.citation_count, m.missing_citation_count) == (1, 2)


def test_float_offsets_never_valid() -> None:
    ev = pa.table({"id": ["e1"], "start": [0.0], "end": [5.0]})
    m = compute_summary_citation_metrics([{"citations": [{"start": 0, "end": 5}]}], ev)
    assert m.unavailable_span_count == 1


def test_record_views() -> None:
    class ToDict:
        def to_dict(self) -> dict[str, Any]:
            return {"citations": ["e1"], "claim": "text"}

    class Slots:
        __slots__ = ("end", "start")

        def __init__(self) -> None:
            self.start, self.end = 6, 10

    claims = [ToDict(), SimpleNamespace(evidence_id="e2"), {"citations": [Slots()]}]
    evidence = [SimpleNamespace(id="e1", start=0, end=5), {"id": "e2", "start": 6, "end": 10}]
    m = compute_summary_citation_metrics(claims, evidence)
    # Slots() has no record view; its start/end attributes make it the span of e2, which
    # the third claim cites once: valid.
    assert (m.citation_count, m.valid_citation_count) == (3, 3)


def test_mappings_bytes_and_strings() -> None:
    # Non-hint keys: id-keyed collection (claims: {"id": key, "claim": item}).
    m = compute_summary_citation_metrics({"c1": "text", "c2": {"citations": ["e1"]}}, EVIDENCE)
    assert (m.claim_count, m.supported_claim_count, m.missing_citation_count) == (2, 1, 1)
    # A hint key with a non-None value: the whole mapping is one record.
    m = compute_summary_citation_metrics({"citations": ["e1"], "other": 1}, EVIDENCE)
    assert (m.claim_count, m.valid_citation_count) == (1, 1)
    # A hint key whose value is None does not make the mapping one record (null rule): it
    # is an id-keyed collection of two entries, the None entry a claim without citations.
    m = compute_summary_citation_metrics({"citations": None, "c9": {"citations": ["e2"]}}, EVIDENCE)
    assert (m.claim_count, m.valid_citation_count, m.missing_citation_count) == (2, 1, 1)
    m = compute_summary_citation_metrics(b"e1", EVIDENCE)
    assert (m.claim_count, m.missing_citation_count) == (1, 1)
    m = compute_summary_citation_metrics([{"citations": ["e1"]}], b"e1")
    assert m.invalid_evidence_record_count == 1


class CountingIterator:
    def __init__(self) -> None:
        self.pulled = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for _ in itertools.count():
            self.pulled += 1
            yield {"citations": ["e1"]}


def test_infinite_generator_pulls_limit_plus_one() -> None:
    source = CountingIterator()
    with pytest.raises(SummaryCitationError) as info:
        compute_summary_citation_metrics(source, EVIDENCE, limits=Limits(claims=10))
    assert str(info.value) == "claims collection exceeds the configured limit"
    assert source.pulled == 11


@pytest.mark.parametrize("form", ["list", "table", "polars", "reader"])
def test_limits_exact_and_plus_one(form: str) -> None:
    def make(rows: list[dict[str, Any]]) -> Any:
        table = pa.Table.from_pylist(rows)
        return {
            "list": rows,
            "table": table,
            "polars": pl.from_arrow(table),
            "reader": pa.RecordBatchReader.from_batches(table.schema, table.to_batches(2)),
        }[form]

    claims = [{"citations": ["e1", "e2"]}] * 3
    limits = Limits(claims=3, evidence=2, citations=6)
    m = compute_summary_citation_metrics(make(claims), make(EVIDENCE), limits=limits)
    assert (m.claim_count, m.citation_count) == (3, 6)
    cases = [
        (claims + claims[:1], EVIDENCE, "claims collection exceeds the configured limit"),
        (claims, [*EVIDENCE, {"id": "e3"}], "evidence collection exceeds the configured limit"),
        (
            [*claims[:2], {"citations": ["e1", "e2", "e1"]}],
            EVIDENCE,
            "citation items exceed the configured limit",
        ),
    ]
    for c, e, message in cases:
        with pytest.raises(SummaryCitationError) as info:
            compute_summary_citation_metrics(make(c), make(e), limits=limits)
        assert str(info.value) == message
        assert info.value.category == "limit"
        assert info.value.__context__ is None


def test_default_limits_apply() -> None:
    with pytest.raises(SummaryCitationError) as info:
        compute_summary_citation_metrics(({} for _ in range(100_001)), EVIDENCE)
    assert str(info.value) == "claims collection exceeds the configured limit"
    raised = compute_summary_citation_metrics(
        ({} for _ in range(100_001)), EVIDENCE, limits=Limits(claims=100_001)
    )
    assert raised.claim_count == 100_001


def test_jsonl_date_like_identifiers_stay_text(tmp_path: pathlib.Path) -> None:
    # Arrow's JSON reader would type these strings as timestamps; they are identifiers.
    evidence = tmp_path / "ev.ndjson"
    evidence.write_text(
        '{"id": "2020-01-01"}\n{"id": "2020-01-02 10:00:00", "start": 0, "end": 4}\n',
        encoding="utf-8",
    )
    claims = [{"citations": ["2020-01-01", "2020-01-02 10:00:00"]}]
    m = compute_summary_citation_metrics(claims, evidence)
    assert (m.valid_citation_count, m.invalid_evidence_record_count) == (2, 0)


@pytest.mark.parametrize("form", ["list", "table"])
def test_large_offsets(form: str) -> None:
    big = 2**40
    evidence = [
        {"id": "a", "start": big, "end": big + 5},
        {"id": "b", "start": big, "end": big + 5},  # duplicate span: skipped, b unknown
        {"id": "c", "start": 2**62, "end": 2**62 + 1},
    ]
    claims = [
        {"citations": [{"start": big, "end": big + 5}, {"evidence_id": "a"}]},  # a twice
        {"citations": [{"evidence_id": "b"}, {"start": 2**62, "end": 2**62 + 1}]},
        {"citations": [{"start": big, "end": big + 6}]},  # unavailable span
    ]
    if form == "table":
        ev: Any = pa.Table.from_pylist(evidence)
        cl: Any = pa.Table.from_struct_array(pa.array(claims))
    else:
        ev, cl = evidence, claims
    m = compute_summary_citation_metrics(cl, ev)
    assert (m.valid_evidence_record_count, m.duplicate_evidence_record_count) == (2, 1)
    assert (m.valid_citation_count, m.duplicate_citation_count) == (3, 1)
    assert (m.missing_source_record_count, m.unavailable_span_count) == (1, 1)
