"""Corpus mode for citation minimality: per-document rows equal the single-document check."""

from __future__ import annotations

import hashlib
import pathlib
import random
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens import corpus
from citelens.cli import main
from citelens.errors import CitationMinimalityError
from citelens.minimality import check_citation_minimality

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "CANARYWORD"]


def ref(label: str) -> str:
    return "sha256:" + hashlib.sha256(label.encode()).hexdigest()


def random_corpus(seed: int, documents: int = 15) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(seed)
    out: dict[str, list[dict[str, Any]]] = {"documents": [], "claims": [], "citations": []}
    for number in range(documents):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))
        document = ref(f"doc-{seed}-{number}")
        out["documents"].append({"document_ref": document, "source_text": text})
        for index in range(rng.randint(0, 3)):
            if len(text) < 2:
                break
            start = rng.randint(0, len(text) - 2)
            end = rng.randint(start + 1, len(text))
            claim = ref(f"claim-{seed}-{number}-{index}")
            out["claims"].append(
                {"document_ref": document, "claim_id": claim, "required_span": [start, end]}
            )
            for cite in range(rng.randint(0, 3)):
                low = rng.randint(0, start)
                high = rng.randint(end if rng.random() < 0.7 else start + 1, len(text))
                out["citations"].append(
                    {
                        "document_ref": document,
                        "claim_id": claim,
                        "citation_id": ref(f"cite-{seed}-{number}-{index}-{cite}"),
                        "source_span": [low, max(high, low + 1)],
                    }
                )
    return out


def tables(rows: dict[str, list[dict[str, Any]]]) -> dict[str, pa.Table]:
    schemas = {
        "documents": pa.schema([("document_ref", pa.string()), ("source_text", pa.string())]),
        "claims": pa.schema(
            [
                ("document_ref", pa.string()),
                ("claim_id", pa.string()),
                ("required_span", pa.list_(pa.int64())),
            ]
        ),
        "citations": pa.schema(
            [
                ("document_ref", pa.string()),
                ("claim_id", pa.string()),
                ("citation_id", pa.string()),
                ("source_span", pa.list_(pa.int64())),
            ]
        ),
    }
    return {role: pa.Table.from_pylist(rows[role], schema=schemas[role]) for role in schemas}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("batch", [1, 4, 1000])
def test_rows_equal_single_document_checks(seed: int, batch: int) -> None:
    rows = random_corpus(seed)
    t = tables(rows)
    result = corpus.run_minimality_corpus(
        t["documents"], t["claims"], t["citations"], max_excess_tokens=1, batch_documents=batch
    )
    got = {row["document_ref"]: row for row in result.documents.to_pylist()}
    assert len(got) == len(rows["documents"])
    for document in rows["documents"]:
        doc = document["document_ref"]

        def part(role: str, doc: str = doc) -> list[dict[str, Any]]:
            return [
                {k: v for k, v in r.items() if k != "document_ref"}
                for r in rows[role]
                if r["document_ref"] == doc
            ]

        row = got[doc]
        try:
            report = check_citation_minimality(
                document["source_text"], part("claims"), part("citations"), max_excess_tokens=1
            )
        except CitationMinimalityError as exc:
            assert (row["status"], row["error_category"], row["error_message"]) == (
                "error",
                exc.category,
                str(exc),
            )
            continue
        records = report.to_dict()["records"]
        # Totals of this document's records, computed independently of the corpus code.
        assert row["status"] == "ok"
        assert row["claim_count"] == report.claim_count
        assert row["citation_count"] == len(records)
        assert row["excess_token_count"] == sum(r["excess_token_count"] for r in records)
        assert row["excess_context_count"] == sum(r["status"] == "excess_context" for r in records)
        assert row["missing_required_span_count"] == sum(
            r["status"] == "missing_required_span" for r in records
        )
        assert row["minimal_count"] == sum(r["status"] == "minimal" for r in records)


def test_batch_size_does_not_change_outputs() -> None:
    t = tables(random_corpus(9, documents=25))
    results = [
        corpus.run_minimality_corpus(t["documents"], t["claims"], t["citations"], batch_documents=b)
        for b in (1, 7, 100)
    ]
    for other in results[1:]:
        assert other.documents.equals(results[0].documents)
        assert other.summary_json() == results[0].summary_json()


def test_failing_document_is_reported_not_fatal() -> None:
    rows = random_corpus(4, documents=4)
    rows["claims"].append(
        {
            "document_ref": rows["documents"][0]["document_ref"],
            "claim_id": "not-opaque",
            "required_span": [0, 1],
        }
    )
    t = tables(rows)
    result = corpus.run_minimality_corpus(t["documents"], t["claims"], t["citations"])
    statuses = {row["document_ref"]: row for row in result.documents.to_pylist()}
    failed = statuses[rows["documents"][0]["document_ref"]]
    assert failed["status"] == "error"
    assert failed["error_category"] == "identifier"
    assert result.summary["totals"]["documents_failed"] == 1


def test_cli_and_privacy(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = random_corpus(5)
    folder = tmp_path / "in"
    folder.mkdir()
    for role, table in tables(rows).items():
        pq.write_table(table, folder / f"{role}.parquet")
    out = tmp_path / "out"
    assert main(["corpus", "minimality", str(folder), "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["citations.parquet", "documents.parquet", "summary.json", "summary.md"]
    for path in out.iterdir():
        assert b"CANARYWORD" not in path.read_bytes()
    assert "CANARYWORD" not in capsys.readouterr().out


def test_bundled_sample_runs(tmp_path: pathlib.Path) -> None:
    sample = ROOT / "data-samples" / "corpus_minimality"
    assert main(["corpus", "minimality", str(sample), "--out", str(tmp_path / "o")]) == 0
    documents = pq.read_table(tmp_path / "o" / "documents.parquet")
    assert documents.num_rows == 60
