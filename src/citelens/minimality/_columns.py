"""The columnar form every input reaches before the engine (minimality.md §13).

One row per record, in input order. ``problem`` holds the code of the record's first failing
field check (:data:`citelens.minimality._rules.PROBLEMS`, 0 = none); the value columns of a
problem row are placeholders the engine never reports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = ["CitationColumns", "ClaimColumns", "concat_columns", "take_columns"]

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


@dataclass
class ClaimColumns:
    """Claims: problem code, ids (Arrow strings), required start/end (exact-order int64)."""

    problem: I8
    claim_ids: pa.Array
    starts: I64
    ends: I64

    def __len__(self) -> int:
        return int(self.problem.size)


@dataclass
class CitationColumns:
    """Citations: problem code, claim ids, citation ids (given or derived), start/end."""

    problem: I8
    claim_ids: pa.Array
    citation_ids: pa.Array
    starts: I64
    ends: I64

    def __len__(self) -> int:
        return int(self.problem.size)


def empty_claims() -> ClaimColumns:
    """Zero claims."""
    none = np.zeros(0, dtype=np.int64)
    return ClaimColumns(np.zeros(0, np.int8), pa.array([], pa.string()), none, none.copy())


def empty_citations() -> CitationColumns:
    """Zero citations."""
    none = np.zeros(0, dtype=np.int64)
    strings = pa.array([], pa.string())
    return CitationColumns(np.zeros(0, np.int8), strings, strings, none, none.copy())


def concat_columns(
    parts: list[ClaimColumns] | list[CitationColumns], claims: bool
) -> ClaimColumns | CitationColumns:
    """Rows of several parts, in order."""
    if not parts:
        return empty_claims() if claims else empty_citations()
    if len(parts) == 1:
        return parts[0]
    problem = np.concatenate([p.problem for p in parts])
    claim_ids = pa.concat_arrays([p.claim_ids for p in parts])
    starts = np.concatenate([p.starts for p in parts])
    ends = np.concatenate([p.ends for p in parts])
    if claims:
        return ClaimColumns(problem, claim_ids, starts, ends)
    cited = [p for p in parts if isinstance(p, CitationColumns)]
    citation_ids = pa.concat_arrays([p.citation_ids for p in cited])
    return CitationColumns(problem, claim_ids, citation_ids, starts, ends)


def take_columns(
    columns: ClaimColumns | CitationColumns, rows: I64
) -> ClaimColumns | CitationColumns:
    """The given rows, in the given order."""
    taker = pa.array(rows, pa.int64())
    if isinstance(columns, ClaimColumns):
        return ClaimColumns(
            columns.problem[rows],
            columns.claim_ids.take(taker),
            columns.starts[rows],
            columns.ends[rows],
        )
    return CitationColumns(
        columns.problem[rows],
        columns.claim_ids.take(taker),
        columns.citation_ids.take(taker),
        columns.starts[rows],
        columns.ends[rows],
    )
