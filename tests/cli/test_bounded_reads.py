"""Files the CLI reads outside ``citelens.io``'s table readers are bounded too (issue 10):
review JSON documents are pre-scanned (depth, size) before ``json.loads``, and the minimality
source text is read without taking more than the file bound."""

from __future__ import annotations

import pathlib

import pytest

from citelens.cli import main
from citelens.io import _bounds

CANARY = "CANARY-bounded-9e2a"


def test_a_deep_review_setup_file_is_refused(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 100,000 nested arrays: json.loads would raise RecursionError after a long walk; the
    # pre-scan refuses the file at depth 33
    setup = tmp_path / "setup.json"
    setup.write_text("[" * 100_000 + f'"{CANARY}"' + "]" * 100_000)
    key = tmp_path / "key"
    key.write_bytes(b"k" * 32)
    code = main(
        [
            *("review", "render", str(setup), "--key-file", str(key)),
            *("--packets-out", str(tmp_path / "p.json"), "--mapping-out", str(tmp_path / "m.json")),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("citelens: error [") and CANARY not in err
    assert not (tmp_path / "p.json").exists() and not (tmp_path / "m.json").exists()


def test_a_minimality_source_over_the_bound_is_refused(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_bounds, "MAX_FILE_BYTES", 64)
    source = tmp_path / "source.txt"
    source.write_text(CANARY * 10)  # 190 bytes: over the (patched) 64-byte bound
    claims = tmp_path / "claims.jsonl"
    claims.write_text("")
    code = main(
        ["minimality", "--source", str(source), "--claims", str(claims), "--citations", str(claims)]
    )
    err = capsys.readouterr().err
    assert code == 2
    # the detail of "source_text must be text" (the bound is spelled out as fixed text)
    assert err.splitlines() == ["citelens: error [input]: source file is larger than 1 GiB"]
