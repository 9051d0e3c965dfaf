"""Regressions of the corpus fuzz tests (issue 10): path values that name no input file.

* ``""`` became ``Path("")``, the working directory, and every data file below it was read as
  the role's input; it names no file: ``<role> input could not be read``.
* A caller ``os.PathLike`` whose ``__fspath__`` raises was an internal error (exit 3); caller
  code that raises is an input problem (conventions §1.2), refused like any unreadable input,
  and the exception's text (the canary) is never shown.
* ``bytes`` from ``__fspath__`` and a NUL byte are no path of this API either.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from typing import Any

import pytest

from citelens import corpus
from citelens.errors import CorpusError

CANARY = "CANARY-7f3a"


class RaisingPath(os.PathLike[str]):
    """A caller path whose ``__fspath__`` raises with the canary."""

    def __fspath__(self) -> str:
        raise RuntimeError(CANARY)


class BytesPath:
    """A caller path that gives bytes."""

    def __fspath__(self) -> bytes:
        return b"claims.jsonl"


CALLS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "support": (lambda p: corpus.run_support_corpus(p), "claims"),
    "summary": (lambda p: corpus.run_summary_citations_corpus(p), "claims"),
    "minimality": (lambda p: corpus.run_minimality_corpus(p, p, p), "documents"),
}
VALUES: dict[str, Callable[[], Any]] = {
    "empty": lambda: "",
    "raising": RaisingPath,
    "bytes": BytesPath,
    "nul": lambda: "claims\x00.jsonl",
}


@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_no_path_is_unreadable(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, call: str, value: str
) -> None:
    # a valid claims file in the working directory: "" must not read it
    monkeypatch.chdir(tmp_path)
    row = f'{{"document_ref": "{CANARY}", "claim_id": "c", "citations": [], "source_text": "x"}}'
    (tmp_path / "claims.jsonl").write_text(row + "\n")
    run, role = CALLS[call]
    with pytest.raises(CorpusError) as info:
        run(VALUES[value]())
    error = info.value
    assert (str(error), error.category) == (f"{role} input could not be read", "input")
    assert error.__cause__ is None and error.__context__ is None
    assert CANARY not in repr(error)


def test_the_working_directory_by_name_is_still_read(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "." names the working directory explicitly: its one claims file, one document
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.jsonl").write_text(
        f'{{"document_ref": "{CANARY}", "claim_id": "c", "citations": []}}\n'
    )
    result = corpus.run_support_corpus(".")
    assert result.documents["document_ref"].to_pylist() == [CANARY]
