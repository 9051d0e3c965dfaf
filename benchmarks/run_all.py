"""Run every ``benchmarks/bench_*.py`` in turn (``make bench``).

Usage: ``.venv/bin/python benchmarks/run_all.py [--only NAME ...] [-- args for every script]``.
Each script runs in its own interpreter with the same Python; the exit code is non-zero when
any script failed (a missed target is reported by the script itself).
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        index = args.index("--")
        args, extra = args[:index], args[index + 1 :]
    parser = argparse.ArgumentParser(description="Run every benchmarks/bench_*.py in turn.")
    parser.add_argument("--only", nargs="*", default=None, help="bench names, e.g. support")
    options = parser.parse_args(args)
    scripts = sorted(HERE.glob("bench_*.py"))
    if options.only:
        wanted = {name.removeprefix("bench_").removesuffix(".py") for name in options.only}
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    failures: list[str] = []
    for script in scripts:
        print(f"\n===== {script.name} =====", flush=True)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(script), *extra], check=False)
        elapsed = time.perf_counter() - start
        print(f"===== {script.name}: exit {done.returncode} in {elapsed:.1f} s =====", flush=True)
        if done.returncode != 0:
            failures.append(script.name)
    if failures:
        print(f"\nbenchmarks with a non-zero exit: {', '.join(failures)}")
        return 1
    print(f"\nall {len(scripts)} benchmarks finished")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
