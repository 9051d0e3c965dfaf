"""Keyed pseudonyms of ``report.tables()`` and ``citelens support --tables`` (issue 10 item 5).

Every identifier column of the four tables is ``"hmac-sha256:" + hex`` of HMAC-SHA-256 under
the caller's key (the same key gives the same pseudonyms in every run, Python or CLI), or
under a random key drawn per call (pseudonyms then join the four tables of that call only).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import pathlib
from typing import Any

import pyarrow.parquet as pq
import pytest

from citelens import CitationSupportError, compute_citation_support_metrics
from citelens._pseudonym import KEY_FILE_ENV
from citelens.cli import main

KEY = b"CANARY-7f3a-support-key-000001"
CLAIMS = [
    {
        "claim_id": "CANARY-7f3a-c1",
        "start": 0,
        "end": 5,
        "source_id": "CANARY-7f3a-src",
        "claim_type": "dose",
        "citations": ["CANARY-7f3a-e1"],
    },
    {"claim_id": "c2", "start": 6, "end": 9},
]
EVIDENCE = [
    {"evidence_id": "CANARY-7f3a-e1", "start": 0, "end": 9, "source_id": "CANARY-7f3a-src"},
    {"evidence_id": "é2", "start": 1, "end": 3},
]
ADJUDICATIONS = [
    {"claim_id": "CANARY-7f3a-c1", "evidence_id": "CANARY-7f3a-e1", "label": "supports"}
]
COLUMNS = {
    "claims": ("claim_id", "source_id", "claim_type"),
    "evidence": ("evidence_id", "source_id"),
    "edges": ("claim_id", "evidence_id", "source_id"),
    "adjudications": ("claim_id", "evidence_id"),
}


def _hmac(key: bytes, value: str) -> str:
    if value == "":
        return ""
    return "hmac-sha256:" + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


def _report() -> Any:
    return compute_citation_support_metrics(CLAIMS, EVIDENCE, adjudications=ADJUDICATIONS)


def _rows(tables: Any) -> dict[str, list[dict[str, Any]]]:
    return {name: getattr(tables, name).to_pylist() for name in COLUMNS}


def test_keyed_tables_are_hmac_of_the_raw_values() -> None:
    report = _report()
    raw = _rows(report.tables(raw_identifiers=True))
    keyed = _rows(report.tables(pseudonym_key=KEY))
    for name, columns in COLUMNS.items():
        expected = [
            {k: _hmac(KEY, v) if k in columns else v for k, v in row.items()} for row in raw[name]
        ]
        key = lambda row: json.dumps(row, sort_keys=True)  # noqa: E731
        assert sorted(map(key, keyed[name])) == sorted(map(key, expected)), name
        # sorted by the pseudonyms as returned, so their order reveals nothing of the raw one
        firsts = [row[columns[0]] for row in keyed[name]]
        assert firsts == sorted(firsts)
    # hand-checked shape: the claim "c2" becomes exactly the HMAC of b"c2" under KEY
    assert _hmac(KEY, "c2") in {row["claim_id"] for row in keyed["claims"]}
    text = json.dumps(keyed)
    assert "CANARY-7f3a" not in text and '"dose"' not in text and "é2" not in text
    plain = {hashlib.sha256(v.encode()).hexdigest() for v in ("CANARY-7f3a-c1", "c2", "é2")}
    assert not any(digest in text for digest in plain)  # no pseudonym is the plain SHA-256


def test_same_key_same_pseudonyms_across_reports() -> None:
    first = _rows(_report().tables(pseudonym_key=KEY))
    second = _rows(_report().tables(pseudonym_key=KEY))
    assert first == second


def test_without_a_key_each_call_differs_but_joins_within_itself() -> None:
    report = _report()
    one, two = _rows(report.tables()), _rows(report.tables())
    ids_one = {row["claim_id"] for row in one["claims"]}
    ids_two = {row["claim_id"] for row in two["claims"]}
    assert len(ids_one) == 2 and not ids_one & ids_two  # a fresh random key per call
    assert {row["claim_id"] for row in one["edges"]} <= ids_one  # one key for the four tables
    assert {row["evidence_id"] for row in one["adjudications"]} <= {
        row["evidence_id"] for row in one["evidence"]
    }


@pytest.mark.parametrize("bad", [b"short", "CANARY-7f3a-as-text-key", bytearray(KEY)])
def test_bad_key_is_a_policy_error(bad: Any) -> None:
    with pytest.raises(CitationSupportError) as caught:
        _report().tables(pseudonym_key=bad)
    assert str(caught.value) == "pseudonym key must be bytes of at least 16 bytes"
    assert caught.value.category == "policy"
    assert caught.value.__cause__ is None and caught.value.__context__ is None


# -- CLI -------------------------------------------------------------------------------------


@pytest.fixture()
def inputs(tmp_path: pathlib.Path) -> dict[str, str]:
    paths = {}
    for name, rows in (("claims", CLAIMS), ("evidence", EVIDENCE), ("adj", ADJUDICATIONS)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths[name] = str(path)
    key = tmp_path / "pseudonym.key"
    key.write_bytes(KEY)
    paths["key"] = str(key)
    return paths


def _cli_tables(inputs: dict[str, str], out: pathlib.Path, *extra: str) -> dict[str, Any]:
    args = [
        "support",
        "--claims",
        inputs["claims"],
        "--evidence",
        inputs["evidence"],
        "--adjudications",
        inputs["adj"],
        "--tables",
        str(out),
        *extra,
    ]
    assert main(args) == 0
    return {name: pq.read_table(out / f"{name}.parquet").to_pylist() for name in COLUMNS}


def test_cli_key_file_gives_the_python_pseudonyms(
    inputs: dict[str, str], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    expected = _rows(_report().tables(pseudonym_key=KEY))
    first = _cli_tables(inputs, tmp_path / "a", "--pseudonym-key-file", inputs["key"])
    second = _cli_tables(inputs, tmp_path / "b", "--pseudonym-key-file", inputs["key"])
    assert first == second == expected
    for name in COLUMNS:  # byte-identical files across the two runs
        a = (tmp_path / "a" / f"{name}.parquet").read_bytes()
        assert a == (tmp_path / "b" / f"{name}.parquet").read_bytes()
    monkeypatch.setenv(KEY_FILE_ENV, inputs["key"])
    assert _cli_tables(inputs, tmp_path / "c") == expected  # the key file named by the env


def test_cli_without_key_differs_across_runs(
    inputs: dict[str, str], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    one = _cli_tables(inputs, tmp_path / "a")
    two = _cli_tables(inputs, tmp_path / "b")
    ids_one = {r["claim_id"] for r in one["claims"]}
    assert len(ids_one) == 2 and not ids_one & {r["claim_id"] for r in two["claims"]}
    assert all(v.startswith("hmac-sha256:") for v in ids_one)


def test_cli_bad_key_file_exit_2(
    inputs: dict[str, str],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    short = tmp_path / "CANARY-7f3a-short.key"
    short.write_bytes(b"CANARY-7f3a")
    cases = [
        (str(tmp_path / "CANARY-7f3a-missing"), "pseudonym key file could not be read"),
        (str(short), "pseudonym key file must hold 16 to 4096 bytes"),
    ]
    for path, message in cases:
        args = [
            "support",
            "--claims",
            inputs["claims"],
            "--tables",
            str(tmp_path / "t"),
            "--pseudonym-key-file",
            path,
        ]
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert err == f"citelens: error [input]: {message}\n"
        assert "CANARY" not in out + err
        assert not (tmp_path / "t").exists()  # nothing written
    # the key is read only when the run pseudonymises: raw tables need none
    args = [
        "support",
        "--claims",
        inputs["claims"],
        "--tables",
        str(tmp_path / "raw"),
        "--raw-identifiers",
        "--pseudonym-key-file",
        cases[0][0],
    ]
    assert main(args) == 0
