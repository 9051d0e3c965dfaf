"""The run history in Parquet (gold-harness.md §9.7): one row per scorer metric, read back for
trend charts and exposed to ``citelens sql`` as the ``gold_history`` view."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from citelens.gold._metrics import round_metric
from citelens.gold._registry import metric_spec, scorer_metrics
from citelens.gold.scorers import ScorerResult

__all__ = ["HISTORY_SCHEMA", "history_table", "history_view_sql", "read_history", "trend_points"]

HISTORY_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("timestamp", pa.timestamp("us", tz="UTC")),
        ("citelens_version", pa.string()),
        ("evaluated_sha", pa.string()),
        ("evaluated_dirty", pa.bool_()),
        ("adapter", pa.string()),
        ("run_model", pa.string()),
        ("online", pa.bool_()),
        ("repeats", pa.int32()),
        ("case_count", pa.int32()),
        ("dataset_digest", pa.string()),
        ("scorer", pa.string()),
        ("scorer_status", pa.string()),
        ("metric", pa.string()),
        ("value", pa.float64()),
        ("kind", pa.string()),
        ("direction", pa.string()),
        ("is_baseline", pa.bool_()),
    ]
)
"""Arrow schema of ``<results>/history/<run_id>.parquet`` (§9.7)."""


def history_table(
    card: Mapping[str, Any], results: Sequence[ScorerResult], ts: datetime, is_baseline: bool
) -> pa.Table:
    """The history rows of one run: one per measured metric, one per scorer that did not run."""
    rows: dict[str, list[Any]] = {name: [] for name in HISTORY_SCHEMA.names}

    def add(result: ScorerResult, metric: str | None, value: float | None) -> None:
        spec = metric_spec(result.id, metric) if metric is not None else None
        rows["run_id"].append(card["run_id"])
        rows["timestamp"].append(ts)
        rows["citelens_version"].append(card["citelens_version"])
        rows["evaluated_sha"].append(card["evaluated"]["sha"])
        rows["evaluated_dirty"].append(card["evaluated"]["dirty"])
        rows["adapter"].append(card["adapter"]["name"])
        rows["run_model"].append(card["run_model"])
        rows["online"].append(card["online"])
        rows["repeats"].append(card["repeats"])
        rows["case_count"].append(card["case_count"])
        rows["dataset_digest"].append(card["dataset_digest"])
        rows["scorer"].append(result.id)
        rows["scorer_status"].append(result.status)
        rows["metric"].append(metric)
        rows["value"].append(value)
        rows["kind"].append(spec.kind if spec else None)
        rows["direction"].append(spec.direction if spec else None)
        rows["is_baseline"].append(is_baseline)

    for result in results:
        if not result.ran:
            add(result, None, None)
            continue
        for name, value in result.metrics.items():
            add(result, name, None if value is None else float(value))
    return pa.table(rows, schema=HISTORY_SCHEMA)


def read_history(results_dir: str | os.PathLike[str], adapter: str | None = None) -> pa.Table:
    """Every history row under ``<results>/history`` (optionally one adapter's), run order."""
    folder = Path(results_dir) / "history"
    tables = []
    if os.path.isdir(folder):  # False for any OSError, unlike Path.is_dir
        for path in sorted(folder.glob("*.parquet")):
            try:
                tables.append(pq.read_table(path).cast(HISTORY_SCHEMA))
            except (OSError, ValueError, pa.ArrowException):
                continue
    if not tables:
        return HISTORY_SCHEMA.empty_table()
    table = pa.concat_tables(tables)
    if adapter is not None:
        table = table.filter(pc.equal(table["adapter"], adapter))
    return table.sort_by([("timestamp", "ascending"), ("run_id", "ascending")])


def history_view_sql(results_dir: str | os.PathLike[str]) -> str | None:
    """``CREATE VIEW gold_history`` statement for ``citelens sql`` (§9.7); ``None`` if no file."""
    folder = Path(results_dir) / "history"
    if not os.path.isdir(folder) or not any(folder.glob("*.parquet")):
        return None
    pattern = str(folder / "*.parquet").replace("'", "''")
    return (
        "CREATE OR REPLACE VIEW gold_history AS SELECT * FROM "
        f"read_parquet('{pattern}', union_by_name=true)"
    )


def trend_points(results_dir: Path, card: Mapping[str, Any]) -> dict[str, list[tuple[str, float]]]:
    """The last 50 runs' values of each gated metric of ``card`` (for the HTML trend charts)."""
    table = read_history(results_dir, card["adapter"]["name"])
    rows = table.select(["run_id", "scorer", "metric", "value"]).to_pylist()
    run_order: list[str] = []
    for row in rows:
        if row["run_id"] not in run_order:
            run_order.append(row["run_id"])
    if card["run_id"] not in run_order:
        run_order.append(card["run_id"])
    keep = set(run_order[-50:])
    out: dict[str, list[tuple[str, float]]] = {}
    for entry in card["results"]:
        if entry["status"] == "skipped":
            continue
        for spec in scorer_metrics(entry["id"]):
            gated = spec.gate == "yes"
            if not gated or spec.name not in (entry.get("metrics") or {}):
                continue
            points = [
                (r["run_id"], round_metric(r["value"]))
                for r in rows
                if r["run_id"] in keep
                and r["scorer"] == spec.scorer
                and r["metric"] == spec.name
                and r["value"] is not None
            ]
            out[spec.qualified] = points
    return out
