"""JSON Lines exchanges decoded into typed columns in one pass, and the blame when one fails.

An importer declares the part of its provider's published schema it reads as a Polars
``Struct`` dtype; :func:`decode` parses every line into it at once with Arrow's JSON reader
(``pyarrow.json.read_json`` with the dtype as its explicit schema: fields the dtype does not
name are ignored, absent fields are null; measured 7 times faster than Polars'
``str.json_decode`` on 110 MB of Messages API exchanges, and multi-threaded). Every parse of
this module, the blame included, is that one reader (``NaN`` and ``Infinity``, which it
accepts, refused as JSON has them not). When a line does not fit (a field of the
wrong JSON type, or no one JSON object), the reader refuses the whole block without a usable
place; the first failing line is then found by bisection (each step parses half of the
remaining lines, so the search costs about two passes over the lines), and its field by
descending the dtype on that one line. The error names the format, the field (a path of the
dtype, never a value) and the line: ``anthropic input is malformed:
content[].citations[].start_char_index must be an integer`` with the detail ``anthropic line 3:
content[].citations[].start_char_index must be an integer``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from citelens.errors import CitationImportError

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

__all__ = ["ANY_OBJECT", "LINE", "RAW", "decode", "malformed"]

LINE = "_line"  # 1-based line number of the exchange in its file
RAW = "raw"  # the line's JSON text

# What a Polars dtype expects of a JSON value, in the error's words.
_EXPECTED = {
    "list": "must be a list",
    "struct": "must be an object",
    "integer": "must be an integer",
    "float": "must be a number",
    "boolean": "must be true or false",
    "string": "must be text",
}


# A struct of one field no provider uses: any JSON object decodes into it (the field null).
ANY_OBJECT = pl.Struct([pl.Field("\x00", pl.Null)])


def malformed(fmt: str, field: str, problem: str, line: int | None) -> CitationImportError:
    """The fixed error of a malformed exchange: format, field path and problem in the
    message, the line number in the detail (``field`` and ``problem`` are fixed text)."""
    message = f"{fmt} input is malformed: {field} {problem}"
    detail = None if line is None else f"{fmt} line {line}: {field} {problem}"
    return CitationImportError(message, "input", detail)


def _arrow_type(dtype: PolarsDataType) -> pa.DataType:
    """The Arrow type the JSON reader builds for a Polars dtype of a decode schema (the
    reader supports neither large nor view types)."""
    if isinstance(dtype, pl.Struct):
        return pa.struct([pa.field(f.name, _arrow_type(f.dtype)) for f in dtype.fields])
    if isinstance(dtype, pl.List):
        return pa.list_(_arrow_type(dtype.inner))
    simple = {pl.String: pa.string(), pl.Int64: pa.int64(), pl.Float64: pa.float64()}
    simple |= {pl.Boolean: pa.bool_(), pl.Null: pa.null()}
    return simple[dtype]  # type: ignore[index]


# The reader's block: at least the longest line (a line may not straddle two blocks).
_BLOCK_BYTES = 8 * 1024 * 1024


# A NaN or infinity where a value starts (after ``:``, ``,`` or ``[``): Arrow's reader accepts
# them, JSON has them not. Inside a string (``"ratio: NaN"``) it is text, told apart once the
# strings are removed.
_NONSTANDARD_VALUE = r"[:,\[]\s*-?(?:NaN|Inf)"
_STRING = r'"(?:[^"\\]|\\.)*"'


def _nonstandard(raw: pl.Series) -> bool:
    """Whether a line of ``raw`` holds a NaN or infinity outside its strings."""
    suspect = raw.filter(raw.str.contains(_NONSTANDARD_VALUE).fill_null(False))
    if not suspect.len():  # the common case: one scan, no line rewritten
        return False
    return bool(suspect.str.replace_all(_STRING, '""').str.contains(_NONSTANDARD_VALUE).any())


def _parse(raw: pl.Series, dtype: pl.Struct) -> pa.Table | None:
    """Every line of ``raw`` parsed into ``dtype`` (a table of its fields, one row per line),
    or None when some line is no JSON object of that shape. The lines hold no newline (the
    readers make sure): joined by newlines they are one JSON Lines buffer."""
    schema = pa.schema([pa.field(f.name, _arrow_type(f.dtype)) for f in dtype.fields])
    if not raw.len():
        return schema.empty_table()
    lines = raw.fill_null("").to_arrow().cast(pa.large_string())  # a null: no object
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    # one buffer of the lines joined by newlines (Arrow's join: Polars' measured 2 to 4 times
    # slower on 64 MiB of lines)
    listed = pa.LargeListArray.from_arrays(pa.array([0, len(lines)], pa.int64()), lines)
    joined = pc.binary_join(listed, pa.scalar("\n", pa.large_string()))
    data = joined[0].as_buffer()  # the text itself, not a copy
    longest = raw.str.len_bytes().max()
    block = max(_BLOCK_BYTES, 2 * int(longest or 0) + 2)  # type: ignore[arg-type]
    options = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        table = pa_json.read_json(
            pa.BufferReader(data),
            read_options=pa_json.ReadOptions(block_size=block),
            parse_options=options,
        )
    except pa.ArrowInvalid:  # the reader's refusal: invalid JSON or a value of another type
        return None
    if _nonstandard(raw):  # JSON the reader accepts but JSON has not
        return None
    # two objects on one line are two rows: that line is no one JSON object
    return table if table.num_rows == raw.len() else None


def _fits(raw: pl.Series, dtype: pl.Struct) -> bool:
    """Whether every line of ``raw`` decodes into ``dtype``."""
    return _parse(raw, dtype) is not None


def _first_misfit(raw: pl.Series, dtype: pl.Struct) -> int:
    """The position of the first line of ``raw`` that does not decode (some line does not)."""
    lo, hi = 0, raw.len()  # the first misfit lies in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fits(raw.slice(lo, mid - lo), dtype):
            lo = mid
        else:
            hi = mid
    return lo


def _kind(dtype: PolarsDataType) -> str:
    if isinstance(dtype, pl.List):
        return "list"
    if isinstance(dtype, pl.Struct):
        return "struct"
    if dtype.is_integer():
        return "integer"
    if dtype.is_float():
        return "float"
    if dtype == pl.Boolean:
        return "boolean"
    return "string"


def _misfit_field(raw: pl.Series, dtype: pl.Struct, path: str) -> tuple[str, str]:
    """The path of the field of the one line ``raw`` that does not fit ``dtype``, and what it
    must be: each field is tried alone, and a nested one is descended into."""
    if path and not _fits(raw, ANY_OBJECT):  # a list item that is no object at all
        return path, "must be an object"
    for field in dtype.fields:
        alone = pl.Struct([field])
        if _fits(raw, alone):
            continue
        name = f"{path}.{field.name}" if path else field.name
        inner = field.dtype
        # the field's value itself is of another type, or a part of it is: look inside
        if isinstance(inner, pl.List | pl.Array):
            element = inner.inner
            listed = pl.Struct([pl.Field(field.name, pl.List(ANY_OBJECT))])
            if isinstance(element, pl.Struct) and _fits(raw, listed):
                items = raw.str.json_path_match(f"$.{field.name}")
                return _misfit_items(items, element, f"{name}[]")
        objected = pl.Struct([pl.Field(field.name, ANY_OBJECT)])
        if isinstance(inner, pl.Struct) and _fits(raw, objected):
            nested = raw.str.json_path_match(f"$.{field.name}")
            return _misfit_field(nested, inner, name)
        return name, _EXPECTED[_kind(inner)]
    return path or "line", "must be an object"


def _misfit_items(items: pl.Series, element: pl.Struct, path: str) -> tuple[str, str]:
    """The misfit field of the first item of the JSON list ``items`` (one line) that does not
    fit ``element``."""
    # the number of items: the list parsed with items of no fields (any object fits)
    wrapped = items.to_frame("items").select(pl.format('{{"v":{}}}', "items")).to_series()
    counted = _parse(wrapped, pl.Struct({"v": pl.List(ANY_OBJECT)}))
    count = 0 if counted is None else len(counted.column("v")[0])
    for position in range(count):  # one line only, on the error path
        item = items.str.json_path_match(f"$[{position}]")
        if not _fits(item, element):
            return _misfit_field(item, element, path)
    return path, "must be a list"


def decode(raw: pl.DataFrame, dtype: pl.Struct, fmt: str) -> pl.DataFrame:
    """The lines of ``raw`` (columns :data:`LINE`, :data:`RAW`) decoded into ``dtype``: the
    frame of :data:`LINE` and the dtype's top-level fields. A line that does not fit raises
    :func:`malformed` naming the first such line and its field; when some line is no valid
    JSON at all, the first such line is named instead (``line is not valid JSON``), so every
    importer, whose first decode reads every line, refuses invalid JSON before any misfit."""
    values = raw.get_column(RAW)
    table = _parse(values, dtype)  # one parsing pass; the blame below runs only when it fails
    if table is not None:
        decoded = pl.from_arrow(table)
        assert isinstance(decoded, pl.DataFrame)
        return raw.select(LINE).hstack(decoded.get_columns())
    if not _fits(values, ANY_OBJECT):  # a line that is no JSON: named before any misfit
        line = int(raw.get_column(LINE)[_first_misfit(values, ANY_OBJECT)])
        raise malformed(fmt, "line", "is not valid JSON", line)
    position = _first_misfit(values, dtype)
    line = int(raw.get_column(LINE)[position])
    field, problem = _misfit_field(values.slice(position, 1), dtype, "")
    raise malformed(fmt, field, problem, line)
