"""Input forms (conventions §3, minimality.md §6, MD2): tables, streams, files, CSV typing."""

from __future__ import annotations

import pathlib

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from citelens import Limits
from citelens.minimality import check_citation_minimality, check_citation_minimality_batch
from citelens.minimality._rules import identifier_mask

from ._helpers import C1, C2, TEXT, X1, expect_error, ref

CLAIMS = [{"claim_id": C1, "start": 6, "end": 10}, {"claim_id": C2, "start": 0, "end": 5}]
CITES = [
    {"claim_id": C1, "citation_id": X1, "start": 6, "end": 16},
    {"claim_id": C2, "start": 0, "end": 22},
]


def expected_json() -> str:
    return check_citation_minimality(TEXT, CLAIMS, CITES).to_json()


def test_arrow_polars_stream_forms() -> None:
    claims = pa.Table.from_pylist(CLAIMS)
    cites = pa.Table.from_struct_array(pa.array(CITES))
    want = expected_json()
    assert check_citation_minimality(TEXT, claims, cites).to_json() == want
    assert (
        check_citation_minimality(TEXT, pl.from_arrow(claims), pl.from_arrow(cites)).to_json()
        == want
    )
    stream = pa.RecordBatchReader.from_batches(claims.schema, claims.to_batches(max_chunksize=1))
    assert check_citation_minimality(TEXT, stream, cites.to_batches()[0]).to_json() == want
    assert (
        check_citation_minimality(TEXT, {"claims": claims}, {"citations": cites}).to_json() == want
    )


def test_stream_bound() -> None:
    claims = pa.Table.from_pylist(CLAIMS)
    stream = pa.RecordBatchReader.from_batches(claims.schema, claims.to_batches(max_chunksize=1))
    expect_error(
        lambda: check_citation_minimality(TEXT, stream, [], limits=Limits(claims=1)),
        "citation collection is invalid or exceeds limit",
        "limit",
    )


def test_files(tmp_path: pathlib.Path) -> None:
    want = expected_json()
    csv_claims = tmp_path / "claims.CSV"
    csv_claims.write_text(
        "claim_id,start,end,note\n"
        + "".join(f"{c['claim_id']},{c['start']},{c['end']},x\n" for c in CLAIMS),
        encoding="utf-8",
    )
    parquet = tmp_path / "citations.parquet"
    pq.write_table(pa.Table.from_struct_array(pa.array(CITES)), parquet)
    assert check_citation_minimality(TEXT, csv_claims, parquet).to_json() == want
    assert check_citation_minimality(TEXT, str(csv_claims), str(parquet)).to_json() == want
    feather = tmp_path / "claims.feather"
    import pyarrow.feather as feather_io

    feather_io.write_feather(pa.Table.from_pylist(CLAIMS), feather)
    assert check_citation_minimality(TEXT, feather, CITES).to_json() == want


def test_csv_cells_typed_only_when_integers(tmp_path: pathlib.Path) -> None:
    csv = tmp_path / "c.csv"
    csv.write_text(f"claim_id,start,end\n{C1},6,+10\n", encoding="utf-8")
    expect_error(
        lambda: check_citation_minimality(TEXT, csv, []),
        "citation offsets must be integers",
        "span",
    )
    huge = tmp_path / "h.csv"
    huge.write_text(f"claim_id,start,end\n{C1},0,{10**30}\n", encoding="utf-8")
    expect_error(
        lambda: check_citation_minimality(TEXT, huge, []),
        "citation offsets exceed source text",
        "span",
    )


def test_identifier_rule_on_a_column() -> None:
    # The §4 rule as one column expression (replaces the former byte-matrix helper test).
    good = ref("a")
    mask = identifier_mask(pa.array([good, None, ref("b")]))
    assert mask.tolist() == [True, False, True]  # a null cell is not an identifier
    assert identifier_mask(pa.array([good, good[:-1] + "G"])).tolist() == [True, False]
    # 71 bytes but 70 characters: no match (the rule counts characters, not bytes).
    assert identifier_mask(pa.array([good[:-2] + "\xe9"])).tolist() == [False]
    assert identifier_mask(pa.array(["sha257:" + good[7:]])).tolist() == [False]
    assert identifier_mask(pa.array([good + "\n", " " + good])).tolist() == [False, False]
    assert identifier_mask(pa.array([good, ref("c")]).slice(1)).tolist() == [True]
    assert identifier_mask(pa.array([], pa.string())).tolist() == []


def test_batch_split_from_files_and_bounds(tmp_path: pathlib.Path) -> None:
    docs = [
        {"document_ref": ref("d1"), "source_text": TEXT},
        {"document_ref": ref("d2"), "source_text": "a b"},
    ]
    rows = [{"document_ref": ref("d1"), **c} for c in CLAIMS] + [
        {"document_ref": ref("d2"), "claim_id": C1, "start": 0, "end": 1}
    ]
    path = tmp_path / "claims.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    result = check_citation_minimality_batch(docs, path, None, limits=Limits(claims=2))
    assert result.documents.column("claim_count").to_pylist() == [2, 1]
    assert result.table.num_rows == 0
    expect_error(
        lambda: check_citation_minimality_batch(docs, path, None, limits=Limits(claims=1)),
        "citation collection is invalid or exceeds limit",
        "limit",
    )
    # A row without any document_ref column is an unknown document.
    expect_error(
        lambda: check_citation_minimality_batch(docs, pa.Table.from_pylist(CLAIMS)),
        "minimality row refers to an unknown document",
        "reference",
    )


def test_batch_documents_table_with_nested_lists() -> None:
    docs = pa.Table.from_pylist(
        [
            {
                "document_ref": ref("d1"),
                "source_text": TEXT,
                "claims": CLAIMS,
                "citations": [CITES[0]],
            }
        ]
    )
    result = check_citation_minimality_batch(docs)
    single = check_citation_minimality(TEXT, CLAIMS, [CITES[0]])
    assert result.reports[ref("d1")] == single
