"""The field rules of minimality.md §6, once, over kind-tagged columns (all inputs alike).

Every claim and citation input — Arrow / Polars tables, files, Python records, typed records —
reaches a :class:`~._cells.Frame`; this module alone decides every check on it, whole columns
at a time: the READ of an alias group with its equality rule (Python ``==`` across kinds:
``1 == 1.0 == True``, ``"1" != 1``; comparisons of caller objects are recorded by the adapter),
offset typing, SPAN_FROM over flattened span levels (nesting, shapes, pairs, a span against its
nested offset), span-alias conflicts, the record fallback, identifiers — and then, per row, the
first failing check in contract order (a problem-code column).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.minimality._arrow_frame import CSV_METADATA, frame_from_table, is_text_type
from citelens.minimality._cells import (
    ABSENT,
    BIG,
    BIGINT,
    BOOL,
    CONTAINER_DEEP,
    CONTAINER_MAPPING,
    CONTAINER_RAISED,
    CONTAINER_SPAN,
    CONTAINER_TEXT,
    FLOAT,
    INT,
    OTHER,
    RAISED,
    STR,
    Cells,
    Frame,
    Group,
    Levels,
    absent_cells,
)
from citelens.minimality._columns import CitationColumns, ClaimColumns
from citelens.minimality._names import CITATION_NAMES, CLAIM_NAMES
from citelens.minimality._rules import (
    CODE_ALIAS_CONFLICT,
    CODE_BAD_PAIR,
    CODE_FIELDS,
    CODE_IDENTIFIER,
    CODE_NESTING,
    CODE_NO_CITATION_CLAIM_ID,
    CODE_NO_CLAIM_ID,
    CODE_OFFSETS_REQUIRED,
    derive_citation_ids,
    identifier_mask,
    offset_problems,
    pair_problems,
    spans_differ,
)

__all__ = [
    "CSV_METADATA",
    "Ranker",
    "citations_from_frame",
    "citations_from_table",
    "claims_from_frame",
    "claims_from_table",
    "evaluate_chains",
    "is_text_type",
    "offsets_of",
]

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]

# Equality spaces of a cell: two present scalar cells are equal iff same space and same key.
_S_STR, _S_INT, _S_BIG, _S_FLOAT = 1, 2, 3, 4


class Ranker:
    """Exact order and equality of the ints beyond ±BIG of one frame.

    ``rank[i]`` is the rank of ``bigs[i]`` among the frame's distinct big values, so equal
    values share a rank; offsets map to ``-1`` (negative) or ``BIG + rank`` (positive), which
    keeps their order exact in int64 (BIG exceeds any text).
    """

    def __init__(self, bigs: list[int]) -> None:
        self.values = sorted(set(bigs))
        index = {value: rank for rank, value in enumerate(self.values)}
        self._index = index
        self.rank = np.fromiter(map(index.__getitem__, bigs), np.int64, count=len(bigs))
        self.negative = np.fromiter((v < 0 for v in bigs), bool, count=len(bigs))

    def float_keys(self, floats: npt.NDArray[np.float64]) -> I64:
        """Equality keys of integral floats beyond ±BIG: the rank of an equal big int, or a
        fresh negative key per distinct value (equal to no int of the frame)."""
        fresh: dict[int, int] = {}
        keys = []
        for value in map(int, floats.tolist()):
            rank = self._index.get(value)
            if rank is None:
                rank = fresh.setdefault(value, -2 - len(fresh))
            keys.append(rank)
        return np.asarray(keys, dtype=np.int64)

    def raw(self, mapped: I64) -> list[int]:
        """The exact ints of mapped non-negative offsets."""
        out: list[int] = mapped.tolist()
        if bool((mapped >= BIG).any()):
            return [v if v < BIG else self.values[v - BIG] for v in out]
        return out


# --------------------------------------------------------------------------- READ


def _keys(cells: Cells, ranker: Ranker) -> tuple[I8, I64, npt.NDArray[np.float64]]:
    """Per cell its equality space and key (Python ``==`` of str / int / bool / float)."""
    kind = cells.kind
    space = np.zeros(kind.size, dtype=np.int8)
    ikey = cells.ival.copy()
    fkey = cells.fval.copy()
    space[kind == STR] = _S_STR
    space[(kind == INT) | (kind == BOOL)] = _S_INT
    big = kind == BIGINT
    if big.any():
        space[big] = _S_BIG
        ikey[big] = ranker.rank[cells.ival[big]]
    floats = kind == FLOAT
    if floats.any():
        value = cells.fval
        with np.errstate(invalid="ignore"):
            integral = floats & np.isfinite(value) & (np.floor(value) == value)
            small = integral & (np.abs(value) < BIG)
        huge = integral & ~small
        space[floats] = _S_FLOAT
        space[small] = _S_INT
        ikey[small] = value[small].astype(np.int64)
        if huge.any():
            space[huge] = _S_BIG
            ikey[huge] = ranker.float_keys(value[huge])
    return space, ikey, fkey


def _pick(cells: list[Cells], which: I64) -> Cells:
    """Per row, the cell of the column ``which[row]``."""
    if len(cells) == 1:
        return cells[0]
    n = which.size
    rows = np.arange(n)
    kind = np.stack([c.kind for c in cells])[which, rows]
    ival = np.stack([c.ival for c in cells])[which, rows]
    fval = np.stack([c.fval for c in cells])[which, rows]
    strings = pa.concat_arrays([c.sval for c in cells])
    sval = strings.take(pa.array(which * n + rows, pa.int64()))
    return Cells(kind, ival, fval, sval)


@dataclass
class Read:
    """READ of §6 over one group: present, conflicting (→ fields error), first value."""

    present: Bools
    conflict: Bools
    first: Cells


def read_group(group: Group, ranker: Ranker) -> Read:
    """READ: the first present value; a conflict where two present values are unequal
    (scalars by kind-aware keys here, caller objects by the recorded ``==``) or a lookup
    raised."""
    n = group.caller_unequal.size
    if not group.cells:
        none = np.zeros(n, dtype=bool)
        return Read(none, none, absent_cells(n))
    kinds = np.stack([c.kind for c in group.cells])
    present = kinds != ABSENT
    first = _pick(group.cells, np.argmax(present, axis=0))
    conflict = group.caller_unequal | (kinds == RAISED).any(axis=0)
    if len(group.cells) > 1:
        scalar = present & (kinds != OTHER) & (kinds != RAISED)
        several = scalar.sum(axis=0) > 1
        if several.any():
            reference = _pick(group.cells, np.argmax(scalar, axis=0))
            r_space, r_int, r_float = _keys(reference, ranker)
            for index, cells in enumerate(group.cells):
                space, ikey, fkey = _keys(cells, ranker)
                equal = (space == r_space) & np.where(
                    space == _S_FLOAT, fkey == r_float, ikey == r_int
                )
                texts = space == _S_STR
                if texts.any():
                    same = pc.fill_null(pc.equal(cells.sval, reference.sval), False)
                    same_text = np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool)
                    equal = np.where(texts, same_text & (r_space == _S_STR), equal)
                conflict |= several & scalar[index] & ~equal
    return Read(present.any(axis=0), conflict, first)


# --------------------------------------------------------------------------- offsets


def offsets_of(cells: Cells, ranker: Ranker) -> tuple[Bools, I64]:
    """Exact-int flags of offset cells (``bool`` / ``float`` are not ints) and their values
    mapped to int64 with exact order: negatives → -1, beyond BIG → BIG + rank."""
    kind = cells.kind
    is_int = (kind == INT) | (kind == BIGINT)
    mapped = np.where(kind == INT, np.maximum(cells.ival, -1), 0).astype(np.int64)
    big = kind == BIGINT
    if big.any():
        index = cells.ival[big]
        mapped[big] = np.where(ranker.negative[index], -1, BIG + ranker.rank[index])
    return is_int, mapped


# --------------------------------------------------------------------------- SPAN_FROM


@dataclass
class Chains:
    """Per span source and row (``[source, row]``): the chain's first failing code, whether
    the source is present, and its span (mapped offsets)."""

    code: I8
    present: Bools
    starts: I64
    ends: I64


def evaluate_chains(levels: Levels, ranker: Ranker, n: int, n_sources: int) -> Chains:
    """SPAN_FROM of §6 over every level at once.

    A chain's checks run in this order: the READs of each level from the outside in
    (conflicts; a level past the nesting cap), then the innermost value's shape, pair and
    offset checks, then from the inside out each level that has both its own start/end and
    a nested value (its offsets, then the comparison with the nested span).
    """
    code = np.zeros((n_sources, n), dtype=np.int8)
    present = np.zeros((n_sources, n), dtype=bool)
    starts = np.zeros((n_sources, n), dtype=np.int64)
    ends = np.zeros((n_sources, n), dtype=np.int64)
    if len(levels) == 0:
        return Chains(code, present, starts, ends)
    s = read_group(levels.start, ranker)
    e = read_group(levels.end, ranker)
    nested = read_group(levels.nested, ranker)
    container = levels.container
    depth = levels.depth
    normal = (container != CONTAINER_DEEP) & (container != CONTAINER_RAISED)
    typed = container == CONTAINER_SPAN
    both = s.present & e.present
    own_and_nested = normal & ~typed & both & nested.present
    own_only = normal & (typed | (both & ~nested.present))
    passes = normal & ~typed & ~both & nested.present & ~levels.nested_self
    rest = normal & ~typed & ~own_and_nested & ~own_only & ~passes
    shapeless = rest & ((container == CONTAINER_MAPPING) | (container == CONTAINER_TEXT))
    pulled = rest & ~shapeless
    n_items = np.where(levels.iterated, levels.n_items, 0)
    item_pair = pulled & ~levels.iter_failed & (n_items == 2)
    has_pair = own_and_nested | own_only | item_pair

    start_int, start = offsets_of(s.first, ranker)
    end_int, end = offsets_of(e.first, ranker)
    item0_int, item0 = offsets_of(levels.item0, ranker)
    item1_int, item1 = offsets_of(levels.item1, ranker)
    use_items = item_pair
    pair_start = np.where(use_items, item0, start)
    pair_end = np.where(use_items, item1, end)
    pair_start_int = np.where(use_items, item0_int, start_int)
    pair_end_int = np.where(use_items, item1_int, end_int)
    pair_code = offset_problems(pair_start_int, pair_start, pair_end_int, pair_end)

    pre = np.where(
        container == CONTAINER_DEEP,
        CODE_NESTING,
        np.where(
            (container == CONTAINER_RAISED) | s.conflict | e.conflict | nested.conflict,
            CODE_FIELDS,
            0,
        ),
    )
    pulled_code = np.where(levels.iter_failed, CODE_BAD_PAIR, pair_problems(n_items))
    terminal = np.select(
        [shapeless, pulled & (pulled_code != 0), own_only | item_pair],
        [CODE_OFFSETS_REQUIRED, pulled_code, pair_code],
        0,
    )
    post_offsets = np.where(own_and_nested, pair_code, 0)

    # Chains in (row, source, depth) order; a level's nested span is the next pair below it.
    order = np.lexsort((depth, levels.source, levels.row))
    chain = (levels.row * n_sources + levels.source)[order]
    count = order.size
    positions = np.arange(count)
    candidates = np.where(has_pair[order], positions, count)
    below = np.minimum.accumulate(candidates[::-1])[::-1]  # first pair at or below
    child = np.append(below[1:], count)
    padded_chain = np.append(chain, -1)
    child_ok = padded_chain[child] == chain
    o_start, o_end = pair_start[order], pair_end[order]
    child_start = np.append(o_start, 0)[child]
    child_end = np.append(o_end, 0)[child]
    differs = (
        own_and_nested[order] & child_ok & spans_differ(o_start, o_end, child_start, child_end)
    )
    post_same = np.where(differs, CODE_ALIAS_CONFLICT, 0)

    o_depth = depth[order]
    codes = np.concatenate([pre[order], terminal[order], post_offsets[order], post_same])
    keys = np.concatenate([2 * o_depth, 2 * o_depth + 1, 1000 - 2 * o_depth, 1001 - 2 * o_depth])
    chains = np.tile(chain, 4)
    failing = np.flatnonzero(codes)
    if failing.size:
        ranked = failing[np.lexsort((keys[failing], chains[failing]))]
        first_chain, first = np.unique(chains[ranked], return_index=True)
        code.reshape(-1)[_flat(first_chain, n, n_sources)] = codes[ranked[first]]
    heads = np.flatnonzero(np.append(True, chain[1:] != chain[:-1]))
    head_chain = chain[heads]
    result = below[heads]
    found = padded_chain[result] == head_chain
    flat = _flat(head_chain, n, n_sources)
    present.reshape(-1)[flat] = True
    starts.reshape(-1)[flat] = np.where(found, np.append(o_start, 0)[result], 0)
    ends.reshape(-1)[flat] = np.where(found, np.append(o_end, 0)[result], 0)
    return Chains(code, present, starts, ends)


def _flat(chain: I64, n: int, n_sources: int) -> I64:
    """Chain ids (``row * n_sources + source``) → flat indices of ``[source, row]`` arrays."""
    return np.asarray((chain % n_sources) * n + chain // n_sources, dtype=np.int64)


# --------------------------------------------------------------------------- records


class _Steps:
    """Per-row codes of the §6 steps, in contract order; the first nonzero one wins."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.steps: list[I8] = []

    def add(self, mask: Bools, code: int | I8) -> None:
        self.steps.append(np.asarray(np.where(mask, code, 0), dtype=np.int8))

    def first(self) -> I8:
        result = np.zeros(self.n, dtype=np.int8)
        for step in reversed(self.steps):
            result = np.where(step != 0, step, result).astype(np.int8)
        return result


def _record_span(frame: Frame, ranker: Ranker, steps: _Steps) -> tuple[I64, I64]:
    """§6 claim steps 2–5 / citation step 3: aliases, explicit pair, conflicts, fallback."""
    n = frame.n
    chains = evaluate_chains(frame.levels, ranker, n, frame.n_aliases + 1)
    collected: list[tuple[Bools, I64, I64]] = []
    for source in range(frame.n_aliases):
        steps.add(chains.present[source], chains.code[source])
        collected.append((chains.present[source], chains.starts[source], chains.ends[source]))
    start, end = read_group(frame.start, ranker), read_group(frame.end, ranker)
    steps.add(start.conflict, CODE_FIELDS)
    steps.add(end.conflict, CODE_FIELDS)
    steps.add(start.present != end.present, CODE_OFFSETS_REQUIRED)
    both = start.present & end.present
    start_int, starts = offsets_of(start.first, ranker)
    end_int, ends = offsets_of(end.first, ranker)
    steps.add(both, offset_problems(start_int, starts, end_int, ends))
    collected.append((both, starts, ends))
    first_start = np.zeros(n, dtype=np.int64)
    first_end = np.zeros(n, dtype=np.int64)
    have = np.zeros(n, dtype=bool)
    conflict = np.zeros(n, dtype=bool)
    for present, s, e in collected:
        conflict |= present & have & spans_differ(first_start, first_end, s, e)
        take = present & ~have
        first_start = np.where(take, s, first_start)
        first_end = np.where(take, e, first_end)
        have |= present
    steps.add(conflict, CODE_ALIAS_CONFLICT)
    fallback = frame.n_aliases
    use = ~have & chains.present[fallback]
    steps.add(use, chains.code[fallback])
    first_start = np.where(use, chains.starts[fallback], first_start)
    first_end = np.where(use, chains.ends[fallback], first_end)
    steps.add(~(have | use), CODE_OFFSETS_REQUIRED)
    return first_start, first_end


def _identifiers(value: Read) -> tuple[Bools, pa.Array]:
    """Rows whose present identifier breaks §4, and the ids as strings (null elsewhere)."""
    valid = (value.first.kind == STR) & identifier_mask(value.first.sval)
    return value.present & ~valid, value.first.sval


def claims_from_frame(frame: Frame) -> ClaimColumns:
    """Claim rows → :class:`ClaimColumns` (claim steps 1–6 of §6)."""
    ranker = Ranker(frame.bigs)
    steps = _Steps(frame.n)
    ids = read_group(frame.claim_id, ranker)
    steps.add(ids.conflict, CODE_FIELDS)
    steps.add(~ids.present, CODE_NO_CLAIM_ID)
    starts, ends = _record_span(frame, ranker, steps)
    bad_id, claim_ids = _identifiers(ids)
    steps.add(bad_id, CODE_IDENTIFIER)
    problem = steps.first()
    ok = problem == 0
    claim_ids = pc.if_else(pa.array(ok), claim_ids, pa.scalar("", pa.string()))
    return ClaimColumns(problem, claim_ids, np.where(ok, starts, 0), np.where(ok, ends, 0))


def citations_from_frame(frame: Frame) -> CitationColumns:
    """Citation rows → :class:`CitationColumns` (citation steps 1–4 of §6); citation ids
    are derived (§4) where absent."""
    ranker = Ranker(frame.bigs)
    steps = _Steps(frame.n)
    ids = read_group(frame.claim_id, ranker)
    steps.add(ids.conflict, CODE_FIELDS)
    steps.add(~ids.present, CODE_NO_CITATION_CLAIM_ID)
    cited = read_group(frame.citation_id, ranker)
    steps.add(cited.conflict, CODE_FIELDS)
    starts, ends = _record_span(frame, ranker, steps)
    bad_id, claim_ids = _identifiers(ids)
    steps.add(bad_id, CODE_IDENTIFIER)
    bad_cited, citation_ids = _identifiers(cited)
    steps.add(bad_cited, CODE_IDENTIFIER)
    problem = steps.first()
    ok = problem == 0
    mask = pa.array(ok)
    claim_ids = pc.if_else(mask, claim_ids, pa.scalar("", pa.string()))
    citation_ids = pc.if_else(mask, citation_ids, pa.scalar("", pa.string()))
    starts = np.where(ok, starts, 0)
    ends = np.where(ok, ends, 0)
    if citation_ids.null_count:
        missing = np.flatnonzero(citation_ids.is_null().to_numpy(zero_copy_only=False))
        derived = derive_citation_ids(
            claim_ids.take(pa.array(missing)).to_pylist(),
            ranker.raw(starts[missing]),
            ranker.raw(ends[missing]),
        )
        filled = citation_ids.to_pylist()
        for row, value in zip(missing.tolist(), derived, strict=True):
            filled[row] = value
        citation_ids = pa.array(filled, pa.string())
    return CitationColumns(problem, claim_ids, citation_ids, starts, ends)


def claims_from_table(table: pa.Table) -> ClaimColumns | None:
    """Claims table → :class:`ClaimColumns`, or ``None`` when its schema needs the record
    adapter (nested values: decided from the schema alone)."""
    frame = frame_from_table(table, CLAIM_NAMES, claims=True)
    return None if frame is None else claims_from_frame(frame)


def citations_from_table(table: pa.Table) -> CitationColumns | None:
    """Citations table → :class:`CitationColumns`, or ``None`` when its schema needs the
    record adapter."""
    frame = frame_from_table(table, CITATION_NAMES, claims=False)
    return None if frame is None else citations_from_frame(frame)
