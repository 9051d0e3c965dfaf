"""Gold harness benchmarks: citation detection throughput and whole runs (median of 5, peak RSS).

Run: ``.venv/bin/python benchmarks/bench_gold.py``. Each scenario runs in a fresh subprocess.
The issue names no timing targets for the gold harness; these figures are informative.
openmed 3.1.0 exposes no citation-detection or gold-harness API, so there is no peer column.
"""

from __future__ import annotations

import io
import pathlib
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _common import child_main, is_child, print_table, run_child

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / ".data"
N_TEXTS = 20_000

_TEMPLATES = (
    "Drug {w} lowered blood pressure versus placebo.{a},{b}",
    "The fund lagged its benchmark in {y} [{a}].",
    "Caps rarely cover negligence ({n} et al., {y}).",
    "Adults aged{a}-{b} years were enrolled in {y}.",
    "Response rates were higher with treatment ({a},{b}).",
    "{n} and Chen ({y}) reported durable effects.",
    "The margin was {a}.{b} percent in the quarter.",
)


def _texts() -> list[str]:
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / "gold-texts.txt"
    if not path.exists():
        rng = random.Random(7)
        lines = []
        for _ in range(N_TEXTS):
            template = rng.choice(_TEMPLATES)
            lines.append(
                template.format(
                    w=rng.choice("ABCXYZ"),
                    a=rng.randint(1, 40),
                    b=rng.randint(41, 90),
                    y=rng.randint(1990, 2024),
                    n=rng.choice(("Okafor", "Smith", "Lindqvist", "Marsh")),
                )
            )
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path.read_text(encoding="utf-8").splitlines()


def setup_detect(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    from citelens.gold import detect_citations

    texts = _texts()
    extra["texts"] = len(texts)

    def work() -> object:
        return [detect_citations(t) for t in texts]

    return work


def _run(online: bool, datasets: str | None) -> Callable[[], object]:
    from citelens.gold import run

    results = tempfile.mkdtemp(prefix="gold-bench-", dir=DATA)

    def work() -> object:
        return run(
            online=online,
            datasets=datasets,
            results=results,
            env={"CITELENS_EVAL_SHA": "abcdef1"},
            stdout=io.StringIO(),
        )

    return work


def setup_offline(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    DATA.mkdir(parents=True, exist_ok=True)
    return _run(False, None)


def setup_online(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    DATA.mkdir(parents=True, exist_ok=True)
    return _run(True, None)


def setup_opengate_online(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    DATA.mkdir(parents=True, exist_ok=True)
    shared = ROOT.parent / "shared" / "data" / "opengate" / "datasets"
    return _run(True, str(shared))


SCENARIOS = {
    "detect_citations x20k": setup_detect,
    "run offline (bundled)": setup_offline,
    "run online lexical (bundled)": setup_online,
    "run online lexical (OpenGATE 39 cases)": setup_opengate_online,
}

if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    rows = []
    for name in SCENARIOS:
        if "OpenGATE" in name and not (ROOT.parent / "shared" / "data" / "opengate").exists():
            continue
        rows.append(run_child(__file__, name, runs=5, timeout=600))
    print_table(rows, title="gold")
    try:
        import openmed  # noqa: F401

        print("\nopenmed 3.1.0: importable, but it has no citation-detection or gold-harness API;")
        print("no side-by-side ratio is printed.")
    except ImportError:
        print("\nopenmed not installed: peer comparison skipped.")
