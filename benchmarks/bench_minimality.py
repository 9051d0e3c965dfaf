"""Benchmarks for citelens.minimality (issue 3).

Scenarios (each measured in a fresh subprocess: median of 5 runs + peak RSS of that process):

  a       4,096 claims + 4,096 citations (typed records) over a 1 MB source; target <= 0.3 s
  a-dict  the same inputs as plain dicts (informational; the target is stated for (a))
  b       batch: 1,000 documents of 10 kB, 1,000,000 claims + 1,000,000 citations (split
          form, Arrow tables read from Parquet); target <= 10 s and <= 2 GB peak RSS
  c-clean batch: 20,000 small documents, 60,000 claims + 60,000 citations (split form, Arrow
          tables in memory), every document valid
  c-dirty the same with 5 % of the documents defective (one bad claim id each); target: at
          most 1.5 x the c-clean time (defective documents are flagged in the same pass)

The peer implementation openmed 3.1.0 (pure Python), when importable, runs scenario (a) ONCE
(it takes about 100 s there), and its JSON report is compared byte for byte with citelens's.
Generated data lives in benchmarks/.data/ (git-ignored).

Usage: .venv/bin/python benchmarks/bench_minimality.py [--skip-openmed] [--only a,b,c-clean,c-dirty]
"""

from __future__ import annotations

import argparse
import hashlib
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
DATA = HERE / ".data" / "minimality"
RUNS = 5
WORDS = [
    "patient",
    "admitted",
    "with",
    "community-acquired",
    "pneumonia",
    "treated",
    "amoxicillin",
    "500",
    "mg",
    "daily",
    "blood",
    "pressure",
    "150/95",
    "mmHg",
    "HbA1c",
    "7.2%",
    "metformin",
    "continued",
    "follow-up",
    "chest",
    "X-ray",
    "weeks",
    "no",
    "allergies",
    "recorded",
    "café",
    "naïve",
    "患者",
    "高血压",
    "résumé",
    "O'Brien",
    "don't",
    "e-mail",
    "3.5mg,",
    "(see)",
    "😀",
]


def ref(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


def make_text(seed: int, size: int) -> str:
    import random

    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        word = rng.choice(WORDS)
        parts.append(word)
        total += len(word) + 1
    text = " ".join(parts)[:size]
    return text


def spans_for(
    text: str, count: int, seed: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Required spans on word boundaries and citation spans that cover, widen or miss them."""
    import random

    import numpy as np

    from citelens.minimality._tokenize import token_arrays

    rng = random.Random(seed)
    tok_start, tok_end = token_arrays(text)
    n = tok_start.size
    required: list[tuple[int, int]] = []
    cited: list[tuple[int, int]] = []
    for _ in range(count):
        first = rng.randrange(0, n - 40)
        last = first + rng.randrange(0, 8)
        rs, re_ = int(tok_start[first]), int(tok_end[last])
        required.append((rs, re_))
        kind = rng.random()
        if kind < 0.3:
            cited.append((rs, re_))
        elif kind < 0.85:
            left = max(0, first - rng.randrange(0, 6))
            right = min(n - 1, last + rng.randrange(0, 12))
            cited.append((int(tok_start[left]), int(tok_end[right])))
        else:
            cited.append((int(tok_start[first + 1]), int(tok_end[last + 20])))
    del np
    return required, cited


def prepare_a() -> pathlib.Path:
    path = DATA / "a.json"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    text = make_text(1, 1_000_000)
    required, cited = spans_for(text, 4096, 2)
    payload = {"text": text, "required": required, "cited": cited}
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def prepare_b() -> pathlib.Path:
    folder = DATA / "b"
    if (folder / "citations.parquet").exists():
        return folder
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from citelens.minimality._tokenize import token_arrays

    folder.mkdir(parents=True, exist_ok=True)
    docs, per_doc = 1000, 1000
    rng = np.random.default_rng(3)
    refs = [ref(f"document-{d}") for d in range(docs)]
    texts = [make_text(100 + d, 10_000) for d in range(docs)]
    claim_ids = np.array([ref(f"claim-{i}") for i in range(per_doc)], dtype=object)
    citation_ids = np.array([ref(f"citation-{i}") for i in range(per_doc)], dtype=object)
    cols: dict[str, list[Any]] = {k: [] for k in ("rs", "re", "cs", "ce")}
    for text in texts:
        tok_start, tok_end = token_arrays(text)
        n = tok_start.size
        first = rng.integers(0, n - 40, per_doc)
        last = first + rng.integers(0, 8, per_doc)
        left = np.maximum(first - rng.integers(0, 6, per_doc), 0)
        right = np.minimum(last + rng.integers(0, 12, per_doc), n - 1)
        cols["rs"].append(tok_start[first])
        cols["re"].append(tok_end[last])
        cols["cs"].append(tok_start[left])
        cols["ce"].append(tok_end[right])
    doc_col = pa.array(np.repeat(np.array(refs, dtype=object), per_doc), pa.string())
    pq.write_table(
        pa.table({"document_ref": refs, "source_text": texts}), folder / "documents.parquet"
    )
    pq.write_table(
        pa.table(
            {
                "document_ref": doc_col,
                "claim_id": pa.array(np.tile(claim_ids, docs), pa.string()),
                "start": np.concatenate(cols["rs"]),
                "end": np.concatenate(cols["re"]),
            }
        ),
        folder / "claims.parquet",
    )
    pq.write_table(
        pa.table(
            {
                "document_ref": doc_col,
                "claim_id": pa.array(np.tile(claim_ids, docs), pa.string()),
                "citation_id": pa.array(np.tile(citation_ids, docs), pa.string()),
                "start": np.concatenate(cols["cs"]),
                "end": np.concatenate(cols["ce"]),
            }
        ),
        folder / "citations.parquet",
    )
    return folder


# --------------------------------------------------------------------------- workers


def _inputs_a(module: str, typed: bool) -> tuple[str, list[Any], list[Any]]:
    payload = json.loads((DATA / "a.json").read_text(encoding="utf-8"))
    text = payload["text"]
    if module == "citelens":
        from citelens.minimality import CitationSpan, ClaimCitation
        from citelens.minimality import MinimalityClaim as AtomicClaim
    else:
        from openmed.clinical.citation_minimality import (  # type: ignore[import-not-found]
            AtomicClaim,
            CitationSpan,
            ClaimCitation,
        )
    claims: list[Any] = []
    cites: list[Any] = []
    for i, ((rs, re_), (cs, ce)) in enumerate(
        zip(payload["required"], payload["cited"], strict=True)
    ):
        cid, xid = ref(f"claim-{i}"), ref(f"citation-{i}")
        if typed:
            claims.append(AtomicClaim(claim_id=cid, required_span=CitationSpan(start=rs, end=re_)))
            cites.append(
                ClaimCitation(
                    claim_id=cid, citation_id=xid, source_span=CitationSpan(start=cs, end=ce)
                )
            )
        else:
            claims.append({"claim_id": cid, "required_span": [rs, re_]})
            cites.append({"claim_id": cid, "citation_id": xid, "source_span": [cs, ce]})
    return text, claims, cites


def _inputs_c(defective: float) -> tuple[Any, Any, Any]:
    import random

    import pyarrow as pa

    rng = random.Random(7)
    docs, claims, cites = [], [], []
    for d in range(20_000):
        doc = ref(f"c-doc-{d}")
        docs.append({"document_ref": doc, "source_text": make_text(d, 400)})
        bad = rng.random() < defective
        for c in range(3):
            cid = ref(f"c-claim-{d}-{c}")
            claims.append({"document_ref": doc, "claim_id": "not-opaque" if bad and c == 2 else cid,
                           "start": 0, "end": 40})  # fmt: skip
            cites.append({"document_ref": doc, "claim_id": cid, "citation_id": ref(f"x{d}-{c}"),
                          "start": 0, "end": 80})  # fmt: skip
    return pa.Table.from_pylist(docs), pa.Table.from_pylist(claims), pa.Table.from_pylist(cites)


def worker(scenario: str, runs: int) -> dict[str, Any]:
    times: list[float] = []
    cpu_times: list[float] = []
    digest = ""
    summary: dict[str, Any] = {}
    if scenario in ("a", "a-dict", "a-openmed"):
        module = "openmed" if scenario == "a-openmed" else "citelens"
        text, claims, cites = _inputs_a(module, typed=scenario != "a-dict")
        if module == "citelens":
            from citelens.minimality import check_citation_minimality as check
        else:
            from openmed.clinical.citation_minimality import (  # type: ignore[import-not-found]
                check_citation_minimality as check,
            )
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            report = check(text, claims, cites)
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu)
        out = report.to_json()
        digest = hashlib.sha256(out.encode()).hexdigest()
        summary = {"citations": report.citation_count, "flagged": report.flagged_count}
    elif scenario == "b":
        import pyarrow.parquet as pq

        from citelens.minimality import check_citation_minimality_batch

        folder = DATA / "b"
        documents = pq.read_table(folder / "documents.parquet")
        claims_t = pq.read_table(folder / "claims.parquet")
        cites_t = pq.read_table(folder / "citations.parquet")
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            result = check_citation_minimality_batch(documents, claims_t, cites_t)
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu)
            del result
        result = check_citation_minimality_batch(documents, claims_t, cites_t)
        summary = {
            "citations": result.table.num_rows,
            "documents": result.documents.num_rows,
            "flagged": int(sum(result.documents.column("flagged_count").to_pylist())),
            "errors": result.errors.num_rows,
        }
        one_ref = next(iter(result.reports))
        summary["first_report_records"] = result.reports[one_ref].citation_count
    elif scenario in ("c-clean", "c-dirty"):
        from citelens.minimality import check_citation_minimality_batch

        documents, claims_t, cites_t = _inputs_c(0.05 if scenario == "c-dirty" else 0.0)
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            result = check_citation_minimality_batch(documents, claims_t, cites_t, errors="collect")
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu)
        summary = {"documents": result.documents.num_rows, "errors": result.errors.num_rows}
    else:  # pragma: no cover
        raise SystemExit(2)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "times": times,
        "cpu": cpu_times,
        "peak_mib": peak_kib / 1024,
        "digest": digest,
        **summary,
    }


def run_subprocess(scenario: str, runs: int) -> dict[str, Any]:
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    completed = subprocess.run(
        [sys.executable, __file__, "--worker", scenario, "--runs", str(runs)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stderr[-2000:])
        raise SystemExit(f"scenario {scenario} failed")
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def openmed_available() -> bool:
    probe = subprocess.run(
        [sys.executable, "-c", "import openmed.clinical.citation_minimality"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--skip-openmed", action="store_true", help="do not run the peer")
    parser.add_argument("--only", default="a,a-dict,b", help="comma-separated scenarios")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.runs)))
        return 0
    if args.prepare:
        prepare_a() if args.prepare == "a" else prepare_b()
        return 0

    wanted = args.only.split(",")
    # Data is generated in child processes: Linux keeps a process's peak RSS across fork and
    # exec, so this orchestrator must stay small for the workers' peak RSS to be their own.
    for name, needed in (("a", any(s.startswith("a") for s in wanted)), ("b", "b" in wanted)):
        if needed:
            subprocess.run([sys.executable, __file__, "--prepare", name], check=True)
    rows: list[tuple[str, str, float, float, float, str]] = []
    results: dict[str, dict[str, Any]] = {}
    targets: dict[str, tuple[float, float | None]] = {
        "a": (0.3, None),
        "a-dict": (0.3, None),
        "b": (10.0, 2048.0),
        "c-clean": (float("inf"), None),
        "c-dirty": (float("inf"), None),
    }
    # Medians are wall-clock; the CPU column is this process's user+sys time, a steadier
    # figure on a shared machine.
    for scenario in wanted:
        result = run_subprocess(scenario, RUNS)
        results[scenario] = result
        median = statistics.median(result["times"])
        limit_s, limit_mib = targets[scenario]
        ok = median <= limit_s and (limit_mib is None or result["peak_mib"] <= limit_mib)
        verdict = "met" if ok else "MISSED"
        cpu = statistics.median(result["cpu"])
        rows.append((scenario, "citelens", median, cpu, result["peak_mib"], verdict))

    if "c-clean" in results and "c-dirty" in results:
        ratio_c = statistics.median(results["c-dirty"]["times"]) / statistics.median(
            results["c-clean"]["times"]
        )
        verdict_c = "met" if ratio_c <= 1.5 else "MISSED"
        print(f"c-dirty / c-clean median time: {ratio_c:.2f} (target <= 1.5: {verdict_c})")
    peer_note = "openmed 3.1.0 not importable: peer skipped"
    if "a" in wanted and not args.skip_openmed and openmed_available():
        peer = run_subprocess("a-openmed", 1)  # ~100 s: one run only
        results["a-openmed"] = peer
        seconds = peer["times"][0]
        rows.append(("a", "openmed 3.1.0 (1 run)", seconds, peer["cpu"][0], peer["peak_mib"], "-"))
        ratio = seconds / statistics.median(results["a"]["times"])
        same = peer["digest"] == results["a"]["digest"]
        peer_note = (
            f"openmed/citelens time ratio on (a): {ratio:,.0f}x; "
            f"JSON reports byte-identical: {'yes' if same else 'NO'}"
        )
    elif args.skip_openmed:
        peer_note = "peer skipped (--skip-openmed)"

    head = f"{'scenario':<8} {'implementation':<22} {'median s':>9} {'CPU s':>8} {'peak MiB':>9}"
    print(head + "  target (wall)")
    for scenario, impl, seconds, cpu, peak, verdict in rows:
        print(f"{scenario:<8} {impl:<22} {seconds:>9.3f} {cpu:>8.3f} {peak:>9.0f}  {verdict}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(peer_note)
    for scenario, result in results.items():
        hidden = ("times", "cpu", "peak_mib", "digest")
        extra = {k: v for k, v in result.items() if k not in hidden}
        runs = ", ".join(f"{t:.3f}" for t in result["times"])
        print(f"  {scenario}: runs [{runs}] {extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
