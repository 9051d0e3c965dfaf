"""``citelens gold run``: options, run sequence, scorecards, history, baselines (§9)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from citelens import __version__
from citelens._atomic import WriteFailure, write_parquet_atomic, write_text_atomic
from citelens.errors import GoldError
from citelens.gold._adapters import LoadedAdapter, check_adapter
from citelens.gold._cases import GoldDataset, check_dataset
from citelens.gold._gate import Tolerances, compute_gate, parse_tolerances
from citelens.gold._metrics import round_metric
from citelens.gold._registry import SCORERS, metric_spec, scorer_metrics
from citelens.gold._render import (
    console_comparison,
    console_gate_line,
    console_header,
    console_scorer,
    render_html,
    render_markdown,
)
from citelens.gold._scorers import (
    ScorerResult,
    score_citation_detection,
    score_claim_extraction,
    score_grounding,
    score_verdict_accuracy,
)

__all__ = [
    "FORMATS",
    "HISTORY_SCHEMA",
    "GoldRun",
    "baseline_file_name",
    "evaluated_commit",
    "history_view_sql",
    "read_history",
    "report",
    "run",
]

SCHEMA = "citelens.gold.scorecard/1"
FORMATS = ("console", "json", "markdown", "html")
_REPEATS = re.compile(r"[0-9]+")
_SHA = re.compile(r"[0-9a-fA-F]{7,40}")

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


class _Abort(Exception):
    """Internal: stop the run with exit 2, diagnostics lines and the library error."""

    def __init__(self, lines: list[str], error: GoldError) -> None:
        super().__init__()
        self.lines = lines
        self.error = error


@dataclass
class GoldRun:
    """Outcome of :func:`run`: the exit code, the scorecard and the files written."""

    exit_code: int
    scorecard: dict[str, Any]
    scorecard_path: Path
    history_path: Path
    baseline_path: Path | None = None
    report_path: Path | None = None
    scorers: list[ScorerResult] = field(default_factory=list, repr=False)

    def __repr__(self) -> str:
        return f"GoldRun(exit_code={self.exit_code}, scorecard_path={self.scorecard_path!r})"


def baseline_file_name(adapter_name: str) -> str:
    """``baseline.<safe>.json`` for an adapter name (§9.8)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", adapter_name).lower()
    if not safe.strip("-"):
        safe = "default"
    return f"baseline.{safe}.json"


def evaluated_commit(repo: str | os.PathLike[str] | None, env: Mapping[str, str]) -> dict[str, Any]:
    """``{sha, dirty, source}`` of the evaluated repository (§9.6)."""
    env_sha = env.get("CITELENS_EVAL_SHA")
    if env_sha:
        return {"sha": env_sha, "dirty": None, "source": "env"}
    where = os.fspath(repo) if repo is not None else os.getcwd()
    none = {"sha": None, "dirty": None, "source": "none"}
    git_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        head = subprocess.run(
            ["git", "-C", where, "rev-parse", "--verify", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            env=git_env,
            check=False,
        )
        if head.returncode != 0:
            return none
        sha = head.stdout.strip()
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            return none
        status = subprocess.run(
            ["git", "-C", where, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=30,
            env=git_env,
            check=False,
        )
        dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return none
    return {"sha": sha, "dirty": dirty, "source": "git"}


def _write_text(path: Path, text: str) -> Path:
    failed = False
    try:
        write_text_atomic(path, text)
    except WriteFailure:
        failed = True
    if failed:
        raise _Abort([], GoldError("gold results could not be written", "io"))
    return path


def _card_json(card: Mapping[str, Any]) -> str:
    return json.dumps(card, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _rounded(metrics: Mapping[str, float | int | None]) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = {}
    for name, value in metrics.items():
        if isinstance(value, float):
            out[name] = round_metric(value)
        else:
            out[name] = value
    return out


def _round_detail(value: Any) -> Any:
    if isinstance(value, float):
        return round_metric(value)
    if isinstance(value, list):
        return [_round_detail(v) for v in value]
    if isinstance(value, dict):
        return {k: _round_detail(v) for k, v in value.items()}
    return value


def _entry(result: ScorerResult) -> dict[str, Any]:
    if result.status == "skipped":
        return {
            "id": result.id,
            "mode": result.mode,
            "status": result.status,
            "skip_code": result.skip_code,
            "reason": result.reason,
        }
    return {
        "id": result.id,
        "mode": result.mode,
        "status": result.status,
        "metrics": _rounded(result.metrics),
        "failures": list(result.failures),
        "notes": list(result.notes),
        "detail": _round_detail(result.detail),
    }


def _history_table(
    card: Mapping[str, Any], results: Sequence[ScorerResult], ts: datetime, is_baseline: bool
) -> pa.Table:
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


def _read_json_file(path: Path) -> Any:
    failed = False
    value: Any = None
    try:
        value = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        failed = True
    if failed or not isinstance(value, dict):
        raise _Abort([], GoldError("gold baseline could not be read", "io"))
    return value


def read_history(results_dir: str | os.PathLike[str], adapter: str | None = None) -> pa.Table:
    """Every history row under ``<results>/history`` (optionally one adapter's), run order."""
    import pyarrow.parquet as pq

    folder = Path(results_dir) / "history"
    tables = []
    if folder.is_dir():
        for path in sorted(folder.glob("*.parquet")):
            try:
                tables.append(pq.read_table(path).cast(HISTORY_SCHEMA))
            except (OSError, ValueError, pa.ArrowException):
                continue
    if not tables:
        return HISTORY_SCHEMA.empty_table()
    table = pa.concat_tables(tables)
    if adapter is not None:
        import pyarrow.compute as pc

        table = table.filter(pc.equal(table["adapter"], adapter))
    return table.sort_by([("timestamp", "ascending"), ("run_id", "ascending")])


def history_view_sql(results_dir: str | os.PathLike[str]) -> str | None:
    """``CREATE VIEW gold_history`` statement for ``citelens sql`` (§9.7); ``None`` if no file."""
    folder = Path(results_dir) / "history"
    if not folder.is_dir() or not any(folder.glob("*.parquet")):
        return None
    pattern = str(folder / "*.parquet").replace("'", "''")
    return (
        "CREATE OR REPLACE VIEW gold_history AS SELECT * FROM "
        f"read_parquet('{pattern}', union_by_name=true)"
    )


def _trend_points(results_dir: Path, card: Mapping[str, Any]) -> dict[str, list[tuple[str, float]]]:
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


def _timestamp() -> tuple[datetime, str, str]:
    now = datetime.now(UTC)
    millis = now.microsecond // 1000
    now = now.replace(microsecond=millis * 1000)
    base = now.strftime("%Y-%m-%dT%H-%M-%S") + f"-{millis:03d}Z"
    iso = now.strftime("%Y-%m-%dT%H:%M:%S") + f".{millis:03d}Z"
    return now, base, iso


def _usage(message: str) -> _Abort:
    return _Abort([message], GoldError("gold run options are invalid", "policy"))


def _dataset(datasets: str | None) -> GoldDataset:
    check = check_dataset(datasets)
    if check.no_cases:
        raise _Abort(
            [
                f"No gold cases found in {os.path.join(check.root, 'cases')} (add a case file; "
                'files starting with "_" are ignored).'
            ],
            GoldError("gold dataset has no cases", "input"),
        )
    if check.dataset is None:
        lines = [f"Invalid dataset ({check.root}):"] + [f"  - {p}" for p in check.problems]
        raise _Abort(lines, GoldError("gold dataset is invalid", "input"))
    return check.dataset


def _adapter(spec: str) -> LoadedAdapter:
    check = check_adapter(spec)
    if check.load_error is not None:
        raise _Abort(
            [f"Could not load adapter from {spec}: {check.load_error}"],
            GoldError("gold adapter could not be loaded", "input"),
        )
    if check.adapter is None:
        lines = [f"Invalid adapter ({spec}):"] + [f"  - {p}" for p in check.problems]
        lines.append("See the adapter section of the citelens gold contract.")
        raise _Abort(lines, GoldError("gold adapter is invalid", "input"))
    return check.adapter


@dataclass
class _Options:
    online: bool
    adapter: str
    datasets: str | None
    results: str
    repeats: int
    model: str | None
    baseline: bool
    ci: bool
    tolerances: Tolerances
    format: str
    out: str | None
    repo: str | None


def _options(
    *,
    online: bool,
    adapter: str | None,
    datasets: str | os.PathLike[str] | None,
    results: str | os.PathLike[str] | None,
    repeats: int | str | None,
    model: str | None,
    baseline: bool,
    ci: bool,
    tolerance: Sequence[str],
    format: str,
    out: str | os.PathLike[str] | None,
    repo: str | os.PathLike[str] | None,
    env: Mapping[str, str],
) -> _Options:
    raw_repeats = repeats if repeats is not None else env.get("CITELENS_EVAL_REPEATS", "1")
    text_repeats = str(raw_repeats)
    if (
        isinstance(raw_repeats, bool)
        or not _REPEATS.fullmatch(text_repeats)
        or not 1 <= int(text_repeats) <= 100
    ):
        raise _usage(f'--repeats must be an integer from 1 to 100 (got "{text_repeats}")')
    tolerances = parse_tolerances(list(tolerance))
    if isinstance(tolerances, str):
        raise _usage(
            f"--tolerance must be VALUE or NAME=VALUE with a gated registry metric and a "
            f'non-negative number or off (got "{tolerances}")'
        )
    if format not in FORMATS:
        raise _usage(f'--format must be one of console, json, markdown, html (got "{format}")')
    env_sha = env.get("CITELENS_EVAL_SHA")
    if env_sha and not _SHA.fullmatch(env_sha):
        raise _usage("CITELENS_EVAL_SHA must be 7 to 40 hexadecimal characters")
    ds = os.fspath(datasets) if datasets is not None else env.get("CITELENS_DATASETS") or None
    res = os.fspath(results) if results is not None else env.get("CITELENS_RESULTS") or "results"
    return _Options(
        online=online,
        adapter=adapter or env.get("CITELENS_ADAPTER") or "lexical",
        datasets=ds,
        results=res,
        repeats=int(text_repeats),
        model=model,
        baseline=baseline,
        ci=ci,
        tolerances=tolerances,
        format=format,
        out=os.fspath(out) if out is not None else None,
        repo=os.fspath(repo) if repo is not None else None,
    )


def _run_model(opts: _Options, adapter: LoadedAdapter, env: Mapping[str, str]) -> str | None:
    if opts.model:
        return opts.model
    if env.get("CITELENS_EVAL_MODEL"):
        return env["CITELENS_EVAL_MODEL"]
    hooked = adapter.hook("run_model")
    if hooked is not None and hooked.ok and isinstance(hooked.value, str) and hooked.value:
        return hooked.value
    return None


def _scorecard_path(results: Path, run_id: str) -> tuple[Path, str]:
    candidate, n = run_id, 1
    while (results / f"{candidate}.json").exists():
        n += 1
        candidate = f"{run_id}-{n}"
    return results / f"{candidate}.json", candidate


def _save_baseline(path: Path, card: Mapping[str, Any], previous: Mapping[str, Any] | None) -> None:
    prev_entries: dict[str, Mapping[str, Any]] = {}
    if previous is not None:
        for entry in previous.get("results") or []:
            if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                prev_entries[entry["id"]] = entry
    results: list[dict[str, Any]] = []
    for entry in card["results"]:
        prev = prev_entries.get(entry["id"])
        if (
            entry.get("skip_code") == "offline"
            and prev is not None
            and prev.get("status") in ("passed", "failed")
        ):
            kept = {k: v for k, v in prev.items() if k != "detail"}
            if "carried_from" not in kept and previous is not None:
                kept["carried_from"] = previous.get("run_id")
            results.append(kept)
            continue
        results.append({k: v for k, v in entry.items() if k != "detail"})
    doc = {k: v for k, v in card.items() if k not in ("gate", "results")}
    doc["results"] = results
    ordered = {k: doc[k] for k in card if k in doc}
    ordered["results"] = results
    _write_text(path, _card_json(ordered))


def _execute(opts: _Options, env: dict[str, str], stdout: IO[str], stderr: IO[str]) -> GoldRun:
    dataset = _dataset(opts.datasets)
    if opts.model:
        env["CITELENS_EVAL_MODEL"] = opts.model
        os.environ["CITELENS_EVAL_MODEL"] = opts.model
    adapter = _adapter(opts.adapter)
    try:
        return _execute_loaded(opts, env, stdout, stderr, dataset, adapter)
    finally:
        adapter.close()


def _execute_loaded(
    opts: _Options,
    env: dict[str, str],
    stdout: IO[str],
    stderr: IO[str],
    dataset: GoldDataset,
    adapter: LoadedAdapter,
) -> GoldRun:
    started = time.perf_counter()
    results_dir = Path(opts.results)
    baseline_name = baseline_file_name(adapter.name)
    baseline_path = results_dir / baseline_name
    previous = _read_json_file(baseline_path) if baseline_path.exists() else None
    ts, run_id, iso = _timestamp()
    evaluated = evaluated_commit(opts.repo, env)
    console = stderr if opts.format in ("json", "markdown") and opts.out is None else stdout

    def say(lines: Sequence[str]) -> None:
        for line in lines:
            console.write(line + "\n")
        console.flush()

    card: dict[str, Any] = {
        "schema": SCHEMA,
        "run_id": run_id,
        "timestamp": iso,
        "citelens_version": __version__,
        "evaluated": evaluated,
        "adapter": {
            "name": adapter.name,
            "spec": opts.adapter,
            "capabilities": list(adapter.capabilities),
        },
        "run_model": _run_model(opts, adapter, env),
        "online": opts.online,
        "repeats": opts.repeats,
        "cases": {
            "total": dataset.case_count,
            "qa": len(dataset.qa),
            "grounding": len(dataset.grounding),
            "ignored": dict(dataset.ignored),
        },
        "case_count": dataset.case_count,
        "dataset_digest": dataset.digest,
        "duration_s": 0.0,
        "results": [],
    }
    say(console_header(card))
    scorers: list[ScorerResult] = []
    steps: tuple[Callable[[], ScorerResult], ...] = (
        lambda: score_citation_detection(dataset),
        lambda: score_claim_extraction(dataset, adapter, opts.online),
        lambda: score_verdict_accuracy(dataset, adapter, opts.online, opts.repeats),
        lambda: score_grounding(dataset, adapter, opts.online),
    )
    for step in steps:
        result = step()
        scorers.append(result)
        entry = _entry(result)
        card["results"].append(entry)
        say(console_scorer(entry))
    assert [r.id for r in scorers] == list(SCORERS)
    card["duration_s"] = round_metric(time.perf_counter() - started)
    card["gate"] = compute_gate(
        card["results"],
        None,
        None,
        opts.tolerances,
        enforced=opts.ci,
        dataset_digest=dataset.digest,
        compare=False,
    )
    results_dir_ok = True
    try:
        results_dir.mkdir(parents=True, exist_ok=True)
    except OSError:
        results_dir_ok = False
    if not results_dir_ok:
        raise _Abort([], GoldError("gold results could not be written", "io"))
    card_path, final_id = _scorecard_path(results_dir, run_id)
    if final_id != run_id:
        card["run_id"] = final_id
    _write_text(card_path, _card_json(card))
    history_path = results_dir / "history" / f"{final_id}.parquet"
    failed = False
    try:
        write_parquet_atomic(history_path, _history_table(card, scorers, ts, opts.baseline))
    except WriteFailure:
        failed = True
    if failed:
        raise _Abort([], GoldError("gold results could not be written", "io"))
    say(["", f"  scorecard: {os.path.join(opts.results, card_path.name)}"])
    saved: Path | None = None
    if opts.baseline:
        _save_baseline(baseline_path, card, previous)
        saved = baseline_path
        say([f"  baseline saved: {os.path.join(opts.results, baseline_name)}"])
    else:
        card["gate"] = compute_gate(
            card["results"],
            previous,
            baseline_name,
            opts.tolerances,
            enforced=opts.ci,
            dataset_digest=dataset.digest,
        )
        _write_text(card_path, _card_json(card))
    report_path = _render_output(opts, card, results_dir, stdout, say)
    if not opts.baseline:
        say(console_comparison(card["gate"], adapter.name))
    say([console_gate_line(card["gate"])])
    code = 1 if opts.ci and not card["gate"]["passed"] else 0
    return GoldRun(code, card, card_path, history_path, saved, report_path, scorers)


def _render_output(
    opts: _Options,
    card: Mapping[str, Any],
    results_dir: Path,
    stdout: IO[str],
    say: Any,
) -> Path | None:
    if opts.format == "console":
        return None
    if opts.format == "json":
        text = _card_json(card)
    elif opts.format == "markdown":
        text = render_markdown(card)
    else:
        text = render_html(card, _trend_points(results_dir, card))
    if opts.format == "html" or opts.out is not None:
        target = Path(opts.out) if opts.out else results_dir / f"report-{card['run_id']}.html"
        _write_text(target, text)
        shown = opts.out if opts.out else os.path.join(opts.results, target.name)
        say([f"  report: {shown}"])
        return target
    stdout.write(text)
    stdout.flush()
    return None


def run(
    *,
    online: bool = False,
    adapter: str | None = None,
    datasets: str | os.PathLike[str] | None = None,
    results: str | os.PathLike[str] | None = None,
    repeats: int | str | None = None,
    model: str | None = None,
    baseline: bool = False,
    ci: bool = False,
    tolerance: Sequence[str] = (),
    format: str = "console",
    out: str | os.PathLike[str] | None = None,
    repo: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> GoldRun:
    """Run the gold harness (the library form of ``citelens gold run``).

    Returns a :class:`GoldRun` whose ``exit_code`` is 0 or 1 (1 only with ``ci=True`` and a
    failing gate). Usage and input problems raise :class:`citelens.errors.GoldError`.
    ``env`` defaults to ``os.environ``; console output goes to ``stdout`` (default
    ``sys.stdout``).
    """
    error: GoldError | None = None
    outcome: GoldRun | None = None
    try:
        outcome = _cli_run(
            dict(os.environ if env is None else env),
            stdout or sys.stdout,
            stderr or sys.stderr,
            online=online,
            adapter=adapter,
            datasets=datasets,
            results=results,
            repeats=repeats,
            model=model,
            baseline=baseline,
            ci=ci,
            tolerance=tolerance,
            format=format,
            out=out,
            repo=repo,
        )
    except _Abort as abort:
        error = abort.error
    if error is not None:
        raise GoldError(str(error.args[0]), error.category)
    assert outcome is not None
    return outcome


def _cli_run(env: dict[str, str], stdout: IO[str], stderr: IO[str], **kwargs: Any) -> GoldRun:
    opts = _options(env=env, **kwargs)
    return _execute(opts, env, stdout, stderr)


def run_cli(env: dict[str, str], stdout: IO[str], stderr: IO[str], **kwargs: Any) -> int:
    """CLI form: prints diagnostics and returns the exit code (0, 1 or 2)."""
    lines: list[str] | None = None
    error: GoldError | None = None
    code = 2
    try:
        code = _cli_run(env, stdout, stderr, **kwargs).exit_code
    except _Abort as abort:
        lines, error = abort.lines, abort.error
    if error is not None:
        _diagnose(stderr, lines or [], error)
        return 2
    return code


def _diagnose(stderr: IO[str], lines: list[str], error: GoldError) -> None:
    if lines:
        for line in lines:
            stderr.write(line + "\n")
    else:
        stderr.write(f"citelens: error [{error.category}]: {error.args[0]}\n")
    stderr.flush()


def _latest_scorecard(results_dir: Path) -> Path | None:
    if not results_dir.is_dir():
        return None
    candidates = [
        p for p in results_dir.glob("*.json") if p.is_file() and not p.name.startswith("baseline.")
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda p: (p.stat().st_mtime_ns, p.name))


def _report(
    scorecard: str | None,
    results: str,
    fmt: str,
    out: str | None,
    stdout: IO[str],
) -> tuple[int, list[str], GoldError | None]:
    results_dir = Path(results)
    path = Path(scorecard) if scorecard else _latest_scorecard(results_dir)
    if path is None or not path.is_file():
        return (
            2,
            [f"No scorecard to report in {results}. Run citelens gold run first, or pass a path."],
            GoldError("gold scorecard not found", "input"),
        )
    card: dict[str, Any]
    try:
        card = _read_json_file(path)
    except _Abort:
        return 2, [], GoldError("gold scorecard not found", "input")
    try:
        name = baseline_file_name(card["adapter"]["name"])
        base_path = results_dir / name
        previous = _read_json_file(base_path) if base_path.exists() else None
        gate = card.get("gate") or {}
        card["gate"] = compute_gate(
            card["results"],
            previous,
            name,
            parse_tolerances([]),  # type: ignore[arg-type]
            enforced=bool(gate.get("enforced")),
            dataset_digest=card.get("dataset_digest", ""),
        )
        if fmt == "json":
            text = _card_json(card)
        elif fmt == "markdown":
            text = render_markdown(card)
        else:
            text = render_html(card, _trend_points(results_dir, card))
        if fmt == "html" and out is None:
            target: Path | None = results_dir / f"report-{card['run_id']}.html"
        else:
            target = Path(out) if out is not None else None
        if target is None:
            stdout.write(text)
        else:
            _write_text(target, text)
            stdout.write(f"  report: {out if out is not None else target}\n")
    except _Abort as abort:
        return 2, abort.lines, abort.error
    except (KeyError, TypeError, AttributeError):
        return 2, [], GoldError("gold scorecard not found", "input")
    return 0, [], None


def report(
    scorecard: str | os.PathLike[str] | None = None,
    *,
    results: str | os.PathLike[str] | None = None,
    format: str = "html",
    out: str | os.PathLike[str] | None = None,
    stdout: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Render an existing scorecard (the library form of ``citelens gold report``)."""
    environ = os.environ if env is None else env
    res = (
        os.fspath(results) if results is not None else environ.get("CITELENS_RESULTS") or "results"
    )
    code, _lines, error = _report(
        os.fspath(scorecard) if scorecard is not None else None,
        res,
        format,
        os.fspath(out) if out is not None else None,
        stdout or sys.stdout,
    )
    if error is not None:
        raise GoldError(str(error.args[0]), error.category)
    return code


def report_cli(
    scorecard: str | None,
    results: str | None,
    fmt: str,
    out: str | None,
    env: Mapping[str, str],
    stdout: IO[str],
    stderr: IO[str],
) -> int:
    """CLI form of :func:`report`."""
    res = results or env.get("CITELENS_RESULTS") or "results"
    code, lines, error = _report(scorecard, res, fmt, out, stdout)
    if error is not None:
        _diagnose(stderr, lines, error)
    return code
