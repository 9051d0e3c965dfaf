"""Exit codes of the dispatcher: an unexpected exception inside a command is an internal error
(exit 3, ``citelens: error [internal]: internal error (<Type>)``, no traceback, no input
value), never bad input; usage errors stay exit 2."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import polars as pl
import pytest

from citelens.cli import _run_corpus, _run_support, main

CANARY = "CANARY-cli-7f3e-secret"


class Boom(Exception):
    """An exception no citelens code raises: stands for a bug."""


def _raise(*_args: Any, **_kwargs: Any) -> Any:
    raise Boom(CANARY)


def _jsonl(path: pathlib.Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_bug_in_a_command_is_exit_3(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    claims = _jsonl(tmp_path / "claims.jsonl", [{"claim_id": CANARY, "start": 0, "end": 1}])
    monkeypatch.setattr(_run_support, "compute_citation_support_metrics", _raise)
    code = main(["support", "--claims", claims])
    out, err = capsys.readouterr()
    assert (code, out) == (3, "")
    assert err == "citelens: error [internal]: internal error (Boom)\n"
    assert CANARY not in err


def test_polars_failure_inside_the_corpus_scan_is_exit_3(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A polars operation that raises something other than a reader's parse error (here every
    # LazyFrame.collect) is a bug or a broken environment: it must not become
    # "claims input could not be read" (exit 2).
    pl.DataFrame({"document_ref": ["d1"], "claim_id": [CANARY]}).write_parquet(
        tmp_path / "claims.parquet"
    )
    monkeypatch.setattr(pl.LazyFrame, "collect", _raise)
    code = main(["corpus", "support", str(tmp_path), "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert (code, out) == (3, "")
    assert err == "citelens: error [internal]: internal error (Boom)\n"
    assert not (tmp_path / "out").exists()


def test_bug_in_the_corpus_command_itself_is_exit_3(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_run_corpus, "run_summary_citations_corpus", _raise)
    code = main(["corpus", "summary-citations", str(tmp_path), "--out", str(tmp_path / "o")])
    assert code == 3
    assert capsys.readouterr().err == "citelens: error [internal]: internal error (Boom)\n"


def test_exit_3_in_a_fresh_process_has_no_traceback(tmp_path: pathlib.Path) -> None:
    claims = _jsonl(tmp_path / "claims.jsonl", [{"claim_id": "c1", "start": 0, "end": 1}])
    code = (
        "import sys\n"
        "from citelens.cli import _run_support, main\n"
        "def boom(*a, **k):\n"
        f"    raise KeyError({CANARY!r})\n"
        "_run_support.compute_citation_support_metrics = boom\n"
        f"sys.exit(main(['support', '--claims', {claims!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == "citelens: error [internal]: internal error (KeyError)\n"


def test_bad_input_stays_exit_2(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "claims.parquet").write_bytes(b"not a parquet file")
    code = main(["corpus", "support", str(tmp_path), "--out", str(tmp_path / "out")])
    assert code == 2
    # the CLI shows the reader's detail in place of "claims input could not be read"
    assert capsys.readouterr().err == "citelens: error [input]: claims file is not valid Parquet\n"


def test_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["no-such-command"]) == 2
    assert main(["corpus"]) == 2  # a command group without its mode prints its usage
    assert main(["support"]) == 2  # --claims is required
    capsys.readouterr()
