"""JSON Lines read block by block into staged Parquet files (the corpus reader, memory
bounded by one block instead of the file).

A file is read in blocks of whole lines (about ``block_bytes`` each; a block always ends at a
``\\n``, so no line and no UTF-8 character is split). Each block is pre-scanned before it is
parsed (:class:`citelens.io.JsonScan`: line length, nesting depth), and a line is never read
beyond :data:`~citelens.io.MAX_LINE_BYTES`, so memory follows one block however long a line
is. A compressed file (``claims.jsonl.gz``, ``.zst``) is decompressed as a stream under the
decompressed bound of :mod:`citelens.io._compressed`. Each block is read by the same rules as
the whole file (:func:`citelens.io.jsonl_records`: Arrow's reading when it is exact, else the
values of the lines typed by :func:`pyarrow.array`) and written to its own Parquet file. The
types of the blocks are then unified the way one reading of the whole file types its values:

* a field absent from a block, or null in all of its lines, takes the other blocks' type;
* integers and floats in one field make a float field, and then every integer must lie in
  ±2**53, the range a double holds exactly (beyond it the file cannot form a table);
* records merge field by field (first appearance order), lists item by item;
* any other mix (text and numbers, booleans and numbers, records and lists, ...) cannot form a
  table: :class:`ReadFailure`, as for a malformed line.

Blocks whose types differ from the unified schema are read back, one at a time, and rewritten
with it, so that every staged file has one schema. A schema Parquet cannot hold (a record
without fields, a file whose records have no field at all) is reported as ``None``: the caller
reads that file whole (:func:`citelens.io.jsonl_table`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from citelens.io import _bounds
from citelens.io._bounds import JsonRefused, JsonScan
from citelens.io._compressed import file_kind, open_text_file
from citelens.io._jsonl import RECORDS_UNREADABLE, jsonl_records
from citelens.io._refusal import Refused
from citelens.io._values import ReadFailure

__all__ = ["DEFAULT_BLOCK_BYTES", "conform_table", "jsonl_blocks", "merge_types", "stage_jsonl"]

DEFAULT_BLOCK_BYTES = 8 * 1024 * 1024
_BOM = "\ufeff".encode()
# The integers a double holds exactly: pyarrow.array refuses to convert any other integer to
# a float, so a file that mixes such an integer with floats in one field forms no table.
_EXACT_DOUBLE = 2**53


@dataclass(frozen=True)
class JsonlBlock:
    """The records of one block: ``table`` (no columns when every line is ``null`` or has
    no non-null field), ``records`` False when every line of the block is ``null``."""

    table: pa.Table
    records: bool


def line_blocks(path: Path, block_bytes: int) -> Iterator[tuple[bytes, int]]:
    """The file's bytes in blocks of whole lines (the UTF-8 BOM removed from the first block
    only; the bytes not yet checked to be UTF-8), each pre-scanned, with the number of lines
    before it; a line beyond the line bound is refused when the bound is reached. A
    ``.gz``/``.zst`` name is decompressed as it is read
    (:func:`citelens.io._compressed.open_text_file`: its decompressed bound applies)."""
    scan = JsonScan(lines=True)
    before = 0
    kind = file_kind(path.name)
    with open_text_file(path, None if kind is None else kind.compression) as handle:
        first = True
        while True:
            data = handle.read(block_bytes)
            if not data:
                scan.finish()
                return
            if not data.endswith(b"\n"):
                # the rest of the line, never more than the bound allows (+1 to see beyond it)
                data += handle.readline(_bounds.MAX_LINE_BYTES + 1)
            scan.feed(data)
            yield (data.removeprefix(_BOM) if first else data), before
            before += data.count(b"\n")
            first = False


def _texts(path: Path, block_bytes: int) -> Iterator[tuple[str, int]]:
    """:func:`line_blocks` as text (invalid UTF-8 raises ``UnicodeDecodeError``)."""
    for data, before in line_blocks(path, block_bytes):
        yield data.decode("utf-8"), before


def jsonl_blocks(path: object, block_bytes: int = DEFAULT_BLOCK_BYTES) -> Iterator[JsonlBlock]:
    """The records of a JSON Lines file, block by block (blocks without any line skipped).

    Raises :class:`ReadFailure` for a missing file, invalid UTF-8, a malformed line, values
    that form no table within a block, or a bound of :mod:`citelens.io._bounds` exceeded."""
    failure: ReadFailure | None = None
    before = 0
    try:
        blocks = _texts(Path(os.fspath(path)), block_bytes)  # type: ignore[call-overload]
        for text, offset in blocks:
            before = offset  # kept for the line number of a refusal inside this block
            records = jsonl_records(text)
            if records is None or not len(records):  # no line holds a value
                continue
            if isinstance(records, pa.Table):
                yield JsonlBlock(records, True)
            elif pa.types.is_null(records.type):  # every line is null: rows without a field
                rows = pa.nulls(len(records), pa.struct([]))
                yield JsonlBlock(pa.Table.from_struct_array(rows), False)
            else:
                yield JsonlBlock(pa.Table.from_struct_array(records), True)
    except JsonRefused as refused:  # the pre-scan: its line numbers count from the file's start
        failure = Refused(refused.reason, refused.line)
    except Refused as refused:  # a line of the block: numbered within the block
        line = None if refused.line is None else refused.line + before
        failure = Refused(refused.reason, line)
    except ReadFailure as refused:  # a bound of citelens.io refused the file
        failure = ReadFailure(refused.cause)
    except UnicodeError:  # invalid UTF-8
        failure = Refused("encoding")
    except RECORDS_UNREADABLE:  # the lines' values form no one table
        failure = Refused("jsonl_table")
    if failure is not None:
        raise failure


def merge_types(first: pa.DataType, second: pa.DataType) -> pa.DataType:
    """The type of one field read from two blocks typed ``first`` and ``second`` (the rules
    of the module docstring); :class:`ReadFailure` when no type holds both."""
    if first == second:
        return first
    if pa.types.is_null(first):
        return second
    if pa.types.is_null(second):
        return first
    numbers = {first, second}
    if numbers == {pa.int64(), pa.float64()}:
        return pa.float64()
    if pa.types.is_struct(first) and pa.types.is_struct(second):
        return pa.struct(_merge_fields(list(first), list(second)))
    if pa.types.is_list(first) and pa.types.is_list(second):
        return pa.list_(merge_types(first.value_type, second.value_type))
    raise ReadFailure()


def _merge_fields(first: list[pa.Field], second: list[pa.Field]) -> list[pa.Field]:
    later = {field.name: field for field in second}
    merged = [
        pa.field(f.name, merge_types(f.type, later[f.name].type) if f.name in later else f.type)
        for f in first
    ]
    known = {field.name for field in first}
    return merged + [pa.field(f.name, f.type) for f in second if f.name not in known]


def merge_schemas(first: pa.Schema, second: pa.Schema) -> pa.Schema:
    """The schema of the rows of two blocks (fields in first appearance order)."""
    return pa.schema(_merge_fields(list(first), list(second)))


def _conform(array: pa.Array, target: pa.DataType) -> pa.Array:
    """``array`` (one chunk, not sliced) as ``target``, a type :func:`merge_types` made from
    the array's type."""
    if array.type == target:
        return array
    mask = array.is_null() if array.null_count else None
    if pa.types.is_null(array.type):
        return pa.nulls(len(array), target)
    if pa.types.is_integer(array.type) and pa.types.is_floating(target):
        bounds = pc.min_max(array)
        low, high = bounds["min"].as_py(), bounds["max"].as_py()
        if low is not None and (low < -_EXACT_DOUBLE or high > _EXACT_DOUBLE):
            raise ReadFailure()
        return pc.cast(array, target)
    if pa.types.is_struct(target) and isinstance(array, pa.StructArray):
        names = {array.type.field(i).name for i in range(array.type.num_fields)}
        children = [
            _conform(array.field(f.name), f.type)
            if f.name in names
            else pa.nulls(len(array), f.type)
            for f in target
        ]
        return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)
    if pa.types.is_list(target) and isinstance(array, pa.ListArray):
        offsets = array.offsets
        first, last = offsets[0].as_py(), offsets[-1].as_py()
        values = _conform(array.values.slice(first, last - first), target.value_type)
        if first:
            offsets = pc.subtract(offsets, first)
        return pa.ListArray.from_arrays(offsets, values, type=target, mask=mask)
    raise ReadFailure()  # pragma: no cover - merge_types admits no other pair


def conform_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with ``schema``: missing columns null, each column converted to its type."""
    columns = []
    for field in schema:
        if field.name in table.column_names:
            column = table.column(field.name)
            chunks = [_conform(chunk, field.type) for chunk in column.chunks]
            columns.append(pa.chunked_array(chunks, field.type))
        else:
            columns.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(columns, schema=schema)


def _parquet_holds(data_type: pa.DataType) -> bool:
    """False for a record without fields, anywhere (Parquet has no such group)."""
    if pa.types.is_struct(data_type):
        fields = [data_type.field(i).type for i in range(data_type.num_fields)]
        return bool(fields) and all(_parquet_holds(t) for t in fields)
    if pa.types.is_list(data_type):
        return _parquet_holds(data_type.value_type)
    return True


# A staged block: its file (``None`` for rows without a field), its schema, its row count.
_Staged = tuple[Path | None, pa.Schema | None, int]


@dataclass(frozen=True)
class StagedJsonl:
    """A JSON Lines file staged as Parquet: ``files`` in line order, one ``schema``."""

    files: list[Path]
    schema: pa.Schema


def stage_jsonl(
    path: object, folder: Path, block_bytes: int = DEFAULT_BLOCK_BYTES
) -> StagedJsonl | None:
    """Read a JSON Lines file block by block into Parquet files in ``folder``.

    Returns the staged files (none for a file without records), or ``None`` when Parquet
    cannot hold the file's schema (read the file whole instead). Raises :class:`ReadFailure`
    when the file is missing or malformed or its values form no table; files already written
    stay in ``folder`` for the caller to remove."""
    staged: list[_Staged] = []
    schema: pa.Schema | None = None
    records = False
    for index, block in enumerate(jsonl_blocks(path, block_bytes)):
        records = records or block.records
        table = block.table
        schema = table.schema if schema is None else merge_schemas(schema, table.schema)
        if not table.num_columns:  # rows without a field: written once the schema is known
            staged.append((None, None, table.num_rows))
            continue
        if not all(_parquet_holds(field.type) for field in table.schema):
            return None
        target = folder / f"block-{index:06d}.parquet"
        pq.write_table(table, target)
        staged.append((target, table.schema, table.num_rows))
    if schema is None:
        return StagedJsonl([], pa.schema([pa.field("document_ref", pa.string())]))
    if not records:  # every line is null: no record at all (as for the whole file)
        raise ReadFailure()
    if not schema.names or not all(_parquet_holds(field.type) for field in schema):
        return None
    return StagedJsonl(_conform_files(staged, schema, folder), schema)


def _conform_files(staged: list[_Staged], schema: pa.Schema, folder: Path) -> list[Path]:
    """Rewrite, one block at a time, every staged block whose schema is not ``schema`` (a
    block of rows without a field is written now, all null)."""
    files: list[Path] = []
    for index, (target, block_schema, rows) in enumerate(staged):
        if target is None:
            target = folder / f"block-{index:06d}.parquet"
            nulls = [pa.nulls(rows, field.type) for field in schema]
            pq.write_table(pa.Table.from_arrays(nulls, schema=schema), target)
        elif block_schema != schema:
            pq.write_table(conform_table(pq.read_table(target), schema), target)
        files.append(target)
    return files
