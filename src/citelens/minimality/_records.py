"""The thin adapter for Python records: records → kind-tagged columns (minimality.md §6).

It evaluates no rule. Each record is converted once — a plain ``dict`` by its keys, another
``Mapping`` by ``get``, any other object by ``getattr``, typed records by their fields, exactly
the names the contract reads — and the values of every name become one cell column (mixed
Python types carried as kind + value). Span values are flattened into span levels by
:mod:`~._flatten`. The rules of :mod:`~._tables` then decide every check, for records and
tables alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import is_not
from typing import Any

import numpy as np
import numpy.typing as npt

from citelens.minimality._cells import ABSENT, RAISED_VALUE, Frame, Group, Raised
from citelens.minimality._columns import CitationColumns, ClaimColumns
from citelens.minimality._flatten import LevelBuilder, group_from_lists, read_names
from citelens.minimality._names import (
    CITATION_ENDS,
    CITATION_ID_NAMES,
    CITATION_NAMES,
    CITATION_SPAN_ALIASES,
    CITATION_STARTS,
    CLAIM_ENDS,
    CLAIM_ID_NAMES,
    CLAIM_NAMES,
    CLAIM_SPAN_ALIASES,
    CLAIM_STARTS,
)
from citelens.minimality._rules import CODE_FIELDS, problem_error
from citelens.minimality._tables import citations_from_frame, claims_from_frame
from citelens.minimality._types import ClaimCitation, MinimalityClaim

__all__ = [
    "MISSING",
    "citations_from_records",
    "claims_from_records",
    "field_column",
    "field_value",
    "frame_from_records",
]


class _Missing:
    """Marker of an absent field."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def field_value(value: object, name: str) -> Any:
    """One field of a caller record (``get`` / ``getattr``; ``None`` is absent → MISSING);
    a lookup that raises → ``citation record fields are invalid``."""
    (item,) = read_names(value, (name,))
    if isinstance(item, Raised):
        raise problem_error(CODE_FIELDS)
    return MISSING if item is None else item


def field_column(records: Sequence[Any], name: str) -> list[Any]:
    """One field of every record (``None`` where absent); a lookup that raises →
    ``citation record fields are invalid``."""
    if all(type(record) is dict for record in records):
        values: list[Any] | None = None
        try:
            values = list(map(dict.get, records, repeat(name)))
        except Exception:  # a caller key whose __eq__ / __hash__ raises: read per record
            values = None
        if values is not None:
            return values
    values = [read_names(record, (name,))[0] for record in records]
    if any(isinstance(value, Raised) for value in values):
        raise problem_error(CODE_FIELDS)
    return values


# The fields of the typed records (§5), each a name the contract reads (§6).
_CLAIM_FIELDS = ("claim_id", "required_span")
_CITATION_FIELDS = ("claim_id", "citation_id", "source_span")


def _snapshot(record: Any, names: frozenset[str], ordered: tuple[str, ...]) -> dict[str, Any]:
    """The contract's names of one record, present values only (a raised lookup is kept as
    :data:`RAISED_VALUE`)."""
    if type(record) is dict:
        try:
            keys = record.keys() & names
            return {key: record[key] for key in keys if record[key] is not None}
        except Exception:  # a caller key whose __eq__ / __hash__ raises: recorded
            return {ordered[0]: RAISED_VALUE}
    # Typed records are read as their fields, then checked by the same column rules as any
    # mapping: a record mutated after construction (``object.__setattr__``) is revalidated,
    # never trusted. Its span is read as a span value (a typed span, or whatever replaced it).
    if isinstance(record, MinimalityClaim):
        ordered = _CLAIM_FIELDS
    elif isinstance(record, ClaimCitation):
        ordered = _CITATION_FIELDS
    values = read_names(record, ordered)
    return {name: item for name, item in zip(ordered, values, strict=True) if item is not None}


def _columns(
    records: Sequence[Any], names: frozenset[str], ordered: tuple[str, ...]
) -> dict[str, list[Any]]:
    """Per contract name present in any record, its value in every record (``None`` where
    absent). Plain dicts are read a name at a time; other records are converted one by one."""
    if all(type(record) is dict for record in records):
        columns: dict[str, list[Any]] | None = None
        try:
            present = set().union(*map(dict.keys, records)) & names
            columns = {name: list(map(dict.get, records, repeat(name))) for name in present}
        except Exception:  # a caller key whose __eq__ / __hash__ raises: read per record
            columns = None
        if columns is not None:
            return columns
    snaps = [_snapshot(record, names, ordered) for record in records]
    found: set[str] = set().union(*snaps) if snaps else set()
    return {name: [snap.get(name) for snap in snaps] for name in found}


def _group(columns: dict[str, list[Any]], names: tuple[str, ...], n: int, bigs: list[int]) -> Group:
    lists = [columns[name] for name in names if name in columns]
    return group_from_lists(lists, n, bigs)


def _present(values: list[Any]) -> npt.NDArray[np.bool_]:
    return np.fromiter(map(is_not, values, repeat(None)), dtype=bool, count=len(values))


def frame_from_records(records: Sequence[Any], *, claims: bool) -> Frame:
    """Claim or citation records as a :class:`~._cells.Frame` (no rule evaluated)."""
    names = CLAIM_NAMES if claims else CITATION_NAMES
    aliases = CLAIM_SPAN_ALIASES if claims else CITATION_SPAN_ALIASES
    starts = CLAIM_STARTS if claims else CITATION_STARTS
    ends = CLAIM_ENDS if claims else CITATION_ENDS
    ordered = CLAIM_ID_NAMES + tuple(sorted(names - frozenset(CLAIM_ID_NAMES)))
    n = len(records)
    columns = _columns(records, names, ordered)
    bigs: list[int] = []
    builder = LevelBuilder()
    spanned = np.zeros(n, dtype=bool)
    for source, name in enumerate(aliases):
        if name not in columns:
            continue
        present = _present(columns[name])
        spanned |= present
        rows = np.flatnonzero(present).tolist()
        values = [columns[name][row] for row in rows]
        if all(type(v) is list or type(v) is tuple for v in values):
            builder.add_pairs(rows, source, values)
            continue
        for row, value in zip(rows, values, strict=True):
            if isinstance(value, Raised):
                builder.raised(row, source)
            else:
                builder.walk(value, row, source)
    start, end = _group(columns, starts, n, bigs), _group(columns, ends, n, bigs)
    for cells in start.cells + end.cells:
        spanned |= cells.kind != ABSENT
    # A record without any span field is itself a span value (§6 step 5).
    for row in np.flatnonzero(~spanned).tolist():
        builder.walk(records[row], row, len(aliases))
    return Frame(
        n=n,
        claim_id=_group(columns, CLAIM_ID_NAMES, n, bigs),
        citation_id=_group(columns, () if claims else CITATION_ID_NAMES, n, bigs),
        start=start,
        end=end,
        levels=builder.levels(bigs),
        n_aliases=len(aliases),
        bigs=bigs,
    )


def claims_from_records(records: Sequence[Any]) -> ClaimColumns:
    """Claim records → :class:`ClaimColumns` (the rules of :mod:`~._tables`)."""
    return claims_from_frame(frame_from_records(records, claims=True))


def citations_from_records(records: Sequence[Any]) -> CitationColumns:
    """Citation records → :class:`CitationColumns`; missing citation ids are derived (§4)."""
    return citations_from_frame(frame_from_records(records, claims=False))
