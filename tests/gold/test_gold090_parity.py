"""Parity with OpenGATE 0.9.0 for the redaction, simplification and retrieval scorers (issue 13):
``citelens gold run --online`` over the shared gold set with the replay adapter of
``../shared/vectors/gold090`` against what OpenGATE reported (its README: rates within 0.006,
counts exactly, latency not compared; failures compared by case, type and value)."""

from __future__ import annotations

import io
import json
import pathlib
import re
from typing import Any

from citelens.gold import load_dataset, run
from conftest import shared_dir

_ADAPTER = """
import json, pathlib
_R = json.loads(pathlib.Path({path!r}).read_text(encoding="utf-8"))
meta = {{"name": "replay"}}
def online_available():
    return True
def online_config_hint():
    return ""
def redact(text):
    return _R["redact"][_R["by_text"][text]]
def simplify(request):
    return _R["simplify"][_R["by_text"][request["text"]]]
def fetch_record(request):
    return _R["fetch_record"][request["id"]]
"""

_RATES = {"recall", "mean_case_recall", "anchor_recall", "mean_grade", "fidelity"}


def _card(tmp: pathlib.Path, datasets: pathlib.Path) -> dict[str, Any]:
    vectors = shared_dir("vectors", "gold090")
    adapter = tmp / "replay_adapter.py"
    adapter.write_text(_ADAPTER.format(path=str(vectors / "replay.json")), encoding="utf-8")
    outcome = run(
        online=True,
        adapter=str(adapter),
        datasets=datasets,
        results=tmp / "results",
        env={"CITELENS_EVAL_SHA": "abcdef1"},
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    card: dict[str, Any] = json.loads(outcome.scorecard_path.read_text(encoding="utf-8"))
    return card


def _expected() -> dict[str, Any]:
    path = shared_dir("vectors", "gold090") / "expected.json"
    scorers: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["scorers"]
    return scorers


def _entry(card: dict[str, Any], sid: str) -> dict[str, Any]:
    return next(r for r in card["results"] if r["id"] == sid)


def test_metrics_and_pass_fail_match_opengate(
    opengate: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    card = _card(tmp_path, opengate)
    for sid, want in _expected().items():
        got = _entry(card, sid)
        assert got["status"] == ("passed" if want["passed"] else "failed"), sid
        for name, value in want["metrics"].items():
            mine = got["metrics"][name]
            if name in _RATES:
                assert abs(mine - value) <= 0.006, (sid, name, mine, value)
            else:
                assert mine == value, (sid, name, mine, value)


def test_named_failures_match_opengate(opengate: pathlib.Path, tmp_path: pathlib.Path) -> None:
    card = _card(tmp_path, opengate)
    expected = _expected()
    cases = {c.id: c for c in load_dataset(opengate).redaction}
    # OpenGATE: LEAK in <case>: <TYPE> "<value>" survived redaction (<match>...)
    theirs = set()
    for line in expected["redaction"]["failures"]:
        m = re.fullmatch(r'LEAK in (\S+): (\S+) "(.*)" survived redaction \((\w+).*\)', line)
        assert m is not None
        theirs.add(m.groups())
    # citelens: LEAK <case>: goldEntities[<i>] <TYPE> survived redaction (<match>), value-free;
    # the value is the case's own entity at that index
    mine = set()
    for line in _entry(card, "redaction")["failures"]:
        m = re.fullmatch(
            r"LEAK (\S+): goldEntities\[(\d+)\] (\S+) survived redaction \((\w+)\)", line
        )
        assert m is not None
        case_id, index, kind, match = m.groups()
        entity = cases[case_id].entities[int(index)]
        assert entity.type == kind
        mine.add((case_id, kind, entity.value, match))
    assert mine == theirs
    their_numbers = {
        re.fullmatch(
            r'FABRICATED NUMBER in (\S+): "(.*)" appears in output but not in source', f
        ).groups()  # type: ignore[union-attr]
        for f in expected["simplification"]["failures"]
    }
    my_numbers = {
        re.fullmatch(
            r'FABRICATED NUMBER (\S+): "(.*)" is in the output but not in the source', f
        ).groups()  # type: ignore[union-attr]
        for f in _entry(card, "simplification")["failures"]
    }
    assert my_numbers == their_numbers
    assert _entry(card, "retrieval")["failures"] == expected["retrieval"]["failures"] == []


def test_per_case_detail_matches_opengate(opengate: pathlib.Path, tmp_path: pathlib.Path) -> None:
    card = _card(tmp_path, opengate)
    expected = _expected()
    red = _entry(card, "redaction")["detail"]["per_case"]
    assert [c["case"] for c in red] == [c["case"] for c in expected["redaction"]["per_case"]]
    for mine, theirs in zip(red, expected["redaction"]["per_case"], strict=True):
        assert (mine["entities"], mine["leaks"]) == (theirs["entities"], theirs["leaks"])
        assert mine["over_redactions"] == theirs["overRedactions"]
        assert abs(mine["recall"] - theirs["recall"]) <= 0.006
        assert [x["type"] for x in mine["leaked"]] == [
            v.split(":", 1)[0] for v in theirs["leakedValues"]
        ]
        assert mine["known_gaps_open"] == theirs["gapsStillOpen"] == []
    sim = _entry(card, "simplification")["detail"]["per_case"]
    for mine, theirs in zip(sim, expected["simplification"]["per_case"], strict=True):
        assert mine["case"] == theirs["case"]
        assert mine["anchors"] == theirs["anchors"]
        assert mine["anchors_missed"] == theirs["anchorsMissed"]
        assert mine["fabricated"] == theirs["fabricated"]
        assert mine["contract_violations"] == theirs["contractViolations"]
        assert abs(mine["grade"] - theirs["grade"]) <= 0.006
        assert (mine["output_chars"], mine["bullets"]) == (theirs["outputChars"], theirs["bullets"])
        assert mine["output"] == theirs["output"]
    ret = _entry(card, "retrieval")["detail"]["per_case"]
    for mine, theirs in zip(ret, expected["retrieval"]["per_case"], strict=True):
        assert mine["case"] == theirs["case"]
        assert (mine["anchors"], mine["require_fields"]) == (
            theirs["anchors"],
            theirs["requireFields"],
        )
        assert mine["problems"] == theirs["problems"]
