"""The gold run sequence (gold-harness.md §9.2, §9.3) and the report of a saved scorecard
(§9.10): options, dataset, adapter, the seven scorers, scorecard, history, baseline and gate."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, cast

from citelens import __version__
from citelens._atomic import WriteFailure, write_parquet_atomic
from citelens._fixed import attempt
from citelens.errors import GoldError
from citelens.gold._adapters import LoadedAdapter, check_adapter
from citelens.gold._baseline import baseline_file_name, read_card, save_baseline
from citelens.gold._cases import GoldDataset
from citelens.gold._dataset import check_dataset
from citelens.gold._gate import Tolerances, compute_gate, parse_tolerances
from citelens.gold._history import history_table, trend_points
from citelens.gold._metrics import round_metric
from citelens.gold._outputs import (
    Abort,
    card_json,
    results_not_written,
    scorecard_entry,
    utf8_text,
    write_text,
)
from citelens.gold._registry import SCORERS
from citelens.gold._render import (
    console_comparison,
    console_gate_line,
    console_header,
    console_scorer,
    render_html,
    render_markdown,
)
from citelens.gold.scorers import (
    ScorerResult,
    score_citation_detection,
    score_claim_extraction,
    score_grounding,
    score_redaction,
    score_retrieval,
    score_simplification,
    score_verdict_accuracy,
)

__all__ = [
    "FORMATS",
    "GoldRun",
    "evaluated_commit",
    "execute",
    "render_report",
    "report",
    "run",
]

SCHEMA = "citelens.gold.scorecard/1"
FORMATS = ("console", "json", "markdown", "html")
_REPEATS = re.compile(r"[0-9]+")
_SHA = re.compile(r"[0-9a-fA-F]{7,40}")


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
            errors="replace",  # git echoes a non-UTF-8 path in its messages
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
            errors="replace",  # git echoes a non-UTF-8 path in its messages
            timeout=30,
            env=git_env,
            check=False,
        )
        dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return none
    return {"sha": sha, "dirty": dirty, "source": "git"}


def _timestamp() -> tuple[datetime, str, str]:
    now = datetime.now(UTC)
    millis = now.microsecond // 1000
    now = now.replace(microsecond=millis * 1000)
    base = now.strftime("%Y-%m-%dT%H-%M-%S") + f"-{millis:03d}Z"
    iso = now.strftime("%Y-%m-%dT%H:%M:%S") + f".{millis:03d}Z"
    return now, base, iso


def _usage(message: str) -> Abort:
    return Abort([message], GoldError("gold run options are invalid", "policy"))


def _dataset(datasets: str | None) -> GoldDataset:
    check = check_dataset(datasets)
    if check.no_cases:
        raise Abort(
            [
                f"No gold cases found in {os.path.join(check.root, 'cases')} (add a case file; "
                'files starting with "_" are ignored).'
            ],
            GoldError("gold dataset has no cases", "input"),
        )
    if check.dataset is None:
        lines = [f"Invalid dataset ({check.root}):"] + [f"  - {p}" for p in check.problems]
        raise Abort(lines, GoldError("gold dataset is invalid", "input"))
    return check.dataset


def _adapter(spec: str) -> LoadedAdapter:
    check = check_adapter(spec)
    if check.load_error is not None:
        raise Abort(
            [f"Could not load adapter from {spec}: {check.load_error}"],
            GoldError("gold adapter could not be loaded", "input"),
        )
    if check.adapter is None:
        lines = [f"Invalid adapter ({spec}):"] + [f"  - {p}" for p in check.problems]
        lines.append("See the adapter section of the citelens gold contract.")
        raise Abort(lines, GoldError("gold adapter is invalid", "input"))
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
        or len(text_repeats.lstrip("0")) > 3  # before int(): 5,000 digits exceed its limit
        or not 1 <= int(text_repeats) <= 100
    ):
        # never the value given (it may be anything the caller typed)
        raise _usage("--repeats must be an integer from 1 to 100")
    tolerances = parse_tolerances(list(tolerance))
    if isinstance(tolerances, str):
        raise _usage(
            "--tolerance must be VALUE or NAME=VALUE with a gated registry metric and a "
            "non-negative number or off"
        )
    if format not in FORMATS:
        raise _usage("--format must be one of console, json, markdown, html")
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


def _utf8(label: str) -> str:
    # The label is written to JSON and Parquet as UTF-8 (the rule of utf8_text)
    return utf8_text(label)


def _run_model(opts: _Options, adapter: LoadedAdapter, env: Mapping[str, str]) -> str | None:
    if opts.model:
        return _utf8(opts.model)
    if env.get("CITELENS_EVAL_MODEL"):
        return _utf8(env["CITELENS_EVAL_MODEL"])
    hooked = adapter.hook("run_model")
    if hooked is not None and hooked.ok and isinstance(hooked.value, str) and hooked.value:
        return _utf8(hooked.value)
    return None


def _scorecard_path(results: Path, run_id: str) -> tuple[Path, str]:
    candidate, n = run_id, 1
    while os.path.exists(results / f"{candidate}.json"):
        n += 1
        candidate = f"{run_id}-{n}"
    return results / f"{candidate}.json", candidate


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
    previous = read_card(baseline_path) if os.path.exists(baseline_path) else None
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
            "redaction": len(dataset.redaction),
            "simplification": len(dataset.simplification),
            "retrieval": len(dataset.retrieval),
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
        lambda: score_redaction(dataset, adapter, opts.online),
        lambda: score_simplification(dataset, adapter, opts.online),
        lambda: score_retrieval(dataset, adapter, opts.online),
    )
    for step in steps:
        result = step()
        scorers.append(result)
        entry = scorecard_entry(result)
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
        raise results_not_written()
    card_path, final_id = _scorecard_path(results_dir, run_id)
    if final_id != run_id:
        card["run_id"] = final_id
    write_text(card_path, card_json(card))
    history_path = results_dir / "history" / f"{final_id}.parquet"
    failed = False
    try:
        write_parquet_atomic(history_path, history_table(card, scorers, ts, opts.baseline))
    except WriteFailure:
        failed = True
    if failed:
        raise results_not_written()
    say(["", f"  scorecard: {os.path.join(opts.results, card_path.name)}"])
    saved: Path | None = None
    if opts.baseline:
        save_baseline(baseline_path, card, previous)
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
        write_text(card_path, card_json(card))
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
        text = card_json(card)
    elif opts.format == "markdown":
        text = render_markdown(card)
    else:
        text = render_html(card, trend_points(results_dir, card))
    if opts.format == "html" or opts.out is not None:
        target = Path(opts.out) if opts.out else results_dir / f"report-{card['run_id']}.html"
        write_text(target, text)
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
    failing gate). ``env`` defaults to ``os.environ``; console output goes to ``stdout``
    (default ``sys.stdout``).

    Raises:
        GoldError: a usage or input problem (gold-harness.md §9.12).
        InternalError: an unexpected exception inside citelens (a bug, never bad input);
            adapter errors are scorer failures, not exceptions (§6.0).
    """

    def go() -> GoldRun:
        error: GoldError | None = None
        outcome: GoldRun | None = None
        try:
            outcome = execute(
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
        except Abort as abort:
            error = abort.error
        if error is not None:
            raise GoldError(str(error.args[0]), error.category)
        return cast(GoldRun, outcome)

    return attempt(go)


def execute(env: dict[str, str], stdout: IO[str], stderr: IO[str], **kwargs: Any) -> GoldRun:
    """The run sequence for the CLI: a usage or input problem raises :class:`Abort` (its
    diagnostic lines and error); any other exception propagates (the CLI exits 3)."""
    opts = _options(env=env, **kwargs)
    return _execute(opts, env, stdout, stderr)


def _latest_scorecard(results_dir: Path) -> Path | None:
    if not os.path.isdir(results_dir):  # os.path: False for any OSError
        return None
    candidates = [
        p for p in results_dir.glob("*.json") if p.is_file() and not p.name.startswith("baseline.")
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda p: (p.stat().st_mtime_ns, p.name))


def render_report(
    scorecard: str | None,
    results: str,
    fmt: str,
    out: str | None,
    stdout: IO[str],
) -> tuple[int, list[str], GoldError | None]:
    """Render a saved scorecard with its gate against the adapter's current baseline.

    Returns ``(exit code, diagnostic lines, error)``; the error is ``None`` on success. A
    scorecard that cannot be read or lacks the fields of gold-harness.md §9.5 is
    ``gold scorecard not found``.
    """
    results_dir = Path(results)
    path = Path(scorecard) if scorecard else _latest_scorecard(results_dir)
    if path is None or not os.path.isfile(path):
        return (
            2,
            [f"No scorecard to report in {results}. Run citelens gold run first, or pass a path."],
            GoldError("gold scorecard not found", "input"),
        )
    card: dict[str, Any]
    try:
        card = read_card(path)
    except Abort:
        return 2, [], GoldError("gold scorecard not found", "input")
    try:
        name = baseline_file_name(card["adapter"]["name"])
        base_path = results_dir / name
        previous = read_card(base_path) if os.path.exists(base_path) else None
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
            text = card_json(card)
        elif fmt == "markdown":
            text = render_markdown(card)
        else:
            text = render_html(card, trend_points(results_dir, card))
        if fmt == "html" and out is None:
            target: Path | None = results_dir / f"report-{card['run_id']}.html"
        else:
            target = Path(out) if out is not None else None
        if target is None:
            stdout.write(text)
        else:
            write_text(target, text)
            stdout.write(f"  report: {out if out is not None else target}\n")
    except Abort as abort:
        return 2, abort.lines, abort.error
    except (KeyError, TypeError, AttributeError):
        # The scorecard is a user-supplied file: a document without the fields of §9.5 (a key
        # missing, a value of the wrong JSON type) is reported as no scorecard. Anything else
        # is a bug and propagates (InternalError through ``report``, exit 3 from the CLI).
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
    """Render an existing scorecard (the library form of ``citelens gold report``).

    Raises:
        GoldError: no scorecard to report, or a report that could not be written (§9.12).
        InternalError: an unexpected exception inside citelens (a bug, never bad input).
    """
    environ = os.environ if env is None else env
    res = (
        os.fspath(results) if results is not None else environ.get("CITELENS_RESULTS") or "results"
    )

    def go() -> int:
        code, _lines, error = render_report(
            os.fspath(scorecard) if scorecard is not None else None,
            res,
            format,
            os.fspath(out) if out is not None else None,
            stdout or sys.stdout,
        )
        if error is not None:
            raise GoldError(str(error.args[0]), error.category)
        return code

    return attempt(go)
