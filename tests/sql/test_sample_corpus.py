"""The committed sample corpus (``data-samples/corpus/``): deterministic, small, realistic,
with the planted corner cases; and, when the corpus command is present, the demo path
(``citelens corpus support`` then ``citelens sql``) end to end."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from citelens.cli import main
from citelens.sql import run_query

from ._outputs import ROLES, SAMPLE_CORPUS, evaluate, read_corpus
from .conftest import SQL_DIR, load_generator

SHA = re.compile(r"sha256:[0-9a-f]{64}")
REF = re.compile(r"(release-2026-10|release-2026-11|rag-regression)/sha256:[0-9a-f]{64}")


def test_committed_files_are_what_the_generator_writes(tmp_path: pathlib.Path) -> None:
    gen = load_generator()
    assert gen.main(["--out", str(tmp_path)]) == 0
    same_writer = True
    for role in ROLES:
        committed, written = SAMPLE_CORPUS / f"{role}.parquet", tmp_path / f"{role}.parquet"
        # Parquet bytes depend on the writer (its version string, its codec build): the table
        # must match on every pyarrow (the floors job runs an older one), the bytes on the
        # pyarrow that wrote the committed files
        assert pq.read_table(written).equals(pq.read_table(committed), check_metadata=True), role
        writers = (pq.read_metadata(written).created_by, pq.read_metadata(committed).created_by)
        same_writer = same_writer and writers[0] == writers[1]
        if same_writer:
            assert written.read_bytes() == committed.read_bytes(), role
    if same_writer:
        assert gen.main(["--check"]) == 0  # --check compares bytes


def test_small_and_well_formed() -> None:
    total = sum((SAMPLE_CORPUS / f"{role}.parquet").stat().st_size for role in ROLES)
    assert total < 1_000_000
    refs: set[str] = set()
    for role in ROLES:
        table = pq.read_table(SAMPLE_CORPUS / f"{role}.parquet")
        assert table.column_names[0] == "document_ref"
        assert table["document_ref"].null_count == 0
        refs |= set(table["document_ref"].to_pylist())
        for column in ("claim_id", "evidence_id", "source_id"):
            if column in table.column_names:
                values = [v for v in table[column].to_pylist() if v is not None]
                assert values and all(SHA.fullmatch(v) for v in values), (role, column)
    assert all(REF.fullmatch(ref) for ref in refs)
    assert 250 <= len(refs) <= 400


def test_planted_corner_cases() -> None:
    # Only the planted documents are evaluated here (the full corpus is evaluated by the
    # end-to-end test below when the corpus command exists).
    gen = load_generator()
    corpus = read_corpus(SAMPLE_CORPUS)
    counts = {role: len(rows) for role, rows in corpus.items()}
    assert counts["claims"] > 1000 and counts["citations"] > 1000

    def ref(batch: str, index: int) -> str:
        return f"{batch}/{gen.pseudonym('document', batch, index)}"

    picked = {
        "claims_only": ref("release-2026-10", 7),
        "evidence_only": ref("release-2026-11", 19),
        "duplicate_claim": ref("release-2026-11", 23),
        "bad_label": ref("rag-regression", 41),
        "all_invalid": ref("release-2026-10", 11),
    }
    subset = {
        role: [row for row in rows if row["document_ref"] in picked.values()]
        for role, rows in corpus.items()
    }
    documents, _ = evaluate(subset)
    by_ref = {row["document_ref"]: row for row in documents.to_pylist()}
    claims_only = by_ref[picked["claims_only"]]
    assert claims_only["citation_count"] == 0 and claims_only["evidence_count"] == 0
    assert claims_only["orphan_claim_count"] == claims_only["claim_count"] > 0
    evidence_only = by_ref[picked["evidence_only"]]
    assert evidence_only["claim_count"] == 0 and evidence_only["citation_count"] == 0
    assert by_ref[picked["duplicate_claim"]]["error_message"] == "duplicate claim identifiers"
    assert by_ref[picked["bad_label"]]["error_message"] == "adjudication label is unsupported"
    only_invalid = by_ref[picked["all_invalid"]]
    assert only_invalid["citation_count"] > 0
    assert only_invalid["deterministic_span_checks.valid_citation_count"] == 0


def _corpus_command_available() -> bool:
    try:
        import citelens.cli._corpus  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _corpus_command_available(), reason="citelens corpus not present yet")
def test_demo_path_end_to_end(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], no_results: pathlib.Path
) -> None:
    out = tmp_path / "out"
    code = main(["corpus", "support", str(SAMPLE_CORPUS), "--out", str(out), "--edges"])
    capsys.readouterr()
    assert code == 0
    assert (out / "documents.parquet").is_file() and (out / "edges.parquet").is_file()
    # Every example runs over the real corpus outputs; the sample plants every reason code.
    for path in sorted((SQL_DIR / "examples").glob("*.sql")):
        table = run_query(out, path.read_text(encoding="utf-8"))
        assert table.num_columns > 0
    reasons = run_query(out, "SELECT reason, sum(count) AS n FROM reasons GROUP BY reason")
    assert reasons.num_rows == 6 and all(n > 0 for n in reasons["n"].to_pylist())
    statuses = run_query(out, "SELECT status, count(*) AS n FROM documents GROUP BY ALL")
    assert dict(zip(statuses["status"].to_pylist(), statuses["n"].to_pylist())) == {
        "ok": 298,
        "error": 2,
    }
    assert main(["sql", str(out), "SELECT count(*) AS n FROM edges"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "(1 row)"


@pytest.mark.skipif(not _corpus_command_available(), reason="citelens corpus not present yet")
def test_demo_script(tmp_path: pathlib.Path) -> None:
    bin_dir = pathlib.Path(sys.executable).parent
    if not (bin_dir / "citelens").exists():
        pytest.skip("the citelens console script is not installed beside python")
    result = subprocess.run(
        ["bash", str(SAMPLE_CORPUS / "demo.sh"), str(bin_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "release-2026-10" in result.stdout
    assert "citelens: error [input]: sql query is invalid" in result.stdout
    assert "exit code: 2" in result.stdout
