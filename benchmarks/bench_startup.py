"""Startup benchmark: ``import citelens`` and ``citelens --help`` in fresh interpreters.

Target (issue): ``citelens --help`` imports neither polars nor pyarrow.

Every run of every command is a fresh interpreter started from the scenario's child process
(``_common.run_child``), so nothing is cached in-process between runs; the OS file cache is
warm after the first run. Timed commands: ``python -c pass`` (the interpreter's own start-up,
for reference), ``python -c "import citelens"``, ``python -m citelens --help`` and the installed
console script ``.venv/bin/citelens --help`` (when present). Wall time is the median of N runs
as seen by the parent of the command (fork/exec included); CPU is the command's user + system
time. Peak RSS is the command's own peak, from one extra untimed run under GNU ``time -f %M``
before the timed runs (it doubles as a warm-up): ``ru_maxrss`` of a child started from Python
never reads below the RSS of the Python process that spawned it (Linux keeps the spawning
process's high-water mark across vfork + exec), which is larger than a bare ``import citelens``.
Without GNU time the figure falls back to that ``ru_maxrss`` and is marked "≤".

Heavy-import checks (which of polars / pyarrow / duckdb are in ``sys.modules``): after
``import citelens``; after ``citelens.cli.main(["--help"])`` in a ``python -c`` child; and,
for the real entry points, ``python -X importtime -m citelens --help`` and the console script
with ``PYTHONPROFILEIMPORTTIME=1`` (every imported module is listed on stderr).

    python benchmarks/bench_startup.py              # median of 5
    python benchmarks/bench_startup.py --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import child_main, is_child, print_table, run_child

HEAVY = ("polars", "pyarrow", "duckdb")
TARGET_ABSENT = ("polars", "pyarrow")  # the issue names these two
MARK = "HEAVY-MODULES "
SCRIPT = Path(sys.executable).parent / "citelens"  # the venv's console script
GNU_TIME = Path("/usr/bin/time")

_REPORT = f"print({MARK!r} + json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
PROBE_IMPORT = f"import json, sys\nimport citelens\n{_REPORT}\n"
PROBE_CLI = (
    "import sys, runpy\n"
    "sys.argv = ['citelens', '--help']\n"
    "import json\n"
    "import citelens.cli\n"
    "try:\n"
    "    citelens.cli.main(['--help'])\n"
    "except SystemExit:\n"
    "    pass\n"
    f"{_REPORT}\n"
)


def _rss_mb(kib: int) -> float:
    return kib / (1024 * 1024) if sys.platform == "darwin" else kib / 1024


def _command(name: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of scenario ``name``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPROFILEIMPORTTIME"}
    python = sys.executable
    commands = {
        "python -c pass": [python, "-c", "pass"],
        'python -c "import citelens"': [python, "-c", "import citelens"],
        "python -m citelens --help": [python, "-m", "citelens", "--help"],
        "citelens --help (console script)": [str(SCRIPT), "--help"],
        "check: import citelens": [python, "-c", PROBE_IMPORT],
        'check: cli.main(["--help"])': [python, "-c", PROBE_CLI],
        "check: python -X importtime -m citelens --help": [
            python,
            "-X",
            "importtime",
            "-m",
            "citelens",
            "--help",
        ],
        "check: console script --help, PYTHONPROFILEIMPORTTIME=1": [str(SCRIPT), "--help"],
    }
    if "PYTHONPROFILEIMPORTTIME" in name:
        env["PYTHONPROFILEIMPORTTIME"] = "1"
    return commands[name], env


def _heavy_modules(done: subprocess.CompletedProcess[str]) -> list[str]:
    """Heavy modules a check command reports (its marker line, or its import-time log)."""
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARK):
            found: list[str] = json.loads(line[len(MARK) :])
            return found
    loaded = set()
    for line in done.stderr.splitlines():  # "import time: self | cumulative | name"
        if line.startswith("import time:") and "|" in line:
            loaded.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return sorted(m for m in HEAVY if m in loaded)


def _gnu_time_peak_mb(command: list[str], env: dict[str, str]) -> float | None:
    """The command's own peak RSS from one run under GNU time (None if unavailable)."""
    if not GNU_TIME.exists():
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        wrapped = [str(GNU_TIME), "-f", "%M", "-o", out.name, *command]
        done = subprocess.run(wrapped, capture_output=True, text=True, env=env, check=False)
        text = out.read().strip().splitlines()
    if done.returncode != 0 or not text or not text[-1].isdigit():
        return None  # not GNU time, or the command failed (the timed runs report it)
    return int(text[-1]) / 1024


def setup_command(name: str) -> Callable[[dict[str, Any], Sequence[str]], Callable[[], object]]:
    def setup(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
        command, env = _command(name)
        cpu_times: list[float] = []
        extra["command"] = command
        extra["cpu_times"] = cpu_times
        extra["gnu_time_peak_rss_mb"] = _gnu_time_peak_mb(command, env)

        def run() -> object:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                tail = "\n".join(done.stderr.strip().splitlines()[-5:])
                raise RuntimeError(f"exit code {done.returncode}: {tail}")
            cpu_times.append(
                (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            )
            # ru_maxrss of RUSAGE_CHILDREN: largest of any run so far, floored by this process
            extra["children_maxrss_mb"] = _rss_mb(after.ru_maxrss)
            extra["cmd_cpu_median_s"] = statistics.median(cpu_times)
            if name.startswith("check:"):
                modules = _heavy_modules(done)
                if extra.setdefault("modules", modules) != modules:
                    raise RuntimeError(f"modules differ between runs: {modules}")
            return done

        return run

    return setup


TIMED = (
    "python -c pass",
    'python -c "import citelens"',
    "python -m citelens --help",
    "citelens --help (console script)",
)
CHECKS = (
    "check: import citelens",
    'check: cli.main(["--help"])',
    "check: python -X importtime -m citelens --help",
    "check: console script --help, PYTHONPROFILEIMPORTTIME=1",
)
SCENARIOS = {name: setup_command(name) for name in TIMED + CHECKS}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per child")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    names = [n for n in TIMED + CHECKS if SCRIPT.exists() or "console script" not in n]
    if not SCRIPT.exists():
        print(f"{SCRIPT} not found: console-script scenarios skipped.")
    rows = []
    for name in names:
        result = run_child(__file__, name, runs=args.runs, timeout=args.timeout)
        result["scenario"] = name.removeprefix("check: ")
        extra = result.get("extra", {})
        result["cmd_cpu_median_s"] = extra.get("cmd_cpu_median_s")
        if extra.get("gnu_time_peak_rss_mb") is not None:
            result["cmd_peak_rss_mb"] = extra["gnu_time_peak_rss_mb"]
        elif extra.get("children_maxrss_mb") is not None:
            result["cmd_peak_rss_mb"] = f"≤ {extra['children_maxrss_mb']:.0f}"
        if "load_avg" in result:
            result["load"] = f"{result['load_avg']:.2f}"
        if "error" in result:
            result["verdict"] = f"failed: {result['error']}"
        if name in CHECKS and "modules" in extra:
            result["modules"] = ", ".join(extra["modules"]) or "none"
            if "--help" in name:
                absent = not set(TARGET_ABSENT) & set(extra["modules"])
                result["target"] = "neither polars nor pyarrow"
                result["verdict"] = "met" if absent else "not met"
        rows.append(result)
    columns = (
        ("scenario", "command"),
        ("median_s", "median s"),
        ("min_s", "min s"),
        ("cmd_cpu_median_s", "CPU s"),
        ("runs", "runs"),
        ("cmd_peak_rss_mb", "peak RSS MiB"),
        ("load", "load avg"),
    )
    print_table(
        [r for r, n in zip(rows, names) if n in TIMED],
        title="startup (fresh interpreter per run)",
        columns=(*columns, ("verdict", "verdict")),
    )
    checks = [r for r, n in zip(rows, names) if n in CHECKS]
    print_table(
        checks,
        title="heavy modules in sys.modules (polars / pyarrow / duckdb)",
        columns=(
            ("scenario", "check"),
            ("modules", "heavy modules loaded"),
            *columns[1:],
            ("target", "target"),
            ("verdict", "verdict"),
        ),
    )
    print()
    for row in checks:
        verdict = row.get("verdict") or "informative (no target)"
        print(f"check {row['scenario']}: {row.get('modules', '-')} → {verdict}")
    sys.stdout.flush()


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
