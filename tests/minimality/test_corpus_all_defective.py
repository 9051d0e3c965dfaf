"""``citelens corpus minimality`` when every document is defective (issue 10: it once raised
``ColumnNotFoundError``). Every document gets its error row with the single call's category
and message, the run completes and writes its outputs, and the exit code is the other corpus
modes': 0, and 1 with ``--strict``."""

from __future__ import annotations

import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens import corpus
from citelens.cli import main

from ._helpers import CANARY, ref

# Four documents, each defective in its own way (document_ref order = sorted hex digests).
D_ID = ref("defect-identifier")
D_SPAN = ref("defect-span")
D_UNKNOWN = ref("defect-unknown-claim")
D_NOSOURCE = ref("defect-no-source")
GOOD_CLAIM = ref("claim")
OTHER_CLAIM = ref("not-a-claim-of-this-document")

EXPECTED = {
    # claim id is not an opaque sha256 reference (a canary planted in it)
    D_ID: ("identifier", "citation identifiers must be opaque sha256 references"),
    # required span [0, 99) ends beyond "gamma" (5 code points)
    D_SPAN: ("span", "citation offsets exceed source text"),
    # the only citation names a claim the document does not have
    D_UNKNOWN: ("reference", "citation refers to an unknown atomic claim"),
    # rows for a document_ref that has no documents row
    D_NOSOURCE: ("reference", "document reference has no source text"),
}


def _tables() -> dict[str, pa.Table]:
    documents = pa.table(
        {
            "document_ref": [D_ID, D_SPAN, D_UNKNOWN],
            "source_text": ["alpha beta", "gamma", "delta epsilon"],
        }
    )
    claims = pa.table(
        {
            "document_ref": [D_ID, D_SPAN, D_UNKNOWN, D_NOSOURCE],
            "claim_id": [f"bad-{CANARY}", GOOD_CLAIM, GOOD_CLAIM, GOOD_CLAIM],
            "start": [0, 0, 0, 0],
            "end": [5, 99, 5, 5],
        }
    )
    citations = pa.table(
        {
            "document_ref": [D_UNKNOWN],
            "claim_id": [OTHER_CLAIM],
            "start": [0],
            "end": [5],
        }
    )
    return {"documents": documents, "claims": claims, "citations": citations}


@pytest.mark.parametrize("batch_documents", [1, 3, 100])
def test_every_document_defective_gives_error_rows(batch_documents: int) -> None:
    # batch 1: every batch fails entirely; batch 3: a mixed cut; batch 100: one batch.
    t = _tables()
    result = corpus.run_minimality_corpus(
        t["documents"], t["claims"], t["citations"], batch_documents=batch_documents
    )
    rows = result.documents.to_pylist()
    assert [row["document_ref"] for row in rows] == sorted(EXPECTED)
    for row in rows:
        assert row["status"] == "error"
        assert (row["error_category"], row["error_message"]) == EXPECTED[row["document_ref"]]
        assert row["claim_count"] is None and row["flagged_count"] is None
    # The record table exists with its schema and no row (citations.parquet is always written).
    assert result.records is not None and result.records.num_rows == 0
    totals = result.summary["totals"]
    assert (totals["documents"], totals["documents_evaluated"], totals["documents_failed"]) == (
        4,
        0,
        4,
    )
    assert (totals["citations"], totals["flagged"], totals["flagged_rate"]) == (0, 0, 0.0)
    assert CANARY not in repr(rows) + json.dumps(result.summary)


def test_cli_completes_and_exits_like_the_other_corpus_modes(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for role, table in _tables().items():
        pq.write_table(table, folder / f"{role}.parquet")
    out = tmp_path / "out"
    argv = ["corpus", "minimality", str(folder), "--out", str(out), "--batch-documents", "1"]
    argv.append("--no-progress")  # stderr holds only the gate line (phase lines are silenced)
    line = "documents: 4 (evaluated 0, failed 4); citations: 0, flagged 0\n"
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (line, "")
    documents = pq.read_table(out / "documents.parquet").to_pylist()
    assert {row["document_ref"]: row["status"] for row in documents} == dict.fromkeys(
        EXPECTED, "error"
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "citations.parquet",
        "documents.parquet",
        "summary.json",
        "summary.md",
    ]
    assert pq.read_table(out / "citations.parquet").num_rows == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["documents_failed"] == 4
    # --strict: a failed document fails the run (exit 1), outputs are still written.
    assert main([*argv, "--strict"]) == 1
    captured = capsys.readouterr()
    assert captured.out == line
    written = "".join(
        p.read_text(errors="replace") for p in out.iterdir() if p.suffix != ".parquet"
    )
    assert CANARY not in captured.out + captured.err + written
