"""``citelens sql`` shows DuckDB's own message for an invalid query (issue 11, item 4).

The query is the user's, so a parser, binder or catalog error (about the query text) is shown
as DuckDB words it, first line only: ``sql query is invalid: <DuckDB's first line>``. Errors
that can quote data values (conversions, failed casts, ``error()``) and the sandbox refusals
keep their fixed messages. A canary planted in the data (document refs) and in the output
directory's path must never appear in an error.
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from citelens.cli import main
from citelens.errors import CorpusError
from citelens.sql import open_views, run_query
from citelens.sql._api import _query_detail

from ._outputs import write_outputs

CANARY = "CANARY-5d2c"
INVALID = "sql query is invalid: "


def _document(ref: str) -> dict[str, list[dict[str, Any]]]:
    # one claim [0, 5) citing one evidence span [0, 5) of a 10-character source: a valid edge
    return {
        "claims": [
            {
                "document_ref": ref,
                "claim_id": f"c-{CANARY}",
                "start": 0,
                "end": 5,
                "citations": [f"e-{CANARY}"],
            }
        ],
        "evidence": [
            {
                "document_ref": ref,
                "evidence_id": f"e-{CANARY}",
                "start": 0,
                "end": 5,
                "source_length": 10,
            }
        ],
        "citations": [],
        "adjudications": [],
    }


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """Two documents whose refs carry the canary, in a directory whose path carries it too."""
    folder = tmp_path_factory.mktemp("sql-errors") / f"out-{CANARY}"
    first, second = _document(f"doc-{CANARY}-1"), _document(f"doc-{CANARY}-2")
    corpus = {role: first[role] + second[role] for role in first}
    write_outputs(corpus, folder, edges=False)
    return folder


def _error(out: pathlib.Path, query: str) -> CorpusError:
    with pytest.raises(CorpusError) as caught:
        run_query(out, query)
    error = caught.value
    assert error.__cause__ is None and error.__context__ is None
    assert CANARY not in str(error) and error.args == (str(error),)
    return error


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        # a syntax error: DuckDB's first line, without its "LINE 1: ..." context
        ("SELEC 1", 'Parser Error: syntax error at or near "SELEC"'),
        # an unknown column: the "Candidate bindings" line after it is left out
        (
            "SELECT nope FROM documents",
            'Binder Error: Referenced column "nope" not found in FROM clause!',
        ),
        # an unknown table: the "Did you mean" line is left out
        ("SELECT * FROM nothere", "Catalog Error: Table with name nothere does not exist!"),
        (
            "SELECT nofunction(1)",
            "Catalog Error: Scalar Function with name nofunction does not exist!",
        ),
        # PIVOT makes columns of data values: its "Candidate bindings" would list the refs
        (
            "SELECT nope FROM (PIVOT documents ON document_ref USING count(*))",
            'Binder Error: Referenced column "nope" not found in FROM clause!',
        ),
    ],
    ids=["parser", "binder", "catalog", "function", "pivot"],
)
def test_invalid_query_shows_duckdb_message(out: pathlib.Path, query: str, detail: str) -> None:
    error = _error(out, query)
    assert (error.args[0], error.category) == (INVALID + detail, "input")


@pytest.mark.parametrize(
    ("query", "message", "category"),
    [
        # DuckDB would say: Could not convert string 'doc-CANARY-…' to INT32
        ("SELECT document_ref::INT FROM documents", "sql query failed", "input"),
        ("SELECT * FROM documents WHERE document_ref = 1", "sql query failed", "input"),
        ("SELECT CAST(document_ref AS DATE) FROM documents", "sql query failed", "input"),
        # DuckDB would say: Invalid Input Error: doc-CANARY-…
        ("SELECT error(document_ref) FROM documents", None, "io"),
        # a constant the user typed is no different: a data error keeps the fixed message
        ("SELECT CAST('SECRET' AS INT)", "sql query failed", "input"),
    ],
    ids=["cast", "compare", "date", "error-function", "constant"],
)
def test_data_errors_keep_the_fixed_message(
    out: pathlib.Path, query: str, message: str | None, category: str
) -> None:
    error = _error(out, query)
    assert (error.args[0], error.category) == (
        message or "corpus output files could not be read",
        category,
    )
    assert "SECRET" not in error.args[0]


@pytest.mark.parametrize(
    "query",
    [f"COPY documents TO '{CANARY}.csv'", "ATTACH 'other.db'", "EXPORT DATABASE 'x'"],
    ids=["copy", "attach", "export"],
)
def test_sandbox_refusals_keep_their_fixed_message(out: pathlib.Path, query: str) -> None:
    error = _error(out, query)
    expected = "sql query may only read the corpus outputs (see --allow-external)"
    assert (error.args[0], error.category) == (expected, "policy")


def test_control_characters_are_not_echoed(out: pathlib.Path) -> None:
    # the identifier DuckDB quotes holds ESC: shown as "?" so no terminal sequence reaches stderr
    error = _error(out, 'SELECT "a\x1b[2Jb" FROM documents')
    assert (
        error.args[0] == INVALID + 'Binder Error: Referenced column "a?[2Jb" not found in '
        "FROM clause!"
    )


def test_a_message_naming_a_view_file_is_not_shown(out: pathlib.Path) -> None:
    con = open_views(out)
    try:
        # DuckDB's messages do not name the views' files today; if one ever did, it would be
        # dropped (no path in any message): the file, its directory, glob-escaped or not
        for path in (out / "documents.parquet", out):
            assert _query_detail(con, f"Binder Error: cannot read '{path}'") == ""
        assert _query_detail(con, "Binder Error: column x\nLINE 1: x") == "Binder Error: column x"
        long = "Parser Error: " + "x" * 400
        assert len(_query_detail(con, long)) == 300 and _query_detail(con, long).endswith("...")
    finally:
        con.close()


def test_cli_prints_one_line_with_duckdb_message(
    out: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sql", str(out), "SELEC 1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "citelens: error [input]: sql query is invalid: Parser Error: syntax error at or near "
        '"SELEC"\n'
    )
    # a data error on the command line: the fixed message, no canary
    assert main(["sql", str(out), "SELECT document_ref::INT FROM documents"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "citelens: error [input]: sql query failed\n"
