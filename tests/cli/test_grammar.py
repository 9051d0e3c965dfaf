"""One CLI grammar (issue 11, item 4): ``--ci`` makes a check fail the run on every command
with a check, the old flag names are hidden aliases of it, and every exit 1 prints exactly one
stderr line, ``citelens: <check> gate failed: <reasons>``, naming the check and why.

Canary identifiers are planted in the inputs: no stderr line may show them.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.cli import main

CANARY = "CANARY-9b1e"
REVIEW_SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples" / "review"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert CANARY not in err
    return code, out, err


def _jsonl(path: pathlib.Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _assert_ci_and_alias(
    argv: list[str], alias: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the flag exit 0 and a quiet stderr; with --ci or its old name exit 1 and
    exactly ``line`` on stderr."""
    code, _, err = _run(argv, capsys)
    assert (code, err) == (0, "")
    for flag in ("--ci", alias):
        code, _, err = _run([*argv, flag], capsys)
        assert (code, err) == (1, line + "\n"), flag


# ------------------------------------------------------------ single-document commands


def test_support(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # one claim with no citation edge: nothing measured is not a pass
    claims = _jsonl(tmp_path / "claims.jsonl", [{"claim_id": f"c-{CANARY}", "start": 0, "end": 4}])
    evidence = _jsonl(
        tmp_path / "evidence.jsonl",
        [{"evidence_id": f"e-{CANARY}", "start": 0, "end": 4, "source_length": 9}],
    )
    argv = ["support", "--claims", claims, "--evidence", evidence, "--json", str(tmp_path / "r")]
    line = "citelens: citation-support gate failed: no citations evaluated"
    _assert_ci_and_alias(argv, "--strict", line, capsys)


def test_summary_citations(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # valid evidence and no claim: the report passes, the gate does not (nothing measured)
    claims = _jsonl(tmp_path / "claims.jsonl", [])
    evidence = _jsonl(
        tmp_path / "evidence.jsonl",
        [{"evidence_id": f"e-{CANARY}", "start": 0, "end": 4, "source_length": 9}],
    )
    argv = ["summary-citations", "--claims", claims, "--evidence", evidence]
    argv += ["--json", str(tmp_path / "r.json")]
    line = "citelens: summary citation-consistency gate failed: no claims evaluated"
    _assert_ci_and_alias(argv, "--gate", line, capsys)


def test_minimality(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    claim = "sha256:" + "b" * 64
    source = tmp_path / "source.txt"
    source.write_text(f"alpha beta {CANARY}", encoding="utf-8")
    # "alpha beta" is [0, 10); the citation [0, 10) has one token more than "alpha" [0, 5)
    argv = [
        "minimality",
        "--source",
        str(source),
        "--claims",
        _jsonl(tmp_path / "claims.jsonl", [{"claim_id": claim, "required_span": [0, 5]}]),
        "--citations",
        _jsonl(tmp_path / "citations.jsonl", [{"claim_id": claim, "start": 0, "end": 10}]),
        "--json",
        str(tmp_path / "r.json"),
    ]
    line = "citelens: citation minimality gate failed: excess_context"
    _assert_ci_and_alias(argv, "--fail-on-flagged", line, capsys)


# --------------------------------------------------------------------------- corpus modes


def _corpus_argv(mode: str, folder: pathlib.Path, tmp_path: pathlib.Path) -> list[str]:
    # --no-progress: the phase lines off a terminal are progress, not the failure line
    return ["corpus", mode, str(folder), "--out", str(tmp_path / "out"), "--no-progress"]


def test_corpus_support(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _jsonl(folder / "claims.jsonl", [])
    _jsonl(
        folder / "evidence.jsonl",
        [{"document_ref": f"d-{CANARY}", "evidence_id": "e", "start": 0, "end": 3}],
    )
    line = (
        "citelens: corpus citation-support gate failed: no claims evaluated, no citations evaluated"
    )
    _assert_ci_and_alias(_corpus_argv("support", folder, tmp_path), "--strict", line, capsys)


def test_corpus_summary_citations(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _jsonl(folder / "claims.jsonl", [])
    _jsonl(
        folder / "evidence.jsonl",
        [
            {
                "document_ref": f"d-{CANARY}",
                "evidence_id": "e",
                "start": 0,
                "end": 3,
                "source_length": 9,
            }
        ],
    )
    line = "citelens: corpus summary citation-consistency gate failed: no claims evaluated"
    argv = _corpus_argv("summary-citations", folder, tmp_path)
    _assert_ci_and_alias(argv, "--strict", line, capsys)


def test_corpus_minimality(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # one document with a claim and no citation: nothing measured is not a pass
    ref = "sha256:" + "c" * 64
    claim = "sha256:" + "d" * 64
    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(
        pa.table({"document_ref": [ref], "source_text": [f"alpha {CANARY}"]}),
        folder / "documents.parquet",
    )
    pq.write_table(
        pa.table({"document_ref": [ref], "claim_id": [claim], "start": [0], "end": [5]}),
        folder / "claims.parquet",
    )
    empty = pa.table(
        {
            "document_ref": pa.array([], pa.string()),
            "claim_id": pa.array([], pa.string()),
            "start": pa.array([], pa.int64()),
            "end": pa.array([], pa.int64()),
        }
    )
    pq.write_table(empty, folder / "citations.parquet")
    line = "citelens: corpus citation minimality gate failed: no citations evaluated"
    argv = _corpus_argv("minimality", folder, tmp_path)
    _assert_ci_and_alias(argv, "--strict", line, capsys)


# --------------------------------------------------------------------------------- review


@pytest.fixture
def review(tmp_path: pathlib.Path) -> pathlib.Path:
    for path in REVIEW_SAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _artifacts(work: pathlib.Path) -> list[str]:
    return [
        "--claims",
        str(work / "claims.json"),
        "--evidence",
        str(work / "evidence.json"),
        "--summary",
        str(work / "summary.txt"),
        "--source",
        str(work / "source.txt"),
    ]


def test_review_gate(review: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["review", "gate", *_artifacts(review)]
    argv += ["--thresholds", str(review / "thresholds.json")]
    argv += ["--protected-surfaces", str(review / "protected_surfaces.json")]
    argv += ["--required-spans", str(review / "required_spans.json")]
    # no review imported: support has no reviewer evidence (missing_adjudication); the other
    # checks pass. The gate always checks: --ci is accepted and changes nothing.
    line = "citelens: review gate failed: summary_citation_support (missing_adjudication)\n"
    for extra in ([], ["--ci"]):
        code, out, err = _run([*argv, *extra], capsys)
        assert (code, err) == (1, line)
        failing = [c["gate"] for c in json.loads(out)["checks"] if not c["passed"]]
        assert failing == ["summary_citation_support"]


def _export(review: pathlib.Path, kind: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Render and export the sample review; the import options of the sealed result."""
    out = review / "out"
    code, _, err = _run(
        ["review", "render", str(review / "setup.json"), "--key-file",
         str(review / "demo-key.txt"), "--packets-out", str(out / "packets.json"),
         "--mapping-out", str(out / "mapping.json")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    code, _, err = _run(
        ["review", "export", "--packets", str(out / "packets.json"), "--mapping",
         str(out / "mapping.json"), "--key-file", str(review / "demo-key.txt"), "--bindings",
         str(review / "bindings.json"), *_artifacts(review), "--evidence-kind", kind,
         "--sealed-out", str(out / "sealed.json"), "--request-out", str(out / "request.json")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    return ["--sealed", str(out / "sealed.json"), "--key-file", str(review / "demo-key.txt"),
            "--minimum-cell-size", "2", *_artifacts(review)]  # fmt: skip


def test_review_import_synthetic(review: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = _export(review, "synthetic", capsys)
    # the complete return, re-bound to this synthetic request: complete, but synthetic
    # evidence never counts as reviewer evidence
    document = json.loads((review / "returned-complete.json").read_text())
    document["evidence_kind"] = "synthetic"
    request = json.loads((review / "out" / "request.json").read_text())
    document["request_digest"] = request["request_digest"]
    returned = review / "synthetic.json"
    returned.write_text(json.dumps(document))
    for extra in ([], ["--ci"]):
        code, stdout, err = _run(["review", "import", str(returned), *options, *extra], capsys)
        assert (code, err) == (1, "citelens: review import gate failed: synthetic_review\n")
        assert json.loads(stdout)["reviewer_evidence_available"] is False


def test_review_import_disputed(review: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = _export(review, "reviewer", capsys)
    # returned-disputed.json: the two reviewers of one edge disagree (supports / irrelevant),
    # so that edge is disputed and its citation stays unadjudicated
    returned = str(review / "returned-disputed.json")
    code, _, err = _run(["review", "import", returned, *options], capsys)
    line = "citelens: review import gate failed: disputed edges, unadjudicated citations\n"
    assert (code, err) == (1, line)
    # the complete return passes: exit 0, nothing on stderr
    returned = str(review / "returned-complete.json")
    assert _run(["review", "import", returned, *options, "--ci"], capsys)[::2] == (0, "")


# ----------------------------------------------------------------------------------- gold

FAILING_ADAPTER = """
meta = {"name": "failing"}

def online_available():
    return True

def online_config_hint():
    return "nothing to configure"

def analyze_batch(payload):
    raise ConnectionError("system unreachable")
"""


def test_gold_run(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("CITELENS_ADAPTER", "CITELENS_DATASETS", "CITELENS_RESULTS", "CITELENS_EVAL_SHA"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "failing.py").write_text(FAILING_ADAPTER, encoding="utf-8")
    case = {
        "id": "c1",
        "goldClaims": [{"originalText": "Alpha one.1", "text": "Alpha one", "citations": [1]}],
        "references": {"1": {"name": "R1", "text": "Alpha one is shown."}},
        "goldVerdicts": [{"claimText": "Alpha one", "citation": 1, "verdict": "strong_support"}],
    }
    (tmp_path / "ds" / "cases").mkdir(parents=True)
    (tmp_path / "ds" / "cases" / "c1.json").write_text(json.dumps(case), encoding="utf-8")
    argv = ["gold", "run", "--datasets", "ds", "--adapter", "failing.py", "--online"]
    # without --ci the failing run still exits 0 (report mode) and adds no stderr line
    code, _, err = _run(argv, capsys)
    assert (code, err) == (0, "")
    code, out, err = _run([*argv, "--ci"], capsys)
    # every call fails: verdict-accuracy FAILs (1 scorer failure) and its three rates
    # (verdict_exact, verdict_adjacency, hallucination_rate) are unmeasured; no baseline
    counts = "1 scorer failure(s), 0 regression(s), 3 unmeasured"
    assert code == 1
    # the console (stdout) says it in its own words; stderr holds the one failure line
    assert out.rstrip().endswith(f"gate: FAIL — {counts}")
    assert err == f"citelens: gold gate failed: {counts}\n"
