"""citelens.spark.evaluate_support_spark on a real local Spark (``local[2]``).

Every result is compared, as sorted rows, with the local engine
(:func:`citelens.corpus.evaluate_support_tables`) on the same corpus.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pandas")

import pyarrow as pa
import pyarrow.compute as pc

from citelens import Limits
from citelens.corpus import SUPPORT_DOCUMENTS_SCHEMA, evaluate_support_tables
from citelens.errors import CorpusError
from citelens.spark import evaluate_support_spark

from ._corpus import random_corpus

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]

ROLES = ("claims", "evidence", "citations", "adjudications")
CANARY = "CANARY-7f3a-secret"


def _frames(spark: Any, corpus: dict[str, pa.Table | None]) -> list[Any]:
    return [
        None if corpus.get(role) is None else spark.createDataFrame(corpus[role]) for role in ROLES
    ]


def _spark_rows(frame: Any) -> list[dict[str, Any]]:
    table = frame.toArrow()
    return sorted(table.to_pylist(), key=lambda row: row["document_ref"])


def _local_rows(corpus: dict[str, pa.Table | None], limits: Limits | None = None) -> list[Any]:
    tables = [corpus.get(role) for role in ROLES]
    result = evaluate_support_tables(tables[0], tables[1], tables[2], tables[3], limits=limits)
    return list(result.to_pylist())


def _assert_unchained(exc: BaseException) -> None:
    assert exc.__cause__ is None
    assert exc.__context__ is None


@pytest.mark.parametrize(("seed", "num_partitions"), [(1, None), (2, 1), (3, 5)])
def test_equals_local_engine(spark: Any, seed: int, num_partitions: int | None) -> None:
    corpus: dict[str, pa.Table | None] = dict(random_corpus(seed))
    frames = _frames(spark, corpus)
    result = evaluate_support_spark(*frames, num_partitions=num_partitions)
    got = _spark_rows(result)
    expected = _local_rows(corpus)
    assert got == expected
    # The corpus holds the special documents the comparison must cover.
    by_ref = {row["document_ref"]: row for row in got}
    assert by_ref[f"empty-{seed}-evidence"]["claim_count"] == 0
    assert by_ref[f"empty-{seed}-adjudication"]["claim_count"] == 0
    invalid = by_ref[f"invalid-{seed}"]
    assert invalid["deterministic_span_checks.valid_citation_count"] == 0
    assert invalid["deterministic_span_checks.invalid_citation_count"] == 4
    failed = {ref for ref, row in by_ref.items() if row["status"] == "error"}
    assert {f"error-{seed}-duplicate", f"error-{seed}-label", f"error-{seed}-first"} <= failed
    assert by_ref[f"error-{seed}-duplicate"]["error_message"] == "duplicate claim identifiers"
    assert by_ref[f"error-{seed}-duplicate"]["error_category"] == "reference"
    assert by_ref[f"error-{seed}-duplicate"]["claim_count"] is None


def test_output_schema_is_the_documents_schema(spark: Any) -> None:
    from pyspark.sql.pandas.types import from_arrow_schema

    frames = _frames(spark, dict(random_corpus(4, documents=3)))
    result = evaluate_support_spark(*frames)
    assert result.schema == from_arrow_schema(SUPPORT_DOCUMENTS_SCHEMA)
    assert result.columns == SUPPORT_DOCUMENTS_SCHEMA.names
    # The Arrow view casts losslessly to the local schema (string vs large_string only).
    table = result.toArrow().cast(SUPPORT_DOCUMENTS_SCHEMA)
    assert table.num_rows == 3 + 6  # 3 random documents + 6 special ones


def test_input_order_decides_the_first_error(spark: Any) -> None:
    # Two defective claims in one document: the first in input order names the error
    # (a missing identifier -> "claim identifier is required"; " " -> identifier rule).
    schema = pa.schema([("document_ref", pa.string()), ("claim_id", pa.string())])
    rows = [{"document_ref": "d1"}, {"document_ref": "d1", "claim_id": " "}]
    for ordered in (rows, rows[::-1]):
        claims = pa.Table.from_pylist(
            [{"document_ref": f"pad{i}", "claim_id": "c"} for i in range(50)] + ordered,
            schema=schema,
        )
        corpus: dict[str, pa.Table | None] = {"claims": claims}
        got = _spark_rows(evaluate_support_spark(*_frames(spark, corpus), num_partitions=2))
        assert got == _local_rows(corpus)
    messages = {
        row["error_message"]
        for order in (rows, rows[::-1])
        for row in _local_rows({"claims": pa.Table.from_pylist(order, schema=schema)})
    }
    assert messages == {
        "claim identifier is required",
        "identifier is empty, bounded, and control-free",
    }


def test_claims_only_with_embedded_citations(spark: Any) -> None:
    corpus = random_corpus(5, documents=20)
    claims_only: dict[str, pa.Table | None] = {"claims": corpus["claims"]}
    got = _spark_rows(evaluate_support_spark(*_frames(spark, claims_only)))
    assert got == _local_rows(claims_only)
    assert all(row["clinician_adjudication.available"] in (False, None) for row in got)


def test_limits_apply_per_document(spark: Any) -> None:
    corpus: dict[str, pa.Table | None] = dict(random_corpus(6, documents=30))
    limits = Limits(claims=3, citations=4)
    got = _spark_rows(evaluate_support_spark(*_frames(spark, corpus), limits=limits))
    assert got == _local_rows(corpus, limits)
    over = [row for row in got if row["error_category"] == "limit"]
    assert over  # some random documents exceed 3 claims or 4 edges
    assert any(row["status"] == "ok" for row in got)


def test_empty_corpus(spark: Any) -> None:
    corpus = random_corpus(7, documents=1)
    empty: dict[str, pa.Table | None] = {role: table.slice(0, 0) for role, table in corpus.items()}
    result = evaluate_support_spark(*_frames(spark, empty))
    assert result.count() == 0
    assert _local_rows(empty) == []


def test_same_column_name_with_different_types_across_roles(spark: Any) -> None:
    # ``source_id`` is text in evidence and an integer in citations: roles never share columns.
    evidence = pa.table(
        {
            "document_ref": ["d1", "d1"],
            "evidence_id": ["e1", "e2"],
            "start": [0, 5],
            "end": [4, 9],
            "source_id": ["7", "8"],
        }
    )
    citations = pa.table(
        {
            "document_ref": ["d1", "d1"],
            "claim_id": ["c1", "c1"],
            "evidence_id": ["e1", "e2"],
            "source_id": pa.array([7, 9], pa.int64()),
        }
    )
    claims = pa.table({"document_ref": ["d1", "d2"], "claim_id": ["c1", "c1"]})
    corpus: dict[str, pa.Table | None] = {
        "claims": claims,
        "evidence": evidence,
        "citations": citations,
    }
    got = _spark_rows(evaluate_support_spark(*_frames(spark, corpus)))
    assert got == _local_rows(corpus)
    assert got[0]["deterministic_span_checks.invalid_citation_reasons.source_mismatch"] == 1


def test_no_identifier_or_text_reaches_the_output(spark: Any) -> None:
    claims = pa.table(
        {
            "document_ref": ["d1", "d1", "d2"],
            "claim_id": [CANARY + "-c1", CANARY + "-c2", CANARY + "-c1"],
            "text": [CANARY + " claim text"] * 3,
            "citations": [[CANARY + "-e1"], [], [CANARY + "-e9"]],
        }
    )
    evidence = pa.table(
        {
            "document_ref": ["d1", "d2"],
            "evidence_id": [CANARY + "-e1", CANARY + "-e1"],
            "source_id": [CANARY + "-src", CANARY + "-src"],
            "source_text": [CANARY + " source text", CANARY + " source"],
        }
    )
    corpus: dict[str, pa.Table | None] = {"claims": claims, "evidence": evidence}
    got = _spark_rows(evaluate_support_spark(*_frames(spark, corpus)))
    assert got == _local_rows(corpus)
    assert CANARY not in repr(got)


def test_null_document_ref_fails_the_action_with_the_fixed_message(spark: Any) -> None:
    claims = pa.table({"document_ref": ["d1", None], "claim_id": [CANARY + "-a", CANARY + "-b"]})
    with pytest.raises(CorpusError) as local:
        evaluate_support_tables(claims)
    result = evaluate_support_spark(spark.createDataFrame(claims))
    with pytest.raises(Exception) as remote:
        result.collect()
    text = str(remote.value)
    assert str(local.value) in text
    assert CANARY not in text


def test_schema_errors_are_raised_before_any_job(spark: Any) -> None:
    claims = pa.table({"document_ref": ["d1"], "claim_id": ["c1"]})
    no_ref = pa.table({"evidence_id": ["e1"]})
    int_ref = pa.table({"document_ref": pa.array([1], pa.int64()), "claim_id": ["c1"]})
    float_start = pa.table({"document_ref": ["d1"], "claim_id": ["c1"], "start": [1.0]})
    cases: list[tuple[list[pa.Table | None], str]] = [
        ([claims, no_ref, None, None], "evidence input requires a document_ref column"),
        ([int_ref, None, None, None], "claims column document_ref must be text"),
        ([float_start, None, None, None], "claims column start must be an integer column"),
    ]
    for tables, message in cases:
        with pytest.raises(CorpusError) as local:
            evaluate_support_tables(tables[0], tables[1], tables[2], tables[3])
        assert str(local.value) == message
        frames = [None if t is None else spark.createDataFrame(t) for t in tables]
        with pytest.raises(CorpusError) as exc:
            evaluate_support_spark(*frames)
        assert exc.value.args == (message,)
        assert exc.value.category == local.value.category
        _assert_unchained(exc.value)


@pytest.mark.parametrize(
    ("kwargs", "message", "category"),
    [
        ({"limits": {"claims": 3}}, "limits must be a Limits instance", "policy"),
        ({"num_partitions": 0}, "num_partitions must be a positive integer", "policy"),
        ({"num_partitions": True}, "num_partitions must be a positive integer", "policy"),
        ({"num_partitions": 2.0}, "num_partitions must be a positive integer", "policy"),
    ],
)
def test_invalid_options(spark: Any, kwargs: dict[str, Any], message: str, category: str) -> None:
    frame = spark.createDataFrame(pa.table({"document_ref": ["d1"], "claim_id": ["c1"]}))
    with pytest.raises(CorpusError) as exc:
        evaluate_support_spark(frame, **kwargs)
    assert exc.value.args == (message,)
    assert exc.value.category == category
    _assert_unchained(exc.value)


def test_inputs_must_be_spark_dataframes(spark: Any) -> None:
    table = pa.table({"document_ref": ["d1"], "claim_id": ["c1"]})
    frame = spark.createDataFrame(table)
    cases: list[tuple[list[Any], str]] = [
        ([table], "claims input must be a Spark DataFrame"),
        ([frame, [{"document_ref": "d1"}]], "evidence input must be a Spark DataFrame"),
        ([frame, None, None, CANARY], "adjudications input must be a Spark DataFrame"),
        ([None, frame], "claims input could not be read"),
    ]
    for args, message in cases:
        with pytest.raises(CorpusError) as exc:
            evaluate_support_spark(*args)
        assert exc.value.args == (message,)
        assert exc.value.category == "input"
        assert CANARY not in repr(exc.value)
        _assert_unchained(exc.value)


def test_partitions_hold_whole_documents(spark: Any) -> None:
    # Many partitions, few documents: still one row per document, equal to the local engine.
    corpus: dict[str, pa.Table | None] = dict(random_corpus(8, documents=12))
    result = evaluate_support_spark(*_frames(spark, corpus), num_partitions=7)
    got = _spark_rows(result)
    refs = [row["document_ref"] for row in got]
    assert len(refs) == len(set(refs))
    assert got == _local_rows(corpus)
    claims = corpus["claims"]
    assert claims is not None
    assert set(refs) >= set(pc.unique(claims["document_ref"]).to_pylist())
