"""Fixtures of the SQL tests: corpus output directories built from the sample corpus."""

from __future__ import annotations

import datetime as dt
import importlib.util
import pathlib
import shutil
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ._outputs import SAMPLE_CORPUS, read_corpus, write_outputs

SQL_DIR = pathlib.Path(__file__).resolve().parents[2] / "sql"
VIEWS_FILE = pathlib.Path(__file__).resolve().parents[2] / "src" / "citelens" / "sql" / "views.sql"
EXAMPLES = sorted((SQL_DIR / "examples").glob("*.sql"))


def load_generator() -> Any:
    """``data-samples/corpus/generate.py`` as a module."""
    spec = importlib.util.spec_from_file_location("corpus_generate", SAMPLE_CORPUS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _special_refs(gen: Any) -> set[str]:
    """Documents with planted corner cases (empty, errors, only invalid edges)."""
    picks = [
        ("release-2026-10", 7),
        ("release-2026-11", 19),
        ("release-2026-11", 23),
        ("rag-regression", 41),
        ("release-2026-10", 11),
        ("release-2026-11", 48),
        ("rag-regression", 11),
    ]
    return {f"{batch}/{gen.pseudonym('document', batch, index)}" for batch, index in picks}


def sample_subset() -> dict[str, list[dict[str, Any]]]:
    """About a quarter of the sample corpus plus every planted corner case (fast to evaluate
    through the single-document API)."""
    corpus = read_corpus(SAMPLE_CORPUS)
    keep = _special_refs(load_generator())
    refs = {row["document_ref"] for rows in corpus.values() for row in rows}
    keep |= {ref for ref in refs if ref.split(":")[-1][0] in "0123"}
    return {
        role: [row for row in rows if row["document_ref"] in keep] for role, rows in corpus.items()
    }


HISTORY_ROWS = [
    # run, minute, scorer, status, metric, value, kind, direction
    ("run-a", 0, "verdict-accuracy", "passed", "verdict_exact", 0.75, "rate", "higher"),
    ("run-a", 0, "latency", "passed", "p50_ms", 12.5, "ms", "lower"),
    ("run-a", 0, "online-judge", "skipped", None, None, None, None),
    ("run-b", 5, "verdict-accuracy", "passed", "verdict_exact", 0.8125, "rate", "higher"),
    ("run-b", 5, "latency", "failed", "p50_ms", 30.0, "ms", "lower"),
]


def history_table(rows: list[tuple[Any, ...]]) -> pa.Table:
    """Gold history rows in the schema of gold-harness.md §9.7."""
    from citelens.gold import HISTORY_SCHEMA

    base = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)
    records = [
        {
            "run_id": run,
            "timestamp": base + dt.timedelta(minutes=minute),
            "citelens_version": "0.1.0",
            "evaluated_sha": None,
            "evaluated_dirty": None,
            "adapter": "lexical",
            "run_model": None,
            "online": False,
            "repeats": 1,
            "case_count": 24,
            "dataset_digest": "sha256:" + "0" * 64,
            "scorer": scorer,
            "scorer_status": status,
            "metric": metric,
            "value": value,
            "kind": kind,
            "direction": direction,
            "is_baseline": run == "run-a",
        }
        for run, minute, scorer, status, metric, value, kind, direction in rows
    ]
    return pa.Table.from_pylist(records, schema=HISTORY_SCHEMA)


@pytest.fixture(scope="session")
def sample_out(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A corpus output directory (documents.parquet + edges.parquet) for the sample subset."""
    out = tmp_path_factory.mktemp("corpus-out")
    write_outputs(sample_subset(), out)
    return out


@pytest.fixture(scope="session")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A gold results directory with two history files."""
    results = tmp_path_factory.mktemp("results")
    (results / "history").mkdir()
    pq.write_table(history_table(HISTORY_ROWS[:3]), results / "history" / "run-a.parquet")
    pq.write_table(history_table(HISTORY_ROWS[3:]), results / "history" / "run-b.parquet")
    return results


@pytest.fixture
def no_results(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """An empty results directory, also made the default through CITELENS_RESULTS."""
    folder = tmp_path / "no-results"
    folder.mkdir()
    monkeypatch.setenv("CITELENS_RESULTS", str(folder))
    return folder


@pytest.fixture
def out_without_edges(sample_out: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """The sample output directory without edges.parquet."""
    folder = tmp_path / "no-edges"
    folder.mkdir()
    shutil.copy(sample_out / "documents.parquet", folder / "documents.parquet")
    return folder
