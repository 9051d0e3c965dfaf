"""``citelens.provenance``: one literal case per status, precedence, hand-checked offsets,
identical results for records, Parquet files and the corpus form, canaries, errors, CLI, SQL."""

from __future__ import annotations

import pathlib
from collections.abc import Mapping, Sequence

import polars as pl
import pyarrow.parquet as pq
import pytest

from citelens.cli import main
from citelens.errors import ProvenanceError
from citelens.provenance import check_provenance, run_provenance, write_provenance
from citelens.sql import open_views


def documents_schema() -> object:
    """The corpus ``documents.parquet`` schema the sql tests build (tests/sql/_outputs.py)."""
    import importlib.util

    path = pathlib.Path(__file__).parents[1] / "sql" / "_outputs.py"
    spec = importlib.util.spec_from_file_location("_sql_outputs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.documents_schema()


KEY = b"k" * 32

S0 = "The cat sat on the mat. The cat ran."
S1 = "Dogs bark loudly at night."
S2 = "Caf\u00e9 \u201cna\u00efve\u201d \u2014 \ufb01ne  text here."
S3 = "\U0001f600 smile"
S4 = "dogs bark"
SOURCES = [
    {"document_ref": "d1", "source_id": "s0", "text": S0},
    {"document_ref": "d1", "source_id": "s1", "text": S1},
    {"document_ref": "d1", "source_id": "s2", "text": S2},
    {"document_ref": "d1", "source_id": "s3", "text": S3},
    {"document_ref": "d1", "source_id": "s4", "text": S4},
]


def _ev(eid: str, sid: str, quote: str | None, **offsets: int) -> dict[str, object]:
    return {"document_ref": "d1", "evidence_id": eid, "source_id": sid, "quote": quote, **offsets}


EVIDENCE = [
    _ev("e0", "s0", "cat", start=4, end=7),  # exact; "cat" also at 28: exact wins
    _ev("e1", "s0", "ran", start=0, end=3),  # relocated
    _ev("e2", "s0", "bark loudly", start=0, end=3),  # misattributed (in s1)
    _ev("e3", "s2", '"NA\u00cfVE" - fine text'),  # normalized
    _ev("e4", "s1", "Dogs bark loudly at nite."),  # fuzzy
    _ev("e5", "s1", "nothing like it at all"),  # absent
    _ev("e6", "s9", "x"),  # not_checkable: no such source
    _ev("e7", "s2", "\u201cna\u00efve\u201d", original_start=6, original_end=18),  # UTF-8
    _ev("e8", "s0", "cat", start=30, end=33),  # relocated, nearest occurrence
    _ev("e9", "s0", None, start=0, end=3),  # not_checkable: no quote
    _ev("e10", "s3", "smile", start=3, end=8),  # offset_unit, UTF-16
    _ev("e11", "s4", "Dogs bark"),  # misattributed (in s1) beats normalized (in s4)
]
CITATIONS = [
    {"document_ref": "d1", "claim_id": f"c{i % 3}", "evidence_id": e["evidence_id"]}
    for i, e in enumerate(EVIDENCE)
]

# (status, cited_start, cited_end, found_start, found_end, found_source_id, matched_unit)
EXPECTED = [
    ("exact", 4, 7, 4, 7, None, "code_point"),
    # "The cat sat on the mat. " is 24 code points; "The cat " 8 more: "ran" at 32
    ("relocated", 0, 3, 32, 35, None, None),
    # in s1 "Dogs " is 5 code points: [5, 16)
    ("misattributed", 0, 3, 5, 16, "s1", None),
    # normalised s2 is 'café "naïve" - fine text here.': the quote starts at 5; its 19
    # normalised code points end under "text" at original 24 (ﬁ is one code point, the
    # two spaces before "text" one normalised space): C0 a1 f2 é3 _4 “5 … ﬁ15 … t20 e21 x22 t23
    ("normalized", None, None, 5, 24, None, None),
    ("fuzzy", None, None, 0, 22, None, None),
    ("absent", None, None, None, None, None, None),
    ("not_checkable", None, None, None, None, None, None),
    # bytes: "Café " is 6 (é 2), “ 3, n a 2, ï 2, v e 2, ” 3: [6, 18) = code points [5, 12)
    ("offset_unit", None, None, 5, 12, None, "utf8_byte"),
    # "cat" at 4 and 28: |28 - 30| = 2 < |4 - 30| = 26
    ("relocated", 30, 33, 28, 31, None, None),
    ("not_checkable", 0, 3, None, None, None, None),
    # 😀 is 2 UTF-16 units: units [3, 8) are code points [2, 7) = "smile"
    ("offset_unit", 3, 8, 2, 7, None, "utf16_code_unit"),
    ("misattributed", None, None, 0, 9, "s1", None),
]
COLUMNS = [
    "status",
    "cited_start",
    "cited_end",
    "found_start",
    "found_end",
    "found_source_id",
    "matched_unit",
]


def test_every_status_with_hand_checked_offsets() -> None:
    result = check_provenance(None, EVIDENCE, CITATIONS, SOURCES, raw_identifiers=True)
    frame = result.to_polars()
    assert frame.get_column("evidence_id").to_list() == [e["evidence_id"] for e in EVIDENCE]
    assert frame.select(COLUMNS).rows() == EXPECTED
    scores = frame.get_column("score").to_list()
    # fuzzy: best alignment "Dogs bark loudly at ni" (22) vs the 25-point quote, 22 in
    # common: Indel similarity 2 * 22 / (25 + 22) = 44/47
    assert scores[4] == pytest.approx(44 / 47)
    assert scores[5] is not None and scores[5] < 0.9  # absent: the best score, below 0.9
    assert [scores[i] for i in (0, 1, 2, 3, 7, 8, 10, 11)] == [1.0] * 8
    assert scores[6] is None and scores[9] is None
    totals = result.summary["totals"]
    assert totals["edges"] == 12 and totals["checkable"] == 10
    assert totals["counts"] == {
        "exact": 1,
        "offset_unit": 2,
        "relocated": 2,
        "misattributed": 2,
        "normalized": 1,
        "fuzzy": 1,
        "absent": 1,
        "not_checkable": 2,
    }
    assert totals["rates"]["relocated"] == 0.2  # 2 of 10 checkable
    assert totals["rates"]["not_checkable"] == 2 / 12  # of all edges


def test_threshold_decides_fuzzy_or_absent() -> None:
    # 44/47 = 0.936 < 0.95: the same edge is absent under a stricter threshold
    result = check_provenance(
        None, EVIDENCE[4:5], CITATIONS[4:5], SOURCES, fuzzy_threshold=0.95, raw_identifiers=True
    )
    assert result.to_polars().get_column("status").to_list() == ["absent"]


def test_records_parquet_and_corpus_forms_agree(tmp_path: pathlib.Path) -> None:
    records = check_provenance(None, EVIDENCE, CITATIONS, SOURCES, pseudonym_key=KEY)
    for role, rows in (("evidence", EVIDENCE), ("citations", CITATIONS), ("sources", SOURCES)):
        pl.DataFrame(rows, infer_schema_length=None).write_parquet(tmp_path / f"{role}.parquet")
    files = check_provenance(
        None,
        tmp_path / "evidence.parquet",
        tmp_path / "citations.parquet",
        tmp_path / "sources.parquet",
        pseudonym_key=KEY,
    )
    corpus = run_provenance(tmp_path, pseudonym_key=KEY, batch_documents=1)
    assert records.to_polars().equals(files.to_polars())
    assert records.to_polars().equals(corpus.to_polars())
    assert records.summary_json() == corpus.summary_json()
    assert records.to_polars().get_column("document_ref").str.starts_with("hmac-sha256:").all()


def test_canaries_never_in_outputs(tmp_path: pathlib.Path) -> None:
    canary = "CANARYZ"
    sources = [{"document_ref": f"{canary}d", "source_id": f"{canary}s", "text": f"{canary} text"}]
    evidence = [
        {
            "document_ref": f"{canary}d",
            "evidence_id": f"{canary}e",
            "source_id": f"{canary}s",
            "quote": f"{canary} tex",
        }
    ]
    citations = [
        {"document_ref": f"{canary}d", "claim_id": f"{canary}c", "evidence_id": f"{canary}e"}
    ]
    result = check_provenance(None, evidence, citations, sources, pseudonym_key=KEY)
    assert result.to_polars().get_column("status").to_list() == ["relocated"]
    paths = write_provenance(result, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["provenance.parquet", "summary.json", "summary.md"]
    shown = [repr(result), result.summary_json(), result.summary_markdown()]
    shown.append(str(pq.read_table(tmp_path / "out" / "provenance.parquet").to_pylist()))
    shown += [(tmp_path / "out" / n).read_text() for n in ("summary.json", "summary.md")]
    assert all(canary not in text and canary.lower() not in text for text in shown)


def _error(exc: pytest.ExceptionInfo[ProvenanceError], message: str, category: str) -> None:
    assert type(exc.value) is ProvenanceError
    assert exc.value.args == (message,) and exc.value.category == category
    assert exc.value.__cause__ is None and exc.value.__context__ is None


@pytest.mark.parametrize("value", [1.5, -0.1, float("nan"), True, "0.9"])
def test_invalid_threshold(value: object) -> None:
    with pytest.raises(ProvenanceError) as exc:
        check_provenance(None, EVIDENCE, CITATIONS, SOURCES, fuzzy_threshold=value)  # type: ignore[arg-type]
    _error(exc, "fuzzy threshold must be a number from 0 to 1", "policy")


def test_missing_columns_and_directory(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ProvenanceError) as exc:
        check_provenance(None, EVIDENCE, CITATIONS, [{"source_id": "s0"}])
    _error(exc, "provenance input does not have the expected columns", "input")
    with pytest.raises(ProvenanceError) as exc:
        run_provenance(tmp_path / "missing")
    _error(exc, "provenance input is not accessible", "input")


def test_empty_corpus() -> None:
    empty: dict[str, Sequence[Mapping[str, object]]] = {
        "evidence": EVIDENCE[:0],
        "citations": CITATIONS[:0],
        "sources": SOURCES[:0],
    }
    tables = {r: pl.DataFrame(v, schema={"document_ref": pl.String}) for r, v in empty.items()}
    tables["citations"] = tables["citations"].with_columns(
        claim_id=pl.lit(None, pl.String), evidence_id=pl.lit(None, pl.String)
    )
    tables["evidence"] = tables["evidence"].with_columns(evidence_id=pl.lit(None, pl.String))
    tables["sources"] = tables["sources"].with_columns(
        source_id=pl.lit(None, pl.String), text=pl.lit(None, pl.String)
    )
    result = run_provenance(tables, pseudonym_key=KEY)
    assert result.to_polars().height == 0
    assert result.summary["totals"]["edges"] == 0 and result.summary["document_count"] == 0


def test_cli_and_sql_view(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for role, rows in (("evidence", EVIDENCE), ("citations", CITATIONS), ("sources", SOURCES)):
        pl.DataFrame(rows, infer_schema_length=None).write_parquet(corpus / f"{role}.parquet")
    key = tmp_path / "key"
    key.write_bytes(KEY)
    out = tmp_path / "out"
    args = ["provenance", str(corpus), "--out", str(out), "--pseudonym-key-file", str(key)]
    assert main([*args, "--no-progress"]) == 0
    assert main([*args, "--no-progress", "--ci"]) == 1  # not every edge is exact
    err = capsys.readouterr().err
    assert "citelens: provenance gate failed: offset_unit, relocated, misattributed" in err
    # the view: provenance.parquet beside a corpus output's documents.parquet
    pq.write_table(documents_schema().empty_table(), out / "documents.parquet")  # type: ignore[attr-defined]
    con = open_views(out, results_dir=tmp_path / "no-results")
    try:
        counts = con.execute(
            "SELECT status, count(*) FROM provenance GROUP BY status ORDER BY status"
        ).fetchall()
    finally:
        con.close()
    assert dict(counts)["relocated"] == 2 and sum(n for _, n in counts) == 12
