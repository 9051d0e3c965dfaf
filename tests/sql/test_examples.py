"""Every example query in ``sql/examples/`` runs against sample outputs and gives the numbers
computed independently in Python; results do not depend on the row order of the files."""

from __future__ import annotations

import pathlib
import random
from collections import defaultdict
from typing import Any

import pyarrow.parquet as pq
import pytest

from citelens.sql import run_query

from ._outputs import write_outputs
from .conftest import EXAMPLES

EXAMPLE_IDS = [path.stem for path in EXAMPLES]
NOT_SUPPORTING = ("contradicts", "irrelevant", "unclear")


def _example(name: str) -> str:
    return next(p for p in EXAMPLES if p.stem == name).read_text(encoding="utf-8")


def test_the_examples_are_all_there() -> None:
    assert set(EXAMPLE_IDS) >= {
        "failing_documents",
        "reason_distribution",
        "precision_by_group",
        "worst_evidence_sources",
        "gold_metric_trend",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=EXAMPLE_IDS)
def test_example_runs_with_every_source(
    path: pathlib.Path, sample_out: pathlib.Path, results_dir: pathlib.Path
) -> None:
    table = run_query(sample_out, path.read_text(encoding="utf-8"), results_dir=results_dir)
    assert table.num_columns > 0
    assert table.num_rows > 0


@pytest.mark.parametrize("path", EXAMPLES, ids=EXAMPLE_IDS)
def test_example_runs_without_optional_files(
    path: pathlib.Path, out_without_edges: pathlib.Path, no_results: pathlib.Path
) -> None:
    table = run_query(out_without_edges, path.read_text(encoding="utf-8"))
    if path.stem in ("worst_evidence_sources", "gold_metric_trend"):
        assert table.num_rows == 0  # edges / scorecards are empty views
    else:
        assert table.num_rows > 0


@pytest.mark.parametrize("path", EXAMPLES, ids=EXAMPLE_IDS)
def test_example_output_ignores_file_row_order(
    path: pathlib.Path,
    sample_out: pathlib.Path,
    results_dir: pathlib.Path,
    tmp_path: pathlib.Path,
) -> None:
    query = path.read_text(encoding="utf-8")
    expected = run_query(sample_out, query, format="json", results_dir=results_dir)
    for seed in (1, 2):
        shuffled = tmp_path / f"shuffled-{seed}"
        shuffled.mkdir()
        for name in ("documents.parquet", "edges.parquet"):
            table = pq.read_table(sample_out / name)
            order = list(range(table.num_rows))
            random.Random(seed).shuffle(order)
            pq.write_table(table.take(order), shuffled / name)
        got = run_query(shuffled, query, format="json", results_dir=results_dir)
        assert got == expected


def _documents(out: pathlib.Path) -> list[dict[str, Any]]:
    return pq.read_table(out / "documents.parquet").to_pylist()


def test_failing_documents(sample_out: pathlib.Path) -> None:
    rows = run_query(sample_out, _example("failing_documents")).to_pylist()
    documents = _documents(sample_out)
    errors = sorted(d["document_ref"] for d in documents if d["status"] == "error")
    failing = [
        d for d in documents if d["status"] == "ok" and not d["deterministic_span_checks.passed"]
    ]
    assert len(errors) == 2  # the two planted contract violations
    # Errors first (by reference), then the documents with the most invalid edges.
    assert [r["document_ref"] for r in rows[:2]] == errors
    assert all(r["status"] == "error" and r["claim_count"] is None for r in rows[:2])
    assert len(rows) == min(20, len(errors) + len(failing))
    invalid = [r["invalid_edges"] for r in rows[2:]]
    assert invalid == sorted(invalid, reverse=True)
    top = max(d["deterministic_span_checks.invalid_citation_count"] for d in failing)
    assert rows[2]["invalid_edges"] == top


def test_reason_distribution(sample_out: pathlib.Path) -> None:
    rows = run_query(sample_out, _example("reason_distribution")).to_pylist()
    edges = pq.read_table(sample_out / "edges.parquet").to_pylist()
    per_reason: dict[str, int] = defaultdict(int)
    docs: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        if edge["reason"] is not None:
            per_reason[edge["reason"]] += 1
            docs[edge["reason"]].add(edge["document_ref"])
    total = sum(per_reason.values())
    assert len(rows) == 6
    for row in rows:
        assert row["invalid_edges"] == per_reason[row["reason"]]
        assert row["documents_affected"] == len(docs[row["reason"]])
        assert row["share_of_invalid"] == round(per_reason[row["reason"]] / total, 4)
    counts = [row["invalid_edges"] for row in rows]
    assert counts == sorted(counts, reverse=True)


def test_precision_by_group(sample_out: pathlib.Path) -> None:
    rows = run_query(sample_out, _example("precision_by_group")).to_pylist()
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for doc in _documents(sample_out):
        groups[doc["document_ref"].split("/")[0]].append(doc)
    assert [r["document_group"] for r in rows] == sorted(groups)
    for row in rows:
        docs = groups[row["document_group"]]
        ok = [d for d in docs if d["status"] == "ok"]
        adjudicated = sum(d["clinician_adjudication.adjudicated_citation_count"] for d in ok)
        supporting = sum(d["clinician_adjudication.supporting_citation_count"] for d in ok)
        precisions = [d["citation_precision"] for d in ok if d["citation_precision"] is not None]
        reviewed = [d for d in ok if d["clinician_adjudication.adjudicated_citation_count"] > 0]
        assert row["documents"] == len(docs)
        assert row["errors"] == len(docs) - len(ok)
        assert row["adjudicated_edges"] == adjudicated
        assert row["micro_precision"] == round(supporting / adjudicated, 4)
        assert row["macro_precision"] == pytest.approx(
            round(sum(precisions) / len(precisions), 4), abs=1e-12
        )
        supported = sum(d["clinician_adjudication.supported_claim_count"] for d in reviewed)
        claims = sum(d["claim_count"] for d in reviewed)
        assert row["micro_recall"] == round(supported / claims, 4)


def test_worst_evidence_sources(sample_out: pathlib.Path) -> None:
    rows = run_query(sample_out, _example("worst_evidence_sources")).to_pylist()
    stats: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"edges": 0, "invalid": 0, "bad": 0, "docs": set()}
    )
    for edge in pq.read_table(sample_out / "edges.parquet").to_pylist():
        if edge["source_id"] == "":
            continue
        entry = stats[edge["source_id"]]
        entry["edges"] += 1
        entry["invalid"] += not edge["valid"]
        entry["bad"] += edge["label"] in NOT_SUPPORTING
        entry["docs"].add(edge["document_ref"])
    ranked = sorted(
        (
            (-round((s["invalid"] + s["bad"]) / s["edges"], 4), -s["edges"], source)
            for source, s in stats.items()
            if s["edges"] >= 5
        )
    )[:10]
    assert [r["source_id"] for r in rows] == [source for _, _, source in ranked]
    for row in rows:
        s = stats[row["source_id"]]
        assert row["edges"] == s["edges"]
        assert row["invalid_edges"] == s["invalid"]
        assert row["not_supporting"] == s["bad"]
        assert row["documents"] == len(s["docs"])
        assert row["source_id"].startswith("hmac-sha256:")  # pseudonymised, never raw


def test_gold_metric_trend(sample_out: pathlib.Path, results_dir: pathlib.Path) -> None:
    rows = run_query(sample_out, _example("gold_metric_trend"), results_dir=results_dir)
    got = [(r["run_id"], r["scorer"], r["metric"], r["value"]) for r in rows.to_pylist()]
    # Skipped scorers (metric NULL) are left out; ordered by scorer, metric, then time.
    assert got == [
        ("run-a", "latency", "p50_ms", 12.5),
        ("run-b", "latency", "p50_ms", 30.0),
        ("run-a", "verdict-accuracy", "verdict_exact", 0.75),
        ("run-b", "verdict-accuracy", "verdict_exact", 0.8125),
    ]


def test_hand_checked_corpus(tmp_path: pathlib.Path, no_results: pathlib.Path) -> None:
    # Two groups, three documents, every number worked out by hand.
    corpus = {
        "claims": [
            {"document_ref": "g1/d1", "claim_id": "c1", "start": 0, "end": 10},
            {"document_ref": "g1/d1", "claim_id": "c2", "start": 11, "end": 20},
            {"document_ref": "g1/d2", "claim_id": "c1", "start": 0, "end": 5},
            {"document_ref": "g2/d3", "claim_id": "c1", "start": 0, "end": 5},
        ],
        "evidence": [
            {"document_ref": "g1/d1", "evidence_id": "e1", "start": 0, "end": 50},
            {"document_ref": "g1/d2", "evidence_id": "e1", "start": 0, "end": 50},
            {"document_ref": "g2/d3", "evidence_id": "e1", "start": 5, "end": 5},  # invalid
        ],
        "citations": [
            {"document_ref": "g1/d1", "claim_id": "c1", "evidence_id": "e1"},
            {"document_ref": "g1/d1", "claim_id": "c2", "evidence_id": "e1"},
            {"document_ref": "g1/d1", "claim_id": "c2", "evidence_id": "e9"},  # missing
            {"document_ref": "g1/d2", "claim_id": "c1", "evidence_id": "e1"},
            {"document_ref": "g2/d3", "claim_id": "c1", "evidence_id": "e1"},
        ],
        "adjudications": [
            {"document_ref": "g1/d1", "claim_id": "c1", "evidence_id": "e1", "label": "supports"},
            {"document_ref": "g1/d1", "claim_id": "c2", "evidence_id": "e1", "label": "refuted"},
            {"document_ref": "g1/d2", "claim_id": "c1", "evidence_id": "e1", "label": "supports"},
        ],
    }
    write_outputs(corpus, tmp_path)
    rows = run_query(tmp_path, _example("precision_by_group")).to_pylist()
    # g1: d1 has 2 adjudicated valid edges (1 supports) and d2 has 1 (supports):
    #   micro precision = (1 + 1) / (2 + 1) = 0.6667; macro = (0.5 + 1.0) / 2 = 0.75;
    #   micro recall = supported claims (1 + 1) / claims (2 + 1) = 0.6667.
    # g2: d3's only edge is invalid (zero-length evidence span): nothing adjudicated -> NULL.
    assert rows == [
        {
            "document_group": "g1",
            "documents": 2,
            "errors": 0,
            "adjudicated_edges": 3,
            "micro_precision": 0.6667,
            "macro_precision": 0.75,
            "micro_recall": 0.6667,
        },
        {
            "document_group": "g2",
            "documents": 1,
            "errors": 0,
            "adjudicated_edges": 0,
            "micro_precision": None,
            "macro_precision": None,
            "micro_recall": None,
        },
    ]
    reasons = run_query(tmp_path, _example("reason_distribution")).to_pylist()
    # Invalid edges: d1 c2->e9 (missing_evidence), d3 c1->e1 (invalid_evidence_span): 1 each,
    # share 1/2 each; the other four reasons have 0 edges and 0 documents.
    assert reasons[:2] == [
        {
            "reason": "invalid_evidence_span",
            "invalid_edges": 1,
            "share_of_invalid": 0.5,
            "documents_affected": 1,
        },
        {
            "reason": "missing_evidence",
            "invalid_edges": 1,
            "share_of_invalid": 0.5,
            "documents_affected": 1,
        },
    ]
    assert all(r["invalid_edges"] == 0 and r["documents_affected"] == 0 for r in reasons[2:])
    failing = run_query(tmp_path, _example("failing_documents")).to_pylist()
    assert [(r["document_ref"], r["invalid_edges"]) for r in failing] == [
        ("g1/d1", 1),
        ("g2/d3", 1),
    ]
