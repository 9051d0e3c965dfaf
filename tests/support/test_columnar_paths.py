"""The columnar fast path equals the exact row path: same report bytes, or the same error.

The engine evaluates plain-dict records and tables with whole-column expressions and keeps the
per-record rules only for inputs outside that domain. These tests generate records across the
alias, span, label and identifier rules (valid and defective) and compare the report JSON (or
the error) with the row path forced on.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citelens
from citelens.io import table_rows
from citelens.support import _api as support_module

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


def row_path_outcome(monkeypatch: pytest.MonkeyPatch, *args: Any) -> str:
    """The outcome of the per-record rules (the reference): tables are read as their rows and
    no collection reaches the columnar engine."""
    classify = support_module._classify

    def as_rows(value: Any, name: str, limit: int) -> tuple[str, Any]:
        kind, payload = classify(value, name, limit)
        if kind == "table":
            return "rows", table_rows(payload)
        return kind, payload

    with monkeypatch.context() as patch:
        patch.setattr(support_module, "_classify", as_rows)
        patch.setattr(support_module, "_engine_input", lambda *a: None)
        return outcome(*args)


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


def test_common_shapes_take_the_columnar_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # Guard against a silent fallback: standard flat records and nested struct spans must be
    # evaluated by the columnar functions, not the row path.
    calls: list[str] = []
    monkeypatch.setattr(
        support_module, "claim_rows", lambda *a, **k: calls.append("claims") or pytest.fail()
    )
    monkeypatch.setattr(
        support_module, "evidence_rows", lambda *a, **k: calls.append("evidence") or pytest.fail()
    )
    monkeypatch.setattr(
        support_module,
        "adjudication_rows",
        lambda *a, **k: calls.append("adjudications") or pytest.fail(),
    )
    claims = [
        {"claim_id": f"c{i}", "claim_span": {"start": i, "end": i + 2}, "citations": ["e1"]}
        for i in range(5)
    ]
    evidence = [{"evidence_id": "e1", "span": [0, 4], "source_length": 9}]
    adjudications = [{"claim_id": "c1", "evidence_id": "e1", "label": "Supported"}]
    report = citelens.compute_citation_support_metrics(claims, evidence, None, adjudications)
    assert report.citation_precision == 1.0
    assert calls == []
