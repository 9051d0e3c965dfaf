"""Benchmarks for citelens.review (issue 6): export and import at the 100,000-row bound.

Scenarios (each measured in a fresh subprocess: median of 5 runs + peak RSS of that process;
inputs are generated in memory, deterministically):

  export        100,000 claim/evidence pairs: 100,000 claims (one citation each), 100,000
                evidence records, 100,000 bindings; 100 cases of 1,000 excerpts, 2 candidates.
                Request: 100,000 review rows.                                 target <= 5 s
  import        the same export; return document with 100,000 decision rows (one reviewer
                per edge: every edge ``incomplete``; every row goes through every check).
                                                                              target <= 5 s
  import-full   50,000 pairs; 100,000 decision rows (two reviewers per edge, all agreeing):
                complete reviewer evidence, agreement report.                 target <= 5 s

Render and verification of the mapping are part of each export (the export verifies it).
Claims carry top-level ``start``/``end`` offsets (the citation-support columnar fast path);
claims written with the nested ``claim_span`` alias go through citation support's record path,
which is several times slower at this size (export and import each call it).
openmed 3.1.0 is not run side by side here: its review export uses its own schema strings,
HMAC domains and citation digests (review.md §2), so outputs are not comparable byte for byte,
and its gate refuses more than 10,000 claims.

Wall-clock medians depend on machine load; the CPU-time median (process time of the run) is
printed too.

Usage: .venv/bin/python benchmarks/bench_review.py [--only export,import,import-full]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

RUNS = 5
KEY = b"bench-review-key-0123456789abcdef"
TARGET_SECONDS = 5.0


def _b36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def build(pairs: int, per_case: int = 1_000) -> dict[str, Any]:
    """Claims, evidence, summary, source, packets and mapping for ``pairs`` edges.

    ``pairs // per_case`` cases of ``per_case`` excerpts each, two candidates per case; the
    evaluated summary is candidate ``system-a`` of every case. Identifiers are short (base 36)
    so that 100,000 rows fit in the 32,000,000-character private JSON (review.md §3.4).
    """
    from citelens.review import (
        ComparisonCase,
        ConflictOfInterest,
        ReviewBinding,
        RubricCriterion,
        SourceEvidence,
        render_blinded_packets,
    )

    ids = [_b36(i) for i in range(pairs)]
    excerpts = [f"finding {i:06d} noted" for i in range(pairs)]
    source = " ".join(excerpts)
    starts = []
    position = 0
    for text in excerpts:
        starts.append(position)
        position += len(text) + 1
    summary = "Summary sentence one. Summary sentence two. " * 10
    claims = [
        {
            "claim_id": "c" + ids[i],
            "start": (i % 20) * 2,
            "end": (i % 20) * 2 + 10,
            "citations": ["e" + ids[i]],
        }
        for i in range(pairs)
    ]
    evidence = [
        {"evidence_id": "e" + ids[i], "start": starts[i], "end": starts[i] + len(excerpts[i])}
        for i in range(pairs)
    ]
    cases = [
        ComparisonCase(
            case_ref=f"case-{k}",
            source_evidence=tuple(
                SourceEvidence(evidence_ref="e" + ids[i], content=excerpts[i])
                for i in range(k * per_case, min(pairs, (k + 1) * per_case))
            ),
            candidate_outputs={"system-a": summary, "system-b": f"Another candidate output {k}."},
        )
        for k in range((pairs + per_case - 1) // per_case)
    ]
    packets, mapping = render_blinded_packets(
        packet_set_ref="bench",
        cases=cases,
        rubric=[RubricCriterion("support", "Supported?", 0, 2)],
        conflict_of_interest=ConflictOfInterest("panel", "sha256:" + "b" * 64),
        holdout_commitment_digest="sha256:" + "a" * 64,
        submission_manifest_digests={
            "system-a": "sha256:" + "c" * 64,
            "system-b": "sha256:" + "d" * 64,
        },
        randomization_key=KEY,
    )
    bindings = [
        ReviewBinding(f"case-{i // per_case}", "system-a", "c" + ids[i], "e" + ids[i])
        for i in range(pairs)
    ]
    return {
        "packets": packets,
        "mapping": mapping,
        "sealing_key": KEY,
        "bindings": bindings,
        "claims": claims,
        "evidence": evidence,
        "summary": summary,
        "source": source,
        "rubric_version": 1,
        "evidence_kind": "reviewer",
    }


def returned(request: dict[str, Any], reviewers: int) -> dict[str, Any]:
    """A return document: ``reviewers`` agreeing decisions per edge."""
    refs = [row["review_ref"] for row in request["reviews"]]
    people = ["sha256:" + str(i) * 64 for i in range(2, 2 + reviewers)]
    document = {
        key: request[key]
        for key in (
            "schema_version",
            "request_digest",
            "rubric_version",
            "rubric_digest",
            "evidence_kind",
        )
    }
    document["review_evidence_digest"] = "sha256:" + "1" * 64
    document["decisions"] = [
        {"review_ref": ref, "reviewer_ref": person, "label": "supports", "reason": None}
        for ref in refs
        for person in people
    ]
    document["resolutions"] = []
    return document


def child(scenario: str) -> None:
    """Run one scenario RUNS times in this process and print a JSON line."""
    from citelens.review import export_summary_review, import_summary_review

    pairs = 50_000 if scenario == "import-full" else 100_000
    kwargs = build(pairs)
    times: list[float] = []
    cpu: list[float] = []
    info: dict[str, Any] = {}
    if scenario == "export":
        for _ in range(RUNS):
            began, began_cpu = time.perf_counter(), time.process_time()
            request, sealed = export_summary_review(**kwargs)
            times.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
        info = {
            "review_rows": len(request["reviews"]),
            "private_json_chars": len(sealed.private_json),
        }
    else:
        request, sealed = export_summary_review(**kwargs)
        document = returned(request, 1 if scenario == "import" else 2)
        for _ in range(RUNS):
            began, began_cpu = time.perf_counter(), time.process_time()
            result = import_summary_review(
                document,
                sealed=sealed,
                sealing_key=KEY,
                claims=kwargs["claims"],
                evidence=kwargs["evidence"],
                summary=kwargs["summary"],
                source=kwargs["source"],
            )
            times.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
        info = {
            "decision_rows": len(document["decisions"]),
            "states": dict(result.states),
            "complete": result.complete,
        }
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "scenario": scenario,
                "times": times,
                "cpu": cpu,
                "peak_rss_mb": peak_kb / 1024,
                **info,
            }
        )
    )


def run(scenario: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", scenario],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child")
    parser.add_argument("--only", default="export,import,import-full")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    print(
        f"{'scenario':<12} {'median s':>9} {'min s':>7} {'max s':>7} {'CPU med s':>10} "
        f"{'peak RSS MB':>12}  target"
    )
    for scenario in args.only.split(","):
        result = run(scenario)
        times = result["times"]
        median = statistics.median(times)
        verdict = "ok" if median <= TARGET_SECONDS else "MISSED"
        print(
            f"{scenario:<12} {median:>9.3f} {min(times):>7.3f} {max(times):>7.3f} "
            f"{statistics.median(result['cpu']):>10.3f} "
            f"{result['peak_rss_mb']:>12.0f}  <= {TARGET_SECONDS:.0f} s {verdict}"
        )
        details = {
            k: v for k, v in result.items() if k not in ("times", "cpu", "peak_rss_mb", "scenario")
        }
        print(f"{'':<12} {json.dumps(details, sort_keys=True)}")


if __name__ == "__main__":
    main()
