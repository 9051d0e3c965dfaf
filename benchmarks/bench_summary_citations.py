"""Benchmark: summary citations, 1,000,000 claims with 2 citations each (target <= 2 s).

Run: ``.venv/bin/python benchmarks/bench_summary_citations.py [--claims N] [--runs R]``.

Each scenario runs in a fresh subprocess (R timed calls; median reported) so its peak RSS
(``ru_maxrss``) is its own. Scenarios:

* ``citelens-parquet``: Parquet file paths in, report out (reading included).
* ``citelens-arrow``: in-memory Arrow tables (the columnar path).
* ``citelens-dicts``: Python lists of dicts (the exact record walker + Polars resolution).
* ``plain-dicts``: a minimal dict/set walker for exactly this input shape (no validation,
  no error handling, no file or table support): the floor for Python-record input (the
  contract asks citelens-dicts to stay within 2x of it at the default limits).
* ``openmed-dicts``: openmed 3.1.0 ``build_summary_citation_report`` on the same dicts,
  when importable (skipped cleanly otherwise).

Wall time depends on what else runs on the machine; the CPU column (process time, user +
system, median) is what one idle core needs for the mostly single-threaded citelens path.
The metrics of every scenario must agree with ``citelens-parquet``; the ratio printed is
openmed's median over citelens's median on the same input. Generated data goes to
``benchmarks/.data/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / ".data" / "summary_citations"
SCENARIOS = (
    "citelens-parquet",
    "citelens-arrow",
    "citelens-dicts",
    "plain-dicts",
    "openmed-dicts",
)


def _paths(n: int) -> tuple[pathlib.Path, pathlib.Path]:
    return DATA / f"claims_{n}.parquet", DATA / f"evidence_{n}.parquet"


def generate(n: int) -> tuple[pathlib.Path, pathlib.Path]:
    """Deterministic synthetic input: n evidence records, n claims citing 2 records each.

    About 1 % of citations name an unknown identifier and 1 % of claims cite one record
    twice, so the failure paths are exercised too.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    claims_path, evidence_path = _paths(n)
    if claims_path.exists() and evidence_path.exists():
        return claims_path, evidence_path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20260101)
    idx = np.arange(n, dtype=np.int64)
    ev_ids = pc.binary_join_element_wise("ev-", pc.cast(pa.array(idx), pa.string()), "")
    evidence = pa.table(
        {
            "id": ev_ids,
            "start": pa.array(idx * 20),
            "end": pa.array(idx * 20 + 15),
            "value": pa.array(np.full(n, "synthetic source value", dtype=object)),
        }
    )
    first = rng.integers(0, n, n)
    second = (first + 1 + rng.integers(0, max(n - 1, 1), n)) % n
    repeat = rng.random(n) < 0.01
    second = np.where(repeat, first, second)
    cited = np.stack([first, second], axis=1).ravel()
    names = pc.binary_join_element_wise("ev-", pc.cast(pa.array(cited), pa.string()), "")
    unknown = rng.random(2 * n) < 0.01
    names = pc.if_else(pa.array(unknown), pa.scalar("unknown-ref"), names)
    offsets = pa.array(np.arange(0, 2 * n + 1, 2, dtype=np.int32))
    claims = pa.table(
        {
            "claim": pa.array(np.full(n, "synthetic claim text", dtype=object)),
            "citations": pa.ListArray.from_arrays(offsets, names),
        }
    )
    pq.write_table(claims, claims_path)
    pq.write_table(evidence, evidence_path)
    return claims_path, evidence_path


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class _PlainMetrics:
    def __init__(self, counts: dict[str, Any]) -> None:
        self.counts = counts

    def to_json(self) -> str:
        return json.dumps(self.counts)


class _PlainReport:
    def __init__(self, counts: dict[str, Any]) -> None:
        self.metrics = _PlainMetrics(counts)


def plain_walker(claims: list[dict[str, Any]], evidence: list[dict[str, Any]]) -> Any:
    """Baseline: id-only citations lists, id+span evidence, the core counts only."""
    index: dict[str, int] = {}
    spans: dict[tuple[int, int], int] = {}
    valid_ev = 0
    for record in evidence:
        rid, span = str(record["id"]).strip(), (record["start"], record["end"])
        if rid in index or span in spans:
            continue
        index[rid] = spans[span] = valid_ev
        valid_ev += 1
    supported = items = valid = dup = 0
    referenced: set[int] = set()
    for claim in claims:
        seen: set[Any] = set()
        ok = False
        for cid in claim.get("citations") or ():
            items += 1
            key = cid.strip()
            hit = index.get(key)
            dkey: Any = hit if hit is not None else ("i", key)
            if dkey in seen:
                dup += 1
            seen.add(dkey)
            if hit is not None:
                valid += 1
                ok = True
                referenced.add(hit)
        supported += ok
    return _PlainReport(
        {
            "claim_count": len(claims),
            "supported_claim_count": supported,
            "citation_count": items,
            "valid_citation_count": valid,
            "duplicate_citation_count": dup,
            "referenced_evidence_count": len(referenced),
        }
    )


def run_scenario(name: str, n: int, runs: int) -> dict[str, Any]:
    """Inside the child process: load the input, time ``runs`` calls, report."""
    import pyarrow.parquet as pq

    claims_path, evidence_path = _paths(n)
    limits_kwargs: dict[str, Any] = {}
    if name.startswith("citelens"):
        from citelens import Limits
        from citelens.summary_citations import build_summary_citation_report as build

        limits_kwargs = {"limits": Limits(claims=n, evidence=n, citations=2 * n)}
    elif name == "plain-dicts":
        build = plain_walker
    else:
        try:
            from openmed.clinical.summary_citations import (
                build_summary_citation_report as build,
            )
        except Exception:
            return {"scenario": name, "skipped": "openmed is not importable"}
    if name == "citelens-parquet":
        claims: Any = claims_path
        evidence: Any = evidence_path
    elif name == "citelens-arrow":
        claims, evidence = pq.read_table(claims_path), pq.read_table(evidence_path)
    else:
        claims = pq.read_table(claims_path).to_pylist()
        evidence = pq.read_table(evidence_path).to_pylist()
    input_rss = _rss_mb()
    times: list[float] = []
    cpu: list[float] = []
    report: Any = None
    for _ in range(runs):
        cpu_start = time.process_time()
        started = time.perf_counter()
        report = build(claims, evidence, **limits_kwargs)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_start)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "scenario": name,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "cpu_median_s": statistics.median(cpu),
        "runs": runs,
        "input_rss_mb": input_rss,
        "peak_rss_mb": peak_kb / 1024,
        "metrics": json.loads(report.metrics.to_json()),
    }


def main() -> int:
    """Generate data, run every scenario in its own process, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scenario", choices=SCENARIOS, help=argparse.SUPPRESS)
    parser.add_argument("--only", action="append", choices=SCENARIOS, help="run a subset")
    args = parser.parse_args()
    if args.scenario:
        print(json.dumps(run_scenario(args.scenario, args.claims, args.runs)))
        return 0
    generate(args.claims)
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    results: list[dict[str, Any]] = []
    for name in args.only or SCENARIOS:
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--scenario",
                name,
                "--claims",
                str(args.claims),
                "--runs",
                str(args.runs),
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        if proc.returncode != 0:
            print(f"{name}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
            return 1
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    n = args.claims
    print(f"summary citations: {n:,} claims x 2 citations, {n:,} evidence records")
    print(f"load average before the runs: {load_before}")
    print(
        f"{'scenario':<18} {'median s':>9} {'min s':>8} {'CPU s':>8} "
        f"{'input RSS MB':>13} {'peak RSS MB':>12}"
    )
    baseline: dict[str, Any] | None = None
    by_name = {r["scenario"]: r for r in results}
    for result in results:
        if "skipped" in result:
            print(f"{result['scenario']:<18} skipped: {result['skipped']}")
            continue
        print(
            f"{result['scenario']:<18} {result['median_s']:>9.3f} {result['min_s']:>8.3f} "
            f"{result['cpu_median_s']:>8.3f} "
            f"{result['input_rss_mb']:>13.0f} {result['peak_rss_mb']:>12.0f}"
        )
        baseline = baseline or result
    agree = True
    for result in results:
        if "metrics" not in result or baseline is None:
            continue
        # plain-dicts reports a subset of the keys; compare the keys each scenario has.
        diff = {
            key: (value, baseline["metrics"][key])
            for key, value in result["metrics"].items()
            if baseline["metrics"][key] != value
        }
        if diff:
            agree = False
            print(f"metrics differ: {result['scenario']} vs {baseline['scenario']}: {diff}")
    print(f"metrics agree across scenarios: {agree}")
    openmed = by_name.get("openmed-dicts")
    plain = by_name.get("plain-dicts")
    dicts = by_name.get("citelens-dicts")
    if plain and dicts and "median_s" in plain and "median_s" in dicts:
        print(f"citelens-dicts / plain-dicts: {dicts['median_s'] / plain['median_s']:.1f}x")
    if openmed and "median_s" in openmed:
        for name in ("citelens-dicts", "citelens-arrow", "citelens-parquet"):
            if name in by_name and "median_s" in by_name[name]:
                ratio = openmed["median_s"] / by_name[name]["median_s"]
                print(f"openmed-dicts / {name}: {ratio:.1f}x")
    target = by_name.get("citelens-arrow") or by_name.get("citelens-parquet")
    if target and "median_s" in target and n == 1_000_000:
        verdict = "met" if target["median_s"] <= 2.0 else "NOT met"
        print(f"target <= 2 s ({target['scenario']}): {verdict}")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
