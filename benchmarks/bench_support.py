"""Benchmark: citation support metrics at the full bounds (issue 2).

Run: ``.venv/bin/python benchmarks/bench_support.py [--runs 5] [--peer-runs 5] [--no-peer]``.

Input (generated once, deterministic, written to ``benchmarks/.data/support/`` as Parquet):
100,000 claims, 200,000 evidence spans, 500,000 citation edges (5 per claim: 4 in each claim's
``citations`` list, 1 explicit citation record with a sub-span), 500,000 adjudications, every
identifier a realistic 71-character ``sha256:`` reference. About 1 % of the edges point to
missing evidence, 0.5 % to missing claims, some sub-spans lie outside their evidence, are
reversed or name another source, some claim/evidence spans are missing or out of bounds, and
some adjudication pairs are unmatched or conflicting.

Scenarios, each in a fresh subprocess (median of ``--runs`` timed runs, peak RSS of that
process), end to end: load → metrics → ``to_json()`` + ``to_markdown()``:

* ``citelens-parquet``: the four Parquet paths (issue 9 target: ≥ 25x faster than openmed,
  ≤ 600 MB peak; issue 2's earlier target was ≤ 0.5 s, ≤ 400 MB);
* ``citelens-records``: the same data as Python lists of dicts (issue 9 target: ≥ 15x faster
  than openmed; issue 2's earlier target was ≤ 3 s);
* ``openmed-records``: openmed 3.1.0 on the same records, when importable (skipped cleanly
  otherwise); the ratio openmed / citelens is printed and every report value except the
  provenance digests must be equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import MEASURED_COLUMNS, child_main, is_child, print_table, run_child  # noqa: E402

DATA = HERE / ".data" / "support"
GENERATOR_VERSION = "support-bench-v1"
N_CLAIMS = 100_000
N_EVIDENCE = 200_000
EMBEDDED_PER_CLAIM = 4
N_ADJUDICATIONS = 500_000
NAMES = ("claims", "evidence", "citations", "adjudications")
# issue 9: (minimum openmed / citelens wall-time ratio, maximum peak RSS in MB)
TARGETS = {"citelens-parquet": (25.0, 600.0), "citelens-records": (15.0, None)}


def paths() -> dict[str, pathlib.Path]:
    return {name: DATA / f"{name}.parquet" for name in NAMES}


def _ids(prefix: str, count: int) -> list[str]:
    return ["sha256:" + hashlib.sha256(f"{prefix}-{k}".encode()).hexdigest() for k in range(count)]


def generate(force: bool = False) -> dict[str, pathlib.Path]:
    """Write the four Parquet inputs (reused when the manifest matches)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = paths()
    manifest = DATA / "manifest.json"
    if (
        not force
        and manifest.exists()
        and json.loads(manifest.read_text()).get("version") == GENERATOR_VERSION
        and all(p.exists() for p in files.values())
    ):
        return files
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20260202)

    claim_ids = np.array(_ids("claim", N_CLAIMS), dtype=object)
    evidence_ids = np.array(_ids("evidence", N_EVIDENCE), dtype=object)
    missing_evidence = np.array(_ids("missing-evidence", 2_000), dtype=object)
    missing_claims = np.array(_ids("missing-claim", 500), dtype=object)
    summaries = np.array(_ids("summary", N_CLAIMS // 20), dtype=object)
    sources = np.array(_ids("source", N_EVIDENCE // 50), dtype=object)

    # Evidence: 4,000 source documents of 5,000 code points; spans of 20-200 code points.
    ev_source_index = np.arange(N_EVIDENCE) // 50
    ev_start = rng.integers(0, 4_700, N_EVIDENCE)
    ev_end = ev_start + rng.integers(20, 200, N_EVIDENCE)
    ev_length = np.full(N_EVIDENCE, 5_000)
    out_of_bounds = rng.random(N_EVIDENCE) < 0.005
    ev_end = np.where(out_of_bounds, 5_100, ev_end)
    ev_missing = rng.random(N_EVIDENCE) < 0.005
    evidence = pa.table(
        {
            "evidence_id": pa.array(evidence_ids, pa.string()),
            "start": pa.array(ev_start, pa.int64(), mask=ev_missing),
            "end": pa.array(ev_end, pa.int64(), mask=ev_missing),
            "source_id": pa.array(sources[ev_source_index], pa.string()),
            "source_length": pa.array(ev_length, pa.int64()),
        }
    )

    # Claims: 20 claims per summary of 2,000 code points; 1 % without offsets, 0.5 % reversed.
    cl_start = (np.arange(N_CLAIMS) % 20) * 100
    cl_end = cl_start + 80
    reversed_claim = rng.random(N_CLAIMS) < 0.005
    cl_end = np.where(reversed_claim, cl_start, cl_end)
    cl_missing = rng.random(N_CLAIMS) < 0.01
    cited = rng.integers(0, N_EVIDENCE, (N_CLAIMS, EMBEDDED_PER_CLAIM))
    cited_ids = evidence_ids[cited].ravel()
    to_missing = rng.random(cited_ids.size) < 0.01
    cited_ids = np.where(
        to_missing,
        missing_evidence[rng.integers(0, missing_evidence.size, cited_ids.size)],
        cited_ids,
    )
    offsets = np.arange(0, cited_ids.size + 1, EMBEDDED_PER_CLAIM, dtype=np.int32)
    claims = pa.table(
        {
            "claim_id": pa.array(claim_ids, pa.string()),
            "start": pa.array(cl_start, pa.int64(), mask=cl_missing),
            "end": pa.array(cl_end, pa.int64(), mask=cl_missing),
            "source_id": pa.array(summaries[np.arange(N_CLAIMS) // 20], pa.string()),
            "source_length": pa.array(np.full(N_CLAIMS, 2_000), pa.int64()),
            "citations": pa.ListArray.from_arrays(
                pa.array(offsets), pa.array(cited_ids, pa.string())
            ),
        }
    )

    # Explicit citations: one per claim, a sub-span of the cited evidence.
    target = rng.integers(0, N_EVIDENCE, N_CLAIMS)
    c_claims = claim_ids.copy()
    to_missing_claim = rng.random(N_CLAIMS) < 0.005
    c_claims = np.where(
        to_missing_claim, missing_claims[rng.integers(0, missing_claims.size, N_CLAIMS)], c_claims
    )
    t_start = ev_start[target]
    t_end = ev_end[target]
    sub_start = t_start + rng.integers(0, 10, N_CLAIMS)
    sub_end = np.minimum(sub_start + rng.integers(1, 15, N_CLAIMS), t_end)
    kind = rng.random(N_CLAIMS)
    outside = kind < 0.04
    reversed_sub = (kind >= 0.04) & (kind < 0.07)
    mismatch = (kind >= 0.07) & (kind < 0.10)
    sub_end = np.where(sub_end <= sub_start, sub_start + 1, sub_end)
    sub_end = np.where(outside, t_end + 5, sub_end)
    sub_end = np.where(reversed_sub, sub_start - 1, sub_end)
    plain = rng.random(N_CLAIMS) < 0.02  # plain edges (some duplicate an embedded edge)
    c_source = np.where(
        mismatch,
        sources[(ev_source_index[target] + 1) % sources.size],
        sources[ev_source_index[target]],
    )
    no_source = rng.random(N_CLAIMS) < 0.5
    citations = pa.table(
        {
            "claim_id": pa.array(c_claims, pa.string()),
            "evidence_id": pa.array(
                np.where(plain, evidence_ids[cited[:, 0]], evidence_ids[target]), pa.string()
            ),
            "start": pa.array(sub_start, pa.int64(), mask=plain),
            "end": pa.array(sub_end, pa.int64(), mask=plain),
            "source_id": pa.array(c_source, pa.string(), mask=no_source | plain),
        }
    )

    # Adjudications: 5 per claim, on the claim's cited pairs (some duplicated or unmatched).
    labels = np.array(
        ["supports", "contradicts", "irrelevant", "unclear", "Supported", "does not support"],
        dtype=object,
    )
    probabilities = [0.55, 0.15, 0.13, 0.09, 0.05, 0.03]
    pair_claim = np.repeat(claim_ids, 5)
    pair_evidence = np.concatenate([cited, target[:, None]], axis=1).ravel()
    adj_evidence = evidence_ids[pair_evidence]
    unmatched = rng.random(N_ADJUDICATIONS) < 0.02
    adj_evidence = np.where(
        unmatched, evidence_ids[rng.integers(0, N_EVIDENCE, N_ADJUDICATIONS)], adj_evidence
    )
    adjudications = pa.table(
        {
            "claim_id": pa.array(pair_claim, pa.string()),
            "evidence_id": pa.array(adj_evidence, pa.string()),
            "label": pa.array(rng.choice(labels, N_ADJUDICATIONS, p=probabilities), pa.string()),
        }
    )

    for name, table in zip(NAMES, (claims, evidence, citations, adjudications)):
        pq.write_table(table, files[name])
    manifest.write_text(json.dumps({"version": GENERATOR_VERSION}))
    return files


def _records() -> list[list[dict[str, Any]]]:
    """The Parquet inputs as Python lists of dicts (null cells left out)."""
    import pyarrow.parquet as pq

    out = []
    for path in paths().values():
        rows = pq.read_table(path).to_pylist()
        out.append([{k: v for k, v in row.items() if v is not None} for row in rows])
    return out


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _report_values(report: Any) -> dict[str, Any]:
    data = dict(report.to_dict())
    data.pop("provenance", None)
    values: dict[str, Any] = json.loads(json.dumps(data))
    return values


def setup_parquet(extra: dict[str, Any], _: Sequence[str]) -> Callable[[], object]:
    from citelens import compute_citation_support_metrics

    files = [str(p) for p in paths().values()]

    def run() -> object:
        report = compute_citation_support_metrics(*files)
        text = report.to_json()
        markdown = report.to_markdown()
        extra["json_sha256"] = _digest(text)
        extra["values"] = _report_values(report)
        return markdown

    return run


def setup_records(extra: dict[str, Any], _: Sequence[str]) -> Callable[[], object]:
    from citelens import compute_citation_support_metrics

    claims, evidence, citations, adjudications = _records()

    def run() -> object:
        report = compute_citation_support_metrics(claims, evidence, citations, adjudications)
        text = report.to_json()
        markdown = report.to_markdown()
        extra["json_sha256"] = _digest(text)
        extra["values"] = _report_values(report)
        extra["markdown_sha256"] = _digest(markdown)
        return markdown

    return run


def setup_openmed(extra: dict[str, Any], _: Sequence[str]) -> Callable[[], object]:
    from openmed.eval import compute_citation_support_metrics

    claims, evidence, citations, adjudications = _records()

    def run() -> object:
        report = compute_citation_support_metrics(claims, evidence, citations, adjudications)
        report.to_json()
        markdown = report.to_markdown()
        extra["values"] = _report_values(report)
        extra["markdown_sha256"] = _digest(markdown)
        return markdown

    return run


SCENARIOS = {
    "citelens-parquet": setup_parquet,
    "citelens-records": setup_records,
    "openmed-records": setup_openmed,
}


def _peer_available() -> bool:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", "import openmed.eval"], capture_output=True, check=False
    )
    return done.returncode == 0


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}{key} (missing on one side)"
            found = _first_difference(a[key], b[key], f"{path}{key}.")
            if found:
                return found
        return None
    if json.dumps(a) != json.dumps(b):
        return f"{path.rstrip('.')}: {a!r} != {b!r}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per scenario (median)")
    parser.add_argument("--peer-runs", type=int, default=5, help="timed runs of openmed")
    parser.add_argument("--no-peer", action="store_true", help="skip openmed 3.1.0")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the Parquet inputs")
    args = parser.parse_args(argv)

    print(f"load average at start: {os.getloadavg()} ({os.cpu_count()} cores)")
    print("generating / reusing inputs in benchmarks/.data/support/ ...", flush=True)
    generate(force=args.regenerate)
    script = pathlib.Path(__file__).resolve()
    results = []
    for name in ("citelens-parquet", "citelens-records"):
        print(f"running {name} ({args.runs} runs, fresh subprocess) ...", flush=True)
        results.append(run_child(script, name, runs=args.runs, timeout=3600))
    peer: dict[str, Any] | None = None
    if args.no_peer:
        print("openmed: skipped (--no-peer)")
    elif not _peer_available():
        print("openmed 3.1.0 not importable: peer comparison skipped")
    else:
        print(f"running openmed-records ({args.peer_runs} runs, fresh subprocess) ...", flush=True)
        peer = run_child(script, "openmed-records", runs=args.peer_runs, timeout=7200)
        results.append(peer)

    ok = True
    peer_ok = peer is not None and "error" not in peer
    for row in results:
        if "error" in row:
            print(f"{row['scenario']}: FAILED: {row['error']}")
            ok = False
            continue
        row["load"] = f"{row['load_avg']:.2f}"
        min_ratio, limit_mb = TARGETS.get(row["scenario"], (None, None))
        parts = []
        verdict = []
        if min_ratio is not None:
            parts.append(f"≥ {min_ratio:.0f}x openmed")
            if peer_ok and peer is not None:
                wall = peer["median_s"] / row["median_s"]
                cpu = peer["cpu_median_s"] / row["cpu_median_s"]
                row["ratio"] = f"{wall:.1f}x (CPU {cpu:.1f}x)"
                verdict.append(wall >= min_ratio)
        if limit_mb is not None:
            parts.append(f"≤ {limit_mb:.0f} MB")
            verdict.append(row["peak_rss_mb"] * 1.048576 <= limit_mb)
        row["target"] = ", ".join(parts) or "-"
        row["verdict"] = ("met" if all(verdict) else "NOT met") if verdict else "-"
        if min_ratio is not None and not peer_ok:
            row["verdict"] += " (no openmed run: ratio not checked)"
    print_table(
        results,
        title="citelens.support at the full bounds (load → metrics → JSON + MD)",
        columns=(
            *MEASURED_COLUMNS,
            ("ratio", "openmed / this"),
            ("load", "load avg"),
            ("target", "target"),
            ("verdict", "verdict"),
        ),
    )
    print(f"uptime load averages at the end: {os.getloadavg()}")
    loads = [row.get("load_avg", 0.0) for row in results if "error" not in row]
    if loads and max(loads) > 2.5:
        print(
            f"\nnote: 1-minute load average up to {max(loads):.1f} on this machine during the "
            "runs; wall times include waiting for a core (compare the CPU column)."
        )

    by_name = {row["scenario"]: row for row in results if "error" not in row}
    parquet = by_name.get("citelens-parquet")
    records = by_name.get("citelens-records")
    if parquet and records:
        same = parquet["extra"]["json_sha256"] == records["extra"]["json_sha256"]
        print(f"\nParquet and records reports byte-identical (JSON): {same}")
        ok = ok and same
    if peer and "error" not in peer and records:
        ratio = peer["median_s"] / records["median_s"]
        print(
            f"openmed 3.1.0 / citelens on the same records: {ratio:.1f}x "
            f"({peer['median_s']:.2f} s vs {records['median_s']:.3f} s; "
            f"peak RSS {peer['peak_rss_mb']:.0f} vs {records['peak_rss_mb']:.0f} MiB)"
        )
        if parquet:
            print(
                f"openmed 3.1.0 / citelens from Parquet: "
                f"{peer['median_s'] / parquet['median_s']:.1f}x"
            )
        difference = _first_difference(records["extra"]["values"], peer["extra"]["values"])
        same_md = records["extra"]["markdown_sha256"] == peer["extra"]["markdown_sha256"]
        if difference is None and same_md:
            print("every report value except the provenance digests equals openmed's: True")
        else:
            print(f"report values differ from openmed's: {difference or 'Markdown differs'}")
            ok = False
    if records:
        values = records["extra"]["values"]
        det = values["deterministic_span_checks"]
        adj = values["clinician_adjudication"]
        print(
            f"\nreport: {values['claim_count']} claims, {values['evidence_count']} evidence, "
            f"{values['citation_count']} edges ({det['duplicate_citation_count']} duplicates), "
            f"invalid reasons {det['invalid_citation_reasons']}, "
            f"{adj['unmatched_adjudication_count']} unmatched and "
            f"{adj['conflicting_adjudication_count']} conflicting adjudications"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    raise SystemExit(main())
