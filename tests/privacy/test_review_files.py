"""Review files: PRIVATE outputs are created 0600 and the sealed private JSON is read
strictly (issue 10 items 5 and 7).

A JSON object with a repeated key parses to its last occurrence, so before this a tampered
earlier ``"bindings"`` (or any member) left the re-canonicalised document, and with it the
seal, unchanged. Every repetition, at any depth, is now the tamper error
``invalid_review_import``; the sealed file's size bound is checked while reading.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import stat
from typing import Any

import pytest

from citelens.cli import _run_review as review_cli
from citelens.cli import main
from citelens.review import (
    MAX_PRIVATE_JSON,
    SealedSummaryReview,
    SummaryReviewError,
    import_summary_review,
)
from review import _scenario as sc  # tests/review, a sibling package on the test path

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples" / "review"
SCENARIO = sc.build("reviewer")
RETURNED = SCENARIO.returned()
CANARY = "CANARY-7f3a"


def _import(private_json: str) -> bool:
    """Whether the import rejects the sealed document ``private_json`` (original seal)."""
    kwargs = SCENARIO.import_kwargs(minimum_cell_size=2)
    kwargs["sealed"] = SealedSummaryReview(private_json, SCENARIO.sealed.commitment)
    try:
        import_summary_review(RETURNED, **kwargs)
    except SummaryReviewError as exc:
        assert str(exc) == "invalid_review_import" and exc.category == "review"
        assert exc.__cause__ is None and exc.__context__ is None
        return True
    return False


def test_baseline_and_reformatting_still_verify() -> None:
    assert not _import(SCENARIO.sealed.private_json)
    assert not _import(json.dumps(json.loads(SCENARIO.sealed.private_json), indent=2))


def _duplicates() -> dict[str, str]:
    original = SCENARIO.sealed.private_json
    assert original.startswith('{"bindings":[{"claim_id":')  # canonical: sorted keys
    tampered_rows = json.dumps([{"claim_id": CANARY, "evidence_id": CANARY, "review_ref": CANARY}])
    request_at = original.index('"request":{') + len('"request":{')
    return {
        # a tampered earlier "bindings", the original after it (the reported attack)
        "top level, tampered first": '{"bindings":' + tampered_rows + "," + original[1:],
        # the same member twice with equal values is still ambiguous: rejected too
        "top level, identical": original[:-1]
        + ',"request":'
        + json.dumps(json.loads(original)["request"], sort_keys=True, separators=(",", ":"))
        + "}",
        # an escaped spelling of the key is the same key once decoded
        "top level, escaped key": '{"bindin\\u0067s":' + tampered_rows + "," + original[1:],
        # nested: a member of the request repeated
        "nested in request": original[:request_at]
        + '"schema_version":"x",'
        + original[request_at:],
        # in a binding row: its claim_id given twice
        "in a binding row": '{"bindings":[{"claim_id":"'
        + CANARY
        + '",'
        + original[len('{"bindings":[{') :],
    }


@pytest.mark.parametrize("case", list(_duplicates()))
def test_duplicate_keys_are_rejected(case: str) -> None:
    text = _duplicates()[case]
    # without the check the last occurrence wins (every repeat above precedes the original
    # member, or equals it) and the document re-canonicalises to the original: the seal
    # would verify
    assert json.loads(text) == json.loads(SCENARIO.sealed.private_json)
    assert _import(text)


# -- CLI files -------------------------------------------------------------------------------


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


def _export(capsys: Any, work: pathlib.Path) -> None:
    out = work / "out"
    code, _, err = _run(
        capsys,
        "render",
        str(work / "setup.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--packets-out",
        str(out / "packets.json"),
        "--mapping-out",
        str(out / "mapping.json"),
    )
    assert code == 0, err
    code, _, err = _run(
        capsys,
        "export",
        "--packets",
        str(out / "packets.json"),
        "--mapping",
        str(out / "mapping.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--bindings",
        str(work / "bindings.json"),
        *_artifacts(work),
        "--evidence-kind",
        "reviewer",
        "--sealed-out",
        str(out / "sealed.json"),
        "--request-out",
        str(out / "request.json"),
    )
    assert code == 0, err


def _mode(path: pathlib.Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_private_outputs_are_0600(capsys: Any, work: pathlib.Path) -> None:
    previous = os.umask(0o022)  # a usual umask: files would be 0644
    try:
        _export(capsys, work)
    finally:
        os.umask(previous)
    out = work / "out"
    assert _mode(out / "mapping.json") == 0o600  # PRIVATE identity mapping
    assert _mode(out / "sealed.json") == 0o600  # PRIVATE sealed review
    assert _mode(out / "packets.json") == 0o644  # public: the umask's mode
    assert _mode(out / "request.json") == 0o644
    # an existing 0644 file replaced by a private output becomes 0600 (a new file is renamed)
    (out / "mapping.json").chmod(0o644)
    _export(capsys, work)
    assert _mode(out / "mapping.json") == 0o600


def _import_cli(capsys: Any, work: pathlib.Path) -> tuple[int, str, str]:
    return _run(
        capsys,
        "import",
        str(work / "returned-complete.json"),
        "--sealed",
        str(work / "out" / "sealed.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--minimum-cell-size",
        "2",
        *_artifacts(work),
    )


TAMPERED = "citelens: error [review]: invalid_review_import\n"


def test_cli_sealed_file_duplicate_keys(capsys: Any, work: pathlib.Path) -> None:
    _export(capsys, work)
    sealed_path = work / "out" / "sealed.json"
    sealed = json.loads(sealed_path.read_text())
    assert _import_cli(capsys, work)[0] == 0
    outer = [
        # the outer object: an earlier forged commitment, the real one after it
        '{"commitment":"sha256:'
        + "0" * 64
        + '","commitment":'
        + json.dumps(sealed["commitment"])
        + ',"private_json":'
        + json.dumps(sealed["private_json"])
        + "}",
        # the private document inside: a tampered earlier "bindings"
        json.dumps(
            {
                "commitment": sealed["commitment"],
                "private_json": '{"bindings":[],' + sealed["private_json"][1:],
            }
        ),
    ]
    for text in outer:
        sealed_path.write_text(text)
        code, out, err = _import_cli(capsys, work)
        assert (code, err) == (2, TAMPERED)
        assert CANARY not in out + err


def test_cli_sealed_file_size_checked_while_reading(
    capsys: Any, work: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bound allows every file citelens writes: private_json's characters take at most
    # two bytes each inside the outer JSON string
    assert review_cli.sealed_file_limit() == 2 * MAX_PRIVATE_JSON + 65_536
    _export(capsys, work)
    sealed_path = work / "out" / "sealed.json"
    size = sealed_path.stat().st_size
    reads: list[int] = []
    real_open = pathlib.Path.open

    def spy_open(self: pathlib.Path, *args: Any, **kwargs: Any) -> Any:
        handle = real_open(self, *args, **kwargs)
        if self.name != "sealed.json":
            return handle
        real_read = handle.read

        def read(n: int = -1) -> Any:
            reads.append(n)
            return real_read(n)

        handle.read = read
        return handle

    monkeypatch.setattr(pathlib.Path, "open", spy_open)
    monkeypatch.setattr(review_cli, "sealed_file_limit", lambda: size)  # exactly fits
    assert _import_cli(capsys, work)[0] == 0
    assert reads == [size + 1]  # one bounded read, never the whole file unbounded
    reads.clear()
    monkeypatch.setattr(review_cli, "sealed_file_limit", lambda: size - 1)  # one byte over
    code, out, err = _import_cli(capsys, work)
    assert (code, out, err) == (2, "", TAMPERED)
    assert reads == [size]  # limit + 1 bytes, then rejected


def test_cli_duplicate_keys_in_other_review_files(capsys: Any, work: pathlib.Path) -> None:
    # any other review document with a repeated key is unreadable input (exit 2)
    text = (work / "setup.json").read_text()
    (work / "setup.json").write_text('{"packet_set_ref":"' + CANARY + '",' + text.lstrip()[1:])
    code, out, err = _run(
        capsys,
        "render",
        str(work / "setup.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--packets-out",
        str(work / "p.json"),
        "--mapping-out",
        str(work / "m.json"),
    )
    assert (code, err) == (2, "citelens: error [input]: review input file could not be read\n")
    assert CANARY not in out + err
    assert not (work / "m.json").exists()
