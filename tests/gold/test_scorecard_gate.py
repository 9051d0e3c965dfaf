"""Scorecards, history, baselines and the ``--ci`` gate round trip (§9.5–§9.9)."""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
from typing import Any

import duckdb
import polars as pl
import pyarrow.dataset as pads
import pytest

from citelens.cli import main
from citelens.gold import HISTORY_SCHEMA, baseline_file_name, history_view_sql, run
from citelens.gold._run import _scorecard_path

from ._helpers import write_case

TUNABLE = """
import os
meta = {"name": "tunable"}

def online_available():
    return os.environ.get("TUNE") != "down"

def online_config_hint():
    return "set TUNE"

def analyze_batch(payload):
    mode = os.environ.get("TUNE", "base")
    claim = payload["claims"][0]
    doc = payload["documents"][0]["name"]
    if mode == "fail":
        raise ConnectionError("system unreachable")
    truth = "strong_support" if claim.startswith("Alpha") else "not_supported"
    verdict = {"base": "strong_support", "better": truth, "nopassages": truth,
               "worse": "contradicted"}[mode]
    if claim.startswith("Alpha"):
        quote = "Alpha"
    else:
        quote = "zzz" if mode in ("base", "worse") else "Unrelated"
    passages = [] if mode == "nopassages" else [quote]
    return {"claims": [{"individual_analyses": [
        {"document_name": doc, "verdict": verdict, "passages": passages}]}]}
"""


@pytest.fixture
def world(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.chdir(tmp_path)
    for name in (
        "CITELENS_ADAPTER",
        "CITELENS_DATASETS",
        "CITELENS_RESULTS",
        "CITELENS_EVAL_REPEATS",
        "CITELENS_EVAL_SHA",
    ):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "tunable.py").write_text(TUNABLE, encoding="utf-8")
    write_case(
        tmp_path / "ds",
        "c1.json",
        {
            "id": "c1",
            "goldClaims": [{"originalText": "Alpha one.1", "text": "Alpha one", "citations": [1]}],
            "references": {
                "1": {"name": "R1", "text": "Alpha one is shown."},
                "2": {"name": "R2", "text": "Unrelated text."},
            },
            "goldVerdicts": [
                {"claimText": "Alpha one", "citation": 1, "verdict": "strong_support"},
                {"claimText": "Epsilon two", "citation": 2, "verdict": "not_supported"},
            ],
        },
    )
    return tmp_path


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str, *args: str
) -> tuple[int, str, dict[str, Any]]:
    monkeypatch.setenv("TUNE", mode)
    code = main(["gold", "run", "--datasets", "ds", "--adapter", "tunable.py", *args])
    out, err = capsys.readouterr()
    cards = sorted(pathlib.Path("results").glob("2*.json"))
    card = json.loads(cards[-1].read_text(encoding="utf-8")) if cards else {}
    return code, out + err, card


def test_ci_round_trip(
    world: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, card = _run(monkeypatch, capsys, "base", "--online", "--baseline", "--ci")
    assert code == 0 and "  baseline saved: results/baseline.tunable.json" in out
    baseline = json.loads(pathlib.Path("results/baseline.tunable.json").read_text())
    assert "gate" not in baseline
    assert all("detail" not in entry for entry in baseline["results"])
    va = next(e for e in baseline["results"] if e["id"] == "verdict-accuracy")
    # base: exact 1/2, adjacency 1/2, hallucination 1/2 (the Epsilon quote "zzz")
    assert va["metrics"]["verdict_exact"] == 0.5 and va["metrics"]["hallucination_rate"] == 0.5
    assert card["gate"]["baseline"] is None and card["gate"]["comparisons"] == []

    # improved: exact 1/2 → 1 and hallucination 1/2 → 0 (lower is better: falling passes)
    code, out, card = _run(monkeypatch, capsys, "better", "--online", "--ci")
    assert code == 0, out
    assert "      verdict-accuracy.verdict_exact           ▲ +50.00pp  improved" in out
    assert "      verdict-accuracy.hallucination_rate      ▼ -50.00pp  improved" in out
    assert out.rstrip().endswith("gate: PASS")
    comps = {c["metric"]: c for c in card["gate"]["comparisons"]}
    assert comps["hallucination_rate"]["direction"] == "lower"
    assert comps["hallucination_rate"]["delta"] == -0.5
    assert comps["n_verdicts"]["status"] == "unchanged"

    # regressed: exact 1/2 → 0
    code, out, card = _run(monkeypatch, capsys, "worse", "--online", "--ci")
    assert code == 1
    assert "      verdict-accuracy.verdict_exact           ▼ -50.00pp  REGRESSION" in out
    # the console's gate line (stdout), then the one stderr line of a failed check (issue 11)
    assert out.rstrip().endswith(
        "gate: FAIL — 0 scorer failure(s), 1 regression(s), 0 unmeasured\n"
        "citelens: gold gate failed: 0 scorer failure(s), 1 regression(s), 0 unmeasured"
    )
    assert card["gate"]["passed"] is False and card["gate"]["regressions"] == 1
    # the same drop within a tolerance passes
    code, out, _ = _run(
        monkeypatch,
        capsys,
        "worse",
        "--online",
        "--ci",
        "--tolerance",
        "verdict-accuracy.verdict_exact=0.5",
    )
    assert code == 0 and "worse (within tolerance 0.5)" in out
    # without --ci the run reports but exits 0
    code, out, _ = _run(monkeypatch, capsys, "worse", "--online")
    assert code == 0
    assert out.rstrip().endswith(
        "gate: not enforced (pass --ci to enforce) — would fail: "
        "0 scorer failure(s), 1 regression(s), 0 unmeasured"
    )

    # unmeasured: no passage quoted → hallucination_rate null
    code, out, card = _run(monkeypatch, capsys, "nopassages", "--online", "--ci")
    assert code == 1
    assert "      verdict-accuracy.hallucination_rate      unmeasured  UNMEASURED" in out
    assert card["gate"]["unmeasured"] == 1 and card["gate"]["scorer_failures"] == 0
    # ... unless the metric is switched off
    code, _, _ = _run(
        monkeypatch,
        capsys,
        "nopassages",
        "--online",
        "--ci",
        "--tolerance",
        "hallucination_rate=off",
    )
    assert code == 0

    # every call failing: failures and unmeasured, never zeros
    code, out, card = _run(monkeypatch, capsys, "fail", "--online", "--ci")
    va = next(e for e in card["results"] if e["id"] == "verdict-accuracy")
    assert code == 1 and va["metrics"]["verdict_exact"] is None
    assert card["gate"]["unmeasured"] == 3 and card["gate"]["scorer_failures"] == 1

    # unreachable system: the skipped scorer counts as unmeasured
    code, out, card = _run(monkeypatch, capsys, "down", "--online", "--ci")
    assert code == 1 and "SKIPPED — set TUNE" in out and card["gate"]["unmeasured"] == 1

    # an offline run against the online baseline is legitimate
    code, out, card = _run(monkeypatch, capsys, "base", "--ci")
    assert code == 0 and card["gate"]["unmeasured"] == 0

    # an offline --baseline keeps the online entries
    previous = baseline["run_id"]
    _run(monkeypatch, capsys, "base", "--baseline")
    refreshed = json.loads(pathlib.Path("results/baseline.tunable.json").read_text())
    va = next(e for e in refreshed["results"] if e["id"] == "verdict-accuracy")
    assert va["status"] == "passed" and va["carried_from"] == previous
    assert va["metrics"]["verdict_exact"] == 0.5


def test_dataset_change_note(
    world: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, capsys, "base", "--online", "--baseline")
    write_case(world / "ds", "c2.json", {"id": "c2"})
    _, out, card = _run(monkeypatch, capsys, "base", "--online")
    assert "  note: dataset changed since the baseline" in out
    assert card["gate"]["dataset_changed"] is True


def test_scorecard_schema_and_history(
    world: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CITELENS_EVAL_SHA", "ABCDEF1234")
    code, _, card = _run(monkeypatch, capsys, "base", "--online", "--repeats", "2")
    assert code == 0
    assert list(card) == [
        "schema",
        "run_id",
        "timestamp",
        "citelens_version",
        "evaluated",
        "adapter",
        "run_model",
        "online",
        "repeats",
        "cases",
        "case_count",
        "dataset_digest",
        "duration_s",
        "results",
        "gate",
    ]
    assert card["evaluated"] == {"sha": "ABCDEF1234", "dirty": None, "source": "env"}
    assert card["adapter"] == {
        "name": "tunable",
        "spec": "tunable.py",
        "capabilities": ["verdicts"],
    }
    assert card["timestamp"].endswith("Z") and card["run_id"][10] == "T"
    skipped = card["results"][1]
    assert set(skipped) == {"id", "mode", "status", "skip_code", "reason"}
    path = pathlib.Path("results") / f"{card['run_id']}.json"
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "schema": "citelens.gold.scorecard/1",') and text.endswith("}\n")
    hist = pathlib.Path("results/history") / f"{card['run_id']}.parquet"
    rows = duckdb.sql(
        f"SELECT scorer, scorer_status, metric, value, kind, direction, repeats, is_baseline "
        f"FROM read_parquet('{hist}')"
    ).fetchall()
    assert rows[0][:2] == ("citation-detection", "passed")
    assert ("claim-extraction", "skipped", None, None, None, None, 2, False) in rows
    consistency = [r for r in rows if r[2] == "consistency"]
    assert consistency[0][3] == 1.0 and consistency[0][5] == "higher"
    assert pl.scan_parquet(str(hist)).collect().height == len(rows)
    table = pads.dataset(str(hist.parent)).to_table()
    assert table.schema.equals(HISTORY_SCHEMA)
    view = history_view_sql("results")
    con = duckdb.connect()
    con.execute(view or "")
    assert con.execute("SELECT count(*) FROM gold_history").fetchall()[0][0] == len(rows)
    assert history_view_sql(world / "nowhere") is None


def test_unrounded_history_values(
    world: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_case(
        world / "ds",
        "c3.json",
        {
            "id": "c3",
            "references": {"1": {"name": "R", "text": "t"}},
            "goldVerdicts": [{"claimText": "Alpha z", "citation": 1, "verdict": "overclaim"}],
        },
    )
    _, _, card = _run(monkeypatch, capsys, "better", "--online")
    va = next(e for e in card["results"] if e["id"] == "verdict-accuracy")
    assert va["metrics"]["verdict_exact"] == 0.6667  # 2/3 rounded in the scorecard
    hist = pathlib.Path("results/history") / f"{card['run_id']}.parquet"
    value = duckdb.sql(
        f"SELECT value FROM read_parquet('{hist}') WHERE metric = 'verdict_exact'"
    ).fetchall()[0][0]
    assert abs(value - 2 / 3) < 1e-12


def test_file_name_collision_suffix(tmp_path: pathlib.Path) -> None:
    (tmp_path / "2026-01-01T00-00-00-000Z.json").write_text("{}")
    (tmp_path / "2026-01-01T00-00-00-000Z-2.json").write_text("{}")
    path, run_id = _scorecard_path(tmp_path, "2026-01-01T00-00-00-000Z")
    assert run_id == "2026-01-01T00-00-00-000Z-3" and path.name == run_id + ".json"
    assert baseline_file_name("My System/v2") == "baseline.my-system-v2.json"
    assert baseline_file_name("***") == "baseline.default.json"


def _git(repo: pathlib.Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def test_evaluated_sha_from_git_and_none_outside(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CITELENS_EVAL_SHA", raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "file.txt").write_text("x")
    _git(repo, "add", "file.txt")
    _git(repo, "commit", "-q", "-m", "init")
    head = _git(repo, "rev-parse", "HEAD")
    monkeypatch.chdir(repo)
    card = run(results=tmp_path / "r1", stdout=io.StringIO()).scorecard
    assert card["evaluated"] == {"sha": head, "dirty": False, "source": "git"}
    (repo / "file.txt").write_text("changed")
    assert run(results=tmp_path / "r2", stdout=io.StringIO()).scorecard["evaluated"]["dirty"]
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    card = run(results=tmp_path / "r3", stdout=io.StringIO()).scorecard
    assert card["evaluated"] == {"sha": None, "dirty": None, "source": "none"}
    out = io.StringIO()
    run(results=tmp_path / "r4", stdout=out, repo=repo)
    assert f"sha={head[:12]}," in out.getvalue()
