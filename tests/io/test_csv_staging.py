"""CSV staged block by block as Parquet (``citelens.io._csv.stage_csv``): the same table as
reading the whole file (:func:`citelens.io.read_csv`), whatever the block size."""

from __future__ import annotations

import pathlib
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens.io import ReadFailure, _csv, csv_header, read_csv


def _stage(tmp_path: pathlib.Path, data: bytes, block_bytes: int) -> pa.Table:
    source = tmp_path / "input.csv"
    source.write_bytes(data)
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    first = next(line for line in lines if line.rstrip(b"\r"))
    header = csv_header(first.rstrip(b"\r").decode("utf-8"))
    target = tmp_path / "staged.parquet"
    _csv.stage_csv(source, header, target, block_bytes)
    return pq.read_table(target)


def test_cells_are_text_and_empty_cells_null(tmp_path: pathlib.Path) -> None:
    # BOM dropped, empty lines skipped (also before the header), "" and an empty cell are
    # null, quoted commas and line breaks stay in the cell, CRLF ends a row.
    data = b'\xef\xbb\xbf\n\nid,start,note\r\n007,+5,"a,b"\r\n\r\nc2,,""\nc3,x,"line\nbreak"\n'
    table = _stage(tmp_path, data, 1 << 20)
    assert table.schema == pa.schema(
        [("id", pa.string()), ("start", pa.string()), ("note", pa.string())]
    )
    assert table.to_pylist() == [
        {"id": "007", "start": "+5", "note": "a,b"},
        {"id": "c2", "start": None, "note": None},
        {"id": "c3", "start": "x", "note": "line\nbreak"},
    ]


def test_header_only_is_zero_rows(tmp_path: pathlib.Path) -> None:
    table = _stage(tmp_path, b"document_ref,claim_id\n", 64)
    assert table.num_rows == 0
    assert table.column_names == ["document_ref", "claim_id"]


def _random_csv(seed: int) -> bytes:
    rng = random.Random(seed)
    cells = ["", "a", "é", "😀", '"q,uoted"', '"two\nlines"', '""', "12", "-3", "+4", "x y"]
    rows = ["document_ref,claim_id,start,end"]
    for index in range(rng.randint(0, 300)):
        rows.append(",".join([f"d{index % 7}", *(rng.choice(cells) for _ in range(3))]))
        if rng.random() < 0.1:
            rows.append("")  # an empty line, skipped
    return ("\n".join(rows) + rng.choice(["", "\n"])).encode("utf-8")


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("block_bytes", [48, 100, 1 << 20])
def test_staged_equals_the_whole_file_reading(
    tmp_path: pathlib.Path, seed: int, block_bytes: int
) -> None:
    # 48 bytes is shorter than some rows: the rows that straddle blocks are read again with
    # larger blocks, and the content stays that of read_csv.
    data = _random_csv(seed)
    staged = _stage(tmp_path, data, block_bytes)
    assert staged.to_pylist() == read_csv(data).to_pylist()
    assert staged.schema == read_csv(data).schema


def test_small_blocks_are_row_groups(tmp_path: pathlib.Path) -> None:
    data = b"document_ref,x\n" + b"".join(b"d%03d,%d\n" % (i, i) for i in range(500))
    _stage(tmp_path, data, 256)
    assert pq.ParquetFile(tmp_path / "staged.parquet").metadata.num_row_groups > 1


@pytest.mark.parametrize(
    "data",
    [
        b"document_ref,start\nd1,1\nd2,1,2\n",  # a ragged row (too many cells)
        b"document_ref,start\nd1,1\nd2\n",  # a ragged row (too few cells)
        b"document_ref,start\n" + b"d1,1\n" * 40 + b"d2,\xff\n",  # invalid UTF-8, late
    ],
)
@pytest.mark.parametrize("block_bytes", [24, 1 << 20])
def test_malformed_content_is_a_read_failure(
    tmp_path: pathlib.Path, data: bytes, block_bytes: int
) -> None:
    with pytest.raises(ReadFailure):
        _stage(tmp_path, data, block_bytes)


def test_a_row_longer_than_a_block_is_read_whole(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrow cannot split a row across blocks: a 300-byte cell with 64-byte blocks makes the
    # first pass fail; the next pass takes blocks 16 times larger, capped at the file's size
    # + 1 (18 + 9 + 304 + 7 = 338 bytes, so 339), and reads it.
    passes: list[int] = []
    original = _csv._stage_blocks

    def spy(path: pathlib.Path, header: list[str], target: pathlib.Path, size: int) -> bool:
        passes.append(size)
        return original(path, header, target, size)

    monkeypatch.setattr(_csv, "_stage_blocks", spy)
    data = b"document_ref,note\nd1,short\nd2," + b"x" * 300 + b"\nd3,end\n"
    table = _stage(tmp_path, data, 64)
    assert table.to_pylist() == read_csv(data).to_pylist()
    assert [row["note"] for row in table.to_pylist()] == ["short", "x" * 300, "end"]
    assert len(data) == 338
    assert passes == [64, 339]
