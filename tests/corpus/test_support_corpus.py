"""Corpus mode for citation support: every document equals the single-document API."""

from __future__ import annotations

import json
import pathlib
import random
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citelens
from citelens import corpus
from citelens.cli import main
from citelens.corpus import _scan as corpus_scan
from citelens.corpus import _support_mode as corpus_support_mode

CANARY = "CANARY-7f3a-secret"
PSEUDONYM_KEY = b"citelens-test-pseudonym-key-0001"  # one key: outputs compare


def table(rows: list[dict[str, Any]], columns: dict[str, pa.DataType]) -> pa.Table:
    """An Arrow table with a fixed schema (absent keys are nulls)."""
    schema = pa.schema(columns)
    return pa.Table.from_pylist(rows, schema=schema)


CLAIM_COLUMNS = {
    "document_ref": pa.string(),
    "claim_id": pa.string(),
    "start": pa.int64(),
    "end": pa.int64(),
    "citations": pa.list_(pa.string()),
}
EVIDENCE_COLUMNS = {
    "document_ref": pa.string(),
    "evidence_id": pa.string(),
    "start": pa.int64(),
    "end": pa.int64(),
    "source_id": pa.string(),
    "source_length": pa.int64(),
}
CITATION_COLUMNS = {
    "document_ref": pa.string(),
    "claim_id": pa.string(),
    "evidence_id": pa.string(),
    "start": pa.int64(),
    "end": pa.int64(),
    "source_id": pa.string(),
}
ADJUDICATION_COLUMNS = {
    "document_ref": pa.string(),
    "claim_id": pa.string(),
    "evidence_id": pa.string(),
    "label": pa.string(),
}


def random_corpus(seed: int, documents: int = 12) -> dict[str, list[dict[str, Any]]]:
    """Random documents: empty ones, ones with only invalid edges, duplicates, conflicts."""
    rng = random.Random(seed)
    out: dict[str, list[dict[str, Any]]] = {
        "claims": [],
        "evidence": [],
        "citations": [],
        "adjudications": [],
    }
    for index in range(documents):
        ref = f"sha256:{index:064x}"
        shape = rng.choice(["normal", "normal", "empty", "invalid_only", "evidence_only"])
        if shape == "empty":
            continue
        evidence_ids = [f"{CANARY}-e{j}" for j in range(rng.randint(0, 4))]
        for evidence_id in evidence_ids:
            start = rng.randint(-1, 8)
            out["evidence"].append(
                {
                    "document_ref": ref,
                    "evidence_id": evidence_id,
                    "start": start,
                    "end": start + rng.randint(0, 6),
                    "source_id": rng.choice([None, "s1", "s2"]),
                    "source_length": rng.choice([None, 10, 30]),
                }
            )
        if shape == "evidence_only":
            continue
        claim_ids = [f"{CANARY}-c{k}" for k in range(rng.randint(0, 4))]
        for claim_id in claim_ids:
            pool = [f"{CANARY}-missing"] if shape == "invalid_only" else [*evidence_ids, "ghost"]
            out["claims"].append(
                {
                    "document_ref": ref,
                    "claim_id": claim_id,
                    "start": rng.choice([None, 0, 3]),
                    "end": rng.choice([None, 2, 5]),
                    "citations": [rng.choice(pool) for _ in range(rng.randint(0, 3))],
                }
            )
        for _ in range(rng.randint(0, 3)):
            if not claim_ids:
                break
            out["citations"].append(
                {
                    "document_ref": ref,
                    "claim_id": rng.choice([*claim_ids, "nobody"]),
                    "evidence_id": rng.choice([*evidence_ids, "ghost"]),
                    "start": rng.choice([None, 1, 2]),
                    "end": rng.choice([None, 3, 9]),
                    "source_id": rng.choice([None, "s1", "s2"]),
                }
            )
        for _ in range(rng.randint(0, 4)):
            if not claim_ids or not evidence_ids:
                break
            out["adjudications"].append(
                {
                    "document_ref": ref,
                    "claim_id": rng.choice(claim_ids),
                    "evidence_id": rng.choice(evidence_ids),
                    "label": rng.choice(["supports", "Supported", "contradicts", "unclear"]),
                }
            )
    return out


def as_tables(rows: dict[str, list[dict[str, Any]]]) -> dict[str, pa.Table]:
    return {
        "claims": table(rows["claims"], CLAIM_COLUMNS),
        "evidence": table(rows["evidence"], EVIDENCE_COLUMNS),
        "citations": table(rows["citations"], CITATION_COLUMNS),
        "adjudications": table(rows["adjudications"], ADJUDICATION_COLUMNS),
    }


def single_document(
    rows: dict[str, list[dict[str, Any]]], ref: str, limits: citelens.Limits | None = None
) -> dict[str, Any]:
    """What the single-document API says about one document: its flat row or its error."""

    def part(role: str) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in r.items() if k != "document_ref" and v is not None}
            for r in rows[role]
            if r["document_ref"] == ref
        ]

    try:
        report = citelens.compute_citation_support_metrics(
            part("claims"),
            part("evidence"),
            part("citations"),
            part("adjudications"),
            limits=limits,
        )
    except citelens.CitationSupportError as exc:
        return {"status": "error", "error_category": exc.category, "error_message": str(exc)}
    row: dict[str, Any] = report.to_arrow().to_pylist()[0]
    return {"status": "ok", **row}


def check_against_single(
    rows: dict[str, list[dict[str, Any]]],
    documents: pa.Table,
    limits: citelens.Limits | None = None,
) -> None:
    refs = sorted({r["document_ref"] for role in rows.values() for r in role})
    got = {row["document_ref"]: row for row in documents.to_pylist()}
    assert sorted(got) == refs
    for ref in refs:
        expected = single_document(rows, ref, limits)
        actual = {key: got[ref][key] for key in expected}
        assert actual == expected, ref


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), batch=st.sampled_from([1, 2, 5, 1000]))
def test_every_document_equals_the_single_document_api(seed: int, batch: int) -> None:
    rows = random_corpus(seed)
    if not any(rows.values()):
        return
    tables = as_tables(rows)
    result = corpus.run_support_corpus(
        tables["claims"],
        tables["evidence"],
        tables["citations"],
        tables["adjudications"],
        batch_documents=batch,
    )
    check_against_single(rows, result.documents)


def test_results_identical_whatever_the_batch_size() -> None:
    rows = random_corpus(7, documents=40)
    tables = as_tables(rows)
    outputs = []
    for batch in (1, 3, 17, 10_000):
        result = corpus.run_support_corpus(
            *tables.values(), batch_documents=batch, edges=True, pseudonym_key=PSEUDONYM_KEY
        )
        assert result.edges is not None
        outputs.append((result.documents, result.summary_json(), result.edges))
    for documents, summary, edges in outputs[1:]:
        assert documents.equals(outputs[0][0])
        assert summary == outputs[0][1]
        assert edges.equals(outputs[0][2])


def test_tiny_batches_are_processed_incrementally(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bounded memory: with one document per batch, documents complete one batch at a time
    # (the progress callback sees every intermediate count), and each batch collects only its
    # own document's rows.
    rows = random_corpus(11, documents=10)
    tables = as_tables(rows)
    seen: list[int] = []
    collected_rows: list[int] = []
    original = corpus_scan._collect

    def spy(frame: pl.LazyFrame, role: str) -> pl.DataFrame:
        out = original(frame, role)
        collected_rows.append(out.height)
        return out

    for module in (corpus_scan, corpus_support_mode):
        monkeypatch.setattr(module, "_collect", spy)
    result = corpus.run_support_corpus(
        *tables.values(), batch_documents=1, progress=lambda done, total: seen.append(done)
    )
    total = result.documents.num_rows
    assert seen == list(range(1, total + 1))
    biggest_document = max(
        sum(1 for r in rows[role] if r["document_ref"] == ref)
        for role in ("claims", "evidence", "citations", "adjudications")
        for ref in {r["document_ref"] for role_rows in rows.values() for r in role_rows}
    )
    # After the planning scan (document_ref only), no collect holds more than one document.
    assert max(collected_rows[4:]) <= biggest_document


def test_per_document_bounds_and_duplicates_are_document_errors() -> None:
    # doc-a: 3 claims over a bound of 2; doc-b: duplicate claim ids; doc-c: fine.
    rows: dict[str, list[dict[str, Any]]] = {
        "claims": [
            *({"document_ref": "doc-a", "claim_id": f"c{i}", "citations": []} for i in range(3)),
            {"document_ref": "doc-b", "claim_id": "x", "citations": []},
            {"document_ref": "doc-b", "claim_id": "x", "citations": []},
            {"document_ref": "doc-c", "claim_id": "y", "citations": ["e"]},
        ],
        "evidence": [{"document_ref": "doc-c", "evidence_id": "e", "start": 0, "end": 2}],
        "citations": [],
        "adjudications": [],
    }
    limits = citelens.Limits(claims=2)
    tables = as_tables(rows)
    result = corpus.run_support_corpus(*tables.values(), limits=limits)
    by_ref = {row["document_ref"]: row for row in result.documents.to_pylist()}
    assert by_ref["doc-a"]["status"] == "error"
    assert by_ref["doc-a"]["error_category"] == "limit"
    assert by_ref["doc-a"]["error_message"] == "claim collection exceeds the record limit"
    assert by_ref["doc-b"]["error_message"] == "duplicate claim identifiers"
    assert by_ref["doc-c"]["status"] == "ok"
    assert by_ref["doc-c"]["deterministic_span_checks.valid_citation_count"] == 1
    check_against_single(rows, result.documents, limits)
    assert result.summary["failed_document_count"] == 2


def test_summary_micro_and_macro_rates() -> None:
    # doc-1: 2 valid edges, both adjudicated, 1 supports → precision 1/2, recall 1/2 (2 claims).
    # doc-2: 1 valid edge adjudicated supports → precision 1/1, recall 1/1.
    # micro precision = (1 + 1) / (2 + 1) = 2/3; macro = (0.5 + 1.0) / 2 = 0.75
    # micro recall = supported claims / claims of reviewed documents = (1 + 1) / (2 + 1) = 2/3
    rows: dict[str, list[dict[str, Any]]] = {
        "claims": [
            {"document_ref": "doc-1", "claim_id": "a", "citations": ["e1"]},
            {"document_ref": "doc-1", "claim_id": "b", "citations": ["e2"]},
            {"document_ref": "doc-2", "claim_id": "a", "citations": ["e1"]},
        ],
        "evidence": [
            {"document_ref": "doc-1", "evidence_id": "e1", "start": 0, "end": 3},
            {"document_ref": "doc-1", "evidence_id": "e2", "start": 0, "end": 3},
            {"document_ref": "doc-2", "evidence_id": "e1", "start": 0, "end": 3},
        ],
        "citations": [],
        "adjudications": [
            {"document_ref": "doc-1", "claim_id": "a", "evidence_id": "e1", "label": "supports"},
            {"document_ref": "doc-1", "claim_id": "b", "evidence_id": "e2", "label": "irrelevant"},
            {"document_ref": "doc-2", "claim_id": "a", "evidence_id": "e1", "label": "supports"},
        ],
    }
    result = corpus.run_support_corpus(*as_tables(rows).values())
    summary = result.summary
    assert summary["micro_citation_precision"] == 2 / 3
    assert summary["macro_citation_precision"] == 0.75
    assert summary["micro_support_recall"] == 2 / 3
    assert summary["macro_support_recall"] == 0.75


@pytest.mark.parametrize(
    ("mutate", "message", "category"),
    [
        (
            lambda t: t["claims"].drop_columns(["document_ref"]),
            "claims input requires a document_ref column",
            "input",
        ),
        (
            lambda t: t["claims"].set_column(
                2, "start", pa.array(["x"] * t["claims"].num_rows, pa.string())
            ),
            "claims column start must be an integer column",
            "input",
        ),
        (
            lambda t: t["claims"].set_column(
                0, "document_ref", pa.array([None] * t["claims"].num_rows, pa.string())
            ),
            "claims column document_ref must not be null",
            "record",
        ),
        (
            lambda t: t["claims"].set_column(
                0, "document_ref", pa.array(range(t["claims"].num_rows), pa.int64())
            ),
            "claims column document_ref must be text",
            "input",
        ),
    ],
)
def test_malformed_corpus_input_names_role_and_column(
    mutate: Any, message: str, category: str
) -> None:
    tables = as_tables(random_corpus(3, documents=5))
    tables["claims"] = mutate(tables)
    with pytest.raises(citelens.errors.CorpusError) as info:
        corpus.run_support_corpus(*tables.values())
    assert str(info.value) == message
    assert info.value.category == category
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert CANARY not in repr(info.value)


def write_corpus(root: pathlib.Path, rows: dict[str, list[dict[str, Any]]]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for role, tab in as_tables(rows).items():
        pq.write_table(tab, root / f"{role}.parquet")


def test_cli_outputs_and_privacy(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = random_corpus(5, documents=20)
    write_corpus(tmp_path / "in", rows)
    out = tmp_path / "out"
    assert main(["corpus", "support", str(tmp_path / "in"), "--out", str(out), "--edges"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "documents.parquet",
        "edges.parquet",
        "summary.json",
        "summary.md",
    ]
    documents = pq.read_table(out / "documents.parquet")
    check_against_single(rows, documents)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["document_count"] == documents.num_rows
    for path in out.iterdir():
        assert CANARY.encode() not in path.read_bytes(), path.name
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err
    # Raw identifiers only on explicit request.
    raw = tmp_path / "raw"
    args = ["corpus", "support", str(tmp_path / "in"), "--out", str(raw), "--edges"]
    assert main([*args, "--raw-identifiers"]) == 0
    assert CANARY.encode() in (raw / "edges.parquet").read_bytes()


def test_cli_bad_input_exit_2_and_no_output(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"claim_id": [CANARY]}), tmp_path / "in" / "claims.parquet")
    out = tmp_path / "out"
    assert main(["corpus", "support", str(tmp_path / "in"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [input]: claims input requires a document_ref column\n"
    assert not out.exists()


def test_hive_partitioned_directories(tmp_path: pathlib.Path) -> None:
    rows = random_corpus(9, documents=8)
    root = tmp_path / "hive"
    for role, tab in as_tables(rows).items():
        for index, part in enumerate(
            (tab.slice(0, tab.num_rows // 2), tab.slice(tab.num_rows // 2))
        ):
            folder = root / role / f"part={index}"
            folder.mkdir(parents=True)
            pq.write_table(part, folder / "data.parquet")
    result = corpus.run_support_corpus(*(root / role for role in corpus_roles()))
    check_against_single(rows, result.documents)


def corpus_roles() -> tuple[str, ...]:
    return ("claims", "evidence", "citations", "adjudications")


def test_evaluate_support_tables_is_the_partition_kernel() -> None:
    rows = random_corpus(21, documents=15)
    tables = as_tables(rows)
    documents = corpus.evaluate_support_tables(*tables.values())
    assert documents.schema == corpus.SUPPORT_DOCUMENTS_SCHEMA
    check_against_single(rows, documents)


def test_jsonl_corpus_is_typed_from_every_line(tmp_path: pathlib.Path) -> None:
    # A key that first appears after many lines still counts (Polars' own reader infers its
    # schema from the first lines only), and the result equals the Parquet corpus.
    rows = random_corpus(13, documents=200)
    late = {"document_ref": "sha256:" + "f" * 64, "claim_id": "late", "claim_type": "Dose"}
    rows["claims"].append({**late, "citations": []})
    folder = tmp_path / "jsonl"
    folder.mkdir()
    for role, role_rows in rows.items():
        lines = [json.dumps({k: v for k, v in r.items() if v is not None}) for r in role_rows]
        (folder / f"{role}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = corpus.run_support_corpus(*(folder / f"{role}.jsonl" for role in corpus_roles()))
    by_ref = {r["document_ref"]: r for r in result.documents.to_pylist()}
    assert by_ref[late["document_ref"]]["status"] == "ok"
    # claim_type enters the claim digest: equal to the single-document call.
    expected = citelens.compute_citation_support_metrics(
        [{"claim_id": "late", "claim_type": "Dose", "citations": []}], []
    ).to_dict()["provenance"]["claim_digest"]
    assert by_ref[late["document_ref"]]["provenance.claim_digest"] == expected
    assert len(by_ref) == len({r["document_ref"] for v in rows.values() for r in v})


@pytest.mark.parametrize("command", ["support", "corpus support"])
def test_bound_below_one_is_bad_input(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --max-claims 0 is rejected by Limits: exit 2 with its fixed message, nothing written.
    rows = random_corpus(2, documents=3)
    write_corpus(tmp_path / "in", rows)
    out = tmp_path / "out"
    if command == "support":
        args = ["support", "--claims", str(tmp_path / "in" / "claims.parquet"), "--json", str(out)]
    else:
        args = ["corpus", "support", str(tmp_path / "in"), "--out", str(out)]
    assert main([*args, "--max-claims", "0"]) == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [limit]: record limits must be positive integers\n"
    assert not out.exists()


# Defects planted in a document (one per defective document). Each is a contract error of the
# single-document call: the corpus must flag exactly that document with exactly that error,
# found by the same columnar pass that evaluates the other documents.
DEFECTS: list[tuple[str, dict[str, Any]]] = [
    ("adjudications", {"claim_id": f"{CANARY}-c0", "evidence_id": "e", "label": "n/a"}),
    ("claims", {"claim_id": "   "}),  # identifier is empty, bounded, and control-free
    ("evidence", {"evidence_id": "bad\tid"}),  # a control character
    ("citations", {"claim_id": f"{CANARY}-c0"}),  # citation requires claim and evidence ids
    ("claims", {"claim_id": f"{CANARY}-x", "citations": ["ok", " "]}),  # a blank cited id
    ("claims", {"claim_id": f"{CANARY}-c0"}),  # duplicate claim identifiers (with c0)
    ("evidence", {"evidence_id": "e-x", "start": 5, "end": 2, "source_length": -1}),  # valid
    (
        "adjudications",
        {"claim_id": "c", "evidence_id": "e", "label": "supports", "supported": False},
    ),
]


def dirty_corpus(
    seed: int, fraction: float, documents: int = 40
) -> dict[str, list[dict[str, Any]]]:
    """A random corpus where ``fraction`` of the ``documents`` (rounded, at least one when the
    fraction is not 0) hold one planted defect each."""
    rows = random_corpus(seed, documents)
    rng = random.Random(seed + 1)
    count = max(1, round(fraction * documents)) if fraction else 0
    planted = rng.sample([f"sha256:{i:064x}" for i in range(documents)], count)
    for ref in sorted(planted):
        role, record = rng.choice(DEFECTS)
        if role == "claims" and record.get("claim_id") == f"{CANARY}-c0":
            # the duplicate needs the original: plant both
            rows["claims"].append({"document_ref": ref, "claim_id": f"{CANARY}-c0"})
        rows[role].append({"document_ref": ref, **record})
    return rows


def dirty_tables(rows: dict[str, list[dict[str, Any]]]) -> dict[str, pa.Table]:
    tables = as_tables(rows)
    flags = [r.get("supported") for r in rows["adjudications"]]
    if any(flag is not None for flag in flags):
        tables["adjudications"] = tables["adjudications"].append_column(
            "supported", pa.array(flags, type=pa.bool_())
        )
    return tables


@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.2])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dirty_corpus_rows_equal_single_calls(seed: int, fraction: float) -> None:
    # 100 documents: 0, 1 and 20 planted defects
    rows = dirty_corpus(seed, fraction, documents=100)
    tables = dirty_tables(rows)
    result = corpus.run_support_corpus(*tables.values(), batch_documents=1000)
    check_against_single(rows, result.documents)
    failed = [r for r in result.documents.to_pylist() if r["status"] == "error"]
    if fraction == 0.0:
        assert failed == []
    else:
        # every planted defect but the merely invalid span is an error (each equals its single
        # call, checked above), so at least one document failed
        assert failed


def test_dirty_corpus_flags_each_planted_defect() -> None:
    # Every defect kind once, in its own document, all in one batch: each defective document
    # gets the error of its defect; the clean documents are evaluated.
    rows = random_corpus(5, documents=len(DEFECTS) + 3)
    refs = [f"sha256:{index:064x}" for index in range(len(DEFECTS))]
    for ref, (role, record) in zip(refs, DEFECTS, strict=True):
        if role == "claims" and record.get("claim_id") == f"{CANARY}-c0":
            rows["claims"].append({"document_ref": ref, "claim_id": f"{CANARY}-c0"})
        rows[role].append({"document_ref": ref, **record})
    tables = dirty_tables(rows)
    result = corpus.run_support_corpus(*tables.values(), batch_documents=1000)
    check_against_single(rows, result.documents)
    errors = {
        r["document_ref"]: r["error_message"]
        for r in result.documents.to_pylist()
        if r["status"] == "error"
    }
    # hand-listed: the message each planted defect must produce, document by document (the
    # seventh defect, an evidence span that is merely invalid, is not an error)
    expected = [
        "adjudication label is unsupported",
        "identifier is empty, bounded, and control-free",
        "identifier is empty, bounded, and control-free",
        "citation requires claim and evidence identifiers",
        "identifier is empty, bounded, and control-free",
        "duplicate claim identifiers",
        None,
        "conflicting adjudication labels",
    ]
    assert [errors.get(ref) for ref in refs] == expected
    assert len(errors) == 7


def test_streamed_outputs_equal_the_in_memory_result(tmp_path: pathlib.Path) -> None:
    # write_support_corpus streams one row group per batch; the files read back equal the
    # in-memory result, and summary.json is byte-identical.
    rows = dirty_corpus(4, 0.2, documents=30)
    tables = dirty_tables(rows)
    expected = corpus.run_support_corpus(
        *tables.values(), batch_documents=1000, edges=True, pseudonym_key=PSEUDONYM_KEY
    )
    out = tmp_path / "out"
    summary = corpus.write_support_corpus(
        *tables.values(), out_dir=out, batch_documents=7, edges=True, pseudonym_key=PSEUDONYM_KEY
    )
    assert summary == expected.summary
    assert sorted(p.name for p in out.iterdir()) == [
        "documents.parquet",
        "edges.parquet",
        "summary.json",
        "summary.md",
    ]
    documents = pq.read_table(out / "documents.parquet")
    assert documents.equals(expected.documents)
    assert pq.read_table(out / "edges.parquet").equals(expected.edges)
    # 30 documents in batches of 7 → up to ceil(30 / 7) = 5 row groups (empty batches add none)
    assert 1 < pq.ParquetFile(out / "documents.parquet").num_row_groups <= 5
    assert (out / "summary.json").read_text(encoding="utf-8") == expected.summary_json()


def test_streamed_write_failure_leaves_nothing(tmp_path: pathlib.Path) -> None:
    rows = random_corpus(8, documents=10)
    tables = as_tables(rows)
    out = tmp_path / "out"

    def stop(done: int, total: int) -> None:
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        corpus.write_support_corpus(*tables.values(), out_dir=out, batch_documents=1, progress=stop)
    assert not out.exists() or list(out.iterdir()) == []
