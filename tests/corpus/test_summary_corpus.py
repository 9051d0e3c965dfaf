"""Corpus mode for summary citations: every document's row equals the single-document report."""

from __future__ import annotations

import hashlib
import json
import pathlib
import random
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens import corpus
from citelens.cli import main
from citelens.errors import CorpusError, InternalError, SummaryCitationError
from citelens.limits import Limits
from citelens.summary_citations import REASON_CODES, build_summary_citation_report
from citelens.summary_citations import _api as _summary_api
from citelens.summary_citations import _corpus as _summary_corpus
from citelens.summary_citations import _kernel as _summary_kernel
from citelens.summary_citations._schema import flat_claims_ok

ROOT = pathlib.Path(__file__).resolve().parents[2]
CANARY = "CANARYSUMMARY"

CLAIMS_SCHEMA = pa.schema(
    [
        ("document_ref", pa.string()),
        ("claim", pa.string()),
        ("citations", pa.list_(pa.string())),
        ("evidence_id", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
        (
            "references",
            pa.list_(
                pa.struct(
                    [("evidence_id", pa.string()), ("start", pa.int64()), ("end", pa.int64())]
                )
            ),
        ),
    ]
)
EVIDENCE_SCHEMA = pa.schema(
    [
        ("document_ref", pa.string()),
        ("id", pa.string()),
        ("fact_id", pa.int64()),
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("value", pa.string()),
    ]
)
PSEUDONYM_KEY = b"citelens-test-pseudonym-key-0001"  # one key: summaries compare


def ref(label: str) -> str:
    return "sha256:" + hashlib.sha256(label.encode()).hexdigest()


def _span(rng: random.Random) -> tuple[int | None, int | None]:
    roll = rng.random()
    if roll < 0.15:
        return None, None
    if roll < 0.25:
        return rng.randint(-2, 3), rng.randint(-2, 3)  # often invalid (e <= s or s < 0)
    start = rng.randint(0, 6)
    return start, start + rng.randint(1, 3)


def _evidence_id(rng: random.Random, ids: list[str], k: int) -> str | None:
    roll = rng.random()
    if roll < 0.1 or not ids:
        return None
    if roll < 0.25:
        return rng.choice(ids)  # a likely duplicate id
    return f"{ids[0]}-{k}"


def random_corpus(seed: int, documents: int = 24) -> dict[str, list[dict[str, Any]]]:
    """Small random corpus: empty documents, evidence-only documents, documents whose
    citations are all invalid, duplicate evidence ids/spans, duplicate citations, and one
    document with many claims (over a small bound)."""
    rng = random.Random(seed)
    out: dict[str, list[dict[str, Any]]] = {"claims": [], "evidence": []}
    for number in range(documents):
        doc = ref(f"doc-{seed}-{number}")
        kind = rng.choice(["normal", "normal", "normal", "empty", "evidence_only", "invalid"])
        ids = [f"{CANARY}-e{k}" for k in range(rng.randint(0, 5))]
        if kind == "empty":
            out["claims"].append({"document_ref": doc, "claim": f"{CANARY} text"})
            continue
        for k in range(rng.randint(0, 6)):
            start, end = _span(rng)
            out["evidence"].append(
                {
                    "document_ref": doc,
                    "id": _evidence_id(rng, ids, k),
                    "fact_id": rng.randint(1, 4) if rng.random() < 0.2 else None,
                    "start": start,
                    "end": end,
                    "value": f"{CANARY} value {k}",
                }
            )
        if kind == "evidence_only":
            continue
        claims = rng.randint(0, 12 if number % 7 == 0 else 4)
        for _ in range(claims):
            own = [f"{ids[0]}-{k}" for k in range(6)] if ids else []
            pool = [f"{CANARY}-missing"] if kind == "invalid" else [*ids, *own, "1", "2", "x"]
            row: dict[str, Any] = {"document_ref": doc, "claim": f"{CANARY} claim"}
            if rng.random() < 0.6:
                row["citations"] = [
                    rng.choice(pool) if rng.random() < 0.9 else "  " + rng.choice(pool) + " "
                    for _ in range(rng.randint(0, 3))
                ]
            if rng.random() < 0.3:
                row["evidence_id"] = rng.choice(pool)
            if rng.random() < 0.3:
                row["start"], row["end"] = _span(rng)
            if rng.random() < 0.3:
                refs = []
                for _ in range(rng.randint(0, 2)):
                    s, e = _span(rng)
                    refs.append(
                        {
                            "evidence_id": rng.choice(pool) if rng.random() < 0.5 else None,
                            "start": s if kind != "invalid" else -1,
                            "end": e,
                        }
                    )
                row["references"] = refs
            out["claims"].append(row)
    return out


def tables(rows: dict[str, list[dict[str, Any]]]) -> tuple[pa.Table, pa.Table]:
    return (
        pa.Table.from_pylist(rows["claims"], schema=CLAIMS_SCHEMA),
        pa.Table.from_pylist(rows["evidence"], schema=EVIDENCE_SCHEMA),
    )


def _part(table: pa.Table, doc: str) -> pa.Table:
    return table.filter(pc.equal(table["document_ref"], doc)).drop_columns(["document_ref"])


def assert_rows_match(
    documents: pa.Table, claims: pa.Table, evidence: pa.Table, limits: Limits | None
) -> None:
    """Every row equals build_summary_citation_report on that document alone."""
    got = {row["document_ref"]: row for row in documents.to_pylist()}
    expected_refs = set(claims["document_ref"].to_pylist()) | set(
        evidence["document_ref"].to_pylist()
    )
    assert set(got) == expected_refs
    assert documents["document_ref"].to_pylist() == sorted(expected_refs)
    for doc, row in got.items():
        try:
            report = build_summary_citation_report(
                _part(claims, doc), _part(evidence, doc), limits=limits
            )
        except SummaryCitationError as exc:
            assert (row["status"], row["error_category"], row["error_message"]) == (
                "error",
                exc.category,
                str(exc),
            )
            assert row["claim_count"] is None and row["failure_reasons"] is None
            continue
        assert (row["status"], row["error_category"], row["error_message"]) == ("ok", None, None)
        metrics = report.metrics.to_dict()
        assert {k: row[k] for k in metrics} == metrics
        for code in REASON_CODES:
            assert row[f"failure_reasons.{code}"] == int(code in metrics["failure_reasons"])


def refuse_single_document_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the public single-document entry points fail if called; count kernel passes."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("single-document API called per document")

    for name in ("build_summary_citation_report", "compute_summary_citation_metrics"):
        monkeypatch.setattr(_summary_api, name, refuse)
    passes: list[int] = []
    original = _summary_kernel.count_by_document

    def counting(*args: Any, **kwargs: Any) -> pl.DataFrame:
        passes.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_summary_corpus, "count_by_document", counting)
    return passes


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "limits", [None, Limits(claims=5, evidence=4, citations=9)], ids=["default", "small"]
)
def test_rows_equal_single_document_reports(seed: int, limits: Limits | None) -> None:
    claims, evidence = tables(random_corpus(seed))
    result = corpus.run_summary_citations_corpus(claims, evidence, limits=limits)
    assert result.documents.schema.equals(corpus.SUMMARY_DOCUMENTS_SCHEMA)
    assert_rows_match(result.documents, claims, evidence, limits)


VARIANT_CLAIMS = pa.schema(
    [
        ("document_ref", pa.string()),
        ("citations", pa.list_(pa.int64())),
        ("source_id", pa.int64()),
        ("start_char", pa.int64()),
        ("end_char", pa.int64()),
        (
            "citation",
            pa.struct(
                [("source_id", pa.string()), ("start_char", pa.int64()), ("end_char", pa.int64())]
            ),
        ),
    ]
)
VARIANT_EVIDENCE = pa.schema(
    [
        ("document_ref", pa.string()),
        ("evidence_id", pa.string()),
        ("record_id", pa.int64()),
        ("start_char", pa.int64()),
        ("end_char", pa.int64()),
    ]
)


def variant_corpus(seed: int, documents: int = 16) -> tuple[pa.Table, pa.Table]:
    """Other flat shapes: integer id lists, claim-level integer ids with a span (one direct
    item, D1), struct citations with ``start_char``/``end_char``, evidence ids from several
    columns (``evidence_id`` before ``record_id``), identifiers 3 and "3" equal."""
    rng = random.Random(seed)
    claims: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    for number in range(documents):
        doc = ref(f"variant-{seed}-{number}")
        for _ in range(rng.randint(0, 5)):
            s, e = _span(rng)
            evidence.append(
                {
                    "document_ref": doc,
                    "evidence_id": rng.choice([None, "1", " 2", "3", f"{CANARY}"]),
                    "record_id": rng.choice([None, 1, 2, 3, 4]),
                    "start_char": s,
                    "end_char": e,
                }
            )
        for _ in range(rng.randint(0, 4)):
            row: dict[str, Any] = {"document_ref": doc}
            if rng.random() < 0.5:
                row["citations"] = [rng.randint(0, 5) for _ in range(rng.randint(0, 3))]
            if rng.random() < 0.4:
                row["source_id"] = rng.randint(0, 5)
            if rng.random() < 0.4:
                row["start_char"], row["end_char"] = _span(rng)
            if rng.random() < 0.4:
                s, e = _span(rng)
                row["citation"] = {
                    "source_id": rng.choice([None, "1", "2", "9"]),
                    "start_char": s,
                    "end_char": e,
                }
            claims.append(row)
    return (
        pa.Table.from_pylist(claims, schema=VARIANT_CLAIMS),
        pa.Table.from_pylist(evidence, schema=VARIANT_EVIDENCE),
    )


@pytest.mark.parametrize("seed", [31, 32, 33])
def test_other_flat_shapes_equal_single_document_reports(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims, evidence = variant_corpus(seed)
    passes = refuse_single_document_calls(monkeypatch)
    result = corpus.run_summary_citations_corpus(claims, evidence, batch_documents=5)
    monkeypatch.undo()
    # One kernel pass per batch of 5 documents (documents without rows do not exist).
    assert len(passes) == -(-result.documents.num_rows // 5)
    assert_rows_match(result.documents, claims, evidence, None)


def test_each_bound_is_reported_per_document() -> None:
    doc_a, doc_b, doc_c, doc_d = (ref(x) for x in "abcd")
    claims = pa.Table.from_pylist(
        [
            *[{"document_ref": doc_a, "citations": ["e"]} for _ in range(3)],  # claims > 2
            {"document_ref": doc_b, "citations": ["e"]},
            {"document_ref": doc_c, "citations": ["e", "f", "g", "h"]},  # citations > 3
            {"document_ref": doc_d, "citations": ["e"]},
        ]
    )
    evidence = pa.Table.from_pylist(
        [
            *[{"document_ref": doc_b, "id": f"e{k}"} for k in range(3)],  # evidence > 2
            {"document_ref": doc_c, "id": "e"},
            {"document_ref": doc_d, "id": "e"},
        ]
    )
    limits = Limits(claims=2, evidence=2, citations=3)
    result = corpus.run_summary_citations_corpus(claims, evidence, limits=limits)
    rows = {r["document_ref"]: r for r in result.documents.to_pylist()}
    assert rows[doc_a]["error_message"] == "claims collection exceeds the configured limit"
    assert rows[doc_b]["error_message"] == "evidence collection exceeds the configured limit"
    assert rows[doc_c]["error_message"] == "citation items exceed the configured limit"
    assert {rows[d]["error_category"] for d in (doc_a, doc_b, doc_c)} == {"limit"}
    assert rows[doc_d]["status"] == "ok" and rows[doc_d]["passed"] is True
    assert_rows_match(result.documents, claims, evidence, limits)
    assert result.summary["totals"]["documents_failed"] == 3
    assert result.summary["errors"] == [
        {"category": "limit", "message": m, "documents": 1}
        for m in sorted(
            [
                "citation items exceed the configured limit",
                "claims collection exceeds the configured limit",
                "evidence collection exceeds the configured limit",
            ]
        )
    ]


def test_batch_size_does_not_change_outputs() -> None:
    claims, evidence = tables(random_corpus(7, documents=30))
    limits = Limits(claims=6)
    results = [
        corpus.run_summary_citations_corpus(
            claims, evidence, limits=limits, batch_documents=batch, pseudonym_key=PSEUDONYM_KEY
        )
        for batch in (1, 3, 10_000)
    ]
    for other in results[1:]:
        assert other.documents.equals(results[0].documents)
        assert other.summary_json() == results[0].summary_json()
        assert other.summary_markdown() == results[0].summary_markdown()


def test_document_interleaving_does_not_change_outputs() -> None:
    """Rows of different documents may come in any order; each document's own row order is
    kept (it matters for the "earlier valid record" rule)."""
    rows = random_corpus(11, documents=20)
    base = corpus.run_summary_citations_corpus(*tables(rows), pseudonym_key=PSEUDONYM_KEY)
    rng = random.Random(5)
    for _ in range(3):
        shuffled: dict[str, list[dict[str, Any]]] = {}
        for role, items in rows.items():
            keys = [rng.random() for _ in items]
            by_doc: dict[str, list[float]] = {}
            for key, item in zip(keys, items):
                by_doc.setdefault(item["document_ref"], []).append(key)
            # Keep each document's keys ascending so its own rows stay in order.
            fixed = {d: iter(sorted(k)) for d, k in by_doc.items()}
            ordered = [next(fixed[item["document_ref"]]) for item in items]
            shuffled[role] = [item for _, item in sorted(zip(ordered, items), key=lambda p: p[0])]
        other = corpus.run_summary_citations_corpus(*tables(shuffled), pseudonym_key=PSEUDONYM_KEY)
        assert other.documents.equals(base.documents)
        assert other.summary_json() == base.summary_json()


def test_corpus_never_calls_the_single_document_api(monkeypatch: pytest.MonkeyPatch) -> None:
    # Replaces the test that refused the deleted per-document fallback: the corpus mode
    # gives the same rows with the public single-document API made to fail, in one pass.
    claims, evidence = tables(random_corpus(3))
    limits = Limits(claims=5, evidence=4, citations=9)
    expected = corpus.run_summary_citations_corpus(claims, evidence, limits=limits)
    passes = refuse_single_document_calls(monkeypatch)
    got = corpus.run_summary_citations_corpus(claims, evidence, limits=limits)
    monkeypatch.undo()
    assert passes == [1]  # 24 documents, default batch: one kernel pass
    assert got.documents.equals(expected.documents)
    assert "error" in got.documents["status"].to_pylist()  # bounds flagged in the same pass
    assert_rows_match(got.documents, claims, evidence, limits)


@pytest.mark.parametrize("seed", [21, 22])
def test_non_flat_tables_equal_single_document_reports(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `citations` as a list of [start, end] pairs is outside the flat domain: the walker path.
    rng = random.Random(seed)
    claim_rows = []
    evidence_rows = []
    for number in range(8):
        doc = ref(f"nf-{seed}-{number}")
        for k in range(rng.randint(0, 3)):
            s = rng.randint(0, 4)
            evidence_rows.append({"document_ref": doc, "id": f"e{k}", "start": s, "end": s + 2})
        for _ in range(rng.randint(0, 3)):
            pairs = [[rng.randint(0, 4), rng.randint(1, 6)] for _ in range(rng.randint(0, 2))]
            claim_rows.append({"document_ref": doc, "citations": pairs})
    claims = pa.Table.from_pylist(
        claim_rows,
        schema=pa.schema(
            [("document_ref", pa.string()), ("citations", pa.list_(pa.list_(pa.int64())))]
        ),
    )
    evidence = pa.Table.from_pylist(evidence_rows)
    assert not flat_claims_ok(claims.drop_columns(["document_ref"]).schema)
    # Non-flat rows go through the record walker (a thin adapter), in the same one pass.
    passes = refuse_single_document_calls(monkeypatch)
    result = corpus.run_summary_citations_corpus(claims, evidence)
    monkeypatch.undo()
    assert passes == [1]
    assert_rows_match(result.documents, claims, evidence, None)


def test_metrics_by_document_private_entry_point() -> None:
    # Hand-checked: d1 cites e1 (valid) and e9 (unknown): 2 claims, 1 supported,
    # coverage 1/2 = 0.5, missing_source_record 1. d2's evidence repeats span [0, 5),
    # so the second record is a duplicate and d2 fails closed (coverage 0.0).
    claims = pa.Table.from_pylist(
        [
            {"document_ref": "d1", "citations": ["e1"]},
            {"document_ref": "d1", "citations": ["e9"]},
            {"document_ref": "d2", "citations": ["e1", "e1"]},
        ]
    )
    evidence = pa.Table.from_pylist(
        [
            {"document_ref": "d1", "id": "e1", "start": 0, "end": 5},
            {"document_ref": "d2", "id": "e1", "start": 0, "end": 5},
            {"document_ref": "d2", "id": "e2", "start": 0, "end": 5},
        ]
    )
    frame = _summary_corpus.summary_metrics_by_document(claims, evidence, None)
    assert isinstance(frame, pl.DataFrame)
    d1, d2 = frame.to_dicts()
    assert (d1["claim_count"], d1["supported_claim_count"], d1["coverage"]) == (2, 1, 0.5)
    assert d1["missing_source_record_count"] == 1
    assert d1["failure_reasons"] == [
        "invalid_citation",
        "missing_source_record",
        "unsupported_claim",
    ]
    # d2: citations e1 twice in one claim -> duplicate_citation 1; duplicate evidence 1.
    assert (d2["duplicate_citation_count"], d2["duplicate_evidence_record_count"]) == (1, 1)
    assert (d2["fail_closed"], d2["coverage"], d2["passed"]) == (True, 0.0, False)


def test_summary_totals_hand_checked() -> None:
    # d1: 2 claims, 1 supported, evidence available -> covered 1.
    # d2: 1 claim, supported, but duplicate evidence -> fails closed, covered 0.
    # d3: evidence only, passes (0 claims, coverage 1.0).
    # micro coverage = 1 / 3; macro = mean(0.5, 0.0, 1.0) = 0.5.
    claims = pa.Table.from_pylist(
        [
            {"document_ref": "d1", "citations": ["a"]},
            {"document_ref": "d1", "citations": ["zz"]},
            {"document_ref": "d2", "citations": ["a"]},
        ]
    )
    evidence = pa.Table.from_pylist(
        [
            {"document_ref": "d1", "id": "a"},
            {"document_ref": "d2", "id": "a"},
            {"document_ref": "d2", "id": "a"},
            {"document_ref": "d3", "id": "a"},
        ]
    )
    result = corpus.run_summary_citations_corpus(claims, evidence, raw_identifiers=True)
    totals = result.summary["totals"]
    assert totals["documents"] == 3 and totals["documents_passing"] == 1
    assert totals["claims"] == 3 and totals["covered_claims"] == 1
    assert totals["micro_coverage"] == pytest.approx(1 / 3)
    assert totals["macro_coverage"] == pytest.approx(0.5)
    assert result.summary["failure_reasons"]["duplicate_source_evidence"] == 1
    assert result.summary["failure_reasons"]["unsupported_claim"] == 1
    worst = result.summary["worst_documents"]
    # d1 has 1 uncovered claim; d2 has 1 (fail closed): tie broken by document_ref (raw refs
    # were asked for; by default they are keyed pseudonyms, tests/privacy).
    assert [(w["document_ref"], w["uncovered_claim_count"]) for w in worst] == [
        ("d1", 1),
        ("d2", 1),
    ]
    markdown = result.summary_markdown()
    assert "| micro_coverage | 0.3333 |" in markdown
    assert "## Documents with the most uncovered claims" in markdown


def test_csv_corpus_equals_parquet_corpus(tmp_path: pathlib.Path) -> None:
    claims = pa.Table.from_pylist(
        [
            {"document_ref": "d1", "evidence_id": "e1", "start": "0", "end": "4"},
            {"document_ref": "d1", "evidence_id": "e2"},
            {"document_ref": "d2", "evidence_id": "e1", "start": "1", "end": "3"},
        ]
    )
    evidence = pa.Table.from_pylist(
        [
            {"document_ref": "d1", "id": "e1", "start": "0", "end": "4"},
            {"document_ref": "d1", "id": "e2", "start": "x", "end": "9"},  # mixed: stays text
            {"document_ref": "d2", "id": "e1", "start": "1", "end": "3"},
        ]
    )
    pacsv.write_csv(claims, tmp_path / "claims.csv")
    pacsv.write_csv(evidence, tmp_path / "evidence.csv")
    got = corpus.run_summary_citations_corpus(tmp_path / "claims.csv", tmp_path / "evidence.csv")
    for row in got.documents.to_pylist():
        doc = row["document_ref"]
        (tmp_path / doc).mkdir()
        pacsv.write_csv(_part(claims, doc), tmp_path / doc / "claims.csv")
        pacsv.write_csv(_part(evidence, doc), tmp_path / doc / "evidence.csv")
        report = build_summary_citation_report(
            tmp_path / doc / "claims.csv", tmp_path / doc / "evidence.csv"
        )
        metrics = report.metrics.to_dict()
        assert {k: row[k] for k in metrics} == metrics


def test_malformed_input_names_role_and_column(tmp_path: pathlib.Path) -> None:
    good = pa.table({"document_ref": ["d"], "citations": [["e"]]})
    with pytest.raises(CorpusError) as info:
        corpus.run_summary_citations_corpus(good, pa.table({"id": [f"{CANARY}"]}))
    assert str(info.value) == "evidence input requires a document_ref column"
    assert info.value.category == "input"
    with pytest.raises(CorpusError) as info:
        corpus.run_summary_citations_corpus(pa.table({"document_ref": [1]}), None)
    assert str(info.value) == "claims column document_ref must be text"
    with pytest.raises(CorpusError) as info:
        corpus.run_summary_citations_corpus(pa.table({"document_ref": ["a", None]}), None)
    assert str(info.value) == "claims column document_ref must not be null"
    assert info.value.__cause__ is None and info.value.__context__ is None
    with pytest.raises(CorpusError) as info:
        corpus.run_summary_citations_corpus(good, good, batch_documents=0)
    assert info.value.category == "policy"
    with pytest.raises(CorpusError) as info:
        corpus.run_summary_citations_corpus(good, good, limits=5)  # type: ignore[arg-type]
    assert str(info.value) == "limits must be a Limits instance"
    with pytest.raises(CorpusError) as info:
        corpus.run_summary_citations_corpus(tmp_path / f"{CANARY}.parquet")
    assert str(info.value) == "claims input could not be read"
    assert CANARY not in repr(info.value)


def test_empty_corpus_and_missing_evidence() -> None:
    empty = corpus.run_summary_citations_corpus(
        pa.table({"document_ref": pa.array([], pa.string())})
    )
    assert empty.documents.num_rows == 0
    assert empty.summary["totals"]["micro_coverage"] is None
    only_claims = corpus.run_summary_citations_corpus(
        pa.table({"document_ref": ["d"], "citations": [["e"]]})
    )
    (row,) = only_claims.documents.to_pylist()
    assert row["fail_closed"] is True and "missing_source_evidence" in row["failure_reasons"]


def _write_corpus(folder: pathlib.Path, seed: int) -> None:
    folder.mkdir()
    claims, evidence = tables(random_corpus(seed))
    pq.write_table(claims, folder / "claims.parquet")
    pq.write_table(evidence, folder / "evidence.parquet")


def test_cli_writes_outputs_without_canaries(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    _write_corpus(folder, 8)
    out = tmp_path / "out"
    code = main(
        ["corpus", "summary-citations", str(folder), "--out", str(out), "--batch-documents", "5"]
    )
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "documents.parquet",
        "summary.json",
        "summary.md",
    ]
    for path in out.iterdir():
        assert CANARY.encode() not in path.read_bytes()
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err
    expected = len(
        set(pq.read_table(folder / "claims.parquet")["document_ref"].to_pylist())
        | set(pq.read_table(folder / "evidence.parquet")["document_ref"].to_pylist())
    )
    assert captured.out.startswith(f"documents: {expected} ")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["suite"] == "summary_citation_corpus"
    documents = pq.read_table(out / "documents.parquet")
    assert documents.schema.equals(corpus.SUMMARY_DOCUMENTS_SCHEMA)
    # --strict fails when a document does not pass; explicit role paths work too.
    strict = main(
        [
            "corpus",
            "summary-citations",
            "--claims",
            str(folder / "claims.parquet"),
            "--evidence",
            str(folder / "evidence.parquet"),
            "--out",
            str(tmp_path / "out2"),
            "--max-claims",
            "3",
            "--strict",
        ]
    )
    assert strict == 1
    assert (tmp_path / "out2" / "summary.md").is_file()


def test_cli_bad_input_is_fixed_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(pa.table({"claim": [CANARY]}), folder / "claims.parquet")
    out = tmp_path / "out"
    assert main(["corpus", "summary-citations", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [input]: claims input requires a document_ref column\n"
    assert not out.exists()


def test_bundled_sample_runs(tmp_path: pathlib.Path) -> None:
    sample = ROOT / "data-samples" / "corpus_summary"
    assert main(["corpus", "summary-citations", str(sample), "--out", str(tmp_path / "o")]) == 0
    documents = pq.read_table(tmp_path / "o" / "documents.parquet")
    assert documents.num_rows == 100
    claims = pq.read_table(sample / "claims.parquet")
    evidence = pq.read_table(sample / "evidence.parquet")
    assert_rows_match(documents, claims, evidence, None)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**6), batch=st.integers(min_value=1, max_value=9))
def test_random_corpora_property(seed: int, batch: int) -> None:
    claims, evidence = tables(random_corpus(seed, documents=10))
    limits = Limits(claims=4, evidence=5, citations=7)
    result = corpus.run_summary_citations_corpus(
        claims, evidence, limits=limits, batch_documents=batch
    )
    assert_rows_match(result.documents, claims, evidence, limits)


DEFECT_LIMITS = Limits(claims=6, evidence=6, citations=10)
DEFECT_MESSAGES = {
    "claims": "claims collection exceeds the configured limit",
    "evidence": "evidence collection exceeds the configured limit",
    "citations": "citation items exceed the configured limit",
}


def defective_corpus(
    seed: int, documents: int, share: float, shape: str
) -> tuple[pa.Table, pa.Table, dict[str, str]]:
    """``documents`` random documents, ``round(documents * share)`` of them defective under
    DEFECT_LIMITS (claims <= 6, evidence <= 6, citation items <= 10).

    A defective document has 7 claims (claims bound), 7 evidence records (evidence bound) or
    2 claims with 6 citations each, 12 items (citation bound). A clean document has at most
    5 claims of at most 2 items each (<= 10 items) and at most 5 evidence records, with
    invalid, duplicate and unknown references mixed in. ``shape`` "flat" cites identifiers
    (``list<string>``, the column-wise path); "walker" cites ``[start, end]`` pairs
    (``list<list<int64>>``, outside the flat domain: the record walker)."""
    rng = random.Random(seed)
    bad = dict.fromkeys(rng.sample(range(documents), round(documents * share)), "")
    for number in bad:
        bad[number] = rng.choice(sorted(DEFECT_MESSAGES))
    claims: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    planted: dict[str, str] = {}

    def cite(k: int) -> Any:
        return f"{CANARY}-e{k}" if shape == "flat" else [k, k + rng.randint(0, 2)]

    for number in range(documents):
        doc = ref(f"defect-{seed}-{shape}-{number}")
        kind = bad.get(number)
        n_claims = 7 if kind == "claims" else 2 if kind == "citations" else rng.randint(0, 5)
        n_evidence = 7 if kind == "evidence" else rng.randint(1, 5)
        for k in range(n_evidence):
            k = rng.randint(0, 6)  # repeats make duplicate records
            evidence.append({"document_ref": doc, "id": f"{CANARY}-e{k}", "start": k, "end": k + 1})
        for _ in range(n_claims):
            items = 6 if kind == "citations" else rng.randint(0, 2)
            claims.append(
                {"document_ref": doc, "citations": [cite(rng.randint(0, 8)) for _ in range(items)]}
            )
        if kind:
            planted[doc] = DEFECT_MESSAGES[kind]
    element = pa.string() if shape == "flat" else pa.list_(pa.int64())
    claims_schema = pa.schema([("document_ref", pa.string()), ("citations", pa.list_(element))])
    return (
        pa.Table.from_pylist(claims, schema=claims_schema),
        pa.Table.from_pylist(evidence),
        planted,
    )


@pytest.mark.parametrize("shape", ["flat", "walker"])
@pytest.mark.parametrize("share", [0.0, 0.01, 0.2], ids=["0pct", "1pct", "20pct"])
@pytest.mark.parametrize("seed", [41, 42])
def test_defective_documents_flagged_in_one_pass(
    seed: int, share: float, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims, evidence, planted = defective_corpus(seed, 200, share, shape)
    # 200 documents: 0 %, 1 % and 20 % defective are 0, 2 and 40 planted documents.
    assert len(planted) == {0.0: 0, 0.01: 2, 0.2: 40}[share]
    passes = refuse_single_document_calls(monkeypatch)
    result = corpus.run_summary_citations_corpus(claims, evidence, limits=DEFECT_LIMITS)
    monkeypatch.undo()
    # One kernel pass for the whole batch, whatever the number of defective documents.
    assert passes == [1]
    rows = {r["document_ref"]: r for r in result.documents.to_pylist()}
    assert len(rows) == 200
    failed = {d: r["error_message"] for d, r in rows.items() if r["status"] == "error"}
    assert failed == planted
    assert {rows[d]["error_category"] for d in planted} <= {"limit"}
    assert result.summary["totals"]["documents_failed"] == len(planted)
    assert_rows_match(result.documents, claims, evidence, DEFECT_LIMITS)


def test_kernel_failure_is_internal_not_input(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Formerly any exception in the batch became "summary citation corpus input is invalid"
    # (an input error). Now a failing NumPy operation inside the kernel is internal (exit 3).
    claims, evidence = tables(random_corpus(5))
    folder = tmp_path / "in"
    _write_corpus(folder, 5)

    def boom(*args: object, **kwargs: object) -> None:
        raise FloatingPointError(f"{CANARY} numpy failed")

    monkeypatch.setattr(_summary_kernel.np, "bincount", boom)
    with pytest.raises(InternalError) as info:
        corpus.run_summary_citations_corpus(claims, evidence)
    assert info.value.category == "internal"
    assert info.value.args == ("internal error (FloatingPointError)",)
    assert info.value.__cause__ is None and info.value.__context__ is None
    code = main(
        [
            "corpus",
            "summary-citations",
            str(folder),
            "--out",
            str(tmp_path / "out"),
            "--no-progress",
        ]
    )
    assert code == 3
    err = capsys.readouterr().err
    assert err == "citelens: error [internal]: internal error (FloatingPointError)\n"
    assert CANARY not in err
