"""Readers of collection inputs: table objects and data files (conventions §3).

Every file and table reader of citelens lives here; capabilities import from this package.
"""

from citelens.io._files import (
    DATA_SUFFIXES,
    ReadFailure,
    data_file_suffix,
    drop_nulls,
    is_table_object,
    read_data_file,
    read_table_object,
    table_rows,
)

__all__ = [
    "DATA_SUFFIXES",
    "ReadFailure",
    "data_file_suffix",
    "drop_nulls",
    "is_table_object",
    "read_data_file",
    "read_table_object",
    "table_rows",
]
