"""Corpus mode for citation minimality: per-document rows equal the single-document check."""

from __future__ import annotations

import hashlib
import pathlib
import random
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens import Limits, corpus
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
    key = b"minimality-batch-key-0001"  # one key: the summary's refs are keyed pseudonyms
    results = [
        corpus.run_minimality_corpus(
            t["documents"], t["claims"], t["citations"], batch_documents=b, pseudonym_key=key
        )
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


# -- defective documents are flagged in the same pass ------------------------------------

_DEFECTS = (
    "claim_id",  # not an opaque reference → identifier
    "reversed",  # end before start → span
    "exceeds",  # required span beyond the text → span
    "unknown",  # citation of a claim the document does not have → reference
    "duplicate",  # two claims with one id → reference
    "triple",  # a span list of three offsets → collection/span
    "no_text",  # null source_text → input
    "too_many",  # more claims than Limits(claims=3) → limit
    "float",  # a float offset → span (integers)
)


def defective_corpus(seed: int, documents: int, rate: float) -> dict[str, list[dict[str, Any]]]:
    """A random corpus in which about ``rate`` of the documents carry one defect each."""
    rows = random_corpus(seed, documents)
    rng = random.Random(seed * 31 + int(rate * 1000))
    docs = rows["documents"]
    chosen = rng.sample(range(len(docs)), k=round(rate * len(docs)))
    for number in chosen:
        doc = docs[number]["document_ref"]
        defect = rng.choice(_DEFECTS)
        claim = ref(f"defect-{seed}-{number}")
        base = {"document_ref": doc, "claim_id": claim, "required_span": [0, 1]}
        if defect == "no_text":
            docs[number]["source_text"] = None
        elif defect == "claim_id":
            rows["claims"].append({**base, "claim_id": "not-opaque"})
        elif defect == "reversed":
            rows["claims"].append({**base, "required_span": [3, 1]})
        elif defect == "exceeds":
            rows["claims"].append({**base, "required_span": [0, 10_000]})
        elif defect == "unknown":
            rows["citations"].append(
                {"document_ref": doc, "claim_id": claim, "citation_id": None,
                 "source_span": [0, 1]}
            )  # fmt: skip
        elif defect == "duplicate":
            rows["claims"] += [{**base, "required_span": [0, 1]}, {**base}]
        elif defect == "triple":
            rows["claims"].append({**base, "required_span": [0, 1, 2]})
        elif defect == "too_many":
            rows["claims"] += [
                {**base, "claim_id": ref(f"many-{seed}-{number}-{i}")} for i in range(4)
            ]
        else:
            rows["claims"].append({**base, "required_span": [0.0, 1.0]})
    return rows


def _flex_tables(rows: dict[str, list[dict[str, Any]]]) -> dict[str, pa.Table]:
    # Spans as float lists when a float defect is present (one column type per table).
    floats = any(
        isinstance(v, float) for r in rows["claims"] for v in (r.get("required_span") or [])
    )
    span = pa.list_(pa.float64() if floats else pa.int64())
    schemas = {
        "documents": pa.schema([("document_ref", pa.string()), ("source_text", pa.string())]),
        "claims": pa.schema(
            [("document_ref", pa.string()), ("claim_id", pa.string()), ("required_span", span)]
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


@pytest.mark.parametrize("rate", [0.0, 0.01, 0.2])
@pytest.mark.parametrize("seed", [11, 12])
def test_each_row_equals_the_single_call_on_defective_corpora(seed: int, rate: float) -> None:
    rows = defective_corpus(seed, 200, rate)
    t = _flex_tables(rows)
    limits = Limits(claims=3)
    result = corpus.run_minimality_corpus(
        t["documents"], t["claims"], t["citations"], limits=limits, batch_documents=64
    )
    got = {row["document_ref"]: row for row in result.documents.to_pylist()}
    assert len(got) == 200
    # The table form of each document's rows (what the corpus reads), one call per document.
    claims = t["claims"].to_pylist()
    cites = t["citations"].to_pylist()
    failed = 0
    for document in rows["documents"]:
        doc = document["document_ref"]
        mine_claims = [{k: v for k, v in r.items() if k != "document_ref"} for r in claims
                       if r["document_ref"] == doc]  # fmt: skip
        mine_cites = [{k: v for k, v in r.items() if k != "document_ref"} for r in cites
                      if r["document_ref"] == doc]  # fmt: skip
        row = got[doc]
        try:
            report = check_citation_minimality(
                document["source_text"], mine_claims, mine_cites, limits=limits
            )
        except CitationMinimalityError as exc:
            failed += 1
            assert (row["status"], row["error_category"], row["error_message"]) == (
                "error",
                exc.category,
                str(exc),
            )
            assert row["claim_count"] is None
            continue
        records = report.to_dict()["records"]
        assert row["status"] == "ok" and row["error_message"] is None
        assert row["claim_count"] == report.claim_count
        assert row["citation_count"] == len(records)
        assert row["flagged_count"] == report.flagged_count
        assert row["excess_token_count"] == sum(r["excess_token_count"] for r in records)
    assert result.summary["totals"]["documents_failed"] == failed
    assert failed >= round(rate * 200)  # every planted defect fails its document


def test_every_document_failing_is_reported_not_a_crash() -> None:
    # Formerly a ColumnNotFoundError: with no successful document the per-document frame had
    # none of the count columns. Two documents, both defective: two error rows.
    d1, d2 = ref("all-fail-1"), ref("all-fail-2")
    documents = pa.table({"document_ref": [d1, d2], "source_text": ["alpha beta", "gamma"]})
    claims = pa.table(
        {"document_ref": [d1, d2], "claim_id": ["bad", ref("c")], "start": [0, 0],
         "end": [5, 99]}
    )  # fmt: skip
    citations = pa.table(
        {"document_ref": pa.array([], pa.string()), "claim_id": pa.array([], pa.string()),
         "start": pa.array([], pa.int64()), "end": pa.array([], pa.int64())}
    )  # fmt: skip
    result = corpus.run_minimality_corpus(documents, claims, citations)
    assert result.documents.schema == corpus.MINIMALITY_DOCUMENTS_SCHEMA
    assert result.documents.to_pylist() == [
        {"document_ref": d1, "status": "error", "error_category": "identifier",
         "error_message": "citation identifiers must be opaque sha256 references",
         "claim_count": None, "citation_count": None, "minimal_count": None,
         "flagged_count": None, "excess_context_count": None,
         "missing_required_span_count": None, "excess_token_count": None},
        {"document_ref": d2, "status": "error", "error_category": "span",
         "error_message": "citation offsets exceed source text",
         "claim_count": None, "citation_count": None, "minimal_count": None,
         "flagged_count": None, "excess_context_count": None,
         "missing_required_span_count": None, "excess_token_count": None},
    ]  # fmt: skip
    totals = result.summary["totals"]
    assert (totals["documents"], totals["documents_failed"], totals["citations"]) == (2, 2, 0)


def test_cli_when_every_document_fails(tmp_path: pathlib.Path) -> None:
    d1 = ref("cli-all-fail")
    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(pa.table({"document_ref": [d1], "source_text": ["alpha"]}),
                   folder / "documents.parquet")  # fmt: skip
    pq.write_table(pa.table({"document_ref": [d1], "claim_id": ["bad"], "start": [0],
                             "end": [5]}), folder / "claims.parquet")  # fmt: skip
    pq.write_table(pa.table({"document_ref": pa.array([], pa.string()),
                             "claim_id": pa.array([], pa.string()),
                             "start": pa.array([], pa.int64()),
                             "end": pa.array([], pa.int64())}),
                   folder / "citations.parquet")  # fmt: skip
    out = tmp_path / "out"
    assert main(["corpus", "minimality", str(folder), "--out", str(out)]) == 0
    rows = pq.read_table(out / "documents.parquet").to_pylist()
    assert [(r["status"], r["error_category"]) for r in rows] == [("error", "identifier")]
    assert main(["corpus", "minimality", str(folder), "--out", str(out), "--strict"]) == 1


def test_corpus_internal_error_exit_3(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    from citelens.errors import InternalError

    class Boom(Exception):
        pass

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise Boom()

    rows = random_corpus(5)
    folder = tmp_path / "in"
    folder.mkdir()
    for role, table in tables(rows).items():
        pq.write_table(table, folder / f"{role}.parquet")
    t = tables(rows)
    monkeypatch.setattr(np, "searchsorted", boom)
    with pytest.raises(InternalError) as info:
        corpus.run_minimality_corpus(t["documents"], t["claims"], t["citations"])
    assert str(info.value) == "internal error (Boom)"
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert main(["corpus", "minimality", str(folder), "--out", str(tmp_path / "o")]) == 3
    assert "internal error (Boom)" in capsys.readouterr().err
