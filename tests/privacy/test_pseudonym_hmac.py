"""The keyed pseudonym primitive: HMAC-SHA-256 in DuckDB equals Python's ``hmac``, keys.

Pseudonyms are ``"hmac-sha256:" + hex(HMAC-SHA-256(K, UTF-8(value)))``; ``""`` stays ``""``
and null stays null (both mean "none" in the exported tables).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pathlib
import time

import polars as pl
import pytest

from citelens._pseudonym import (
    KEY_FILE_ENV,
    MAX_KEY_FILE_BYTES,
    MIN_KEY_BYTES,
    PREFIX,
    key_from_file_option,
    pseudonymise,
    pseudonymise_series,
    read_key_file,
    resolve_key,
)
from citelens.errors import CitationSupportError, CorpusError

KEY = b"CANARY-7f3a-key-0123456789"  # 26 bytes
CANARY = "CANARY-7f3a"


def _reference(key: bytes, value: str) -> str:
    return PREFIX + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


def test_rfc_4231_vectors() -> None:
    # RFC 4231 test case 2 (key "Jefe", a key shorter than the 64-byte block) and test case 6
    # (131 bytes of 0xaa: longer than the block, so the key is hashed first). The expected
    # values are copied from the RFC, not computed here.
    frame = pl.DataFrame({"x": ["what do ya want for nothing?"]})
    assert pseudonymise(frame, ["x"], b"Jefe")["x"].to_list() == [
        PREFIX + "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ]
    frame = pl.DataFrame({"x": ["Test Using Larger Than Block-Size Key - Hash Key First"]})
    assert pseudonymise(frame, ["x"], b"\xaa" * 131)["x"].to_list() == [
        PREFIX + "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ]


@pytest.mark.parametrize(
    "key", [KEY, b"\x00" * 16, bytes(range(64)), bytes(range(65)), b"\xff" * 200]
)
def test_equals_python_hmac(key: bytes) -> None:
    # ASCII, Latin-1, CJK, an astral emoji, NUL and a value longer than one block
    values = ["c1", "é", "日本語", "😀x", "a\x00b", "x" * 150, CANARY]
    frame = pl.DataFrame({"x": values, "y": list(reversed(values)), "n": range(len(values))})
    out = pseudonymise(frame, ["x", "y"], key)
    assert out.columns == ["x", "y", "n"] and out.schema == frame.schema
    assert out["x"].to_list() == [_reference(key, v) for v in values]  # row order kept
    assert out["y"].to_list() == [_reference(key, v) for v in reversed(values)]
    assert out["n"].to_list() == list(range(len(values)))  # other columns untouched
    assert all(len(v) == 76 for v in out["x"].to_list())  # 12-character prefix + 64 hex


def test_empty_and_null_are_kept() -> None:
    frame = pl.DataFrame({"x": ["", None, "a"]})
    out = pseudonymise(frame, ["x"], KEY)["x"].to_list()
    assert out == ["", None, _reference(KEY, "a")]
    assert pseudonymise_series(pl.Series("x", [], pl.String), KEY).to_list() == []


def test_no_pseudonym_is_the_plain_sha256() -> None:
    values = [f"claim-{i}" for i in range(50)]
    out = pseudonymise(pl.DataFrame({"x": values}), ["x"], KEY)["x"].to_list()
    plain = {hashlib.sha256(v.encode()).hexdigest() for v in values}
    assert not any(v.removeprefix(PREFIX) in plain for v in out)
    assert not any(v.startswith("sha256:") for v in out)


def test_key_changes_every_pseudonym() -> None:
    values = [f"claim-{i}" for i in range(20)]
    one = pseudonymise(pl.DataFrame({"x": values}), ["x"], KEY)["x"].to_list()
    other = pseudonymise(pl.DataFrame({"x": values}), ["x"], KEY + b"!")["x"].to_list()
    assert not set(one) & set(other)


def test_resolve_key() -> None:
    assert resolve_key(KEY, CorpusError) is KEY
    first, second = resolve_key(None, CorpusError), resolve_key(None, CorpusError)
    assert len(first) == 32 and len(second) == 32 and first != second  # random per call
    for bad in (b"x" * (MIN_KEY_BYTES - 1), b"", CANARY * 4, bytearray(KEY), 12345):
        with pytest.raises(CorpusError) as caught:
            resolve_key(bad, CorpusError)
        assert str(caught.value) == "pseudonym key must be bytes of at least 16 bytes"
        assert caught.value.category == "policy"
        assert caught.value.__cause__ is None and caught.value.__context__ is None


def _file_error(path: object, message: str) -> None:
    with pytest.raises(CitationSupportError) as caught:
        read_key_file(path, CitationSupportError)
    assert str(caught.value) == message
    assert caught.value.category == "input"
    assert CANARY not in repr(caught.value)
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_key_file_bounds(tmp_path: pathlib.Path) -> None:
    unreadable = "pseudonym key file could not be read"
    size = "pseudonym key file must hold 16 to 4096 bytes"
    folder = tmp_path / f"{CANARY}-dir"
    folder.mkdir()
    _file_error(folder / "missing", unreadable)
    _file_error(folder, unreadable)  # a directory
    _file_error(f"{folder}/\x00nul", unreadable)
    _file_error(12345, unreadable)
    for length, ok in ((15, False), (16, True), (4096, True), (4097, False), (0, False)):
        path = folder / f"k{length}"
        data = (CANARY.encode() * 500)[:length]
        path.write_bytes(data)
        if ok:
            assert read_key_file(path, CitationSupportError) == data  # bytes as stored
        else:
            _file_error(path, size)
    # a trailing newline is part of the key (the file is used as stored)
    (folder / "nl").write_bytes(KEY + b"\n")
    assert read_key_file(str(folder / "nl"), CitationSupportError) == KEY + b"\n"


def test_huge_key_file_is_not_read_whole(tmp_path: pathlib.Path) -> None:
    # a 4 GiB sparse file: reading it whole would take seconds and gigabytes; the reader
    # stops after MAX_KEY_FILE_BYTES + 1 bytes
    path = tmp_path / "huge"
    with path.open("wb") as handle:
        handle.truncate(4 << 30)
    started = time.perf_counter()
    _file_error(path, "pseudonym key file must hold 16 to 4096 bytes")
    assert time.perf_counter() - started < 1.0
    assert MAX_KEY_FILE_BYTES == 4096


def test_key_from_option_then_environment(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    option, env = tmp_path / "option.key", tmp_path / "env.key"
    option.write_bytes(b"o" * 16)
    env.write_bytes(b"e" * 16)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    assert key_from_file_option(None, CorpusError) is None  # no key: the run draws one
    assert key_from_file_option(str(option), CorpusError) == b"o" * 16
    monkeypatch.setenv(KEY_FILE_ENV, str(env))
    assert key_from_file_option(None, CorpusError) == b"e" * 16
    assert key_from_file_option(str(option), CorpusError) == b"o" * 16  # the option wins
    monkeypatch.setenv(KEY_FILE_ENV, "")
    assert key_from_file_option(None, CorpusError) is None  # empty: not set
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / CANARY))
    with pytest.raises(CorpusError) as caught:
        key_from_file_option(None, CorpusError)
    assert str(caught.value) == "pseudonym key file could not be read"
    assert os.environ[KEY_FILE_ENV].endswith(CANARY) and CANARY not in str(caught.value)
