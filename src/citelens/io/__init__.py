"""Readers of collection inputs: table objects and data files (conventions §3).

Every file and table reader of citelens lives here, each written once: Parquet and Arrow IPC,
JSON Lines (:func:`read_jsonl`, :func:`jsonl_table`, and block by block into staged Parquet
files: :func:`stage_jsonl`), CSV reading and typing
(:func:`read_csv`, :func:`type_csv_columns` over the cell rules :func:`integer_cells` and
:func:`boolean_cells`), and JSON decoding (:func:`decode_utf8`, :func:`loads_json`).
Capabilities import from this package.

No reader hands a hostile file to an engine (issue 10): the bounds below are checked first, in
linear time, and a file beyond one raises :class:`ReadFailure` with a fixed ``cause``
(:data:`READ_CAUSES`), never a value of the input. Where the reason is known more precisely
the failure is a :class:`Refused` (:data:`REASONS`, with a line number for JSON Lines), which
:func:`describe` words as a fixed sentence (``claims file not found``): capabilities keep their
contract's message and set that sentence as the error's ``detail``, which the CLI prints.
Text formats may be gzip or zstd compressed, and ``.tsv`` is CSV with a tab
(:mod:`citelens.io._compressed`).

* :data:`MAX_DEPTH` = 32: nesting of JSON arrays and objects (:class:`JsonScan`, a
  bracket-depth pre-scan that respects strings) and of Arrow types (:func:`check_schema`).
* :data:`MAX_LINE_BYTES` = 64 MiB: one JSON Lines line, one CSV row of a staged corpus file.
* :data:`MAX_FILE_BYTES` = 1 GiB: a text file read whole (:func:`read_bounded`); the corpus
  readers stream JSON Lines and CSV by blocks, bounded by the line bound instead.
* Column names distinct at every level of every schema (:func:`check_schema`).
* A Polars panic at a reader boundary (:data:`READER_PANICS`, not an ``Exception``) is the
  reader refusing the file: an unreadable input, not a bug.
"""

from citelens.io._bounds import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    READER_PANICS,
    JsonScan,
    check_json,
    check_schema,
    read_bounded,
)
from citelens.io._compressed import FileKind, file_kind, read_text_file
from citelens.io._csv import (
    boolean_cells,
    csv_header,
    integer_cells,
    read_csv,
    type_csv_columns,
)
from citelens.io._files import (
    DATA_SUFFIXES,
    data_file_kind,
    data_file_suffix,
    read_data_file,
)
from citelens.io._json import decode_utf8, loads_json, reject_constant
from citelens.io._jsonl import jsonl_records, jsonl_table, jsonl_values, read_jsonl
from citelens.io._jsonl_blocks import (
    DEFAULT_BLOCK_BYTES,
    StagedJsonl,
    jsonl_blocks,
    stage_jsonl,
)
from citelens.io._refusal import REASONS, Refused, describe
from citelens.io._values import (
    READ_CAUSES,
    ReadFailure,
    drop_nulls,
    is_table_object,
    read_table_object,
    table_rows,
)

__all__ = [
    "DATA_SUFFIXES",
    "DEFAULT_BLOCK_BYTES",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "READER_PANICS",
    "READ_CAUSES",
    "REASONS",
    "FileKind",
    "JsonScan",
    "ReadFailure",
    "Refused",
    "StagedJsonl",
    "boolean_cells",
    "check_json",
    "check_schema",
    "csv_header",
    "data_file_kind",
    "data_file_suffix",
    "decode_utf8",
    "describe",
    "drop_nulls",
    "file_kind",
    "integer_cells",
    "is_table_object",
    "jsonl_blocks",
    "jsonl_records",
    "jsonl_table",
    "jsonl_values",
    "loads_json",
    "read_bounded",
    "read_csv",
    "read_data_file",
    "read_jsonl",
    "read_table_object",
    "read_text_file",
    "reject_constant",
    "stage_jsonl",
    "table_rows",
    "type_csv_columns",
]
