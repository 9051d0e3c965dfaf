"""CSV corpus inputs, staged block by block as Parquet when scanned: every document equals
the single-document call and the same corpus given as typed tables, whatever the block and
batch sizes; each file is staged once per run and its staging directory removed after it."""

from __future__ import annotations

import csv
import pathlib
import random
from typing import Any

import pyarrow.parquet as pq
import pytest

from citelens import corpus
from citelens.corpus import _staging
from citelens.errors import CorpusError
from citelens.io import _csv

from .test_support_corpus import check_against_single, dirty_corpus, dirty_tables

ROLES = ("claims", "evidence", "citations", "adjudications")
INTEGERS = {"start", "end", "source_length"}
PSEUDONYM_KEY = b"citelens-test-pseudonym-key-0001"


def _cell(value: Any, rng: random.Random) -> str:
    """A CSV cell for a typed value, written as a dirty file might: ``+`` on some integers,
    booleans in any case (support-metrics.md §4.2 types both back)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return rng.choice(["true", "TRUE", "True"] if value else ["false", "FALSE", "False"])
    if isinstance(value, int):
        return f"+{value}" if value >= 0 and rng.random() < 0.3 else str(value)
    return str(value)


def _write_csv(path: pathlib.Path, rows: list[dict[str, Any]], names: list[str]) -> None:
    rng = random.Random(len(rows))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator=rng.choice(["\n", "\r\n"]))
        writer.writerow(names)
        for row in rows:
            writer.writerow([_cell(row.get(name), rng) for name in names])


def _csv_corpus(tmp_path: pathlib.Path, seed: int, fraction: float) -> tuple[Any, ...]:
    """A dirty corpus without claim-embedded lists (CSV cannot hold them), as CSV files and as
    typed Arrow tables."""
    rows = dirty_corpus(seed, fraction, documents=60)
    for claim in rows["claims"]:
        claim.pop("citations", None)
    tables = dirty_tables(rows)
    tables["claims"] = tables["claims"].drop_columns(["citations"])
    paths = []
    for role in ROLES:
        path = tmp_path / f"{role}.csv"
        _write_csv(path, rows[role], tables[role].column_names)
        paths.append(path)
    return rows, tables, paths


@pytest.mark.parametrize("block_bytes", [256, 1 << 20])
@pytest.mark.parametrize("batch", [7, 1000])
@pytest.mark.parametrize(("seed", "fraction"), [(1, 0.0), (2, 0.01), (3, 0.2)])
def test_csv_corpus_equals_single_calls_and_tables(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
    fraction: float,
    block_bytes: int,
    batch: int,
) -> None:
    monkeypatch.setattr(_staging, "BLOCK_BYTES", block_bytes)
    rows, tables, paths = _csv_corpus(tmp_path, seed, fraction)
    # one pseudonym key for both runs (without one each run draws its own)
    from_csv = corpus.run_support_corpus(
        *paths, batch_documents=batch, edges=True, pseudonym_key=PSEUDONYM_KEY
    )
    check_against_single(rows, from_csv.documents)
    from_tables = corpus.run_support_corpus(
        *tables.values(), batch_documents=batch, edges=True, pseudonym_key=PSEUDONYM_KEY
    )
    assert from_csv.documents.equals(from_tables.documents)
    assert from_csv.summary_json() == from_tables.summary_json()
    assert from_csv.edges is not None and from_tables.edges is not None
    assert from_csv.edges.equals(from_tables.edges)


def test_each_file_is_staged_once_and_removed(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three batches in two threads read each role's file: each file is staged once (when its
    # scan is made; every batch scans the staged Parquet), and no staging directory outlives
    # the run.
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 512)
    staged: list[pathlib.Path] = []
    original = _csv.stage_csv

    def spy(path: pathlib.Path, header: list[str], target: pathlib.Path, size: int) -> None:
        staged.append(target)
        original(path, header, target, size)

    monkeypatch.setattr(_staging, "stage_csv", spy)
    rows, _, paths = _csv_corpus(tmp_path, 4, 0.2)
    out = tmp_path / "out"
    corpus.write_support_corpus(*paths, out_dir=out, batch_documents=20)
    assert len(staged) == len(ROLES)
    assert all(not target.parent.exists() for target in staged)
    documents = pq.read_table(out / "documents.parquet")
    check_against_single(rows, documents)


@pytest.mark.parametrize(
    "content",
    [
        "document_ref,evidence_id,start,end\nd1,e1,0,1\nd2,e2,0\n",  # a ragged row
        "document_ref,evidence_id,start,end\nd1,e1,0,1\nd2,e2,0,1,9\n",  # one cell too many
    ],
)
def test_malformed_csv_names_the_role(tmp_path: pathlib.Path, content: str) -> None:
    (tmp_path / "claims.csv").write_text("document_ref,claim_id\nd1,c1\n")
    (tmp_path / "evidence.csv").write_text(content)
    with pytest.raises(CorpusError) as info:
        corpus.run_support_corpus(tmp_path / "claims.csv", tmp_path / "evidence.csv")
    message = (info.value.args[0], info.value.category)
    assert message == ("evidence input could not be read", "input")
    # the cause, on every supported Polars (1.43 reports an IO source's exception as a bare
    # ComputeError, so the file is staged outside any Polars query)
    assert info.value.detail == "evidence file is not valid CSV"
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_csv_cells_are_typed_by_the_contract(tmp_path: pathlib.Path) -> None:
    # Hand-checked: "+3" and "7" are the integers 3 and 7 (§4.2 allows "+"), "007" stays an
    # identifier, an empty cell is absent, "\"\"" is absent too, a quoted comma stays in the
    # identifier. Claim c,1 spans [0, 3) and cites e1 = [3, 7): the explicit citation [3, 5)
    # lies inside the evidence span, so the one edge is valid.
    (tmp_path / "claims.csv").write_text('document_ref,claim_id,start,end\nd1,"c,1",0,+3\n')
    (tmp_path / "evidence.csv").write_text(
        'document_ref,evidence_id,start,end,source_id\nd1,e1,+3,7,""\nd1,007,0,1,\n'
    )
    (tmp_path / "citations.csv").write_text(
        'document_ref,claim_id,evidence_id,start,end\nd1,"c,1",e1,3,5\n'
    )
    result = corpus.run_support_corpus(
        tmp_path / "claims.csv",
        tmp_path / "evidence.csv",
        tmp_path / "citations.csv",
        edges=True,
        raw_identifiers=True,
    )
    row = result.documents.to_pylist()[0]
    assert (row["status"], row["claim_count"], row["evidence_count"]) == ("ok", 1, 2)
    assert row["citation_count"] == 1
    assert row["deterministic_span_checks.valid_citation_count"] == 1
    assert row["unused_evidence_count"] == 1  # 007 is cited by nobody
    assert result.edges is not None
    edge = result.edges.to_pylist()[0]
    assert (edge["claim_id"], edge["evidence_id"], edge["start"], edge["end"]) == (
        "c,1",
        "e1",
        3,
        5,
    )
