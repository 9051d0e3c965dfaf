"""Spark benchmark: the corpus support evaluation through ``citelens.spark`` in ``local[2]``.

No target (issue 5): it shows Spark's fixed cost next to the local engine on the same corpus.
The corpus is the 1,000,000-edge corpus of ``bench_corpus.py`` (about 9,500 documents of 105
edges each, Parquet with ``document_ref``, generated once into ``benchmarks/.data/``). Each
timed run reads the four Parquet files with ``spark.read.parquet``, evaluates them with
:func:`citelens.spark.evaluate_support_spark` and writes the documents table back to Parquet;
the session start (JVM launch) is measured separately and not part of a run. The ``local``
scenario times :func:`citelens.corpus.run_support_corpus` on the same files (documents table
written to Parquet), median of the same number of runs.

Peak RSS: ``driver`` is the Python driver process plus the Spark JVM (the Spark driver, which
in ``local[2]`` also runs the executors); ``all`` adds the Python workers that ``mapInArrow``
runs in. Both are sampled from ``/proc`` every 50 ms in the scenario's own child process.

    python benchmarks/bench_spark.py                  # 1M edges, median of 3
    python benchmarks/bench_spark.py --edges 200000 --runs 3
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import child_main, is_child, print_table, run_child
from bench_corpus import generate

ROLES = ("claims", "evidence", "citations", "adjudications")
# The Spark scenario's documents output (git-ignored); read back by main() to count documents.
SPARK_OUT = Path(__file__).resolve().parent / ".data" / "spark-documents"


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return 0
    return 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                found.extend(int(p) for p in handle.read().split())
    except (OSError, ValueError):
        pass
    return found


class TreeSampler:
    """Samples the RSS of this process, its JVM child, and every descendant (Linux /proc)."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.driver_peak_kib = 0
        self.tree_peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        me = os.getpid()
        driver = _rss_kib(me)
        tree = driver
        stack = _children(me)
        while stack:
            pid = stack.pop()
            rss = _rss_kib(pid)
            tree += rss
            if _is_java(pid):
                driver += rss
            stack.extend(_children(pid))
        self.driver_peak_kib = max(self.driver_peak_kib, driver)
        self.tree_peak_kib = max(self.tree_peak_kib, tree)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def start(self) -> TreeSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


def _is_java(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/comm", encoding="ascii") as handle:
            return handle.read().strip() == "java"
    except OSError:
        return False


def _session(partitions: int) -> Any:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = SparkSession.builder.master("local[2]").appName("citelens-bench-spark")
    for key, value in {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.memory": "2g",
        "spark.sql.shuffle.partitions": str(partitions),
    }.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def setup_spark(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    from citelens.spark import evaluate_support_spark

    edges, partitions = int(argv[-2]), int(argv[-1])
    root = generate(edges)
    sampler = TreeSampler().start()
    started = time.perf_counter()
    spark = _session(partitions)
    extra["session_start_s"] = time.perf_counter() - started
    out = SPARK_OUT

    def run() -> object:
        frames = [spark.read.parquet(str(root / f"{role}.parquet")) for role in ROLES]
        result = evaluate_support_spark(*frames, num_partitions=partitions)
        result.write.mode("overwrite").parquet(str(out))
        extra["driver_peak_mb"] = sampler.driver_peak_kib / 1024
        extra["all_peak_mb"] = sampler.tree_peak_kib / 1024
        return result

    return run


def setup_local(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    import pyarrow.parquet as pq

    from citelens.corpus import run_support_corpus

    edges = int(argv[-2])
    root = generate(edges)
    out = Path(tempfile.mkdtemp(prefix="citelens-bench-local-"))
    atexit.register(shutil.rmtree, out, True)

    def run() -> object:
        result = run_support_corpus(*(root / f"{role}.parquet" for role in ROLES))
        pq.write_table(result.documents, out / "documents.parquet")
        extra["documents"] = result.documents.num_rows
        return result

    return run


SCENARIOS = {"spark": setup_spark, "local": setup_local}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=8)
    args, _ = parser.parse_known_args()
    try:
        import pandas  # noqa: F401  (mapInArrow needs pyspark[sql])
        import pyspark  # noqa: F401
    except ImportError:
        print("pyspark[sql] is not installed (pip install -e '.[spark]'): Spark benchmark skipped")
        return
    root = generate(args.edges)  # untimed, outside the measured children
    print(f"corpus: {root.relative_to(Path(__file__).resolve().parent.parent)}")
    child_args = [str(args.edges), str(args.partitions)]
    results = []
    for scenario in ("spark", "local"):
        result = run_child(__file__, scenario, runs=args.runs, args=child_args, timeout=3600)
        if "error" in result:
            print(f"{scenario}: failed: {result['error']}")
            continue
        extra = result.get("extra", {})
        label = f"{scenario} {args.edges:,} edges"
        if scenario == "spark":
            label += f" (local[2], {args.partitions} partitions)"
            result["peak_rss_mb"] = extra.get("driver_peak_mb")
            result["all_rss_mb"] = extra.get("all_peak_mb")
            result["start_s"] = extra.get("session_start_s")
        result["scenario"] = label
        result["documents"] = extra.get("documents")
        if scenario == "spark":
            import pyarrow.compute as pc
            import pyarrow.parquet as pq

            written = pq.read_table(SPARK_OUT, columns=["status"])
            result["documents"] = written.num_rows
            failed = pc.sum(pc.equal(written["status"], "error")).as_py() or 0
            print(f"spark output: {written.num_rows} documents, {failed} failed")
        results.append(result)
    print_table(
        results,
        title="corpus support through Spark (read Parquet → evaluate → write Parquet)",
        columns=(
            ("scenario", "scenario"),
            ("median_s", "median s"),
            ("min_s", "min s"),
            ("runs", "runs"),
            ("start_s", "session start s"),
            ("documents", "documents"),
            ("peak_rss_mb", "peak RSS MiB (driver)"),
            ("all_rss_mb", "peak RSS MiB (driver + workers)"),
        ),
    )
    if len(results) == 2:
        print(f"spark / local: {results[0]['median_s'] / results[1]['median_s']:.2f}x")


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
