"""Shared benchmark helpers: median-of-N timing and fresh-subprocess peak RSS.

A benchmark script defines *scenarios*: a name mapped to a setup function that prepares the
input (untimed) and returns the callable to time. The parent process runs every scenario in a
fresh child process (``python <script> --child <name> ...``) so that each scenario's peak RSS
(``ru_maxrss`` of that child) is its own and nothing is cached between scenarios::

    from _common import child_main, is_child, print_table, run_child

    SCENARIOS = {"parquet": setup_parquet, "records": setup_records}

    if __name__ == "__main__":
        if is_child():
            child_main(SCENARIOS)          # prints one JSON result line and exits
        result = run_child(__file__, "parquet", runs=5)
        print_table([result], title="support")

``run_child`` returns a :class:`dict` with ``scenario``, ``runs``, ``times`` (seconds),
``median_s``, ``min_s``, ``cpu_median_s`` (median process CPU time per run, all threads),
``load_avg`` (1-minute load average around the runs), ``peak_rss_mb`` (the child's
whole-process peak, imports and input included), ``baseline_rss_mb`` (peak RSS after setup,
before the first timed run) and ``extra`` (whatever the setup stored in the ``extra`` dict it
receives, e.g. a report digest).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "CHILD_FLAG",
    "child_main",
    "fmt_mb",
    "fmt_s",
    "is_child",
    "median_of",
    "peak_rss_mb",
    "print_table",
    "run_child",
]

CHILD_FLAG = "--child"
_RESULT_PREFIX = "BENCH-RESULT "

# setup(extra, argv) -> the callable to time; ``extra`` is a dict reported back to the parent.
Setup = Callable[[dict[str, Any], Sequence[str]], Callable[[], object]]


def peak_rss_mb() -> float:
    """Peak resident set size of the current process, in MiB (Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if sys.platform == "darwin":  # bytes on macOS
        return peak / (1024 * 1024)
    return peak / 1024


def median_of(
    func: Callable[[], object], runs: int = 5, cpu_times: list[float] | None = None
) -> tuple[float, list[float]]:
    """Call ``func`` ``runs`` times; return (median wall seconds, every wall time in seconds).

    When ``cpu_times`` is given, the process CPU time of each run (all threads) is appended to
    it: on a shared machine it shows how much of the wall time was waiting for a core.
    """
    times: list[float] = []
    for _ in range(runs):
        cpu = time.process_time()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
        if cpu_times is not None:
            cpu_times.append(time.process_time() - cpu)
    return statistics.median(times), times


def is_child(argv: Sequence[str] | None = None) -> bool:
    """True when this process was started by :func:`run_child`."""
    args = sys.argv[1:] if argv is None else argv
    return CHILD_FLAG in args


def child_main(scenarios: Mapping[str, Setup], argv: Sequence[str] | None = None) -> None:
    """Child side: ``--child NAME --runs N [extra args...]``; prints one result line, exits."""
    args = list(sys.argv[1:] if argv is None else argv)
    index = args.index(CHILD_FLAG)
    name = args[index + 1]
    runs = 5
    if "--runs" in args:
        runs = int(args[args.index("--runs") + 1])
    extra: dict[str, Any] = {}
    func = scenarios[name](extra, args)
    baseline = peak_rss_mb()
    cpu_times: list[float] = []
    load_before = os.getloadavg()[0]
    median, times = median_of(func, runs, cpu_times)
    result = {
        "scenario": name,
        "runs": runs,
        "times": times,
        "median_s": median,
        "min_s": min(times),
        "cpu_median_s": statistics.median(cpu_times),
        "load_avg": max(load_before, os.getloadavg()[0]),
        "peak_rss_mb": peak_rss_mb(),
        "baseline_rss_mb": baseline,
        "extra": extra,
    }
    sys.stdout.write(_RESULT_PREFIX + json.dumps(result) + "\n")
    sys.stdout.flush()
    raise SystemExit(0)


def run_child(
    script: str | os.PathLike[str],
    scenario: str,
    *,
    runs: int = 5,
    args: Sequence[str] = (),
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run one scenario of ``script`` in a fresh interpreter and return its result dict.

    On failure the dict has ``error`` (the child's last stderr lines) instead of timings.
    """
    command = [sys.executable, os.fspath(script), CHILD_FLAG, scenario, "--runs", str(runs)]
    command.extend(args)
    child_env = dict(os.environ if env is None else env)
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=child_env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"scenario": scenario, "error": f"timed out after {timeout} s"}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(_RESULT_PREFIX):
            result: dict[str, Any] = json.loads(line[len(_RESULT_PREFIX) :])
            return result
    tail = "\n".join(done.stderr.strip().splitlines()[-5:])
    return {"scenario": scenario, "error": tail or f"exit code {done.returncode}"}


def fmt_s(value: float | None) -> str:
    """Seconds with 3 decimals (or ``-``)."""
    return "-" if value is None else f"{value:.3f}"


def fmt_mb(value: float | None) -> str:
    """MiB with no decimals (or ``-``)."""
    return "-" if value is None else f"{value:.0f}"


MEASURED_COLUMNS: tuple[tuple[str, str], ...] = (
    ("scenario", "scenario"),
    ("median_s", "median s"),
    ("min_s", "min s"),
    ("cpu_median_s", "CPU s"),
    ("runs", "runs"),
    ("peak_rss_mb", "peak RSS MiB"),
    ("baseline_rss_mb", "RSS after setup MiB"),
)
"""The columns every scenario row has; scripts append their own (ratio, load, verdict)."""


def print_table(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str = "",
    columns: Sequence[tuple[str, str]] = (),
) -> None:
    """Print rows as a small Markdown table (floats: seconds 3 decimals, MiB none); the default
    columns are :data:`MEASURED_COLUMNS` plus target and verdict."""
    columns = columns or (*MEASURED_COLUMNS, ("target", "target"), ("verdict", "verdict"))

    def cell(row: Mapping[str, Any], key: str) -> str:
        value = row.get(key)
        if key.endswith("_s") and isinstance(value, int | float):
            return fmt_s(float(value))
        if key.endswith("_mb") and isinstance(value, int | float):
            return fmt_mb(float(value))
        if value is None:
            return "-"
        return str(value)

    if title:
        print(f"\n## {title}\n")
    print("| " + " | ".join(label for _, label in columns) + " |")
    print("| " + " | ".join("---" for _ in columns) + " |")
    for row in rows:
        print("| " + " | ".join(cell(row, key) for key, _ in columns) + " |")
    sys.stdout.flush()
