"""The rules of minimality.md §4–§7, each written once, and the problem codes they produce.

Every rule here is a whole-array expression (NumPy / PyArrow). The field rules over
kind-tagged columns (:mod:`citelens.minimality._tables`, which every input form reaches), the
engine, ordering and the typed-record constructors all evaluate these same functions: a typed
record is a one-row array. Problem codes index :data:`PROBLEMS`, the fixed message and category of
each contract check; ``0`` means "no problem".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.errors import CitationMinimalityError

__all__ = [
    "BIG",
    "CODE_ALIAS_CONFLICT",
    "CODE_BAD_PAIR",
    "CODE_CONFLICTING_OFFSETS",
    "CODE_DUPLICATE_CLAIM",
    "CODE_EXCEEDS_TEXT",
    "CODE_FIELDS",
    "CODE_HALF_OPEN",
    "CODE_IDENTIFIER",
    "CODE_NESTING",
    "CODE_NOT_INTEGERS",
    "CODE_NO_CITATION_CLAIM_ID",
    "CODE_NO_CLAIM_ID",
    "CODE_NO_TOKEN",
    "CODE_OFFSETS_REQUIRED",
    "CODE_UNKNOWN_CLAIM",
    "ID_PATTERN",
    "PROBLEMS",
    "derive_citation_ids",
    "error",
    "first_problem",
    "identifier_mask",
    "is_identifier",
    "map_offsets",
    "offset_problems",
    "pair_problems",
    "problem_error",
    "spans_differ",
]

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]

# The identifier rule of §4, as one pattern: the scalar and the column evaluator share it.
ID_PATTERN = "sha256:[0-9a-f]{64}"
_ID_SCALAR = re.compile(ID_PATTERN)
_ID_COLUMN = "^" + ID_PATTERN + "$"

# Offsets at or above BIG exceed any text: values are mapped to int64 so that order and
# equality stay exact (see map_offsets); negative offsets only ever fail "< 0".
BIG = 1 << 62

CODE_FIELDS = 1
CODE_NO_CLAIM_ID = 2
CODE_NO_CITATION_CLAIM_ID = 3
CODE_IDENTIFIER = 4
CODE_NOT_INTEGERS = 5
CODE_HALF_OPEN = 6
CODE_OFFSETS_REQUIRED = 7
CODE_BAD_PAIR = 8
CODE_ALIAS_CONFLICT = 9
CODE_NESTING = 10
CODE_DUPLICATE_CLAIM = 11
CODE_EXCEEDS_TEXT = 12
CODE_NO_TOKEN = 13
CODE_UNKNOWN_CLAIM = 14
CODE_CONFLICTING_OFFSETS = 15

PROBLEMS: tuple[tuple[str, str], ...] = (
    ("", ""),
    ("citation record fields are invalid", "record"),
    ("atomic claims require an opaque claim id", "record"),
    ("citations require an opaque claim id", "record"),
    ("citation identifiers must be opaque sha256 references", "identifier"),
    ("citation offsets must be integers", "span"),
    ("citation offsets must form a non-empty half-open span", "span"),
    ("citation spans require start and end offsets", "span"),
    ("citation collection is invalid or exceeds limit", "span"),
    ("citation span aliases conflict", "span"),
    ("citation span nesting exceeds limit", "limit"),
    ("duplicate atomic claim id", "reference"),
    ("citation offsets exceed source text", "span"),
    ("required claim spans must contain at least one token", "span"),
    ("citation refers to an unknown atomic claim", "reference"),
    ("citation id has conflicting offsets", "reference"),
)


def error(message: str, category: str) -> CitationMinimalityError:
    """A fixed minimality error (the caller raises it outside any ``except`` block)."""
    return CitationMinimalityError(message, category)


def problem_error(code: int) -> CitationMinimalityError:
    """The fixed error of a problem code."""
    message, category = PROBLEMS[code]
    return error(message, category)


# --------------------------------------------------------------------------- identifiers


def is_identifier(value: object) -> bool:
    """§4 for one value: an exact ``str`` matching :data:`ID_PATTERN` (nothing around it)."""
    return type(value) is str and _ID_SCALAR.fullmatch(value) is not None


# Below this many values the pattern is matched by Python's ``re`` (the same ASCII pattern,
# so the same verdicts); compiling it for Arrow costs more than matching a handful of ids.
_SMALL = 64


def identifier_mask(values: pa.Array | pa.ChunkedArray | Sequence[object]) -> Bools:
    """§4 for many values: True where a value is text matching :data:`ID_PATTERN`.

    ``values`` is a string column (null: False) or a sequence of Python values (anything that
    is not an exact ``str`` is False).
    """
    if not isinstance(values, pa.Array | pa.ChunkedArray):
        if len(values) < _SMALL:
            return np.fromiter((is_identifier(v) for v in values), dtype=bool, count=len(values))
        texts = [v if type(v) is str and v.isascii() else None for v in values]
        values = pa.array(texts, pa.string())
    if len(values) == 0:
        return np.zeros(0, dtype=bool)
    if len(values) < _SMALL:
        return np.fromiter((is_identifier(v) for v in values.to_pylist()), bool, len(values))
    matched = pc.match_substring_regex(values, _ID_COLUMN).fill_null(False)
    return np.asarray(matched.to_numpy(zero_copy_only=False), dtype=bool)


def derive_citation_ids(claim_ids: list[str], starts: list[int], ends: list[int]) -> list[str]:
    """The derived citation ids of §4: SHA-256 of ``citation\\0claim\\0start\\0end``."""
    return [
        "sha256:" + hashlib.sha256(f"citation\0{claim}\0{start}\0{end}".encode()).hexdigest()
        for claim, start, end in zip(claim_ids, starts, ends, strict=True)
    ]


# --------------------------------------------------------------------------- offsets


def offset_problems(start_is_int: Bools, starts: I64, end_is_int: Bools, ends: I64) -> I8:
    """§5 for spans: ``citation offsets must be integers`` (either offset is not an exact
    int), else ``... non-empty half-open span`` (``start < 0`` or ``end <= start``)."""
    integers = np.logical_and(start_is_int, end_is_int)
    broken = np.logical_or(np.less(starts, 0), np.less_equal(ends, starts))
    codes = np.where(integers, np.where(broken, CODE_HALF_OPEN, 0), CODE_NOT_INTEGERS)
    return np.asarray(codes, dtype=np.int8)


def map_offsets(groups: Sequence[Sequence[Any] | npt.NDArray[Any]]) -> list[I64]:
    """Offsets as ``int64`` with exact order and equality: negatives → -1, values ≥ BIG
    (beyond any text, possibly beyond int64) → BIG + their rank among such values.

    Each group is a list of Python ints or an integer NumPy array; all groups share one
    ranking, so offsets of different groups compare exactly.
    """
    big: set[int] = set()
    arrays: list[npt.NDArray[Any]] = []
    for group in groups:
        array = np.asarray(group) if isinstance(group, np.ndarray) else _as_array(group)
        arrays.append(array)
        if array.dtype == object:
            big.update(int(v) for v in array[array >= BIG].tolist())
        elif array.size:
            over = array >= BIG
            if over.any():
                big.update(int(v) for v in array[over].tolist())
    rank = {value: BIG + index for index, value in enumerate(sorted(big))}
    out: list[I64] = []
    for array in arrays:
        if array.dtype == object or (array.size and bool((array >= BIG).any())):
            items = array.tolist()
            mapped = np.fromiter(
                (-1 if v < 0 else (v if v < BIG else rank[v]) for v in items),
                dtype=np.int64,
                count=len(items),
            )
        else:
            mapped = np.maximum(array.astype(np.int64, copy=False), -1)
        out.append(mapped)
    return out


def _as_array(values: Sequence[Any]) -> npt.NDArray[Any]:
    ints = [int(v) for v in values]
    if all(-BIG < v < BIG for v in ints):
        return np.fromiter(ints, dtype=np.int64, count=len(ints))
    return np.array(ints, dtype=object)


def pair_problems(lengths: I64) -> I8:
    """§6 SPAN_FROM step 5 for a sequence of ``n`` items: more than 2 →
    ``citation collection is invalid or exceeds limit``; fewer than 2 → offsets required."""
    codes = np.where(lengths > 2, CODE_BAD_PAIR, np.where(lengths < 2, CODE_OFFSETS_REQUIRED, 0))
    return np.asarray(codes, dtype=np.int8)


def spans_differ(a_start: I64, a_end: I64, b_start: I64, b_end: I64) -> Bools:
    """§6 step 4: two collected spans of one record differ (→ ``span aliases conflict``)."""
    return np.asarray(
        np.logical_or(np.not_equal(a_start, b_start), np.not_equal(a_end, b_end)), dtype=bool
    )


# --------------------------------------------------------------------------- first failure


def first_problem(group: I64, code: I8, n_groups: int) -> I8:
    """Per group (record or document), the code of its first failing row in row order.

    Rows of one group keep their input order, so the first failing row of a group is its
    smallest failing row index; groups may interleave.
    """
    result = np.zeros(n_groups, dtype=np.int8)
    failing = np.flatnonzero(code)
    if failing.size:
        groups, first = np.unique(group[failing], return_index=True)
        result[groups] = code[failing[first]]
    return result
