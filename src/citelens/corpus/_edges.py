"""The edge export of the support corpus mode (``edges.parquet``), held compactly per batch.

A batch's edges repeat few distinct identifiers (a document cites its own few claims and
evidence spans), while a pseudonym is 76 bytes and a document reference often as long. So
each text column is coded once per batch: every edge holds an integer code into a small
dictionary of distinct values, one dictionary shared by the three identifier columns and
pseudonymised in one call per batch (once per distinct identifier, not once per edge). The
export order (document_ref, claim_id, evidence_id, start, end, source_id; nulls first) is a
sort on integers: document position, then the byte-order rank of each shown identifier among
the batch's distinct ones. Text is materialised only slice by
slice, as each slice is written (:meth:`EdgeBatch.slices`), so a batch in flight never holds
whole-batch copies of its strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from citelens._pseudonym import pseudonymise, resolve_key
from citelens.errors import CorpusError

__all__ = ["EDGE_TABLE_SCHEMA", "SLICE_ROWS", "EdgeBatch", "edge_batch", "empty_edge_batch"]

EDGE_TABLE_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.large_string()),
        pa.field("claim_id", pa.large_string()),
        pa.field("evidence_id", pa.large_string()),
        pa.field("start", pa.int64()),
        pa.field("end", pa.int64()),
        pa.field("source_id", pa.large_string()),
        pa.field("multiplicity", pa.int64()),
        pa.field("reason", pa.large_string()),
        pa.field("valid", pa.bool_()),
        pa.field("label", pa.large_string()),
    ]
)
"""The columns of ``edges.parquet``."""

SLICE_ROWS = 1 << 17
"""Edges materialised (and written as one Parquet row group) at a time."""

DOC = "_d"
_POSITION = "_r"  # the edge's document, as its position in the batch's references
_IDENTIFIERS = ("claim_id", "evidence_id", "source_id")  # pseudonymised unless raw
_TEXT = (*_IDENTIFIERS, "reason", "label")
_ORDER = ("claim_id", "evidence_id", "start", "end", "source_id")


def _code(name: str) -> str:
    return f"_c_{name}"


def _rank(name: str) -> str:
    return f"_k_{name}"


@dataclass(frozen=True)
class EdgeBatch:
    """One batch of ``edges.parquet`` in export order, text columns as dictionary codes.

    ``codes`` holds, per edge, the document position ``_r`` (into ``refs``), a ``UInt32``
    code per text column (into ``dictionaries[name]``; null for a null value) and the integer
    and boolean columns as they are exported."""

    codes: pl.DataFrame
    refs: pa.Array
    dictionaries: dict[str, pa.Array]

    @property
    def num_rows(self) -> int:
        """The number of edges."""
        return self.codes.height

    def slices(self, rows: int | None = None) -> Iterator[pa.Table]:
        """The edges as :data:`EDGE_TABLE_SCHEMA` tables of at most ``rows`` rows each
        (default :data:`SLICE_ROWS`)."""
        size = SLICE_ROWS if rows is None else rows
        for first in range(0, self.codes.height, size):
            yield self._materialise(self.codes.slice(first, size))

    def table(self) -> pa.Table:
        """All edges as one :data:`EDGE_TABLE_SCHEMA` table."""
        return self._materialise(self.codes)

    def _materialise(self, part: pl.DataFrame) -> pa.Table:
        columns: list[pa.Array] = []
        for field in EDGE_TABLE_SCHEMA:
            name = field.name
            if name == "document_ref":
                values = self.refs.take(part[_POSITION].to_arrow())
            elif name in self.dictionaries:
                values = self.dictionaries[name].take(part[_code(name)].to_arrow())
            else:
                values = part[name].to_arrow()
            columns.append(values.cast(field.type))
        return pa.Table.from_arrays(columns, schema=EDGE_TABLE_SCHEMA)


def empty_edge_batch() -> EdgeBatch:
    """A batch without edges."""
    codes = pl.DataFrame(
        schema={
            _POSITION: pl.UInt32,
            **{_code(name): pl.UInt32 for name in _TEXT},
            "start": pl.Int64,
            "end": pl.Int64,
            "multiplicity": pl.Int64,
            "valid": pl.Boolean,
        }
    )
    empty = pa.array([], pa.large_string())
    return EdgeBatch(codes, empty, {name: empty for name in _TEXT})


def _dictionary(values: pl.Series, key: bytes | None) -> tuple[pl.Series, pl.Series]:
    """The shown form of the distinct ``values`` (pseudonyms under ``key``, raw without one)
    and the byte-order rank of each shown value among them."""
    shown = values
    if key is not None and values.len():
        shown = pseudonymise(values.to_frame(), [values.name], key).get_column(values.name)
    return shown, shown.rank("dense").cast(pl.UInt32)


def edge_batch(
    edges: pl.DataFrame, batch: pl.DataFrame, raw_identifiers: bool, key: bytes | None = None
) -> EdgeBatch:
    """Code one batch's kernel edges (``_d`` and the export columns) for ``edges.parquet``.

    ``batch`` is the batch's slice of the corpus plan (``_d``, ``document_ref``), whose codes
    are consecutive. Identifiers are pseudonymised under ``key`` (the run's key: every batch
    of a run gets the same one, so pseudonyms join across batches; ``None`` draws a random
    key for this batch alone) unless ``raw_identifiers``. The kernel returns edges in export
    order by raw identifier, so only pseudonymised edges are sorted again (by the ranks of
    their pseudonyms)."""
    if edges.height == 0:
        return empty_edge_batch()
    run_key = None if raw_identifiers else resolve_key(key, CorpusError)
    first = int(batch[DOC][0])
    frame = edges.with_columns((pl.col(DOC) - first).cast(pl.UInt32).alias(_POSITION))
    # One dictionary for the three identifier columns (a pseudonym depends on the value
    # alone), so each batch pseudonymises its distinct identifiers in one call.
    identifiers = pl.concat(
        [frame.get_column(name).drop_nulls().rename("identifier") for name in _IDENTIFIERS]
    ).unique(maintain_order=True)
    pseudonymised = run_key is not None
    shown, rank = _dictionary(identifiers, run_key)
    shown_identifiers = shown.to_arrow().cast(pa.large_string())
    dictionaries: dict[str, pa.Array] = {}
    coded: list[pl.Expr] = []
    for name in _TEXT:
        if name in _IDENTIFIERS:
            values = identifiers
            dictionaries[name] = shown_identifiers
        else:
            values = frame.get_column(name).drop_nulls().unique(maintain_order=True)
            dictionaries[name] = values.to_arrow().cast(pa.large_string())
        code = pl.col(name).cast(pl.Enum(values)).to_physical().cast(pl.UInt32)
        coded.append(code.alias(_code(name)))
    frame = frame.with_columns(coded)
    if pseudonymised:  # identifiers are shown pseudonymised: sort by the pseudonyms' ranks
        frame = frame.with_columns(
            rank.gather(frame.get_column(_code(name))).alias(_rank(name)) for name in _IDENTIFIERS
        )
        keys = [_rank(name) if name in _IDENTIFIERS else name for name in _ORDER]
        frame = frame.sort([_POSITION, *keys], nulls_last=False)
    codes = frame.select(
        _POSITION, *[_code(name) for name in _TEXT], "start", "end", "multiplicity", "valid"
    )
    return EdgeBatch(codes, batch.get_column("document_ref").to_arrow(), dictionaries)
