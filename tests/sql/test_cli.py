"""``citelens sql``: output formats, files, the interactive shell, exit codes and messages."""

from __future__ import annotations

import io
import json
import os
import pathlib
import stat
import sys

import duckdb
import pyarrow.parquet as pq
import pytest

from citelens.cli import _run_sql as cli_sql
from citelens.cli import main
from citelens.sql import open_views

from .conftest import SQL_DIR

CANARY = "CANARY-91be-query-secret"
QUERY = "SELECT status, count(*) AS n FROM documents GROUP BY status ORDER BY status"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["sql", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _counts(out: pathlib.Path) -> dict[str, int]:
    statuses = pq.read_table(out / "documents.parquet", columns=["status"])["status"].to_pylist()
    return {s: statuses.count(s) for s in sorted(set(statuses))}


def test_table_output(sample_out: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(sample_out), QUERY)
    counts = _counts(sample_out)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split(" | ")[0].strip() == "status"
    assert [line.split("|")[0].strip() for line in lines[2:-1]] == list(counts)
    assert [int(line.split("|")[1]) for line in lines[2:-1]] == list(counts.values())
    assert lines[-1] == "(2 rows)"


def test_csv_and_json(sample_out: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    counts = _counts(sample_out)
    code, out, _ = _run(capsys, str(sample_out), "--format", "csv", QUERY)
    assert code == 0
    assert out == "status,n\n" + "".join(f"{s},{n}\n" for s, n in counts.items())
    code, out, _ = _run(capsys, "--format=json", str(sample_out), QUERY)
    assert code == 0
    assert json.loads(out) == [{"status": s, "n": n} for s, n in counts.items()]


def test_parquet_needs_output(sample_out: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(sample_out), QUERY, "--format", "parquet")
    assert (code, out) == (2, "")
    assert err == "citelens: error [policy]: parquet output requires an output file\n"


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "table"])
def test_output_file(
    sample_out: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
) -> None:
    target = tmp_path / "nested" / f"result.{fmt}"
    # nested/ is missing: an error without --mkdir (test_output_into_a_missing_directory)
    argv = [str(sample_out), QUERY, "--format", fmt, "--output", str(target), "--mkdir"]
    code, out, err = _run(capsys, *argv)
    assert (code, out, err) == (0, "", "")
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]  # no temp file left
    if fmt == "parquet":
        rows = pq.read_table(target).to_pylist()
        assert {r["status"]: r["n"] for r in rows} == _counts(sample_out)
    else:
        _, printed, _ = _run(capsys, str(sample_out), QUERY, "--format", fmt)
        assert target.read_text(encoding="utf-8") == printed


def test_output_into_a_missing_directory(
    sample_out: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # like every command (issue 11): refused before the query runs, and nothing is created
    target = tmp_path / CANARY / "deeper" / "result.csv"
    code, out, err = _run(capsys, str(sample_out), QUERY, "--format", "csv", "-o", str(target))
    assert (code, out) == (2, "")
    assert err == "citelens: error [io]: output directory does not exist\n"
    assert list(tmp_path.iterdir()) == []
    # checked before the query: an invalid query into a missing directory is the same error
    code, out, err = _run(capsys, str(sample_out), "SELEC 1", "-o", str(target))
    assert (code, out) == (2, "")
    assert err == "citelens: error [io]: output directory does not exist\n"
    # --mkdir (before or after OUTDIR and QUERY) creates the two missing directories
    code, out, err = _run(
        capsys, "--mkdir", str(sample_out), QUERY, "--format", "csv", "-o", str(target)
    )
    assert (code, out, err) == (0, "", "")
    _, printed, _ = _run(capsys, str(sample_out), QUERY, "--format", "csv")
    assert target.read_text(encoding="utf-8") == printed
    assert sorted(p.name for p in target.parent.iterdir()) == ["result.csv"]


def test_dash_is_stdout_and_stdin(
    sample_out: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # --output - prints what no --output prints, and creates no file named "-"
    monkeypatch.chdir(tmp_path)
    _, plain, _ = _run(capsys, str(sample_out), QUERY, "--format", "csv")
    code, out, err = _run(capsys, str(sample_out), QUERY, "--format", "csv", "-o", "-")
    assert (code, out, err) == (0, plain, "")
    assert list(tmp_path.iterdir()) == []
    # Parquet cannot go to stdout
    code, out, err = _run(capsys, str(sample_out), QUERY, "--format", "parquet", "-o", "-")
    assert (code, out) == (2, "")
    assert err == "citelens: error [policy]: parquet output requires an output file\n"
    # --file - reads the query from stdin (a BOM is dropped)
    stdin = io.TextIOWrapper(io.BytesIO(("\ufeff" + QUERY).encode("utf-8")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = _run(capsys, str(sample_out), "--file", "-", "--format", "csv")
    assert (code, out, err) == (0, plain, "")


def test_query_file_bounds(
    sample_out: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refused = "citelens: error [input]: sql query file could not be read\n"
    # one byte beyond the bound (shrunk to 8 bytes here): refused unread, never run
    monkeypatch.setattr(cli_sql, "MAX_QUERY_BYTES", 8)
    (tmp_path / "long.sql").write_text("SELECT 1;")  # 9 bytes
    code, out, err = _run(capsys, str(sample_out), "--file", str(tmp_path / "long.sql"))
    assert (code, out, err) == (2, "", refused)
    (tmp_path / "short.sql").write_text("SELECT 1")  # 8 bytes: at the bound, read
    code, out, _ = _run(capsys, str(sample_out), "--file", str(tmp_path / "short.sql"))
    assert code == 0 and "1" in out
    # a FIFO is refused by its kind, never opened (that would block)
    os.mkfifo(tmp_path / "pipe.sql")
    code, out, err = _run(capsys, str(sample_out), "--file", str(tmp_path / "pipe.sql"))
    assert (code, out, err) == (2, "", refused)
    # invalid UTF-8
    (tmp_path / "bad.sql").write_bytes(b"\xff\xfe")
    code, out, err = _run(capsys, str(sample_out), "--file", str(tmp_path / "bad.sql"))
    assert (code, out, err) == (2, "", refused)


def test_output_write_failure(
    sample_out: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / CANARY
    target.mkdir()  # a directory cannot be replaced by a file
    (target / "keep").write_text("x")
    code, out, err = _run(capsys, str(sample_out), QUERY, "-o", str(target), "--format", "csv")
    assert (code, out) == (2, "")
    assert err == "citelens: error [io]: sql output could not be written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [CANARY]
    assert (target / "keep").read_text() == "x"


def test_query_from_file(sample_out: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = SQL_DIR / "examples" / "reason_distribution.sql"
    code, out, _ = _run(capsys, str(sample_out), "--file", str(example), "--format", "json")
    assert code == 0
    assert [row["reason"] for row in json.loads(out)]
    code, _, err = _run(capsys, str(sample_out), "-f", str(example), QUERY)
    assert code == 2
    assert err == "citelens: error [input]: sql takes a query or --file, not both\n"
    code, _, err = _run(capsys, str(sample_out), "-f", str(sample_out / CANARY))
    assert code == 2
    assert err == "citelens: error [input]: sql query file could not be read\n"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # DuckDB's own message about the query (issue 11); the canary is not in it
        (
            ["{out}", f"SELECT {CANARY} FROM documents"],
            '[input]: sql query is invalid: Parser Error: syntax error at or near "-"',
        ),
        (["{out}", f"SELECT '{CANARY}'::INT"], "[input]: sql query failed"),
        (
            [f"/nonexistent/{CANARY}", "SELECT 1"],
            "[input]: corpus output directory is not accessible",
        ),
        (["{out}", "   "], "[input]: sql query must be non-empty text"),
    ],
    ids=["invalid", "failed", "directory", "blank"],
)
def test_error_messages_never_echo_input(
    sample_out: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    expected: str,
) -> None:
    code, out, err = _run(capsys, *[a.format(out=sample_out) for a in argv])
    assert (code, out) == (2, "")
    assert err == f"citelens: error {expected}\n"
    assert CANARY not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["{out}", "SELECT 1", f"extra-{CANARY}"],
        ["{out}", "SELECT 1", "--format", f"xml{CANARY}"],
        ["{out}", f"--bogus={CANARY}"],
        [],
    ],
    ids=["extra", "format", "option", "nothing"],
)
def test_usage_errors_are_fixed(
    sample_out: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = _run(capsys, *[a.format(out=sample_out) for a in argv])
    assert code == 2 and out == ""
    assert err.endswith("citelens: error [input]: invalid sql command line\n")
    assert CANARY not in err


def test_no_query_without_terminal(
    sample_out: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("SELECT 1;\n"))
    code, out, err = _run(capsys, str(sample_out))
    assert (code, out) == (2, "")
    assert err == (
        "citelens: error [input]: sql needs a query when standard input is not a terminal\n"
    )
    code, _, err = _run(capsys, str(sample_out), "--format", "csv")
    assert code == 2
    assert err == "citelens: error [input]: sql output options need a query\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_interactive_shell_without_duckdb_cli(
    sample_out: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = iter(
        [
            ".tables",
            "SELECT count(*) AS n",
            "FROM documents;",
            f"SELECT {CANARY};",
            ".nope",
            "",
            "SELECT 1 AS one;",
            ".quit",
            "SELECT 'never reached';",
        ]
    )
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(cli_sql.shutil, "which", lambda name: None)
    monkeypatch.setattr("builtins.input", lambda prompt: next(lines))
    code, out, err = _run(capsys, str(sample_out))
    assert code == 0
    total = pq.read_metadata(sample_out / "documents.parquet").num_rows
    assert "documents  reasons  edges  scorecards  gold_history" in out
    assert f"\n{total}\n" in out.replace(" ", "")
    assert "one\n---\n  1\n(1 row)" in out
    assert "never reached" not in out
    assert err == (
        'citelens: error [input]: sql query is invalid: Parser Error: syntax error at or near "-"\n'
        "citelens: error [input]: unknown shell command\n"
    )
    assert CANARY not in out + err


def test_interactive_shell_ends_on_end_of_input(
    sample_out: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def eof(prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(cli_sql.shutil, "which", lambda name: None)
    monkeypatch.setattr("builtins.input", eof)
    code, out, _ = _run(capsys, str(sample_out))
    assert code == 0 and out.startswith("citelens SQL shell")


def test_interactive_shell_uses_duckdb_cli(
    sample_out: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A stand-in `duckdb` executable records its arguments and the init script it was given.
    record = tmp_path / "record.txt"
    fake = tmp_path / "bin" / "duckdb"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" > "{record}"\ncat "$2" >> "{record}"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(sys, "stdin", _Terminal())
    code, _, err = _run(capsys, str(sample_out), "--results", str(tmp_path / "none"))
    assert (code, err) == (0, "")
    text = record.read_text(encoding="utf-8")
    assert text.startswith("-init ")
    assert "SET VARIABLE citelens_documents = '" in text
    assert "CREATE OR REPLACE VIEW reasons AS" in text
    init = pathlib.Path(text.splitlines()[0].split(" ", 1)[1])
    assert init.name == "views.sql" and not init.exists()  # the init script is removed


def test_repl_keeps_going_after_errors(sample_out: pathlib.Path) -> None:
    lines = iter(["SELECT nope;", "SELECT 2 AS two", ";"])
    out: list[str] = []
    err: list[str] = []
    prompts: list[str] = []

    def read(prompt: str) -> str | None:
        prompts.append(prompt)
        return next(lines, None)

    con = open_views(sample_out, results_dir=sample_out)
    try:
        cli_sql.repl(con, read, out.append, err.append)
    finally:
        con.close()
    # DuckDB's own first line, whose wording changes between DuckDB releases (1.2: "…not
    # found in FROM clause!", 2.0: "…was not found because the FROM clause is missing")
    with pytest.raises(duckdb.BinderException) as own:
        duckdb.connect().execute("SELECT nope")
    first_line = str(own.value).splitlines()[0]
    assert first_line.startswith('Binder Error: Referenced column "nope"')
    assert err == [f"citelens: error [input]: sql query is invalid: {first_line}\n"]
    assert out == ["two\n---\n  2\n(1 row)\n"]
    assert prompts == ["citelens> ", "citelens> ", "     ...> ", "citelens> "]
