"""The two value rules shared by every input form (summary-citations.md §5).

* :func:`ident_text` / :func:`ident_int`: IDENT as whole-column Arrow expressions (strings
  stripped of Python's ``str.isspace()`` set, empty → null; integers → decimal text).
* :func:`checked_span`: the exact half-open span test ``0 <= start < end`` on int64 columns
  (null where an offset is absent or not an exact integer).

The flat-table normaliser (``_normalize``) and the node-table rules (``_node_rules``) both call
these; neither has a copy of its own.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from citelens.summary_citations._keys import whitespace

__all__ = ["checked_span", "ident_int", "ident_text"]


def ident_text(col: pa.Array) -> pa.Array:
    """IDENT of string values: stripped of Python whitespace; empty → null (large_string)."""
    text = pc.utf8_trim(pc.cast(col, pa.large_string()), characters=whitespace())
    return pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.large_string()), text)


def ident_int(col: pa.Array) -> pa.Array:
    """IDENT of integer values: their decimal text (``-1`` → ``"-1"``), as large_string."""
    return pc.cast(pc.cast(col, pa.string()), pa.large_string())


def checked_span(s: pa.Array, e: pa.Array) -> tuple[pa.Array, pa.Array]:
    """``(start, end)`` where the pair is a valid span (both present, ``0 <= s < e``), null
    elsewhere (int64)."""
    s = pc.cast(s, pa.int64())
    e = pc.cast(e, pa.int64())
    ok = pc.and_kleene(
        pc.and_kleene(pc.is_valid(s), pc.is_valid(e)),
        pc.and_kleene(pc.greater_equal(s, 0), pc.greater(e, s)),
    )
    ok = pc.fill_null(ok, False)
    null = pa.scalar(None, pa.int64())
    return pc.if_else(ok, s, null), pc.if_else(ok, e, null)
