"""Distinct, value-free reader details (issue 11, item 2): one literal case per cause.

The contract's message stays the exception's message (the conformance vectors fix it); the
reader's cause is the error's ``detail``, and the CLI prints the detail. Every file carries the
canary ``CANARY-9b1e`` where it can, and no detail, message or repr may show it or the path.
"""

from __future__ import annotations

import io
import os
import pathlib
import pickle

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.cli import main
from citelens.corpus import run_support_corpus
from citelens.errors import CitationSupportError, CitelensError, CorpusError, SummaryCitationError
from citelens.io import ReadFailure, Refused, describe, read_data_file
from citelens.summary_citations import compute_summary_citation_metrics
from citelens.support import compute_citation_support_metrics

CANARY = "CANARY-9b1e"
C = CANARY.encode()


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _nested(levels: int) -> pa.Table:
    values: pa.Array = pa.array([1])
    for _ in range(levels):
        values = pa.ListArray.from_arrays(pa.array([0, 1], pa.int32()), values)
    return pa.table({"claim_id": [CANARY], "deep": values})


# name -> (bytes, the detail about "claims"), each worked out by hand
_FILES: dict[str, tuple[bytes, str]] = {
    # line 1 is a record, line 2 is not JSON (``tru``), line 3 would be fine
    "line2.jsonl": (
        b'{"claim_id":"a"}\n{"claim_id": tru' + C + b"}\n{}\n",
        "claims JSONL line 2 is not valid JSON",
    ),
    # blank lines count: the unclosed bracket is on line 3
    "open3.jsonl": (
        b'{"claim_id":"a"}\n\n{"claim_id":["' + C + b'"\n',
        "claims JSONL line 3 is not valid JSON",
    ),
    # 40 nested arrays on line 2: past the 32-level bound
    "deep2.jsonl": (
        b'{"claim_id":"a"}\n{"x":' + b"[" * 40 + b"1" + b"]" * 40 + b"}\n",
        "claims JSONL line 2 nests deeper than 32 levels",
    ),
    "deep.json": (b"[" * 40 + b"]" * 40, "claims file nests deeper than 32 levels"),
    "bad.json": (b'[{"claim_id": "' + C + b'"', "claims file is not valid JSON"),
    "bad.parquet": (b"PAR1" + C + b"PAR1", "claims file is not valid Parquet"),
    "bad.arrow": (b"ARROW1" + C, "claims file is not valid Arrow IPC"),
    "latin1.csv": (b"claim_id\n\xe9" + C + b"\n", "claims file is not valid UTF-8"),
    "twice.csv": (b"claim_id,claim_id\n" + C + b",b\n", "claims file repeats a column name"),
    "ragged.csv": (b"claim_id,start\n" + C + b",1,2,3\n", "claims file is not valid CSV"),
    "deep.parquet": (_parquet(_nested(40)), "claims file nests deeper than 32 levels"),
}


@pytest.fixture()
def files(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = tmp_path / f"dir-{CANARY}"
    folder.mkdir()
    for name, (data, _) in _FILES.items():
        (folder / name).write_bytes(data)
    return folder


def _detail(path: object) -> str:
    with pytest.raises(ReadFailure) as caught:
        read_data_file(path)
    return describe(caught.value, "claims")


@pytest.mark.parametrize("name", sorted(_FILES))
def test_each_cause_has_its_sentence(files: pathlib.Path, name: str) -> None:
    detail = _detail(files / name)
    assert detail == _FILES[name][1]
    assert CANARY not in detail


def test_path_causes(files: pathlib.Path) -> None:
    assert _detail(files / "missing.jsonl") == "claims file not found"
    (files / "folder.jsonl").mkdir()
    assert _detail(files / "folder.jsonl") == "claims path is a directory"
    os.mkfifo(files / "pipe.csv")  # never opened (that would block): refused by its kind
    assert _detail(files / "pipe.csv") == "claims path is not a regular file"
    assert _detail(files / "claims.txt") == "claims file type is not supported"
    # a parent of the path is a file: there is no such file
    assert _detail(files / "line2.jsonl" / "x.jsonl") == "claims file not found"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_permissions(files: pathlib.Path) -> None:
    target = files / "line2.jsonl"
    target.chmod(0)
    assert _detail(target) == "claims file could not be opened"


def test_refused_pickles_without_values() -> None:
    refused = Refused("jsonl", 17)
    again = pickle.loads(pickle.dumps(refused))
    assert (again.reason, again.line, again.cause) == ("jsonl", 17, "unreadable")
    assert describe(again, "evidence") == "evidence JSONL line 17 is not valid JSON"
    # a plain ReadFailure (no finer reason) still gets a sentence by its cause
    assert describe(ReadFailure("size"), "claims") == "claims file exceeds a size bound"
    error = CitelensError("claims file could not be read", "input", "claims file not found")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.args[0], copy.category, copy.detail) == (
        "claims file could not be read",
        "input",
        "claims file not found",
    )


def test_support_keeps_its_message_and_adds_the_detail(files: pathlib.Path) -> None:
    with pytest.raises(CitationSupportError) as caught:
        compute_citation_support_metrics(str(files / "line2.jsonl"), [])
    error = caught.value
    assert error.args[0] == "claim collection must be an iterable of records"  # the contract
    assert error.category == "collection"
    assert error.detail == "claims JSONL line 2 is not valid JSON"
    assert CANARY not in repr(error) + str(error) + str(error.detail)


@pytest.mark.parametrize("form", [str, pathlib.Path])
def test_support_words_an_unknown_file_name_alike_for_str_and_path(
    files: pathlib.Path, form: type
) -> None:
    # a name no reader knows, given as text or as a path object: the same detail (a Path once
    # fell through to "is it iterable?" and carried none)
    with pytest.raises(CitationSupportError) as caught:
        compute_citation_support_metrics(form(files / f"{CANARY}.txt"), [])
    assert caught.value.args[0] == "claim collection must be an iterable of records"
    assert caught.value.detail == "claims file type is not supported"


def test_summary_keeps_its_message_and_adds_the_detail(files: pathlib.Path) -> None:
    with pytest.raises(SummaryCitationError) as caught:
        compute_summary_citation_metrics(claims=str(files / "missing.jsonl"), evidence=[])
    assert caught.value.args[0] == "claims file could not be read"
    assert caught.value.detail == "claims file not found"


def test_corpus_keeps_its_message_and_adds_the_detail(files: pathlib.Path) -> None:
    with pytest.raises(CorpusError) as caught:
        run_support_corpus(files / "bad.parquet", files / "missing.parquet")
    assert caught.value.args[0] == "claims input could not be read"
    assert caught.value.detail == "claims file is not valid Parquet"


def test_cli_prints_the_detail(files: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["summary-citations", "--claims", str(files / "line2.jsonl"), "--evidence", "x"])
    assert code == 2
    err = capsys.readouterr().err
    assert err == "citelens: error [input]: claims JSONL line 2 is not valid JSON\n"
    assert CANARY not in err
