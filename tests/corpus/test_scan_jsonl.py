"""JSON Lines corpus inputs are staged block by block as Parquet (``citelens.corpus._staging``):
results equal the Parquet form of the same corpus, the reader holds one block at a time,
failures keep their fixed message, and the staging directory never outlives the run."""

from __future__ import annotations

import gc
import json
import pathlib
import random
import subprocess
import sys
import tempfile
from typing import Any

import polars as pl
import pytest

from citelens import corpus
from citelens.corpus import _scan, _staging
from citelens.errors import CorpusError
from citelens.io import _jsonl_blocks, jsonl_records

ROLES = ("claims", "evidence", "citations", "adjudications")
CANARY = "CANARY-9b1e-secret"
PSEUDONYM_KEY = b"citelens-test-pseudonym-key-0001"  # one key: summaries compare


def _corpus(seed: int, documents: int, defective: float) -> dict[str, list[dict[str, Any]]]:
    """Random documents (in random line order); ``defective`` of them carry a bad label, an
    inverted span or a citation of missing evidence."""
    rng = random.Random(seed)
    rows: dict[str, list[dict[str, Any]]] = {role: [] for role in ROLES}
    for index in range(documents):
        ref = f"sha256:{index:064x}"
        bad = rng.random() < defective
        evidence = [f"e{j}" for j in range(rng.randint(0, 4))]
        for j, evidence_id in enumerate(evidence):
            start = rng.randint(0, 20)
            end = start - 1 if bad and j == 0 else start + rng.randint(0, 9)
            rows["evidence"].append(
                {
                    "document_ref": ref,
                    "evidence_id": evidence_id,
                    "start": start,
                    "end": end,
                    "source_id": rng.choice([None, "s1"]),
                    "source_length": rng.choice([None, 40]),
                }
            )
        claims = [f"c{k}" for k in range(rng.randint(0, 3))]
        for claim_id in claims:
            pool = [*evidence, "ghost"] if bad else evidence or ["ghost"]
            rows["claims"].append(
                {
                    "document_ref": ref,
                    "claim_id": claim_id,
                    "start": rng.choice([None, 0, 4]),
                    "end": rng.choice([None, 6, 9]),
                    "citations": [rng.choice(pool) for _ in range(rng.randint(0, 3))],
                }
            )
            if evidence and rng.random() < 0.5:
                rows["adjudications"].append(
                    {
                        "document_ref": ref,
                        "claim_id": claim_id,
                        "evidence_id": rng.choice(evidence),
                        "label": "no such label" if bad else rng.choice(["supports", "unclear"]),
                    }
                )
            if evidence and rng.random() < 0.3:
                rows["citations"].append(
                    {
                        "document_ref": ref,
                        "claim_id": claim_id,
                        "evidence_id": rng.choice(evidence),
                        "start": None,
                        "end": None,
                    }
                )
    for role_rows in rows.values():
        rng.shuffle(role_rows)
    return rows


_SCHEMAS: dict[str, dict[str, Any]] = {
    "claims": {
        "document_ref": pl.String,
        "claim_id": pl.String,
        "start": pl.Int64,
        "end": pl.Int64,
        "citations": pl.List(pl.String),
    },
    "evidence": {
        "document_ref": pl.String,
        "evidence_id": pl.String,
        "start": pl.Int64,
        "end": pl.Int64,
        "source_id": pl.String,
        "source_length": pl.Int64,
    },
    "citations": {
        "document_ref": pl.String,
        "claim_id": pl.String,
        "evidence_id": pl.String,
        "start": pl.Int64,
        "end": pl.Int64,
    },
    "adjudications": {
        "document_ref": pl.String,
        "claim_id": pl.String,
        "evidence_id": pl.String,
        "label": pl.String,
    },
}


def _write(folder: pathlib.Path, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Each role as Parquet and as JSON Lines (nulls as absent keys, one role as explicit
    nulls: both mean an absent field)."""
    folder.mkdir(parents=True, exist_ok=True)
    for role, role_rows in rows.items():
        frame = pl.DataFrame(role_rows, schema=_SCHEMAS[role])
        frame.write_parquet(folder / f"{role}.parquet")
        if role == "evidence":
            frame.write_ndjson(folder / f"{role}.jsonl")
        else:
            lines = [json.dumps({k: v for k, v in r.items() if v is not None}) for r in role_rows]
            (folder / f"{role}.jsonl").write_text("".join(f"{line}\n" for line in lines))


@pytest.fixture
def stage_dirs(monkeypatch: pytest.MonkeyPatch) -> list[pathlib.Path]:
    """Every staging directory made during the test."""
    made: list[pathlib.Path] = []
    mkdtemp = tempfile.mkdtemp

    def recording(*args: Any, **kwargs: Any) -> str:
        path = str(mkdtemp(*args, **kwargs))
        if pathlib.Path(path).name.startswith("citelens-stage-"):
            made.append(pathlib.Path(path))
        return path

    monkeypatch.setattr(tempfile, "mkdtemp", recording)
    return made


@pytest.mark.parametrize(("seed", "defective"), [(1, 0.0), (2, 0.01), (3, 0.2), (4, 0.2)])
def test_jsonl_corpus_equals_its_parquet_form(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    stage_dirs: list[pathlib.Path],
    seed: int,
    defective: float,
) -> None:
    # Blocks of 300 bytes (a few lines each) and batches of 7 documents: every document row
    # equals the one from the Parquet files of the same rows.
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 300)
    rows = _corpus(seed, documents=60, defective=defective)
    _write(tmp_path, rows)
    expected = corpus.run_support_corpus(
        *(tmp_path / f"{role}.parquet" for role in ROLES), batch_documents=7
    ).documents
    result = corpus.run_support_corpus(
        *(tmp_path / f"{role}.jsonl" for role in ROLES), batch_documents=7
    ).documents
    assert result.equals(expected)
    assert len(stage_dirs) == len(ROLES)  # one staging directory per input file
    gc.collect()
    assert not any(path.exists() for path in stage_dirs)  # removed with the run's plan


def test_streamed_outputs_equal_and_leave_no_staging(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, stage_dirs: list[pathlib.Path]
) -> None:
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 200)
    _write(tmp_path / "in", _corpus(5, documents=40, defective=0.1))
    inputs = {
        kind: [tmp_path / "in" / f"{role}.{kind}" for role in ROLES]
        for kind in ("jsonl", "parquet")
    }
    summaries = {
        kind: corpus.write_support_corpus(
            *paths, out_dir=tmp_path / kind, batch_documents=9, pseudonym_key=PSEUDONYM_KEY
        )
        for kind, paths in inputs.items()
    }
    assert summaries["jsonl"] == summaries["parquet"]
    for name in ("documents.parquet", "summary.json"):
        assert (tmp_path / "jsonl" / name).read_bytes() == (
            tmp_path / "parquet" / name
        ).read_bytes()
    assert stage_dirs and not any(path.exists() for path in stage_dirs)


def test_the_reader_holds_one_block_at_a_time(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 500 lines of 80 bytes, blocks of 800 bytes: every block the reader decodes holds 10
    # lines (never the file), and the staged scan still holds all 500 rows.
    line = '{"document_ref": "d0001", "claim_id": "c0001", "start": 10, "end": 20, "x": ""}'
    assert len(line) + 1 == 80
    path = tmp_path / "claims.jsonl"
    path.write_text(f"{line}\n" * 500)
    seen: list[int] = []
    records = jsonl_records

    def counting(text: str) -> Any:
        seen.append(text.count("\n"))
        return records(text)

    monkeypatch.setattr(_jsonl_blocks, "jsonl_records", counting)
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 800)
    frame = _scan._lazy(path, "claims")
    assert frame is not None
    assert seen == [10] * 50
    assert frame.select(pl.len()).collect().item() == 500


def test_a_malformed_late_line_is_an_input_error(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, stage_dirs: list[pathlib.Path]
) -> None:
    # The defect sits in the 40th block: the same fixed error as a whole-file reading, no
    # value of the input in it, not chained, and the blocks staged so far are removed.
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 100)
    good = '{"document_ref": "d1", "claim_id": "c"}\n' * 100
    for late in (f'{{"document_ref": "{CANARY}"', f'{{"document_ref": 1, "x": "{CANARY}"}}'):
        path = tmp_path / "claims.jsonl"
        path.write_text(good + late + "\n" + good)
        with pytest.raises(CorpusError) as info:
            _scan._lazy(path, "claims")
        assert info.value.args == ("claims input could not be read",)
        assert info.value.category == "input"
        assert info.value.__cause__ is None and info.value.__context__ is None
        assert CANARY not in str(info.value)
    assert len(stage_dirs) == 2 and not any(path.exists() for path in stage_dirs)


def test_an_interrupt_while_staging_removes_the_directory(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, stage_dirs: list[pathlib.Path]
) -> None:
    # Ctrl-C in the middle of the file: KeyboardInterrupt propagates, nothing stays behind.
    path = tmp_path / "claims.jsonl"
    path.write_text('{"document_ref": "d1"}\n' * 50)
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 50)
    records = jsonl_records
    calls: list[int] = []

    def interrupted(text: str) -> Any:
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return records(text)

    monkeypatch.setattr(_jsonl_blocks, "jsonl_records", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _scan._lazy(path, "claims")
    assert len(stage_dirs) == 1 and not stage_dirs[0].exists()


def test_the_staging_directory_is_removed_at_exit(tmp_path: pathlib.Path) -> None:
    # A process that still holds the staged scan when it exits leaves nothing behind.
    path = tmp_path / "claims.jsonl"
    path.write_text('{"document_ref": "d1"}\n{"document_ref": "d2"}\n')
    script = (
        "import gc\n"
        "from citelens.corpus import _scan, _staging\n"
        f"frame = _scan._lazy({str(path)!r}, 'claims')\n"
        "stages = [o for o in gc.get_objects() if isinstance(o, _staging.Stage)]\n"
        "print(stages[0].path)\n"
        "assert stages[0].path.exists()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    staged = pathlib.Path(done.stdout.splitlines()[-1])
    assert staged.name.startswith("citelens-stage-")
    assert not staged.exists()


def test_batches_of_a_staged_file_read_their_documents_only(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_staging, "BLOCK_BYTES", 1)  # one line per block, one file per line
    path = tmp_path / "claims.jsonl"
    lines = [
        {"document_ref": ref, "claim_id": f"c{i}"} for i, ref in enumerate(["d3", "d1", "d2", "d3"])
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    frame = _scan._lazy(path, "claims")
    assert frame is not None
    frames = {"claims": _scan._check_ref_column(frame, "claims")}
    refs = _scan._plan(frames)
    batches = _scan._batches(refs, 2)
    # d1, d2 | d3: the second batch holds d3's claims only, in line order.
    assert _scan._batch_frames(frames, batches[1])["claims"]["claim_id"].to_list() == ["c0", "c3"]
    # The range predicate reaches the Parquet scan (the staging step lets it through).
    plan = frame.filter(pl.col("document_ref") >= "d3").explain()
    assert "SELECTION" in plan
