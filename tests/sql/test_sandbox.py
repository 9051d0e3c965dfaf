"""The sql sandbox (issue 10 item 8): a query reads the corpus outputs and nothing else, and
writes no file; ``--allow-external`` lifts it."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from citelens._atomic import JOURNAL
from citelens.cli import main
from citelens.errors import CorpusError
from citelens.sql import run_query

SECRET = "CANARY-sql-sandbox-41c9"


@pytest.fixture
def secret_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "secret.csv"
    path.write_text(f"a\n{SECRET}\n")
    return path


def test_the_views_still_read_the_outputs(sample_out: pathlib.Path, no_results: object) -> None:
    table = run_query(sample_out, "SELECT count(*) AS n FROM documents")
    assert table.column("n").to_pylist()[0] > 0


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM read_csv('{secret}')",
        "SELECT * FROM read_text('{secret}')",
        "SELECT * FROM glob('/etc/*')",
        "SET enable_external_access = true",
        "SET allowed_paths = ['{secret}']",
        "INSTALL httpfs",
    ],
)
def test_other_files_and_settings_are_out_of_reach(
    sample_out: pathlib.Path, no_results: object, secret_file: pathlib.Path, query: str
) -> None:
    with pytest.raises(CorpusError) as caught:
        run_query(sample_out, query.format(secret=secret_file))
    assert SECRET not in str(caught.value) and str(secret_file) not in str(caught.value)


@pytest.mark.parametrize(
    "query",
    [
        "COPY (SELECT 1 AS x) TO '{target}'",
        "COPY documents TO '{target}' (FORMAT parquet)",
        "EXPORT DATABASE '{directory}'",
        "ATTACH '{target}' AS other",
        "SELECT 1; COPY (SELECT 2) TO '{target}'",  # a write hidden after a read
    ],
)
def test_writes_are_refused_before_they_run(
    sample_out: pathlib.Path, no_results: object, tmp_path: pathlib.Path, query: str
) -> None:
    target, directory = tmp_path / "written.csv", tmp_path / "export"
    with pytest.raises(CorpusError) as caught:
        run_query(sample_out, query.format(target=target, directory=directory))
    assert (str(caught.value), caught.value.category) == (
        "sql query may only read the corpus outputs (see --allow-external)",
        "policy",
    )
    assert not target.exists() and not directory.exists()


def test_allow_external_lifts_the_sandbox(
    sample_out: pathlib.Path, no_results: object, secret_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    table = run_query(sample_out, f"SELECT * FROM read_csv('{secret_file}')", allow_external=True)
    assert table.column("a").to_pylist() == [SECRET]
    target = tmp_path / "copy.csv"
    run_query(sample_out, f"COPY (SELECT 1 AS x) TO '{target}'", allow_external=True)
    assert target.read_text().splitlines() == ["x", "1"]


def test_cli_refuses_and_allows(
    sample_out: pathlib.Path,
    no_results: object,
    secret_file: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    query = f"SELECT * FROM read_csv('{secret_file}')"
    assert main(["sql", str(sample_out), query]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citelens: error [") and SECRET not in err and "secret" not in err
    assert main(["sql", str(sample_out), query, "--allow-external", "--format", "csv"]) == 0
    assert SECRET in capsys.readouterr().out


def test_a_half_published_set_is_completed_before_reading(
    sample_out: pathlib.Path, no_results: object, tmp_path: pathlib.Path
) -> None:
    # a killed run got past its commit point (the journal) but renamed nothing yet
    out = tmp_path / "out"
    shutil.copytree(sample_out, out)
    documents = out / "documents.parquet"
    staged = out / ".citelens-1-documents.tmp"
    shutil.copy(documents, staged)
    documents.unlink()
    plan = {"citelens_publish": 1, "remove": [], "rename": [[str(staged), str(documents)]]}
    (out / JOURNAL).write_text(json.dumps(plan))
    before = run_query(sample_out, "SELECT count(*) AS n FROM documents")
    after = run_query(out, "SELECT count(*) AS n FROM documents")
    assert after.equals(before)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in sample_out.iterdir())
