"""Helpers shared by the citelens.support tests."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable, Mapping
from typing import Any

import pyarrow as pa

COLLECTIONS = ("claims", "evidence", "citations", "adjudications")

S1 = "sha256:" + "1" * 64
S2 = "sha256:" + "2" * 64

# Canary values planted in inputs: they must never appear in any output.
CANARY_ID = "CANARYID7f3a"
CANARY_TEXT = "CANARYTEXT9b1e secret clinical sentence"


def compute(*args: Any, **kwargs: Any) -> Any:
    """``citelens.support.compute_citation_support_metrics`` (imported lazily)."""
    import citelens.support

    return citelens.support.compute_citation_support_metrics(*args, **kwargs)


def call_input(inp: Mapping[str, Any], tmp_path: pathlib.Path | None = None) -> Any:
    """Call the entry point the way §12 describes for a vector ``input``."""
    import citelens
    from conftest import expand_markers

    def expand(value: Any) -> Any:
        if tmp_path is None:
            return value
        return expand_markers(value, tmp_path)

    limits = citelens.Limits(**inp["limits"]) if "limits" in inp else None
    return compute(
        expand(inp.get("claims")),
        expand(inp.get("evidence")),
        expand(inp.get("citations")),
        expand(inp.get("adjudications")),
        source_lengths=expand(inp.get("source_lengths")),
        limits=limits,
    )


def without_provenance(report: Any) -> dict[str, Any]:
    data = dict(report.to_dict())
    data.pop("provenance")
    return data


def canonical(value: Any) -> str:
    """Type-strict comparison form (JSON keeps 1, 1.0 and true apart)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, allow_nan=False)


def key_orders(value: Any) -> Any:
    """The key order of every nested mapping (to_dict insertion order is part of the contract)."""
    if isinstance(value, Mapping):
        return [(key, key_orders(item)) for key, item in value.items()]
    return None


def assert_report_matches(report: Any, case: Mapping[str, Any]) -> None:
    """Compare a report with a vector's expected / expected_provenance / expected_markdown."""
    actual = without_provenance(report)
    assert canonical(actual) == canonical(case["expected"])
    assert key_orders(actual) == key_orders(case["expected"])
    assert dict(report.to_dict()["provenance"]) == case["expected_provenance"]
    assert report.to_markdown() == case["expected_markdown"]


def drop_none(value: Any) -> Any:
    """Recursively drop ``None`` values from mappings (what a columnar row means)."""
    if isinstance(value, Mapping):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [drop_none(v) for v in value]
    return value


def strict_equal(a: Any, b: Any) -> bool:
    """Deep equality that also compares types (1 != 1.0 != True) and ignores key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def table_rows(table: pa.Table) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = drop_none(table.to_pylist())
    return rows


def faithful_table(records: Any) -> pa.Table | None:
    """``Table.from_struct_array(pa.array(records))`` when it means exactly ``records``.

    ``None`` when Arrow cannot type the records with one type per column, or when the typed
    rows differ from the records (an int widened to a float, a ``None`` that matters, ...).
    """
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        return None
    try:
        if records:
            table = pa.Table.from_struct_array(pa.array(records))
        else:
            table = pa.table({})
    except Exception:
        return None
    if not strict_equal(table_rows(table), drop_none(records)):
        return None
    return table


def columnar_inputs(
    inp: Mapping[str, Any], convert: Callable[[str, pa.Table], Any]
) -> dict[str, Any] | None:
    """A copy of a vector input with every collection that Arrow can type converted.

    Collections that are not lists of mappings, or that Arrow cannot type with one type per
    column, stay as they are (each collection means the same whatever the others are).
    ``None`` when no collection could be converted.
    """
    out = dict(inp)
    converted = 0
    for name in COLLECTIONS:
        value = inp.get(name)
        if value is None:
            continue
        table = faithful_table(value)
        if table is None:
            continue
        out[name] = convert(name, table)
        converted += 1
    return out if converted else None


def plain_row_dicts(table: pa.Table) -> list[dict[str, Any]]:
    return table_rows(table)
