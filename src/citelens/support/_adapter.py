"""The thin adapter from Python records to Arrow: plain ``dict`` records become one Arrow
table whose columns are the keys the support rules read. It evaluates no rule: every rule is
applied by the columnar engine (``_normalize``) to the table it builds.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

import polars as pl
import pyarrow as pa

from citelens.support._fields import FLAG_KEYS, LABEL_KEYS, NESTED_ALIASES, SPAN_END, SPAN_START
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

__all__ = ["RECORD_KEYS", "empty_frame", "python_records_table"]

_FLAG_COLUMNS = tuple(key for key, _ in FLAG_KEYS)
_NESTED = NESTED_ALIASES


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
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeEncodeError):
            # values of several Python types under one key, an integer beyond 64 bits or a
            # text with a lone surrogate are not one typed column: the record rules read them
            return None
    return pa.table(columns)


def _plain_values_list(values: list[Any]) -> bool:
    while values:
        types = set(map(type, values))
        if not types <= _PLAIN_TYPES:
            return False
        if int in types and float in types:
            return False  # Arrow would make the integers floats, which the rules reject
        nested: list[Any] = []
        if list in types:
            nested.extend(itertools.chain.from_iterable(v for v in values if type(v) is list))
        if dict in types:
            dicts = [v for v in values if type(v) is dict]
            nested.extend(itertools.chain.from_iterable(map(dict.values, dicts)))
        values = nested
    return True


_PLAIN_TYPES = frozenset((str, int, bool, float, type(None), list, dict))
