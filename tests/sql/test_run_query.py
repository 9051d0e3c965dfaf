"""``citelens.sql.run_query``: result formats, fixed errors, privacy of messages."""

from __future__ import annotations

import io
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.errors import CorpusError
from citelens.sql import FORMATS, execute, open_views, render, run_query

CANARY = "CANARY-c41f-patient-secret"
QUERY = (
    "SELECT status, count(*) AS documents, sum(claim_count) AS claims "
    "FROM documents GROUP BY status ORDER BY status"
)


INVALID = "sql query is invalid: "


def _fixed(exc: pytest.ExceptionInfo[CorpusError], message: str, category: str) -> None:
    assert type(exc.value) is CorpusError
    assert exc.value.args == (message,)
    assert exc.value.category == category
    assert exc.value.__cause__ is None and exc.value.__context__ is None
    assert CANARY not in str(exc.value) and CANARY not in repr(exc.value)


@pytest.fixture
def expected(sample_out: pathlib.Path) -> list[tuple[str, int, int | None]]:
    documents = pq.read_table(sample_out / "documents.parquet").to_pylist()
    out = []
    for status in ("error", "ok"):
        docs = [d for d in documents if d["status"] == status]
        claims = sum(d["claim_count"] for d in docs) if status == "ok" else None
        out.append((status, len(docs), claims))
    return out


def test_arrow(sample_out: pathlib.Path, expected: list[tuple[str, int, int | None]]) -> None:
    table = run_query(sample_out, QUERY)
    assert isinstance(table, pa.Table)
    assert table.column_names == ["status", "documents", "claims"]
    got = [(r["status"], r["documents"], r["claims"]) for r in table.to_pylist()]
    assert got == expected


def test_table_text(sample_out: pathlib.Path, expected: list[tuple[str, int, int | None]]) -> None:
    text = run_query(sample_out, QUERY, format="table")
    (_, n_err, _), (_, n_ok, claims) = expected
    width = max(len("documents"), len(str(n_ok)), len(str(n_err)))
    cwidth = max(len("claims"), len(str(claims)), len("NULL"))
    assert text == (
        f"status | {'documents'.ljust(width)} | claims\n"
        f"-------+-{'-' * width}-+-{'-' * cwidth}\n"
        f"error  | {str(n_err).rjust(width)} | {'NULL'.rjust(cwidth)}\n"
        f"ok     | {str(n_ok).rjust(width)} | {str(claims).rjust(cwidth)}\n"
        "(2 rows)\n"
    )


def test_csv(sample_out: pathlib.Path, expected: list[tuple[str, int, int | None]]) -> None:
    text = run_query(sample_out, QUERY, format="csv")
    lines = [f"{s},{n},{'' if c is None else c}" for s, n, c in expected]
    assert text == "status,documents,claims\n" + "\n".join(lines) + "\n"


def test_json(sample_out: pathlib.Path, expected: list[tuple[str, int, int | None]]) -> None:
    text = run_query(sample_out, QUERY, format="json")
    assert text.endswith("\n") and text.count("\n") == 1  # canonical: compact, one newline
    assert json.loads(text) == [{"status": s, "documents": n, "claims": c} for s, n, c in expected]
    # Integer sums come out as integers, not floats.
    assert '"documents":' in text and ".0" not in text


def test_parquet(sample_out: pathlib.Path, expected: list[tuple[str, int, int | None]]) -> None:
    data = run_query(sample_out, QUERY, format="parquet")
    assert isinstance(data, bytes) and data[:4] == b"PAR1"
    table = pq.read_table(io.BytesIO(data))
    got = [(r["status"], r["documents"], r["claims"]) for r in table.to_pylist()]
    assert got == expected


def test_render_special_values() -> None:
    table = pa.table(
        {
            "f": pa.array([float("nan"), 0.5, None]),
            "b": pa.array([True, False, None]),
            "l": pa.array([[1, 2], [], None]),
            "t": pa.array(["a,b", 'q"x', None]),
        }
    )
    assert json.loads(render(table, "json")) == [
        {"f": None, "b": True, "l": [1, 2], "t": "a,b"},
        {"f": 0.5, "b": False, "l": [], "t": 'q"x'},
        {"f": None, "b": None, "l": None, "t": None},
    ]
    assert render(table, "csv") == 'f,b,l,t\nnan,true,"[1,2]","a,b"\n0.5,false,[],"q""x"\n,,,\n'
    assert render(table, "table").splitlines()[-1] == "(3 rows)"


def test_empty_result_and_statement(sample_out: pathlib.Path) -> None:
    assert run_query(sample_out, "SELECT * FROM documents WHERE false", format="table").endswith(
        "(0 rows)\n"
    )
    # A script: the last statement gives the result; earlier ones may define helpers.
    table = run_query(
        sample_out,
        "CREATE TEMP VIEW ok_docs AS SELECT * FROM documents WHERE status = 'ok';\n"
        "SELECT count(*) AS n FROM ok_docs;",
    )
    assert table.column_names == ["n"]


def test_connection_is_reusable(sample_out: pathlib.Path) -> None:
    con = open_views(sample_out, results_dir=sample_out)
    try:
        first = execute(con, "SELECT count(*) AS n FROM documents")
        second = execute(con, "SELECT count(*) AS n FROM reasons")
    finally:
        con.close()
    assert second["n"][0].as_py() == 6 * _ok_count(sample_out)
    assert first["n"][0].as_py() == pq.read_metadata(sample_out / "documents.parquet").num_rows


def _ok_count(out: pathlib.Path) -> int:
    statuses = pq.read_table(out / "documents.parquet", columns=["status"])["status"]
    return sum(1 for s in statuses.to_pylist() if s == "ok")


@pytest.mark.parametrize(
    ("query", "message", "category"),
    [
        # an invalid query shows DuckDB's first line (the query is the user's, issue 11)
        (f"SELEC '{CANARY}'", INVALID + 'Parser Error: syntax error at or near "SELEC"', "input"),
        (
            f"SELECT {CANARY} FROM documents",
            INVALID + 'Binder Error: Referenced column "CANARY" not found in FROM clause!',
            "input",
        ),
        (
            f"SELECT * FROM nothere WHERE x = '{CANARY}'",
            INVALID + "Catalog Error: Table with name nothere does not exist!",
            "input",
        ),
        (f"SELECT '{CANARY}'::INTEGER", "sql query failed", "input"),
        (f"SELECT * FROM read_parquet('/nonexistent/{CANARY}.parquet')", None, "io"),
        ("", "sql query must be non-empty text", "input"),
        ("   \n", "sql query must be non-empty text", "input"),
        (42, "sql query must be non-empty text", "input"),
        (None, "sql query must be non-empty text", "input"),
    ],
    ids=["parse", "bind", "catalog", "conversion", "io", "empty", "blank", "int", "none"],
)
def test_query_errors(
    sample_out: pathlib.Path, query: object, message: str | None, category: str
) -> None:
    with pytest.raises(CorpusError) as exc:
        run_query(sample_out, query)  # type: ignore[arg-type]
    _fixed(exc, message or "corpus output files could not be read", category)


@pytest.mark.parametrize("fmt", ["xml", "", None, 3, "ARROW"])
def test_unknown_format(sample_out: pathlib.Path, fmt: object) -> None:
    with pytest.raises(CorpusError) as exc:
        run_query(sample_out, QUERY, format=fmt)  # type: ignore[arg-type]
    _fixed(exc, "sql output format is unsupported", "policy")


def test_format_checked_before_the_directory(tmp_path: pathlib.Path) -> None:
    with pytest.raises(CorpusError) as exc:
        run_query(tmp_path / "missing", QUERY, format="yaml")  # type: ignore[call-overload]
    _fixed(exc, "sql output format is unsupported", "policy")


def test_formats_constant() -> None:
    assert FORMATS == ("arrow", "table", "csv", "json", "parquet")
