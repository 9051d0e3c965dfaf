"""gzip / zstd inputs and TSV (issue 11, item 2): the same records as the plain file, the
decompressed size bounded, corrupt and truncated streams refused with fixed details."""

from __future__ import annotations

import gzip
import importlib
import pathlib
from typing import Any

import pytest
import zstandard

from citelens.io import (
    FileKind,
    ReadFailure,
    _bounds,
    _compressed,
    data_file_suffix,
    describe,
    file_kind,
    read_data_file,
    table_rows,
)
from citelens.summary_citations import compute_summary_citation_metrics

CANARY = "CANARY-9b1e"
JSONL = (
    f'{{"claim_id":"{CANARY}","citations":["e1"]}}\n{{"claim_id":"c2","citations":[]}}\n'.encode()
)
CSV = f"claim_id,start\n{CANARY},3\nc2,\n".encode()
TSV = f"claim_id\tstart\n{CANARY}\t3\nc2\t\n".encode()


def _rows(path: pathlib.Path) -> list[dict[str, Any]]:
    content = read_data_file(path)
    return table_rows(content) if not isinstance(content, list) else content


def test_kinds_by_name() -> None:
    assert file_kind("a.JSONL.GZ") == FileKind(".jsonl", ",", "gzip")
    assert file_kind("a.tsv.zst") == FileKind(".csv", "\t", "zstd")
    assert file_kind("a.tsv") == FileKind(".csv", "\t", None)
    assert file_kind("a.parquet.gz") is None  # Parquet compresses internally
    assert file_kind("a.gz") is None
    assert data_file_suffix("claims.json.gz") == ".json"


@pytest.mark.parametrize(
    ("name", "pack"),
    [
        ("claims.jsonl.gz", gzip.compress),
        ("claims.jsonl.zst", lambda data: zstandard.ZstdCompressor().compress(data)),
    ],
)
def test_compressed_jsonl_reads_as_plain(tmp_path: pathlib.Path, name: str, pack: Any) -> None:
    (tmp_path / "claims.jsonl").write_bytes(JSONL)
    (tmp_path / name).write_bytes(pack(JSONL))
    # two records, exactly those of the plain file
    assert _rows(tmp_path / name) == _rows(tmp_path / "claims.jsonl")
    assert len(_rows(tmp_path / name)) == 2


def test_tsv_and_compressed_csv_read_as_csv(tmp_path: pathlib.Path) -> None:
    (tmp_path / "c.csv").write_bytes(CSV)
    (tmp_path / "c.tsv").write_bytes(TSV)
    (tmp_path / "c.csv.gz").write_bytes(gzip.compress(CSV))
    (tmp_path / "c.tsv.zst").write_bytes(zstandard.ZstdCompressor().compress(TSV))
    expected = [{"claim_id": CANARY, "start": "3"}, {"claim_id": "c2"}]  # cells are text
    for name in ("c.csv", "c.tsv", "c.csv.gz", "c.tsv.zst"):
        assert _rows(tmp_path / name) == expected, name


def test_multi_frame_zstd(tmp_path: pathlib.Path) -> None:
    codec = zstandard.ZstdCompressor()
    half = JSONL.index(b"\n") + 1
    (tmp_path / "c.jsonl.zst").write_bytes(
        codec.compress(JSONL[:half]) + codec.compress(JSONL[half:])
    )
    assert len(_rows(tmp_path / "c.jsonl.zst")) == 2  # both frames read


def _detail(path: pathlib.Path) -> str:
    with pytest.raises(ReadFailure) as caught:
        read_data_file(path)
    return describe(caught.value, "claims")


def test_corrupt_and_truncated(tmp_path: pathlib.Path) -> None:
    packed = gzip.compress(JSONL)
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    (tmp_path / "junk.jsonl.gz").write_bytes(b"not gzip " + CANARY.encode())
    frame = zstandard.ZstdCompressor().compress(JSONL)
    (tmp_path / "cut.jsonl.zst").write_bytes(frame[:-4])
    (tmp_path / "junk.jsonl.zst").write_bytes(b"\x28\xb5\x2f\xfd" + b"\xff" * 20)
    (tmp_path / "empty.jsonl.zst").write_bytes(b"")
    assert _detail(tmp_path / "cut.jsonl.gz") == "claims file is not valid gzip"
    assert _detail(tmp_path / "junk.jsonl.gz") == "claims file is not valid gzip"
    assert _detail(tmp_path / "cut.jsonl.zst") == "claims file is not valid zstd"
    assert _detail(tmp_path / "junk.jsonl.zst") == "claims file is not valid zstd"
    assert _detail(tmp_path / "empty.jsonl.zst") == "claims file is not valid zstd"
    # a valid stream of bad UTF-8 is the content's problem, not the compression's
    (tmp_path / "latin.csv.gz").write_bytes(gzip.compress(b"claim_id\n\xe9\n"))
    assert _detail(tmp_path / "latin.csv.gz") == "claims file is not valid UTF-8"


@pytest.mark.parametrize("method", ["gzip", "zstd"])
def test_bomb_is_refused_by_decompressed_size(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    # 4 MiB of zeros compresses to a few kB; with the bound at 1 MiB the decompressed size,
    # not the file's, is what is refused (after reading at most about one bound's worth)
    monkeypatch.setattr(_bounds, "MAX_FILE_BYTES", 1024 * 1024)
    monkeypatch.setattr(_compressed, "_CHUNK", 64 * 1024)
    data = b"\n" * (4 * 1024 * 1024)
    packed = gzip.compress(data) if method == "gzip" else zstandard.ZstdCompressor().compress(data)
    assert len(packed) < 64 * 1024
    suffix = ".gz" if method == "gzip" else ".zst"
    (tmp_path / f"bomb.jsonl{suffix}").write_bytes(packed)
    assert (
        _detail(tmp_path / f"bomb.jsonl{suffix}") == "claims file decompresses to more than 1 GiB"
    )


def test_zstd_without_any_decoder(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_zstd(name: str, *args: Any) -> Any:
        if name in ("zstandard", "compression.zstd"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_zstd)
    (tmp_path / "c.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(JSONL))
    assert _detail(tmp_path / "c.jsonl.zst") == (
        "claims file is zstd-compressed: install the zstandard package"
    )


def test_compressed_jsonl_through_a_contract(tmp_path: pathlib.Path) -> None:
    (tmp_path / "claims.jsonl.gz").write_bytes(gzip.compress(JSONL))
    (tmp_path / "evidence.tsv").write_bytes(b"evidence_id\ne1\n")
    metrics = compute_summary_citation_metrics(
        claims=str(tmp_path / "claims.jsonl.gz"), evidence=str(tmp_path / "evidence.tsv")
    )
    # c-CANARY cites e1 (which exists), c2 cites nothing: 2 claims, 1 with a citation
    assert metrics["claim_count"] == 2


@pytest.mark.parametrize("method", ["gzip", "zstd"])
def test_open_text_file_streams_what_read_text_file_reads(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    # The corpus readers' stream: the same decompressed bytes, line by line or in blocks,
    # from pieces of at most _CHUNK bytes (here 7, so a line spans several pieces).
    monkeypatch.setattr(_compressed, "_CHUNK", 7)
    codec = zstandard.ZstdCompressor()
    half = JSONL.index(b"\n") + 1
    packed = (
        gzip.compress(JSONL[:half]) + gzip.compress(JSONL[half:])  # two gzip members
        if method == "gzip"
        else codec.compress(JSONL[:half]) + codec.compress(JSONL[half:])  # two zstd frames
    )
    path = tmp_path / f"c.jsonl.{'gz' if method == 'gzip' else 'zst'}"
    path.write_bytes(packed)
    assert _compressed.read_text_file(path, method) == JSONL
    with _compressed.open_text_file(path, method) as stream:
        first = stream.readline()
        rest = stream.read(5) + stream.read()
    assert first == JSONL[:half]
    assert first + rest == JSONL
    absent = tmp_path / "c.jsonl"
    with pytest.raises(ReadFailure) as missing, _compressed.open_text_file(absent, None):
        pass  # pragma: no cover - the file is missing
    assert describe(missing.value, "claims") == "claims file not found"


@pytest.mark.parametrize("method", ["gzip", "zstd"])
def test_open_text_file_refuses_a_bomb_at_the_bound(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    # Bound 1 MiB, pieces of 64 KiB: the first MiB is handed on, the read beyond it refused.
    monkeypatch.setattr(_bounds, "MAX_FILE_BYTES", 1024 * 1024)
    monkeypatch.setattr(_compressed, "_CHUNK", 64 * 1024)
    data = b"\n" * (4 * 1024 * 1024)
    packed = gzip.compress(data) if method == "gzip" else zstandard.ZstdCompressor().compress(data)
    path = tmp_path / "bomb.jsonl"
    path.write_bytes(packed)
    read = 0
    with pytest.raises(ReadFailure) as caught, _compressed.open_text_file(path, method) as stream:
        while block := stream.read(64 * 1024):
            read += len(block)
    assert describe(caught.value, "claims") == "claims file decompresses to more than 1 GiB"
    assert read <= 1024 * 1024
