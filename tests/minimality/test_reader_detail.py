"""The single-document minimality API carries the reader's ``detail`` (issue 11, item 2).

The contract's message and category stay (``claims file could not be read``, ``input``: the
conformance vectors check them); ``error.detail`` says why, as ``citelens.io.describe`` words
it, and never holds a value or a path.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from citelens.minimality import check_citation_minimality, check_citation_minimality_batch

from ._helpers import CANARY, D1, D2, TEXT, citation, claim, expect_error


def check(claims: Any, citations: Any = ()) -> Any:
    return check_citation_minimality(TEXT, claims, citations)


def _no_canary(detail: str | None) -> str | None:
    assert detail is None or CANARY not in detail
    return detail


def test_missing_claims_file(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / f"{CANARY}.jsonl"
    exc = expect_error(lambda: check(missing), "claims file could not be read", "input")
    assert _no_canary(exc.detail) == "claims file not found"


def test_claims_file_not_utf8(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "claims.jsonl"
    bad.write_bytes(b"\xff\xfe" + CANARY.encode())  # 0xFF never starts a UTF-8 sequence
    exc = expect_error(lambda: check(bad), "claims file could not be read", "input")
    assert _no_canary(exc.detail) == "claims file is not valid UTF-8"


def test_claims_path_is_a_directory(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "claims.json"
    folder.mkdir()
    exc = expect_error(lambda: check(str(folder)), "claims file could not be read", "input")
    assert exc.detail == "claims path is a directory"


def test_citations_jsonl_line(tmp_path: pathlib.Path) -> None:
    lines = tmp_path / "citations.jsonl"
    # line 1 is a valid record, line 2 blank (counted), line 3 does not close its object
    lines.write_text(json.dumps(citation()) + "\n\n{" + json.dumps(CANARY) + "\n")
    exc = expect_error(lambda: check([claim()], lines), "citations file could not be read", "input")
    assert _no_canary(exc.detail) == "citations JSONL line 3 is not valid JSON"


def test_errors_without_a_reader_keep_no_detail(tmp_path: pathlib.Path) -> None:
    # not a reader refusal: the claims are read, the text is not text
    exc = expect_error(
        lambda: check_citation_minimality(None, [claim()], []),  # type: ignore[arg-type]
        "source_text must be text",
        "input",
    )
    assert exc.detail is None
    good = tmp_path / "claims.json"
    good.write_text(json.dumps([claim()]))
    missing = tmp_path / "citations.csv"
    # the claims file reads; only the citations file's refusal has a detail
    exc = expect_error(lambda: check(good, missing), "citations file could not be read", "input")
    assert exc.detail == "citations file not found"


def test_batch_raise_carries_the_detail_of_the_failing_document(tmp_path: pathlib.Path) -> None:
    missing = str(tmp_path / "missing.jsonl")
    first, second = sorted([D1, D2])  # errors="raise" raises the first failing reference
    documents = [
        {"document_ref": first, "source_text": TEXT, "claims": [claim()], "citations": []},
        {"document_ref": second, "source_text": TEXT, "claims": missing, "citations": []},
    ]
    exc = expect_error(
        lambda: check_citation_minimality_batch(documents),
        "claims file could not be read",
        "input",
    )
    assert exc.detail == "claims file not found"
    # an earlier document failing without a reader: its error, and no detail of the other
    documents[0]["source_text"] = 7
    exc = expect_error(
        lambda: check_citation_minimality_batch(documents), "source_text must be text", "input"
    )
    assert exc.detail is None
    # collect: the errors table keeps message and category only (its schema, §14)
    result = check_citation_minimality_batch(documents, errors="collect")
    assert result.errors.to_pylist() == [
        {"document_ref": first, "category": "input", "message": "source_text must be text"},
        {"document_ref": second, "category": "input", "message": "claims file could not be read"},
    ]
