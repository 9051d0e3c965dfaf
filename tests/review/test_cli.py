"""``citelens review render|export|import|gate`` on the sample data (exit codes 0/1/2)."""

from __future__ import annotations

import json
import pathlib
import shutil
from typing import Any

import pytest

from citelens.cli import main

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples" / "review"


@pytest.fixture()
def work(tmp_path: pathlib.Path) -> pathlib.Path:
    for path in SAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _run(capsys: Any, *args: str) -> tuple[int, str, str]:
    code = main(["review", *args])
    out, err = capsys.readouterr()
    return code, out, err


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


def _export(capsys: Any, work: pathlib.Path, kind: str = "reviewer") -> None:
    code, _, err = _run(
        capsys,
        "render",
        str(work / "setup.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--packets-out",
        str(work / "out" / "packets.json"),
        "--mapping-out",
        str(work / "out" / "mapping.json"),
    )
    assert code == 0, err
    code, out, err = _run(
        capsys,
        "export",
        "--packets",
        str(work / "out" / "packets.json"),
        "--mapping",
        str(work / "out" / "mapping.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--bindings",
        str(work / "bindings.json"),
        *_artifacts(work),
        "--evidence-kind",
        kind,
        "--sealed-out",
        str(work / "out" / "sealed.json"),
    )
    assert code == 0, err
    (work / "out" / "request.json").write_text(out)


def _imp(work: pathlib.Path) -> list[str]:
    return [
        "--sealed",
        str(work / "out" / "sealed.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--minimum-cell-size",
        "2",
    ]


def _gate_args(work: pathlib.Path) -> list[str]:
    return [
        "--thresholds",
        str(work / "thresholds.json"),
        "--protected-surfaces",
        str(work / "protected_surfaces.json"),
        "--required-spans",
        str(work / "required_spans.json"),
    ]


def test_round_trip_exit_codes(capsys: Any, work: pathlib.Path) -> None:
    _export(capsys, work)
    request = json.loads((work / "out" / "request.json").read_text())
    assert (
        request["request_digest"]
        == json.loads((work / "returned-complete.json").read_text())["request_digest"]
    )
    text = (work / "out" / "request.json").read_text()
    for private in ("system-alpha", "claim-001", "ev-001", "case-001"):
        assert private not in text
    expected = {"complete": (0, 0), "disputed": (1, 1), "resolved": (0, 0)}
    for name, (import_code, gate_code) in expected.items():
        returned = str(work / f"returned-{name}.json")
        code, out, err = _run(capsys, "import", returned, *_imp(work), *_artifacts(work))
        assert code == import_code, err
        result = json.loads(out)
        assert result["schema_version"] == "citelens.review.v1"
        assert "system-alpha" not in out and "claim-001" not in out
        code, out, err = _run(
            capsys,
            "gate",
            "--returned",
            returned,
            *_imp(work),
            *_artifacts(work),
            *_gate_args(work),
        )
        assert code == gate_code, err
        gate = json.loads(out)
        assert gate["passed"] is (gate_code == 0)
        assert [c["gate"] for c in gate["checks"]][-1] == "summary_review"


def test_synthetic_export_never_passes(capsys: Any, work: pathlib.Path) -> None:
    _export(capsys, work, "synthetic")
    request = json.loads((work / "out" / "request.json").read_text())
    document = json.loads((work / "returned-complete.json").read_text())
    document["evidence_kind"] = "synthetic"
    document["request_digest"] = request["request_digest"]
    (work / "synthetic.json").write_text(json.dumps(document))
    code, _, _ = _run(
        capsys, "import", str(work / "synthetic.json"), *_imp(work), *_artifacts(work)
    )
    assert code == 1
    code, out, _ = _run(
        capsys,
        "gate",
        "--returned",
        str(work / "synthetic.json"),
        *_imp(work),
        *_artifacts(work),
        *_gate_args(work),
    )
    assert code == 1
    assert json.loads(out)["checks"][-1]["reason"] == "synthetic_review"


def test_bad_input_exit_2(capsys: Any, work: pathlib.Path) -> None:
    _export(capsys, work)
    (work / "source.txt").write_text((work / "source.txt").read_text().replace("IV", "PO"))
    returned = str(work / "returned-complete.json")
    code, out, err = _run(capsys, "import", returned, *_imp(work), *_artifacts(work))
    assert code == 2 and out == ""
    assert err == "citelens: error [review]: invalid_review_import\n"
    missing = str(work / "nowhere" / "secret-name.json")
    code, _, err = _run(capsys, "import", missing, *_imp(work), *_artifacts(work))
    assert code == 2
    assert err == "citelens: error [input]: review input file could not be read\n"
    code, _, err = _run(
        capsys, "render", missing, "--key-file", missing, "--packets-out", "x", "--mapping-out", "y"
    )
    assert code == 2 and "secret" not in err
    # gate without a review import: fails closed on missing adjudication (exit 1)
    (work / "source.txt").write_text((SAMPLES / "source.txt").read_text())
    code, out, _ = _run(capsys, "gate", *_artifacts(work), *_gate_args(work))
    assert code == 1
    checks = {c["gate"]: c for c in json.loads(out)["checks"]}
    assert checks["summary_citation_support"]["reason"] == "missing_adjudication"
    assert main(["review"]) == 2
