"""Nothing measured is not a pass (issue 10, item 6): every gate over zero claims, or over zero
citation edges where it measures edges, fails with a fixed, named reason.

The CLI gates exit 1 with one fixed line on stderr; the review gate returns a failing check
with the reason code. Canary identifiers are planted in every input and must appear in no
output. The library functions keep their contract verdicts (the vectors still pass): only the
gate layer refuses an empty measurement.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest

from citelens.cli import main
from citelens.review import evaluate_summary_gate, gate_passed
from citelens.summary_citations import assert_summary_citation_gate

CANARY = "CANARY-7f3a"
CLAIM = f"claim-{CANARY}"
EVIDENCE = f"evidence-{CANARY}"
SOURCE = "alpha beta gamma delta"  # 22 code points; "beta" is [6, 10)
# One claim citing one evidence record, both spans [6, 10) of SOURCE: every check passes.
CLAIM_ROW = {"claim_id": CLAIM, "claim_span": [6, 10], "citations": [EVIDENCE]}
UNCITED_CLAIM_ROW = {"claim_id": CLAIM, "claim_span": [6, 10]}
EVIDENCE_ROW = {"evidence_id": EVIDENCE, "start": 6, "end": 10, "source_length": 22}


def _jsonl(path: pathlib.Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert CANARY not in out + err
    return code, out, err


# --------------------------------------------------------------------------- support --strict

SUPPORT_FAILED = "citelens: citation-support gate failed: "


def test_support_strict_fails_on_empty_claims_and_evidence(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _jsonl(tmp_path / "empty.jsonl", [])  # a 0-byte JSONL file is zero records
    argv = ["support", "--claims", empty, "--evidence", empty, "--json", str(tmp_path / "r.json")]
    # Without --strict the empty report is still written and the run succeeds.
    assert _run(argv, capsys) == (0, "", "")
    # The report's own verdict is the contract's (support-metrics.md §6.4: empty input passes).
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["claim_count"] == 0 and report["deterministic_span_checks"]["passed"] is True
    # The gate does not pass on nothing.
    assert _run([*argv, "--strict"], capsys) == (1, "", SUPPORT_FAILED + "no claims evaluated\n")


def test_support_strict_fails_on_claims_without_citation_edges(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claims = _jsonl(tmp_path / "claims.jsonl", [UNCITED_CLAIM_ROW])
    evidence = _jsonl(tmp_path / "evidence.jsonl", [EVIDENCE_ROW])
    argv = ["support", "--claims", claims, "--evidence", evidence, "--strict"]
    code, out, err = _run([*argv, "--json", str(tmp_path / "r.json")], capsys)
    # Both spans are valid ([6, 10) within 22), so the span checks alone would pass; but the
    # claim cites nothing: zero edges, nothing about citations was measured.
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["deterministic_span_checks"]["passed"] is True
    assert report["deterministic_span_checks"]["citation_count"] == 0
    assert (code, out, err) == (1, "", SUPPORT_FAILED + "no citations evaluated\n")


def test_support_strict_passes_and_names_failing_checks(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence = _jsonl(tmp_path / "evidence.jsonl", [EVIDENCE_ROW])
    good = _jsonl(tmp_path / "good.jsonl", [CLAIM_ROW])
    out_json = str(tmp_path / "r.json")
    base = ["support", "--evidence", evidence, "--strict", "--json", out_json]
    assert _run([*base, "--claims", good], capsys) == (0, "", "")
    # A claim without offsets: its span is missing (one fixed reason, the checks' field name).
    no_span = _jsonl(tmp_path / "nospan.jsonl", [{"claim_id": CLAIM, "citations": [EVIDENCE]}])
    assert _run([*base, "--claims", no_span], capsys) == (
        1,
        "",
        SUPPORT_FAILED + "missing_claim_span\n",
    )
    # An edge whose cited sub-span [0, 30) lies outside its evidence [6, 10): invalid citation.
    bad = _jsonl(
        tmp_path / "bad.jsonl",
        [{"claim_id": CLAIM, "evidence_id": EVIDENCE, "start": 0, "end": 30}],
    )
    uncited = _jsonl(tmp_path / "uncited.jsonl", [UNCITED_CLAIM_ROW])
    assert _run([*base, "--claims", uncited, "--citations", bad], capsys) == (
        1,
        "",
        SUPPORT_FAILED + "invalid_citation\n",
    )


# --------------------------------------------------------------------- summary-citations --gate

SUMMARY_FAILED = "citelens: summary citation-consistency gate failed: "


def test_summary_citations_gate_fails_on_zero_claims(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _jsonl(tmp_path / "claims.jsonl", [])
    evidence = _jsonl(tmp_path / "evidence.jsonl", [EVIDENCE_ROW])
    argv = ["summary-citations", "--claims", empty, "--evidence", evidence]
    code, out, err = _run(argv, capsys)
    # The report keeps the contract's verdict (summary-citations.md §9.2: zero claims with
    # valid evidence pass, coverage 1.0), and without --gate the run succeeds.
    assert code == 0 and err == ""
    assert "| Coverage | 1.000000 |" in out and "| Verdict | pass |" in out
    # The library gate follows the contract too (vector S029_zero_claims_pass).
    assert assert_summary_citation_gate([], [EVIDENCE_ROW]).metrics.claim_count == 0
    # The CLI gate does not pass on nothing.
    code, out, err = _run([*argv, "--gate"], capsys)
    assert (code, err) == (1, SUMMARY_FAILED + "no claims evaluated\n")


def test_summary_citations_gate_lists_the_empty_reason_first(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _jsonl(tmp_path / "empty.jsonl", [])
    argv = ["summary-citations", "--claims", empty, "--evidence", empty, "--gate"]
    code, _, err = _run([*argv, "--json", str(tmp_path / "r.json")], capsys)
    # No evidence at all adds the report's own code missing_source_evidence (§9.1).
    assert (code, err) == (1, SUMMARY_FAILED + "no claims evaluated, missing_source_evidence\n")
    # One cited claim against valid evidence: the gate passes.
    claims = _jsonl(tmp_path / "claims.jsonl", [{"claim_id": CLAIM, "evidence_id": EVIDENCE}])
    evidence = _jsonl(tmp_path / "evidence.jsonl", [EVIDENCE_ROW])
    argv = ["summary-citations", "--claims", claims, "--evidence", evidence, "--gate"]
    assert _run([*argv, "--json", str(tmp_path / "r.json")], capsys) == (0, "", "")


# ------------------------------------------------------------- minimality --fail-on-flagged

MINIMALITY_FAILED = "citelens: citation minimality gate failed: "
MCLAIM = "sha256:" + "a" * 64


def _minimality_argv(tmp_path: pathlib.Path, claims: list[Any], citations: list[Any]) -> list[str]:
    source = tmp_path / "source.txt"
    source.write_text(SOURCE, encoding="utf-8")
    return [
        "minimality",
        "--source",
        str(source),
        "--claims",
        _jsonl(tmp_path / "claims.jsonl", claims),
        "--citations",
        _jsonl(tmp_path / "citations.jsonl", citations),
        "--json",
        str(tmp_path / "r.json"),
    ]


def test_minimality_gate_fails_on_zero_claims(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _minimality_argv(tmp_path, [], [])
    summary = "citelens minimality: 0 citations, 0 flagged, 0 claims\n"
    assert _run(argv, capsys) == (0, summary, "")
    assert _run([*argv, "--fail-on-flagged"], capsys) == (
        1,
        summary,
        MINIMALITY_FAILED + "no claims evaluated\n",
    )


def test_minimality_gate_fails_on_zero_citations(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _minimality_argv(tmp_path, [{"claim_id": MCLAIM, "required_span": [6, 10]}], [])
    summary = "citelens minimality: 0 citations, 0 flagged, 1 claims\n"
    assert _run([*argv, "--fail-on-flagged"], capsys) == (
        1,
        summary,
        MINIMALITY_FAILED + "no citations evaluated\n",
    )


def test_minimality_gate_names_the_flagged_statuses(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claim = {"claim_id": MCLAIM, "required_span": [6, 10]}
    # [6, 10) is exactly "beta": minimal, the gate passes.
    exact = _minimality_argv(tmp_path, [claim], [{"claim_id": MCLAIM, "start": 6, "end": 10}])
    assert _run([*exact, "--fail-on-flagged"], capsys)[::2] == (0, "")
    # [6, 16) adds " gamma" (one token): excess_context; [7, 9) lies inside "beta" and does not
    # cover [6, 10): missing_required_span. Both statuses are named, in code-point order.
    cites = [
        {"claim_id": MCLAIM, "start": 6, "end": 16},
        {"claim_id": MCLAIM, "start": 7, "end": 9},
    ]
    argv = _minimality_argv(tmp_path, [claim], cites)
    code, out, err = _run([*argv, "--fail-on-flagged"], capsys)
    assert out == "citelens minimality: 2 citations, 2 flagged, 1 claims\n"
    assert (code, err) == (1, MINIMALITY_FAILED + "excess_context, missing_required_span\n")


def test_gate_failure_through_the_console_script(tmp_path: pathlib.Path) -> None:
    # The same refusal in a real process: exit status 1 and the one fixed stderr line.
    empty = _jsonl(tmp_path / "empty.jsonl", [])
    evidence = _jsonl(tmp_path / f"{CANARY}.jsonl", [EVIDENCE_ROW])
    result = subprocess.run(
        [
            *(sys.executable, "-m", "citelens", "summary-citations", "--gate"),
            *("--claims", empty, "--evidence", evidence, "--json", str(tmp_path / "r.json")),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr == SUMMARY_FAILED + "no claims evaluated\n"
    assert result.stdout == "" and CANARY not in result.stdout + result.stderr


# --------------------------------------------------------------------------- review gate

THRESHOLDS = {
    "citation_support_min": 0.0,
    "summary_citation_coverage_min": 0.0,
    "citation_minimality_flagged_max": 0,
    "leaked_identifier_count_max": 0,
}
SUPPORTS = [{"claim_id": CLAIM, "evidence_id": EVIDENCE, "label": "supports"}]


def _gate(claims: list[Any], **extra: Any) -> dict[str, dict[str, Any]]:
    checks = evaluate_summary_gate(
        summary="A short summary.",
        source=SOURCE,
        claims=claims,
        evidence=[EVIDENCE_ROW],
        thresholds=THRESHOLDS,
        protected_surfaces=(),
        adjudications=SUPPORTS,
        **extra,
    )
    assert CANARY not in repr([check.to_dict() for check in checks])
    result = {check.gate: check.to_dict() for check in checks}
    result["__passed__"] = {"passed": gate_passed(checks)}
    return result


def test_review_gate_passes_when_something_is_measured() -> None:
    checks = _gate([CLAIM_ROW], required_spans={CLAIM: (6, 10)})
    assert checks["__passed__"]["passed"] is True
    assert checks["summary_machine_spans"]["reason"] == "machine_span_checks"
    # One claim, one citation [6, 10) equal to its required span: measured, nothing flagged.
    assert checks["summary_citation_minimality"] == {
        "gate": "summary_citation_minimality",
        "passed": True,
        "reason": "measured",
        "details": {"threshold": 0, "value": 0},
    }


def test_review_gate_minimality_over_no_required_span_fails() -> None:
    # required_spans={} enables the minimality check over zero claims: nothing measured.
    checks = _gate([CLAIM_ROW], required_spans={})
    assert checks["summary_citation_minimality"] == {
        "gate": "summary_citation_minimality",
        "passed": False,
        "reason": "no_claims_evaluated",
        "details": {"threshold": 0, "value": 0},
    }
    assert checks["summary_machine_spans"]["passed"] is True
    assert checks["__passed__"]["passed"] is False


def test_review_gate_fails_on_claims_without_edges() -> None:
    checks = _gate([UNCITED_CLAIM_ROW], required_spans={CLAIM: (6, 10)})
    # The span checks themselves pass (claim and evidence spans are valid) but there is no
    # edge: the machine-span check and the minimality check measured nothing.
    machine = checks["summary_machine_spans"]
    assert machine["details"]["passed"] is True and machine["details"]["citation_count"] == 0
    assert (machine["passed"], machine["reason"]) == (False, "no_citations_evaluated")
    minimality = checks["summary_citation_minimality"]
    assert (minimality["passed"], minimality["reason"]) == (False, "no_citations_evaluated")
    assert checks["__passed__"]["passed"] is False


def test_review_gate_empty_claims_still_fail_as_missing_evidence() -> None:
    # review.md §11.2 step 2, unchanged: an empty claim collection is the one failing check.
    checks = _gate([])
    assert list(checks) == ["summary_evidence", "__passed__"]
    assert checks["summary_evidence"]["reason"] == "missing_evidence"
    assert checks["__passed__"]["passed"] is False
