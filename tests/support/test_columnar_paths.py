"""The columnar engine equals the record-by-record oracle: same report bytes, or the same error.

The engine evaluates every input form (Python records through the thin adapter, tables as they
are) with whole-column expressions. These tests generate records across the alias, span, label
and identifier rules (valid and defective) and compare the report JSON (or the error) with the
oracle ``tests/oracle/support_rows.py`` (the former per-record path, which left ``src/``).
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citelens
from oracle.support_rows import oracle_outcome

IDS = st.sampled_from(["a", "b", " a ", "c\u00a0", "1", "\u00e9t\u00e9", "", "x\ty", "e1", "e2"])
OFFSETS = st.one_of(st.none(), st.integers(-2, 12))
LABELS = st.sampled_from(
    [
        "supports",
        "Supported",
        " REFUTED ",
        "does-not-support",
        "pending",
        "n/a",
        "true",
        "Stra\u00dfe",
    ]
)


@st.composite
def spans(draw: Any) -> dict[str, Any]:
    """Top-level and nested span forms, sometimes conflicting."""
    out: dict[str, Any] = {}
    form = draw(st.sampled_from(["top", "nested_struct", "nested_list", "both", "alias", "none"]))
    start, end = draw(OFFSETS), draw(OFFSETS)
    if form in ("top", "both"):
        out["start"], out["end"] = start, end
    if form == "alias":
        out["source_start"], out["span_end"] = start, end
    if form in ("nested_struct", "both"):
        key = draw(st.sampled_from(["span", "claim_span", "evidence_span"]))
        nested_start = start if draw(st.booleans()) else draw(OFFSETS)
        out[key] = {"start": nested_start, "end": end}
    if form == "nested_list":
        out["span"] = [start, end]
    return out


@st.composite
def claim_records(draw: Any) -> list[dict[str, Any]]:
    records = []
    for index in range(draw(st.integers(0, 5))):
        record: dict[str, Any] = {"claim_id": f"c{index}" if draw(st.booleans()) else draw(IDS)}
        if draw(st.integers(0, 5)) == 0:
            record["id"] = draw(IDS)
        record.update(draw(spans()))
        record["citations"] = draw(st.lists(IDS, max_size=3))
        if draw(st.booleans()):
            record["claim_type"] = draw(st.sampled_from(["Medication Dose!", "lab", "_x", "Dose"]))
        if draw(st.booleans()):
            record["source_id"] = draw(st.sampled_from(["s1", "s2", ""]))
        records.append(record)
    return records


@st.composite
def evidence_records(draw: Any) -> list[dict[str, Any]]:
    records = []
    for index in range(draw(st.integers(0, 5))):
        record: dict[str, Any] = {"evidence_id": f"e{index}" if draw(st.booleans()) else draw(IDS)}
        record.update(draw(spans()))
        if draw(st.booleans()):
            record["source_length"] = draw(st.integers(-1, 15))
        if draw(st.booleans()):
            record["source_id"] = draw(st.sampled_from(["s1", "s2"]))
        records.append(record)
    return records


@st.composite
def citation_records(draw: Any) -> list[dict[str, Any]]:
    records = []
    for _ in range(draw(st.integers(0, 4))):
        record: dict[str, Any] = {"claim_id": draw(IDS), "evidence_id": draw(IDS)}
        record.update(draw(spans()))
        if draw(st.booleans()):
            record["source_id"] = draw(st.sampled_from(["s1", "s2"]))
        records.append(record)
    return records


@st.composite
def adjudication_records(draw: Any) -> list[dict[str, Any]]:
    records = []
    for _ in range(draw(st.integers(0, 4))):
        record: dict[str, Any] = {"claim_id": draw(IDS), "evidence_id": draw(IDS)}
        choice = draw(st.integers(0, 3))
        if choice == 0:
            record["label"] = draw(LABELS)
        elif choice == 1:
            record["judgment"] = draw(LABELS)
            record["verdict"] = draw(LABELS)
        elif choice == 2:
            record["supports"] = draw(st.booleans())
        else:
            record["label"] = draw(LABELS)
            record["contradicts"] = draw(st.booleans())
        records.append(record)
    return records


def outcome(*args: Any) -> str:
    try:
        return citelens.compute_citation_support_metrics(*args).to_json()
    except citelens.CitationSupportError as exc:
        return f"error {exc.category}: {exc}"


def _oracle(*args: Any) -> str:
    result = oracle_outcome(*args)
    if result[0] == "ok":
        return result[1]
    return f"error {result[2]}: {result[1]}"


def reference_outcome(monkeypatch: pytest.MonkeyPatch, *args: Any) -> str:
    """The reference outcome for file inputs: each file is read as its rows (CSV cells typed
    as the contract types them) and the per-record rules of the oracle decide."""
    return _oracle(*args)


def row_path_outcome(monkeypatch: pytest.MonkeyPatch, *args: Any) -> str:
    """The outcome of the per-record rules (the oracle): tables are read as their rows."""
    return _oracle(*args)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    claims=claim_records(),
    evidence=evidence_records(),
    citations=citation_records(),
    adjudications=adjudication_records(),
)
def test_records_fast_path_equals_row_path(
    monkeypatch: pytest.MonkeyPatch,
    claims: list[dict[str, Any]],
    evidence: list[dict[str, Any]],
    citations: list[dict[str, Any]],
    adjudications: list[dict[str, Any]],
) -> None:
    fast = outcome(claims, evidence, citations, adjudications)
    exact = row_path_outcome(monkeypatch, claims, evidence, citations, adjudications)
    assert fast == exact


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(claims=claim_records(), evidence=evidence_records(), adjudications=adjudication_records())
def test_tables_fast_path_equals_row_path(
    monkeypatch: pytest.MonkeyPatch,
    claims: list[dict[str, Any]],
    evidence: list[dict[str, Any]],
    adjudications: list[dict[str, Any]],
) -> None:
    def as_table(rows: list[dict[str, Any]]) -> Any:
        if not rows:
            return rows
        try:
            return pa.Table.from_struct_array(pa.array(rows))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return rows

    args = (as_table(claims), as_table(evidence), None, as_table(adjudications))
    assert outcome(*args) == row_path_outcome(monkeypatch, *args)


FORMS = ("polars", "parquet", "jsonl", "csv")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    form=st.sampled_from(FORMS),
    claims=claim_records(),
    evidence=evidence_records(),
    adjudications=adjudication_records(),
)
def test_file_and_frame_forms_equal_row_path(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    form: str,
    claims: list[dict[str, Any]],
    evidence: list[dict[str, Any]],
    adjudications: list[dict[str, Any]],
) -> None:
    # The same defective records as a Polars frame, a Parquet, JSONL or CSV file: the engine's
    # outcome (report or first error) equals the reference record rules on the same rows.
    folder = tmp_path_factory.mktemp("forms")

    def as_form(name: str, rows: list[dict[str, Any]]) -> Any:
        if not rows:
            return rows
        if form == "jsonl":
            path = folder / f"{name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            return path
        try:
            table = pa.Table.from_struct_array(pa.array(rows))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return rows
        if form == "polars":
            return pl.from_arrow(table)
        if form == "parquet":
            path = folder / f"{name}.parquet"
            pq.write_table(table, path)
            return path
        flat = [f for f in table.schema if not pa.types.is_nested(f.type)]
        if len(flat) != len(table.schema):
            return rows  # CSV cannot carry lists or nested records
        path = folder / f"{name}.csv"
        csv_rows = [
            {
                k: ("" if v is None else str(v).lower() if isinstance(v, bool) else str(v))
                for k, v in row.items()
            }
            for row in table.to_pylist()
        ]
        header = table.schema.names
        lines = [",".join(header)] + [
            ",".join('"' + r[h].replace('"', '""') + '"' if r[h] != "" else "" for h in header)
            for r in csv_rows
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    args = (
        as_form("claims", claims),
        as_form("evidence", evidence),
        None,
        as_form("adjudications", adjudications),
    )
    assert outcome(*args) == reference_outcome(monkeypatch, *args)


def test_the_record_path_is_gone() -> None:
    # The per-record path left src/ (issue 9): it is only the oracle under tests/.
    import importlib.util

    assert importlib.util.find_spec("citelens.support._rows") is None
    import citelens.support._api as api

    for name in ("claim_rows", "evidence_rows", "citation_rows", "adjudication_rows"):
        assert not hasattr(api, name)


def test_oracle_cannot_change_results(monkeypatch: pytest.MonkeyPatch) -> None:
    # Breaking every function of the oracle module changes nothing the entry point returns:
    # typed records, compact mappings and mixed-type records all go through the engine.
    import oracle.support_rows as rows

    claims = {"c1": [0, 4], "c2": ["e1", 7]}
    evidence = [citelens.EvidenceSpan("e1", 0, 4), {"evidence_id": 7, "start": 1.0 + 1}]
    before = outcome(claims, evidence)
    for name in dir(rows):
        if name.endswith("_rows") or name in ("revalidate", "oracle_outcome"):
            monkeypatch.setattr(rows, name, lambda *a, **k: pytest.fail("oracle called"))
    assert outcome(claims, evidence) == before
    assert before == "error span: span offsets must be integers"
