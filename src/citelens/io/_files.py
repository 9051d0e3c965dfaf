"""Reading collection inputs: table objects and data files (conventions §3).

Readers return either a ``pyarrow.Table`` (tabular files, table objects) or a plain Python
value (a ``.json`` document, or a JSON Lines file whose values the Arrow reader cannot type
exactly). They raise :class:`ReadFailure`, a private marker without a message; every module
turns it into its own fixed, unchained error.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

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

DATA_SUFFIXES: tuple[str, ...] = (
    ".parquet",
    ".arrow",
    ".feather",
    ".ipc",
    ".jsonl",
    ".ndjson",
    ".csv",
    ".json",
)


class ReadFailure(Exception):
    """Private marker: an input could not be read. Carries no message."""


def data_file_suffix(value: object) -> str | None:
    """The lower-cased data-file suffix of a ``str``/``os.PathLike`` path, else ``None``."""
    if isinstance(value, str):
        name = value
    elif isinstance(value, os.PathLike):
        try:
            raw = os.fspath(value)
        except Exception:
            return None
        if not isinstance(raw, str):
            return None
        name = raw
    else:
        return None
    lowered = name.lower()
    for suffix in DATA_SUFFIXES:
        if lowered.endswith(suffix):
            return suffix
    return None


def is_table_object(value: object) -> bool:
    """True for Arrow tables/batches, Polars frames and any ``__arrow_c_stream__`` object."""
    if isinstance(value, pa.Table | pa.RecordBatch):
        return True
    module = type(value).__module__
    if module.startswith("polars") and type(value).__name__ == "DataFrame":
        return True
    try:
        return callable(getattr(type(value), "__arrow_c_stream__", None))
    except Exception:
        return False


def read_table_object(value: object, limit: int | None = None) -> pa.Table:
    """Read a table object; a stream is read only until ``limit + 1`` rows have been seen."""
    try:
        if isinstance(value, pa.Table):
            table = value
        elif isinstance(value, pa.RecordBatch):
            table = pa.Table.from_batches([value])
        elif type(value).__module__.startswith("polars") and hasattr(value, "to_arrow"):
            table = value.to_arrow()
        else:
            reader = pa.RecordBatchReader.from_stream(value)
            batches: list[pa.RecordBatch] = []
            seen = 0
            for batch in reader:
                batches.append(batch)
                seen += batch.num_rows
                if limit is not None and seen > limit:
                    break
            table = pa.Table.from_batches(batches, schema=reader.schema)
        if limit is not None and table.num_rows > limit + 1:
            table = table.slice(0, limit + 1)
        return table
    except Exception:
        pass
    raise ReadFailure()


def _reject_constant(_: str) -> float:
    raise ValueError()


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def _decode(data: bytes) -> str:
    text = data.decode("utf-8")  # invalid UTF-8 makes the file unreadable
    return text[1:] if text.startswith("\ufeff") else text


def _has_float(data_type: pa.DataType) -> bool:
    """True for column types that would not round-trip the JSON values exactly: floats (the
    int/float distinction), nulls, and temporal types (Arrow reads ISO-date-like strings as
    timestamps)."""
    if (
        pa.types.is_floating(data_type)
        or pa.types.is_null(data_type)
        or pa.types.is_temporal(data_type)
    ):
        return True
    if pa.types.is_struct(data_type):
        return any(_has_float(data_type.field(i).type) for i in range(data_type.num_fields))
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return _has_float(data_type.value_type)
    return False


def _read_jsonl(data: bytes) -> pa.Table | list[Any]:
    text = _decode(data)
    # Arrow's JSON reader first: exact when every column has one non-float type. A float or
    # all-null column would lose the int/float or absent/null distinction: re-read with json.
    try:
        import pyarrow.json as pa_json

        table = pa_json.read_json(io.BytesIO(text.encode("utf-8")))
        if not any(_has_float(field.type) for field in table.schema):
            return table
    except Exception:
        pass
    values: list[Any] = []
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if not line.strip(" \t\r"):
            continue
        values.append(drop_nulls(_loads(line)))
    return values


def _read_csv(data: bytes) -> pa.Table:
    import pyarrow.csv as pa_csv

    text = _decode(data)
    lines = [line for line in text.splitlines() if line != ""]
    if not lines:
        return pa.table({})
    import csv

    header = next(csv.reader([lines[0]]))
    if len(set(header)) != len(header):
        raise ReadFailure()
    table = pa_csv.read_csv(
        io.BytesIO(text.encode("utf-8")),
        read_options=pa_csv.ReadOptions(use_threads=False),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: pa.string() for name in header},
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            null_values=[""],
        ),
    )
    return table


def _read_ipc(path: Path) -> pa.Table:
    import pyarrow.ipc as ipc

    try:
        with ipc.open_file(path) as file_reader:
            return file_reader.read_all()
    except Exception:
        pass
    with ipc.open_stream(path) as stream_reader:
        return stream_reader.read_all()


def read_data_file(path: object, limit: int | None = None) -> pa.Table | Any:
    """Read a data file by its suffix. Tables come back as Arrow, ``.json`` as Python values.

    CSV columns are all text (empty cell = null); modules type the columns their contract
    types. ``limit`` caps the rows taken from a table at ``limit + 1``.
    """
    suffix = data_file_suffix(path)
    if suffix is None:
        raise ReadFailure()
    result: Any = None
    ok = False
    try:
        target = Path(os.fspath(path))  # type: ignore[call-overload]
        if not target.is_file():
            raise ReadFailure()
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            result = pq.read_table(target)
        elif suffix in (".arrow", ".feather", ".ipc"):
            result = _read_ipc(target)
        else:
            data = target.read_bytes()
            if suffix in (".jsonl", ".ndjson"):
                result = _read_jsonl(data)
            elif suffix == ".csv":
                result = _read_csv(data)
            else:
                result = _loads(_decode(data))
        ok = True
    except Exception:
        ok = False
    if not ok:
        raise ReadFailure()
    if isinstance(result, pa.Table) and limit is not None and result.num_rows > limit + 1:
        result = result.slice(0, limit + 1)
    return result


def drop_nulls(value: Any) -> Any:
    """Remove ``None`` values from mappings, recursively (also inside lists)."""
    if isinstance(value, Mapping):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def table_rows(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of a table as dictionaries of their non-null cells (nested nulls dropped)."""
    return [drop_nulls(row) for row in table.to_pylist()]
