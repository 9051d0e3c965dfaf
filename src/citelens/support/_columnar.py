"""Columnar normalisation of support collections (§4): whole-column Polars expressions.

Each ``*_from_table`` function evaluates the record rules of §3.5 for every row at once and
returns canonical Arrow tables, or ``None`` when any row lies outside the shapes it evaluates
exactly (a defective row, an alias conflict, a nested span, a non-ASCII label, …). ``None``
sends the collection to the exact row path, which then yields the identical result or names
the first defective row with its catalogue error. The two paths are differential-tested.
"""

from __future__ import annotations

import itertools
import operator
import re
from typing import Any

import polars as pl
import pyarrow as pa

from citelens.support._records import (
    CLAIM_CITATION_ALIASES,
    CLAIM_ID_ALIASES,
    CLAIM_SOURCE_ALIASES,
    CLAIM_TYPE_ALIASES,
    EDGE_CLAIM_ALIASES,
    EDGE_EVIDENCE_ALIASES,
    EDGE_SOURCE_ALIASES,
    EVIDENCE_ID_ALIASES,
    EVIDENCE_SOURCE_ALIASES,
    LENGTH_ALIASES,
    TEXT_ALIASES,
)
from citelens.support._rules import (
    FLAG_KEYS,
    INT64_MAX,
    LABEL_KEYS,
    LABEL_SPELLINGS,
    SPAN_END,
    SPAN_START,
)
from citelens.support._schema import ADJUDICATION_SCHEMA, CLAIM_SCHEMA, EDGE_SCHEMA, EVIDENCE_SCHEMA

__all__ = [
    "adjudications_from_table",
    "citations_from_table",
    "claims_from_table",
    "evidence_from_table",
    "python_records_table",
    "type_csv_table",
]

# Every character for which ``str.isspace()`` is true: the identifier rule's ``strip()``.
_WHITESPACE = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
_WS_LIST = pl.Series(list(_WHITESPACE), dtype=pl.String).implode()
_NESTED = ("span", "source_span", "claim_span", "evidence_span")
_OFFSET_COLUMNS = ("start", "end", "source_start", "source_end", "span_start", "span_end")
_FLAG_COLUMNS = tuple(key for key, _ in FLAG_KEYS)
_INT_PATTERN = re.compile(r"[+-]?[0-9]+")


class _Outside(Exception):
    """Private: the collection is outside the exact columnar domain; use the row path."""


def _frame(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _kind(dtype: pl.DataType) -> str:
    if dtype == pl.String:
        return "str"
    if dtype.is_integer():
        return "int"
    if dtype == pl.Boolean:
        return "bool"
    if dtype == pl.Null:
        return "null"
    if isinstance(dtype, pl.List):
        inner = dtype.inner
        if inner == pl.String:
            return "list_str"
        if inner is not None and inner.is_integer():
            return "list_int"
        if inner == pl.Null:
            return "list_null"
    return "other"


def _present(frame: pl.DataFrame, aliases: tuple[str, ...]) -> list[str]:
    """Alias columns that exist and hold at least one non-null value."""
    return [
        name
        for name in aliases
        if name in frame.columns
        and _kind(frame.schema[name]) != "null"
        and frame[name].null_count() < frame.height
    ]


def _group(
    frame: pl.DataFrame, aliases: tuple[str, ...], allowed: tuple[str, ...]
) -> pl.Series | None:
    """The first-value rule over alias columns: the value, or ``None`` when all are absent."""
    names = _present(frame, aliases)
    if not names:
        return None
    kinds = {_kind(frame.schema[name]) for name in names}
    if len(kinds) != 1 or next(iter(kinds)) not in allowed:
        raise _Outside()
    kind = next(iter(kinds))
    columns = [frame[name] for name in names]
    if kind == "int":
        for column in columns:
            if column.dtype == pl.UInt64 and (column.max() or 0) > INT64_MAX:  # type: ignore[operator]
                raise _Outside()
        columns = [column.cast(pl.Int64) for column in columns]
    if len(columns) == 1:
        return columns[0]
    if kind.startswith("list"):
        raise _Outside()
    value = pl.select(pl.coalesce(columns)).to_series()
    for column in columns[1:]:
        if bool((column.is_not_null() & (column != value)).any()):
            raise _Outside()
    return value


def _identifier(series: pl.Series, *, optional: bool = False) -> pl.Series:
    """The identifier rule for a string/int column without nulls (``""`` for optional)."""
    if series.dtype != pl.String:
        series = series.cast(pl.String)
    if optional:
        empty = series.is_null() | (series == "")
        series = pl.select(pl.when(empty).then(pl.lit("")).otherwise(series)).to_series()
        check = ~empty
    else:
        if series.null_count():
            raise _Outside()
        check = pl.Series([True] * len(series), dtype=pl.Boolean)
    # One regex pass finds values that need stripping or hold a control character; byte
    # length bounds code-point length from above, so code points are counted only when needed.
    edges_ws = series.str.head(1).is_in(_WS_LIST) | series.str.tail(1).is_in(_WS_LIST)
    needs_work = (edges_ws | series.str.contains(r"[\x00-\x1f\x7f]")).fill_null(False)
    if bool(needs_work.any()):
        stripped = pl.select(
            pl.when(needs_work).then(series.str.strip_chars(_WHITESPACE)).otherwise(series)
        ).to_series()
    else:
        stripped = series
    byte_length = stripped.str.len_bytes()
    bad = check & (byte_length < 1)
    if bool((byte_length > 256).any()):
        bad = bad | (check & (stripped.str.len_chars() > 256))
    if bool(needs_work.any()):
        bad = bad | (check & stripped.str.contains(r"[\x00-\x1f\x7f]").fill_null(False))
    if bool(bad.any()):
        raise _Outside()
    return stripped


_NESTED_START = ("start", "begin", "offset_start")
_NESTED_END = ("end", "stop", "offset_end")


def _nested(frame: pl.DataFrame) -> tuple[pl.Series | None, pl.Series | None]:
    """Offsets of a nested span column: a struct with start/end (or begin/stop,
    offset_start/offset_end) fields, or a two-element integer list. A text, number or bool
    nested value is ignored, as the span rule says."""
    names = _present(frame, _NESTED)
    if not names:
        return None, None
    if len(names) > 1:
        raise _Outside()  # first-value across nested aliases compares whole values: row path
    column = frame[names[0]]
    dtype = column.dtype
    if isinstance(dtype, pl.Struct):
        fields = column.struct.unnest()
        return (
            _group(fields, _NESTED_START, ("int",)),
            _group(fields, _NESTED_END, ("int",)),
        )
    if isinstance(dtype, pl.List) and dtype.inner is not None and dtype.inner.is_integer():
        lengths = column.list.len()
        if bool((column.is_not_null() & (lengths != 2)).any()):
            raise _Outside()  # span tuple must contain two offsets: row path names it
        return column.list.get(0, null_on_oob=True), column.list.get(1, null_on_oob=True)
    if dtype in (pl.String, pl.Boolean) or dtype.is_numeric():
        return None, None
    raise _Outside()


def _offsets(frame: pl.DataFrame) -> tuple[pl.Series, pl.Series]:
    none = pl.Series([None] * frame.height, dtype=pl.Int64)
    nested_start, nested_end = _nested(frame)
    start = _group(frame, SPAN_START, ("int",))
    end = _group(frame, SPAN_END, ("int",))
    out = []
    for top, nested in ((start, nested_start), (end, nested_end)):
        if nested is None:
            out.append(none if top is None else top)
            continue
        nested = nested.cast(pl.Int64)
        if top is None:
            out.append(nested)
            continue
        if bool((top.is_not_null() & nested.is_not_null() & (top != nested)).any()):
            raise _Outside()  # conflicting span offsets: row path names the row
        out.append(pl.select(pl.coalesce(top, nested)).to_series())
    return out[0], out[1]


def _lengths(frame: pl.DataFrame, lengths: dict[str, int], source: pl.Series) -> pl.Series:
    length = _group(frame, LENGTH_ALIASES, ("int",))
    text = _group(frame, TEXT_ALIASES, ("str",))
    if length is None:
        length = pl.Series([None] * frame.height, dtype=pl.Int64)
    if text is not None:
        length = pl.select(pl.coalesce(length, text.str.len_chars().cast(pl.Int64))).to_series()
    if lengths:
        fill = pl.DataFrame(
            {"_source": list(lengths), "_length": list(lengths.values())},
            schema={"_source": pl.String, "_length": pl.Int64},
        )
        filled = (
            pl.DataFrame({"_source": source, "_own": length})
            .join(fill, on="_source", how="left", maintain_order="left")
            .select(pl.coalesce("_own", "_length"))
            .to_series()
        )
        length = filled
    return length.cast(pl.Int64)


def _optional_source(frame: pl.DataFrame, aliases: tuple[str, ...]) -> pl.Series:
    source = _group(frame, aliases, ("str",))
    if source is None:
        return pl.Series([""] * frame.height, dtype=pl.String)
    return _identifier(source, optional=True)


def _claim_type(frame: pl.DataFrame) -> pl.Series:
    value = _group(frame, CLAIM_TYPE_ALIASES, ("str",))
    if value is None:
        return pl.Series([""] * frame.height, dtype=pl.String)
    if bool(value.str.contains(r"[^\x00-\x7f]").fill_null(False).any()):
        raise _Outside()  # casefold() and lower-casing differ only outside ASCII
    empty = value.is_null() | (value == "")
    normal = (
        value.str.strip_chars(_WHITESPACE)
        .str.to_lowercase()
        .str.replace_all(r"[^a-z0-9_.-]+", "-")
        .str.strip_chars("-")
    )
    ok = normal.str.contains(r"^[a-z0-9][a-z0-9_.-]{0,63}$").fill_null(False)
    if bool((~empty & ~ok).any()):
        raise _Outside()
    return pl.select(pl.when(empty).then(pl.lit("")).otherwise(normal)).to_series()


CORPUS_DOCUMENT = "__citelens_document__"


def _split_document(frame: pl.DataFrame, corpus: bool) -> tuple[pl.DataFrame, pl.Series | None]:
    if not corpus:
        return frame, None
    return frame.drop(CORPUS_DOCUMENT), frame[CORPUS_DOCUMENT]


def _with_document(frame: pl.DataFrame, doc: pl.Series | None) -> pl.DataFrame:
    return frame if doc is None else frame.with_columns(doc.alias("_d"))


def _document_or_zero(doc: pl.Series | None, frame: pl.DataFrame) -> pl.Series:
    if doc is None:
        return pl.Series("_d", [0] * frame.height, dtype=pl.UInt32)
    return doc


def _table(columns: dict[str, pl.Series], schema: pa.Schema) -> pl.DataFrame:
    """A canonical Polars frame with the schema's column order and dtypes."""
    return pl.DataFrame(columns).select(
        pl.col(f.name).cast(pl.Int64 if pa.types.is_integer(f.type) else pl.String) for f in schema
    )


def empty_frame(schema: pa.Schema) -> pl.DataFrame:
    """An empty canonical frame."""
    return _table(
        {
            f.name: pl.Series([], dtype=pl.Int64 if pa.types.is_integer(f.type) else pl.String)
            for f in schema
        },
        schema,
    )


def claims_from_table(
    table: pa.Table,
    citation_limit: int,
    lengths: dict[str, int],
    *,
    corpus: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Claims and claim-embedded edges, or ``None`` outside the exact domain.

    ``corpus``: the table carries the document code column :data:`CORPUS_DOCUMENT`, kept as
    ``_d`` on both outputs, and the running edge bound applies per document.
    """
    try:
        frame, doc = _split_document(_frame(table), corpus)
        claims, edges = _claims(frame, citation_limit, lengths, doc)
        return _with_document(claims, doc), edges
    except Exception:  # outside the exact domain (or unexpected): the row path decides
        return None


def _claims(
    frame: pl.DataFrame, citation_limit: int, lengths: dict[str, int], doc: pl.Series | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    raw_id = _group(frame, CLAIM_ID_ALIASES, ("str", "int"))
    if raw_id is None:
        raise _Outside()
    start, end = _offsets(frame)
    source = _optional_source(frame, CLAIM_SOURCE_ALIASES)
    citations = _group(
        frame, CLAIM_CITATION_ALIASES, ("str", "int", "list_str", "list_int", "list_null")
    )
    claim_type = _claim_type(frame)
    claim_id = _identifier(raw_id)
    length = _lengths(frame, lengths, source)
    claims = _table(
        {
            "claim_id": claim_id,
            "start": start,
            "end": end,
            "source_id": source,
            "source_length": length,
            "claim_type": claim_type,
        },
        CLAIM_SCHEMA,
    )
    if citations is None:
        empty = empty_frame(EDGE_SCHEMA)
        if doc is not None:
            empty = empty.with_columns(pl.Series("_d", [], dtype=doc.dtype))
        return claims, empty
    if isinstance(citations.dtype, pl.List):
        items = citations.cast(pl.List(pl.String))
        counts = items.list.len().fill_null(0)
        if bool((counts > citation_limit).any()):
            raise _Outside()
        exploded = (
            pl.DataFrame({"claim_id": claim_id, "item": items, "_d": _document_or_zero(doc, frame)})
            .filter(pl.col("item").list.len().fill_null(0) > 0)
            .explode("item")
        )
    else:
        exploded = pl.DataFrame(
            {
                "claim_id": claim_id,
                "item": citations.cast(pl.String),
                "_d": _document_or_zero(doc, frame),
            }
        ).filter(pl.col("item").is_not_null())
    per_document = exploded.group_by("_d").len()["len"]
    if per_document.len() and int(per_document.max()) > citation_limit:  # type: ignore[arg-type]
        raise _Outside()
    if exploded["item"].null_count():
        raise _Outside()
    evidence_id = _identifier(exploded["item"])
    none = pl.Series([None] * exploded.height, dtype=pl.Int64)
    edges = _table(
        {
            "claim_id": exploded["claim_id"],
            "evidence_id": evidence_id,
            "start": none,
            "end": none,
            "source_id": pl.Series([""] * exploded.height, dtype=pl.String),
        },
        EDGE_SCHEMA,
    )
    if doc is not None:
        edges = edges.with_columns(exploded["_d"].alias("_d"))
    return claims, edges


def evidence_from_table(
    table: pa.Table, lengths: dict[str, int], *, corpus: bool = False
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Evidence (no embedded adjudications in the columnar domain), or ``None``."""
    try:
        frame, doc = _split_document(_frame(table), corpus)
        if _present(frame, EDGE_CLAIM_ALIASES):
            raise _Outside()  # claim aliases may embed adjudications: exact row path
        raw_id = _group(frame, EVIDENCE_ID_ALIASES, ("str", "int"))
        if raw_id is None:
            raise _Outside()
        start, end = _offsets(frame)
        source = _optional_source(frame, EVIDENCE_SOURCE_ALIASES)
        evidence_id = _identifier(raw_id)
        length = _lengths(frame, lengths, source)
        evidence = _table(
            {
                "evidence_id": evidence_id,
                "start": start,
                "end": end,
                "source_id": source,
                "source_length": length,
            },
            EVIDENCE_SCHEMA,
        )
        return _with_document(evidence, doc), empty_frame(ADJUDICATION_SCHEMA)
    except Exception:  # outside the exact domain (or unexpected): the row path decides
        return None


def citations_from_table(table: pa.Table, *, corpus: bool = False) -> pl.DataFrame | None:
    """Explicit citation edges, or ``None`` outside the exact domain."""
    try:
        frame, doc = _split_document(_frame(table), corpus)
        claim = _group(frame, EDGE_CLAIM_ALIASES, ("str", "int"))
        evidence = _group(frame, EDGE_EVIDENCE_ALIASES, ("str", "int"))
        if claim is None or evidence is None:
            raise _Outside()
        if claim.null_count() or evidence.null_count():
            raise _Outside()
        start, end = _offsets(frame)
        source = _group(frame, EDGE_SOURCE_ALIASES, ("str",))
        fallback = _group(frame, ("source_id",), ("str",))
        if source is None:
            source = fallback
        elif fallback is not None:
            source = pl.select(pl.coalesce(source, fallback)).to_series()
        claim_id = _identifier(claim)
        evidence_id = _identifier(evidence)
        source_id = (
            pl.Series([""] * frame.height, dtype=pl.String)
            if source is None
            else _identifier(source, optional=True)
        )
        return _with_document(
            _table(
                {
                    "claim_id": claim_id,
                    "evidence_id": evidence_id,
                    "start": start,
                    "end": end,
                    "source_id": source_id,
                },
                EDGE_SCHEMA,
            ),
            doc,
        )
    except Exception:  # outside the exact domain (or unexpected): the row path decides
        return None


def _label_column(series: pl.Series) -> pl.Series:
    kind = _kind(series.dtype)
    if kind == "bool":
        return pl.select(
            pl.when(series).then(pl.lit("supports")).otherwise(pl.lit("irrelevant"))
        ).to_series()
    if kind != "str":
        raise _Outside()
    # Labels come from a small vocabulary: normalise the distinct values, then map back.
    distinct = series.drop_nulls().unique()
    if bool(distinct.str.contains(r"[^\x00-\x7f]").any()):
        raise _Outside()
    key = (
        distinct.str.strip_chars(_WHITESPACE)
        .str.to_lowercase()
        .str.replace_all(r"[^a-z0-9]+", "_")
        .str.strip_chars("_")
    )
    normal = key.replace_strict(LABEL_SPELLINGS, default=None, return_dtype=pl.String)
    if normal.null_count():
        raise _Outside()
    return series.replace_strict(distinct, normal, default=None, return_dtype=pl.String)


def adjudications_from_table(table: pa.Table, *, corpus: bool = False) -> pl.DataFrame | None:
    """Explicit adjudications, or ``None`` outside the exact domain.

    A null flag cell is an absent flag (a table row means its non-null cells);
    :func:`python_records_table` sends mappings whose flag key holds ``None`` to the row path.
    """
    try:
        frame, doc = _split_document(_frame(table), corpus)
        claim = _group(frame, EDGE_CLAIM_ALIASES, ("str", "int"))
        evidence = _group(frame, EDGE_EVIDENCE_ALIASES, ("str", "int"))
        fallback = _group(frame, ("source_id",), ("str", "int"))
        if evidence is None:
            evidence = fallback
        elif fallback is not None:
            if evidence.dtype != fallback.dtype:
                raise _Outside()
            evidence = pl.select(pl.coalesce(evidence, fallback)).to_series()
        if claim is None or evidence is None or claim.null_count() or evidence.null_count():
            raise _Outside()
        collected = [
            _label_column(frame[name]) for name in LABEL_KEYS if name in _present(frame, (name,))
        ]
        false_targets: list[pl.Series] = []
        flags_present = pl.Series([False] * frame.height, dtype=pl.Boolean)
        for name, target in FLAG_KEYS:
            if name not in frame.columns or _kind(frame.schema[name]) == "null":
                continue
            flag = frame[name]
            if _kind(flag.dtype) != "bool":
                raise _Outside()
            flags_present = flags_present | flag.is_not_null()
            collected.append(
                pl.select(pl.when(flag).then(pl.lit(target)).otherwise(None)).to_series()
            )
            false_targets.append(
                pl.select(pl.when(~flag).then(pl.lit(target)).otherwise(None)).to_series()
            )
        if collected:
            first = pl.select(pl.coalesce(collected)).to_series()
        else:
            first = pl.Series([None] * frame.height, dtype=pl.String)
        for column in collected:
            if bool((column.is_not_null() & (column != first)).any()):
                raise _Outside()
        for column in false_targets:
            if bool((column.is_not_null() & (column == first)).any()):
                raise _Outside()
        label = pl.select(
            pl.when(first.is_null() & flags_present).then(pl.lit("irrelevant")).otherwise(first)
        ).to_series()
        if label.null_count():
            raise _Outside()
        claim_id = _identifier(claim)
        evidence_id = _identifier(evidence)
        return _with_document(
            _table(
                {
                    "claim_id": claim_id,
                    "evidence_id": evidence_id,
                    "label": label,
                    "origin": pl.Series(["explicit"] * frame.height, dtype=pl.String),
                },
                ADJUDICATION_SCHEMA,
            ),
            doc,
        )
    except Exception:  # outside the exact domain (or unexpected): the row path decides
        return None


# Every key any support record rule reads; other keys are never converted.
RECORD_KEYS = frozenset(
    (
        *CLAIM_ID_ALIASES,
        *EVIDENCE_ID_ALIASES,
        *CLAIM_SOURCE_ALIASES,
        *EVIDENCE_SOURCE_ALIASES,
        *CLAIM_CITATION_ALIASES,
        *CLAIM_TYPE_ALIASES,
        *LENGTH_ALIASES,
        *TEXT_ALIASES,
        *EDGE_CLAIM_ALIASES,
        *EDGE_EVIDENCE_ALIASES,
        *EDGE_SOURCE_ALIASES,
        "source_id",
        *SPAN_START,
        *SPAN_END,
        *_NESTED,
        *LABEL_KEYS,
        *_FLAG_COLUMNS,
        "claim_key",
    )
)


def python_records_table(items: list[Any]) -> pa.Table | None:
    """Plain ``dict`` records as one Arrow table, or ``None`` when they are not exactly
    representable (non-dict rows, mixed types, subclasses, a flag key holding ``None``).

    Each key the contract reads becomes one column: its values are gathered with C-level
    ``map`` calls and typed by Arrow from all of them (an int/float mix becomes a float column,
    which the columnar rules reject exactly like the row rules reject the float). Keys no rule
    reads (``text``, ``comment``, …) are never converted.
    """
    if not items or set(map(type, items)) != {dict}:
        return None
    keys = sorted(RECORD_KEYS.intersection(set().union(*items)))
    if not keys:
        return None
    columns: dict[str, pa.Array] = {}
    for key in keys:
        values = list(map(operator.methodcaller("get", key), items))
        if not _plain_values_list(values):
            return None
        if key in _FLAG_COLUMNS:
            # A flag key holding None is an error in a mapping but a null in a table.
            present = sum(map(operator.methodcaller("__contains__", key), items))
            if present != len(values) - values.count(None):
                return None
        try:
            columns[key] = pa.array(values)
        except Exception:
            return None
    return pa.table(columns)


def _plain_values_list(values: list[Any]) -> bool:
    while values:
        types = set(map(type, values))
        if not types <= _PLAIN_TYPES:
            return False
        nested: list[Any] = []
        if list in types:
            nested.extend(itertools.chain.from_iterable(v for v in values if type(v) is list))
        if dict in types:
            dicts = [v for v in values if type(v) is dict]
            nested.extend(itertools.chain.from_iterable(map(dict.values, dicts)))
        values = nested
    return True


_PLAIN_TYPES = frozenset((str, int, bool, float, type(None), list, dict))


def type_csv_table(table: pa.Table) -> pa.Table | list[dict[str, Any]]:
    """Apply the CSV typing of §4.2: offsets and lengths as int64, flags as booleans.

    A typed cell that does not parse keeps its text; a column that mixes parsed and unparsed
    cells cannot be one Arrow column, so such a file is returned as Python rows.
    """
    frame = _frame(table)
    mixed = False
    columns: dict[str, pl.Series] = {}
    for name in frame.columns:
        series = frame[name]
        if series.dtype != pl.String:
            continue
        if name in _OFFSET_COLUMNS or name in LENGTH_ALIASES:
            ok = series.str.contains(r"^[+-]?[0-9]+$").fill_null(True)
            parsed = series.str.to_integer(strict=False)
            if bool((series.is_not_null() & (~ok | parsed.is_null())).any()):
                mixed = True
            else:
                columns[name] = parsed.cast(pl.Int64)
        elif name in _FLAG_COLUMNS:
            lowered = series.str.to_lowercase()
            if bool((series.is_not_null() & ~lowered.is_in(["true", "false"])).any()):
                mixed = True
            else:
                columns[name] = lowered == "true"
    if not mixed:
        return frame.with_columns(**columns).to_arrow() if columns else table
    return [_type_csv_row(row) for row in frame.to_dicts()]


def _type_csv_row(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in row.items():
        if value is None:
            continue
        if (name in _OFFSET_COLUMNS or name in LENGTH_ALIASES) and _INT_PATTERN.fullmatch(value):
            number = int(value)
            out[name] = number if -(2**63) <= number <= INT64_MAX else value
        elif name in _FLAG_COLUMNS and value.lower() in ("true", "false"):
            out[name] = value.lower() == "true"
        else:
            out[name] = value
    return out
