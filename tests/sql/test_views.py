"""``sql/views.sql`` through ``citelens.sql.open_views``: every block, both variants of the
optional views, safe path binding, fixed errors."""

from __future__ import annotations

import pathlib
import shutil

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import citelens
from citelens import sql as citelens_sql
from citelens.errors import CorpusError
from citelens.sql import _api as sql_api

from ._outputs import EDGE_SCHEMA, documents_schema
from .conftest import VIEWS_FILE

REASONS = citelens.REASON_CODES
PREFIX = "deterministic_span_checks.invalid_citation_reasons."


def _one(con: duckdb.DuckDBPyConnection, query: str) -> tuple[object, ...]:
    rows = con.execute(query).fetchall()
    assert len(rows) == 1
    return tuple(rows[0])


def _columns(con: duckdb.DuckDBPyConnection, view: str) -> list[tuple[str, str]]:
    rows = con.sql(f"DESCRIBE {view}").fetchall()
    return [(row[0], row[1]) for row in rows]


def _assert_fixed(exc: pytest.ExceptionInfo[CorpusError], message: str, category: str) -> None:
    error = exc.value
    assert type(error) is CorpusError
    assert error.args == (message,)
    assert error.category == category
    assert error.__cause__ is None and error.__context__ is None


def test_views_are_package_data() -> None:
    # views.sql ships inside the package (an installed wheel has no repository folders), is
    # declared as package data, and is the text open_views() reads.
    assert VIEWS_FILE.parent == pathlib.Path(citelens_sql.__file__).parent
    assert sql_api.views_sql() == VIEWS_FILE.read_text(encoding="utf-8")
    pyproject = (VIEWS_FILE.parents[3] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"sql/views.sql"' in pyproject


def test_every_block_is_known() -> None:
    blocks = sql_api._blocks(sql_api.views_sql())
    names = [(b.name, b.condition, b.source) for b in blocks]
    assert names == [
        ("documents", None, None),
        ("reasons", None, None),
        ("edges", "unless", "edges"),
        ("edges", "if", "edges"),
        ("scorecards", "unless", "scorecards"),
        ("scorecards", "if", "scorecards"),
        ("gold_history", None, None),
        ("provenance", "unless", "provenance"),
        ("provenance", "if", "provenance"),
    ]
    assert {b.name for b in blocks} == set(citelens_sql.VIEW_NAMES)
    # The SQL text holds no path: only the variables.
    assert "/" not in "".join(b.sql.split("--")[0] for b in blocks if "read_parquet" in b.sql)


def test_views_with_every_source(sample_out: pathlib.Path, results_dir: pathlib.Path) -> None:
    documents = pq.read_table(sample_out / "documents.parquet")
    edges = pq.read_table(sample_out / "edges.parquet")
    con = citelens_sql.open_views(sample_out, results_dir=results_dir)
    try:
        assert _one(con, "SELECT count(*) FROM documents") == (documents.num_rows,)
        assert [c for c, _ in _columns(con, "documents")] == documents_schema().names
        assert len(_columns(con, "documents")) == 4 + 59
        assert _one(con, "SELECT count(*) FROM edges") == (edges.num_rows,)
        assert [c for c, _ in _columns(con, "edges")] == EDGE_SCHEMA.names
        assert _one(con, "SELECT count(*) FROM scorecards") == (5,)
        assert _one(con, "SELECT count(*) FROM gold_history") == (5,)
        ok = _one(con, "SELECT count(*) FROM documents WHERE status = 'ok'")
        assert ok is not None
        # reasons: one row per evaluated document and reason code.
        assert _one(con, "SELECT count(*) FROM reasons") == (ok[0] * len(REASONS),)
        assert [r for (r,) in con.sql("SELECT DISTINCT reason FROM reasons ORDER BY 1").fetchall()]
        assert _columns(con, "reasons") == [
            ("document_ref", "VARCHAR"),
            ("reason", "VARCHAR"),
            ("count", "BIGINT"),
        ]
    finally:
        con.close()


def test_reasons_view_matches_documents_and_edges(sample_out: pathlib.Path) -> None:
    documents = pq.read_table(sample_out / "documents.parquet").to_pylist()
    edges = pq.read_table(sample_out / "edges.parquet").to_pylist()
    con = citelens_sql.open_views(sample_out, results_dir=sample_out / "none")
    try:
        rows = con.sql("SELECT document_ref, reason, count FROM reasons").fetchall()
    finally:
        con.close()
    got = {(ref, reason): count for ref, reason, count in rows}
    expected = {
        (doc["document_ref"], code): doc[PREFIX + code]
        for doc in documents
        if doc["status"] == "ok"
        for code in REASONS
    }
    assert got == expected
    # The same totals from the edge-level rows: reason counts of de-duplicated edges.
    per_reason = {code: 0 for code in REASONS}
    for edge in edges:
        if edge["reason"] is not None:
            per_reason[edge["reason"]] += 1
    totals = {code: sum(c for (_, r), c in got.items() if r == code) for code in REASONS}
    assert totals == per_reason
    assert all(per_reason[code] > 0 for code in REASONS)  # the sample plants every reason


def test_optional_views_are_empty_with_the_same_columns(
    sample_out: pathlib.Path,
    out_without_edges: pathlib.Path,
    results_dir: pathlib.Path,
    no_results: pathlib.Path,
) -> None:
    full = citelens_sql.open_views(sample_out, results_dir=results_dir)
    bare = citelens_sql.open_views(out_without_edges)  # CITELENS_RESULTS = empty folder
    try:
        for view in ("edges", "scorecards", "gold_history"):
            assert _columns(full, view) == _columns(bare, view)
            assert _one(bare, f"SELECT count(*) FROM {view}") == (0,)
            assert _one(full, f"SELECT count(*) FROM {view}") != (0,)
        for view in ("documents", "reasons"):
            assert _columns(full, view) == _columns(bare, view)
    finally:
        full.close()
        bare.close()


def test_scorecards_values_and_types(sample_out: pathlib.Path, results_dir: pathlib.Path) -> None:
    con = citelens_sql.open_views(sample_out, results_dir=results_dir)
    try:
        rows = con.sql(
            "SELECT run_id, scorer, metric, value, is_baseline, "
            "strftime(timestamp, '%Y-%m-%dT%H:%M') FROM scorecards "
            "ORDER BY timestamp, scorer"
        ).fetchall()
        types = dict(_columns(con, "scorecards"))
    finally:
        con.close()
    assert rows == [
        ("run-a", "latency", "p50_ms", 12.5, True, "2026-11-30T09:00"),
        ("run-a", "online-judge", None, None, True, "2026-11-30T09:00"),
        ("run-a", "verdict-accuracy", "verdict_exact", 0.75, True, "2026-11-30T09:00"),
        ("run-b", "latency", "p50_ms", 30.0, False, "2026-11-30T09:05"),
        ("run-b", "verdict-accuracy", "verdict_exact", 0.8125, False, "2026-11-30T09:05"),
    ]
    assert types["timestamp"] == "TIMESTAMP WITH TIME ZONE"
    assert types["repeats"] == "INTEGER" and types["value"] == "DOUBLE"


def test_results_dir_from_environment(
    sample_out: pathlib.Path, results_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITELENS_RESULTS", str(results_dir))
    con = citelens_sql.open_views(sample_out)
    try:
        assert _one(con, "SELECT count(*) FROM scorecards") == (5,)
    finally:
        con.close()
    monkeypatch.delenv("CITELENS_RESULTS")
    monkeypatch.chdir(results_dir.parent)
    assert citelens_sql.resolve_results_dir() == results_dir.parent / "results"


def test_views_script_runs_in_a_plain_duckdb_session(
    sample_out: pathlib.Path, results_dir: pathlib.Path
) -> None:
    # What the interactive shell hands to the DuckDB CLI: SET VARIABLE literals + the views.
    script = citelens_sql.views_script(sample_out, results_dir=results_dir)
    con = duckdb.connect()
    try:
        con.execute(script)
        assert _one(con, "SELECT count(*) FROM edges") == (
            pq.read_metadata(sample_out / "edges.parquet").num_rows,
        )
        assert _one(con, "SELECT count(*) FROM scorecards") == (5,)
    finally:
        con.close()
    # Without a gold history the script binds an empty file list and an empty view.
    script = citelens_sql.views_script(sample_out, results_dir=sample_out / "none")
    assert "citelens_scorecards = CAST([] AS VARCHAR[])" in script
    con = duckdb.connect()
    try:
        con.execute(script)
        assert _one(con, "SELECT count(*) FROM gold_history") == (0,)
    finally:
        con.close()


def test_views_sql_file_runs_by_hand(
    sample_out: pathlib.Path, results_dir: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    # The documented manual use: set the variables, run the whole file (every block).
    from citelens.provenance import OUTPUT_SCHEMA

    provenance = tmp_path / "provenance.parquet"
    pq.write_table(pa.table({n: pa.array([], pa.string()) for n in OUTPUT_SCHEMA}), provenance)
    con = duckdb.connect()
    try:
        con.execute("SET VARIABLE citelens_provenance = ?", [str(provenance)])
        con.execute("SET VARIABLE citelens_documents = ?", [str(sample_out / "documents.parquet")])
        con.execute("SET VARIABLE citelens_edges = ?", [str(sample_out / "edges.parquet")])
        history = sorted(str(p) for p in (results_dir / "history").glob("*.parquet"))
        con.execute("SET VARIABLE citelens_scorecards = CAST(? AS VARCHAR[])", [history])
        con.execute(VIEWS_FILE.read_text(encoding="utf-8"))
        assert _one(con, "SELECT count(*) FROM gold_history") == (5,)
        assert _one(con, "SELECT count(*) FROM edges") != (0,)
    finally:
        con.close()


@pytest.mark.parametrize("name", ["a*b", "q'uote", "x[1]", "b?c", "year=2026", "sp ace;--"])
def test_paths_are_bound_not_spliced(
    sample_out: pathlib.Path, tmp_path: pathlib.Path, name: str, no_results: pathlib.Path
) -> None:
    # A directory whose name is a glob, a quote or SQL must read exactly its own file; decoys
    # that the unescaped glob would also match hold different data.
    target = tmp_path / name / "out"
    target.mkdir(parents=True)
    for file in ("documents.parquet", "edges.parquet"):
        shutil.copy(sample_out / file, target / file)
    decoy_table = pq.read_table(sample_out / "documents.parquet").slice(0, 1)
    for decoy in ("aXb", "x1", "bxc", "ab"):
        (tmp_path / decoy / "out").mkdir(parents=True)
        pq.write_table(decoy_table, tmp_path / decoy / "out" / "documents.parquet")
    expected = pq.read_metadata(sample_out / "documents.parquet").num_rows
    con = citelens_sql.open_views(target)
    try:
        assert _one(con, "SELECT count(*) FROM documents") == (expected,)
        names = [c for c, _ in _columns(con, "documents")]
        assert "year" not in names  # no hive partition column from the path
    finally:
        con.close()
    script = citelens_sql.views_script(target)
    plain = duckdb.connect()
    try:
        plain.execute(script)
        assert _one(plain, "SELECT count(*) FROM documents") == (expected,)
    finally:
        plain.close()


def test_views_script_refuses_control_characters(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "line\nbreak"
    folder.mkdir()
    pq.write_table(pa.table({"document_ref": ["x"]}), folder / "documents.parquet")
    with pytest.raises(CorpusError) as exc:
        citelens_sql.views_script(folder, results_dir=tmp_path)
    _assert_fixed(exc, "corpus output directory is not accessible", "input")


CANARY = "CANARY-7f3a-secret-path"


@pytest.mark.parametrize(
    "make",
    [
        lambda tmp: tmp / CANARY / "missing",
        lambda tmp: (tmp / f"{CANARY}.txt").write_text("x") and tmp / f"{CANARY}.txt",
        lambda tmp: (tmp / CANARY).mkdir() or tmp / CANARY,  # directory without documents
        lambda tmp: 42,
        lambda tmp: b"/tmp",
        lambda tmp: "",
        lambda tmp: None,
    ],
    ids=["missing", "file", "no-documents", "int", "bytes", "empty", "none"],
)
def test_unusable_directory(tmp_path: pathlib.Path, make: object) -> None:
    value = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(CorpusError) as exc:
        citelens_sql.open_views(value)
    _assert_fixed(exc, "corpus output directory is not accessible", "input")
    assert CANARY not in str(exc.value) and CANARY not in repr(exc.value)


def test_unreadable_documents_file(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / CANARY
    folder.mkdir()
    (folder / "documents.parquet").write_bytes(b"PAR1 not really parquet " + CANARY.encode())
    with pytest.raises(CorpusError) as exc:
        citelens_sql.open_views(folder, results_dir=tmp_path)
    _assert_fixed(exc, "corpus output files could not be read", "io")
    assert CANARY not in str(exc.value)


def test_documents_file_with_other_columns(tmp_path: pathlib.Path) -> None:
    pq.write_table(pa.table({"document_ref": [CANARY]}), tmp_path / "documents.parquet")
    with pytest.raises(CorpusError) as exc:
        citelens_sql.open_views(tmp_path, results_dir=tmp_path)
    _assert_fixed(exc, "corpus output files do not have the expected columns", "input")


def test_results_dir_of_wrong_type(sample_out: pathlib.Path) -> None:
    with pytest.raises(CorpusError) as exc:
        citelens_sql.open_views(sample_out, results_dir=7)  # type: ignore[arg-type]
    _assert_fixed(exc, "gold results directory is not accessible", "input")
