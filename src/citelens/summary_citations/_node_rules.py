"""The record rules of summary-citations.md §5–§7 as whole-column expressions over a node
table (``_nodes.NodeTable``): IDENT, SPAN (container recursion with its depth cap), SOURCE_REFS,
CIT_REFS, CIT_ITEMS and CLAIM_CITATIONS.

Every rule is a fixed number of vectorised passes (the nesting caps bound them): per-key child
lookups by scatter, "first key in list order" by a sort on (parent, rank), SPAN budgets
0..4 bottom-up, CIT_REFS chains 0..5 by frontier expansion, CIT_ITEMS depths 0..5 top-down
then bottom-up. The outputs are reference rows: ``owner`` (the node that is the record or the
citation item), identifier code (-1 none) and span offsets (-1 none).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from citelens.summary_citations._keys import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    CONTAINER_KEYS,
    EVIDENCE_ID_KEYS,
)
from citelens.summary_citations._nodes import (
    K_ATTR_END,
    K_ATTR_START,
    K_PAIR0,
    K_PAIR1,
    KEYS,
    S_INT,
    S_INT_TEXT,
    S_STR,
    V_OSEQ,
    V_SEQ,
    V_VIEW,
    NodeTable,
    key_table,
)
from citelens.summary_citations._values import checked_span, ident_int, ident_text

__all__ = ["ClaimStage", "Rows", "Rules", "claim_stage", "evidence_rows", "item_rows"]

_EV_RANK = key_table(EVIDENCE_ID_KEYS)
_CIT_RANK = key_table(CITATION_ID_KEYS)
_CLAIM_RANK = key_table(CLAIM_ID_KEYS)
_CONTAINER_RANK = key_table(CONTAINER_KEYS)
_COLLECTION = key_table(CITATION_COLLECTION_KEYS) >= 0
_CODE = {k: i for i, k in enumerate(KEYS)}
_MAX_SPAN = 4  # SPAN(x, d) is none for d > 4
_MAX_DEPTH = 5  # CIT_REFS / CIT_ITEMS give nothing for d > 5


@dataclass
class Rows:
    """Reference rows: ``owner`` node, identifier code (-1) and span (-1, -1)."""

    owner: Any
    ident: Any
    s: Any
    e: Any


def _concat_rows(parts: list[Rows]) -> Rows:
    return Rows(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Rows)))


class Rules:
    """Column rules over one node table, computed once each on first use."""

    def __init__(self, t: NodeTable) -> None:
        self.t = t
        self.n = t.size
        self.idx = np.arange(self.n, dtype=np.int64)
        self.has_parent = t.parent >= 0
        self._child: dict[int, Any] = {}
        self._ranked: dict[int, Any] = {}
        self.ident, self.dictionary = self._idents()
        self.span_s, self.span_e = self._spans()

    # -- primitives ---------------------------------------------------------------------------

    def child(self, code: int) -> Any:
        """Per node: its child under key ``code`` (-1 none). Keys are unique per mapping."""
        if code not in self._child:
            out = np.full(self.n, -1, dtype=np.int64)
            sel = self.t.key == code
            out[self.t.parent[sel]] = self.idx[sel]
            self._child[code] = out
        return self._child[code]

    def first_child(self, rank: Any, ok: Any) -> Any:
        """Per node: its child of lowest ``rank`` (by key code, -1 = not a candidate) among
        children where ``ok``; -1 when there is none."""
        t = self.t
        cand = self._ranked.get(id(rank))
        if cand is None:
            r = rank[np.maximum(t.key, 0)]
            cand = np.flatnonzero(self.has_parent & (t.key >= 0) & (r >= 0))
            cand = cand[np.lexsort((r[cand], t.parent[cand]))]
            self._ranked[id(rank)] = cand
        cand = cand[ok[cand]]
        out = np.full(self.n, -1, dtype=np.int64)
        if len(cand):
            parents, first = np.unique(t.parent[cand], return_index=True)
            out[parents] = cand[first]
        return out

    def _idents(self) -> tuple[Any, pa.Array]:
        """IDENT of every node as a dictionary code (-1 none) and the dictionary."""
        t = self.t
        if self.n == 0:
            return np.zeros(0, dtype=np.int64), pa.array([], pa.large_string())
        sk = t.skind
        texts = pc.if_else(
            pa.array((sk == S_STR) | (sk == S_INT_TEXT)),
            ident_text(t.text.combine_chunks()),
            pa.scalar(None, pa.large_string()),
        )
        ints = pc.if_else(
            pa.array(sk == S_INT), ident_int(pa.array(t.ival)), pa.scalar(None, pa.large_string())
        )
        encoded = pc.dictionary_encode(pc.coalesce(texts, ints))
        codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
        return codes.astype(np.int64), encoded.dictionary

    def _offsets(self, s_node: Any, e_node: Any) -> tuple[Any, Any]:
        """The span of offset nodes (-1 absent): exact ints only, then the one span rule."""
        t = self.t
        out_s = np.full(self.n, -1, dtype=np.int64)
        out_e = np.full(self.n, -1, dtype=np.int64)
        where = np.flatnonzero((s_node >= 0) & (e_node >= 0))  # only nodes with both keys
        if len(where) == 0:
            return out_s, out_e

        def offset(node: Any) -> pa.Array:
            return pa.array(t.ival[node], pa.int64(), mask=t.skind[node] != S_INT)

        s, e = checked_span(offset(s_node[where]), offset(e_node[where]))
        out_s[where] = pc.fill_null(s, -1).to_numpy(zero_copy_only=False)
        out_e[where] = pc.fill_null(e, -1).to_numpy(zero_copy_only=False)
        return out_s, out_e

    def _spans(self) -> tuple[list[Any], list[Any]]:
        """SPAN with 0..4 container levels left, per node (-1 none)."""
        if self.n == 0:
            empty = np.zeros(0, dtype=np.int64)
            return [empty] * (_MAX_SPAN + 1), [empty] * (_MAX_SPAN + 1)
        start, start_char = self.child(_CODE["start"]), self.child(_CODE["start_char"])
        end, end_char = self.child(_CODE["end"]), self.child(_CODE["end_char"])
        # A present key blocks the fallback even when its value is not an int (null rule).
        own_s, own_e = self._offsets(
            np.where(start >= 0, start, start_char), np.where(end >= 0, end, end_char)
        )
        attr_s, attr_e = self._offsets(self.child(K_ATTR_START), self.child(K_ATTR_END))
        pair_s, pair_e = self._offsets(self.child(K_PAIR0), self.child(K_PAIR1))
        # A node has key children (a view), attributes (no view) or pair items (a sequence);
        # attributes are tried before the pair.
        base_s = np.where(own_s >= 0, own_s, np.where(attr_s >= 0, attr_s, pair_s))
        base_e = np.where(own_s >= 0, own_e, np.where(attr_s >= 0, attr_e, pair_e))
        span_s, span_e = [base_s], [base_e]
        for _ in range(_MAX_SPAN):
            prev_s, prev_e = span_s[-1], span_e[-1]
            found = self.first_child(_CONTAINER_RANK, prev_s >= 0)
            has = (base_s < 0) & (found >= 0)
            at = np.maximum(found, 0)
            span_s.append(np.where(has, prev_s[at], base_s))
            span_e.append(np.where(has, prev_e[at], base_e))
        return span_s, span_e

    # -- record rules -------------------------------------------------------------------------

    def direct(self) -> Any:
        """Per node: any DIRECT_SPAN_KEYS key present."""
        return (
            (self.child(_CODE["start"]) >= 0)
            | (self.child(_CODE["end"]) >= 0)
            | (self.child(_CODE["start_char"]) >= 0)
            | (self.child(_CODE["end_char"]) >= 0)
        )

    def first_ident(self, rank: Any) -> Any:
        """Per node: IDENT of the first key of a key list whose IDENT is not none (-1)."""
        found = self.first_child(rank, self.ident >= 0)
        return np.where(found >= 0, self.ident[np.maximum(found, 0)], -1)

    def local_refs(self) -> tuple[Any, Any, Any]:
        """CIT_REFS steps 1–2 (and the no-view case) of every node: (id, s, e)."""
        view = self.t.vkind == V_VIEW
        top_s, top_e = self.span_s[_MAX_SPAN], self.span_e[_MAX_SPAN]
        found = self.first_child(_CONTAINER_RANK, top_s >= 0)
        at = np.maximum(found, 0)
        cont_s = np.where(found >= 0, top_s[at], -1)
        cont_e = np.where(found >= 0, top_e[at], -1)
        direct = self.direct()
        view_s = np.where(direct, top_s, cont_s)
        view_e = np.where(direct, top_e, cont_e)
        view_id = self.first_ident(_CIT_RANK)
        bare = self.ident < 0
        ident = np.where(view, view_id, self.ident)
        s = np.where(view, view_s, np.where(bare, top_s, -1))
        e = np.where(view, view_e, np.where(bare, top_e, -1))
        return ident, s, e

    def refs(self, owners: Any) -> Rows:
        """CIT_REFS(x, 0) of every node in ``owners``: reference rows (one per reference).

        Step 3 follows non-sequence citation-collection values through at most five more
        levels; repeated references in one item are harmless downstream (sets)."""
        t = self.t
        ident, s, e = self.local_refs()
        chain = np.flatnonzero(
            self.has_parent & (t.key >= 0) & _COLLECTION[np.maximum(t.key, 0)] & ~t.is_seq
        )
        chain = chain[np.argsort(t.parent[chain], kind="stable")]
        starts = np.searchsorted(t.parent[chain], self.idx, side="left")
        counts = np.searchsorted(t.parent[chain], self.idx, side="right") - starts
        owner, node = owners, owners
        all_owner, all_node = [owner], [node]
        for _ in range(_MAX_DEPTH):
            c = counts[node]
            total = int(c.sum())
            if total == 0:
                break
            owner = np.repeat(owner, c)
            base = np.repeat(starts[node] - np.cumsum(c) + c, c)
            node = chain[base + np.arange(total)]
            all_owner.append(owner)
            all_node.append(node)
        own, nod = np.concatenate(all_owner), np.concatenate(all_node)
        with_id = ident[nod] >= 0
        with_span = s[nod] >= 0
        none = np.full(int(with_span.sum()), -1, dtype=np.int64)
        return Rows(
            owner=np.concatenate([own[with_id], own[with_span]]),
            ident=np.concatenate([ident[nod][with_id], none]),
            s=np.concatenate([np.full(int(with_id.sum()), -1, dtype=np.int64), s[nod][with_span]]),
            e=np.concatenate([np.full(int(with_id.sum()), -1, dtype=np.int64), e[nod][with_span]]),
        )


def evidence_rows(rules: Rules, n_records: int) -> tuple[Any, Any, Any]:
    """SOURCE_REFS (§6) of the ``n_records`` root nodes: (id code, s, e) per record."""
    roots = np.arange(n_records, dtype=np.int64)
    view = rules.t.vkind[roots] == V_VIEW
    own = rules.ident[roots]
    ident = np.where(view, rules.first_ident(_EV_RANK)[roots], own)
    top_s, top_e = rules.span_s[_MAX_SPAN][roots], rules.span_e[_MAX_SPAN][roots]
    spanned = view | (own < 0)
    return ident, np.where(spanned, top_s, -1), np.where(spanned, top_e, -1)


@dataclass
class ClaimStage:
    """CLAIM_CITATIONS of the claim roots before list items are read: reference rows of the
    items known so far (owner = item node; claim roots own their direct item), the exact
    citation-item count per claim, and the reached citation lists (node indices)."""

    rows: Rows
    item_nodes: Any
    counts: Any
    lists: Any


def claim_stage(rules: Rules, n_claims: int) -> ClaimStage:
    """CLAIM_CITATIONS (§7) and CIT_ITEMS down to depth 5, list items deferred."""
    t = rules.t
    roots = np.arange(n_claims, dtype=np.int64)
    key = np.maximum(t.key, 0)
    is_view = t.vkind == V_VIEW
    claim_view = np.zeros(rules.n, dtype=bool)
    claim_view[roots] = is_view[roots]
    direct = rules.direct() & claim_view
    kstar = np.where(direct, rules.first_child(_CLAIM_RANK, rules.ident >= 0), -1)
    not_kstar = np.ones(rules.n, dtype=bool)
    not_kstar[kstar[kstar >= 0]] = False
    parent = np.maximum(t.parent, 0)
    on_claim = rules.has_parent & (t.key >= 0) & claim_view[parent]
    cand = np.flatnonzero(on_claim & ((_CLAIM_RANK[key] >= 0) | _COLLECTION[key]) & not_kstar)
    collection_child = np.flatnonzero(rules.has_parent & (t.key >= 0) & _COLLECTION[key])
    items: list[Any] = []
    lists: list[Any] = []
    wrappers: list[Any] = []
    levels: list[Any] = []
    has_refs = np.zeros(rules.n, dtype=bool)
    for depth in range(_MAX_DEPTH + 1):
        levels.append(cand)
        vk = t.vkind[cand]
        view = vk == V_VIEW
        seq = ~view & ((vk == V_SEQ) | (vk == V_OSEQ))
        lists.append(cand[seq])
        views = cand[view]
        refs = rules.refs(views)
        has_refs[refs.owner] = True
        items.append(cand[~view & ~seq])
        items.append(views[has_refs[views]])
        wrap = views[~has_refs[views]]
        wrappers.append(wrap)
        if depth == _MAX_DEPTH:
            break
        is_wrap = np.zeros(rules.n, dtype=bool)
        is_wrap[wrap] = True
        cand = collection_child[is_wrap[t.parent[collection_child]]]
    # Bottom-up: a wrapper whose collections give no item is one item without references.
    count = np.zeros(rules.n, dtype=np.int64)
    count[np.concatenate(items)] = 1
    for node in lists:
        count[node] = t.seq_len[node]
    for depth in range(len(wrappers) - 1, -1, -1):
        wrap = wrappers[depth]
        if depth + 1 < len(levels):
            below = levels[depth + 1]
            total = np.bincount(t.parent[below], weights=count[below], minlength=rules.n)
            sums = total[wrap].astype(np.int64)
        else:
            sums = np.zeros(len(wrap), dtype=np.int64)
        count[wrap] = np.where(sums == 0, 1, sums)
        items.append(wrap[sums == 0])
    item_nodes = np.concatenate(items)
    rows = rules.refs(item_nodes)
    # The direct item: the first claim-level identifier (k*) plus the claim's own span (D1).
    d_roots = roots[direct[roots]]
    d_kstar = kstar[d_roots]
    d_ident = np.where(d_kstar >= 0, rules.ident[np.maximum(d_kstar, 0)], -1)
    d_s, d_e = rules.span_s[_MAX_SPAN][d_roots], rules.span_e[_MAX_SPAN][d_roots]
    # One row holds the identifier and the span (either may be -1; an item without
    # references is completed with a null row by the caller).
    direct_rows = Rows(owner=d_roots, ident=d_ident, s=d_s, e=d_e)
    top = np.concatenate(levels[0:1]) if levels else np.zeros(0, dtype=np.int64)
    per_claim = np.bincount(t.root[top], weights=count[top], minlength=n_claims)
    per_claim = per_claim.astype(np.int64) + direct[roots].astype(np.int64)
    return ClaimStage(
        rows=_concat_rows([rows, direct_rows]),
        item_nodes=np.concatenate([item_nodes, d_roots]),
        counts=per_claim,
        lists=np.concatenate(lists),
    )


def item_rows(rules: Rules, n_items: int) -> Rows:
    """CIT_REFS (§7) of the ``n_items`` root nodes (the items of citation lists)."""
    return rules.refs(np.arange(n_items, dtype=np.int64))
