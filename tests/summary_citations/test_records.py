"""Python records through the thin adapter (``_nodes``) and the column rules (``_node_rules``).

Differential property tests against the record-by-record oracle (``tests/oracle``) on
irregular, defective inputs; the regular fast path against the node path; the citation-item
bound; hostile nesting.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens import Limits
from citelens.errors import SummaryCitationError
from citelens.summary_citations import _records, compute_summary_citation_metrics
from oracle.summary_oracle import oracle_metrics

LIMITS = Limits(claims=1000, evidence=1000, citations=100_000)


class StrId(str):
    """A str subclass: it has ``vars()``, so its record view is an empty mapping (§4.5)."""


class Slotted(str):
    """A str subclass without ``__dict__``: no record view, IDENT strips it."""

    __slots__ = ()


class IntId(int):
    """An int subclass (with ``vars()``: a record view, like StrId)."""


class Record:
    """A plain object: its record view is ``vars()``."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


class ToDict:
    """An object with ``to_dict`` (the record view is its result)."""

    __slots__ = ("fields",)

    def __init__(self, fields: dict[Any, Any]) -> None:
        self.fields = fields  # non-str keys are kept: the record view ignores them

    def to_dict(self) -> dict[Any, Any]:
        return dict(self.fields)


class SpanObject:
    """No record view (slots); a span through its ``start`` / ``end`` attributes (§5)."""

    __slots__ = ("end", "start")

    def __init__(self, start: Any, end: Any) -> None:
        self.start, self.end = start, end


class Pair(Sequence[Any]):
    """A sequence that is not a list or tuple and has no record view."""

    __slots__ = ("items",)

    def __init__(self, *items: Any) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: Any) -> Any:
        return self.items[i]


class Broken:
    """``to_dict`` raises: reading it is 'input is not accessible' (§4.5)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        raise RuntimeError("CANARY to_dict failed")


class Huge(Sequence[Any]):
    """A sequence claiming 10**9 items that must never be iterated (the bound comes first)."""

    __slots__ = ()

    def __len__(self) -> int:
        return 10**9

    def __getitem__(self, i: Any) -> Any:
        raise AssertionError("a huge citation list was read")

    def __iter__(self) -> Iterator[Any]:
        raise AssertionError("a huge citation list was read")


def _ours(claims: Any, evidence: Any, limits: Limits = LIMITS) -> Any:
    try:
        return compute_summary_citation_metrics(claims, evidence, limits=limits).to_dict()
    except SummaryCitationError as exc:
        return ("error", str(exc))


def _oracle(claims: Any, evidence: Any) -> Any:
    try:
        return oracle_metrics(claims, evidence)
    except (RuntimeError, AssertionError):
        return ("error", "summary citation input is not accessible")


# -- strategies: odd shapes -------------------------------------------------------------------

SCALAR = st.sampled_from(
    [
        "e1",
        "e2",
        " e1 ",
        "\u2003e2\x1c",
        "",
        "  ",
        "7",
        7,
        -1,
        0,
        True,
        False,
        1.0,
        b"e1",
        None,
        StrId("e1"),
        Slotted(" e2 "),
        IntId(7),
        2**70,
        "zz",
    ]
)
OFFSET = st.sampled_from([0, 1, 3, 5, 6, -1, True, 2.0, "3", None, IntId(5)])


def _wrap(depth: int, key: str, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {key: leaf}
    return leaf


@st.composite
def spans(draw: Any) -> Any:
    s, e = draw(OFFSET), draw(OFFSET)
    shape = draw(st.sampled_from(["map", "alt", "pair", "tuple", "obj", "seq", "nested", "rec"]))
    if shape == "map":
        return {"start": s, "end": e}
    if shape == "alt":
        return {"start_char": s, "end": e, "start": draw(st.sampled_from([None, "x", s]))}
    if shape == "pair":
        return [s, e]
    if shape == "tuple":
        return (s, e)
    if shape == "obj":
        return SpanObject(s, e)
    if shape == "seq":
        return Pair(s, e)
    if shape == "rec":
        return Record(start=s, end=e)
    depth = draw(st.integers(0, 6))  # 4 container levels work, 5 do not
    key = draw(st.sampled_from(["span", "source_span", "evidence", "offsets"]))
    return _wrap(depth, key, {"start": s, "end": e})


@st.composite
def citations(draw: Any, depth: int = 0) -> Any:
    shape = draw(st.sampled_from(["scalar", "span", "map", "obj", "todict", "wrap", "list"]))
    if shape == "scalar":
        return draw(SCALAR)
    if shape == "span":
        return draw(spans())
    fields: dict[Any, Any] = {}
    for key in draw(
        st.lists(
            st.sampled_from(
                [
                    "evidence_id",
                    "id",
                    "source_id",
                    "citation",
                    "references",
                    "span",
                    "start",
                    "end",
                    "end_char",
                    3,
                    "quote",
                ]
            ),
            max_size=4,
            unique=True,
        )
    ):
        if key in ("citation", "references") and depth < 2:
            fields[key] = draw(citations(depth + 1))
        elif key == "span":
            fields[key] = draw(spans())
        elif key in ("start", "end", "end_char"):
            fields[key] = draw(OFFSET)
        else:
            fields[key] = draw(SCALAR)
    if shape == "obj":
        return Record(**{k: v for k, v in fields.items() if isinstance(k, str)})
    if shape == "todict":
        return ToDict(fields)
    if shape == "wrap":
        levels = draw(st.integers(0, 12))  # 10 wrappers work, 11 do not
        return _wrap(levels, "citations", draw(SCALAR))
    if shape == "list" and depth < 2:
        return draw(st.lists(citations(depth + 1), max_size=3).map(tuple))
    return fields


@st.composite
def claims(draw: Any) -> Any:
    fields: dict[Any, Any] = {"claim": "CANARY claim text"}
    for key in draw(
        st.lists(
            st.sampled_from(
                [
                    "citations",
                    "citation",
                    "evidence",
                    "references",
                    "evidence_id",
                    "source_id",
                    "start",
                    "end",
                    "start_char",
                    "span",
                    "id",
                    1,
                ]
            ),
            max_size=5,
            unique=True,
        )
    ):
        if key in ("citations", "references", "evidence"):
            fields[key] = draw(st.one_of(st.lists(citations(), max_size=4), citations()))
        elif key in ("start", "end", "start_char"):
            fields[key] = draw(OFFSET)
        elif key == "span":
            fields[key] = draw(spans())
        else:
            fields[key] = draw(st.one_of(SCALAR, citations()))
    shape = draw(st.sampled_from(["dict", "dict", "dict", "obj", "todict", "bare"]))
    if shape == "obj":
        return Record(**{k: v for k, v in fields.items() if isinstance(k, str)})
    if shape == "todict":
        return ToDict(fields)
    if shape == "bare":
        return draw(st.one_of(SCALAR, spans()))
    return fields


@st.composite
def evidence(draw: Any) -> Any:
    shape = draw(st.sampled_from(["dict", "dict", "dict", "obj", "bare", "span"]))
    if shape == "bare":
        return draw(SCALAR)
    if shape == "span":
        return draw(spans())
    fields: dict[Any, Any] = {"value": "CANARY source value"}
    for key in draw(
        st.lists(
            st.sampled_from(["id", "evidence_id", "record_id", "start", "end", "span", 0]),
            max_size=4,
            unique=True,
        )
    ):
        if key in ("start", "end"):
            fields[key] = draw(OFFSET)
        elif key == "span":
            fields[key] = draw(spans())
        else:
            fields[key] = draw(SCALAR)
    if shape == "obj":
        return Record(**{k: v for k, v in fields.items() if isinstance(k, str)})
    return fields


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(claims=st.lists(claims(), max_size=6), evidence=st.lists(evidence(), max_size=6))
def test_records_equal_oracle(claims: list[Any], evidence: list[Any]) -> None:
    assert _ours(claims, evidence) == _oracle(claims, evidence)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    claims=st.lists(claims(), min_size=1, max_size=5),
    evidence=st.lists(evidence(), min_size=1, max_size=5),
    where=st.sampled_from(["claim", "evidence", "element", "collection"]),
    at=st.integers(0, 4),
)
def test_unreadable_objects_equal_oracle(
    claims: list[Any], evidence: list[Any], where: str, at: int
) -> None:
    # A raising to_dict where the contract reads it: a whole record, an item of a claim's
    # citation list, the value of a claim's citation collection key.
    claims, evidence = list(claims), list(evidence)
    if where == "claim":
        claims[at % len(claims)] = Broken()
    elif where == "evidence":
        evidence[at % len(evidence)] = Broken()
    elif where == "element":
        claims[at % len(claims)] = {"citations": ["e1", Broken(), "e2"]}
    else:
        claims[at % len(claims)] = {"references": Broken()}
    assert _ours(claims, evidence) == _oracle(claims, evidence)
    assert _ours(claims, evidence) == ("error", "summary citation input is not accessible")


REGULAR_ID = st.one_of(st.none(), st.sampled_from(["e1", " e2", "", "7", "zz"]), st.integers(-1, 8))
REGULAR_OFFSET = st.one_of(st.none(), st.integers(-1, 6))
# Plain citation dicts (the regular path builds them as struct columns).
REGULAR_CITATION = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "evidence_id": REGULAR_ID,
            "id": REGULAR_ID,
            "start": REGULAR_OFFSET,
            "end": REGULAR_OFFSET,
            "quote": st.just("CANARY quote"),
            "span": st.just({"start": 0, "end": 5}),  # a container: not flat, node path
            "citation": REGULAR_ID,
        },
    ),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    claims=st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "citations": st.one_of(
                    st.none(),
                    st.lists(REGULAR_ID, max_size=3),
                    REGULAR_ID,
                    st.lists(REGULAR_CITATION, max_size=3),
                    REGULAR_CITATION,
                ),
                "evidence_id": REGULAR_ID,
                "start": st.one_of(st.none(), st.integers(-1, 6)),
                "end": st.one_of(st.none(), st.integers(-1, 6)),
                "evidence": st.one_of(st.none(), st.lists(st.integers(0, 6), max_size=2)),
                "claim": st.just("text"),
            },
        ),
        max_size=8,
    ),
    evidence=st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "id": REGULAR_ID,
                "start": st.one_of(st.none(), st.integers(-1, 6)),
                "end": st.one_of(st.none(), st.integers(-1, 6)),
            },
        ),
        max_size=8,
    ),
)
def test_regular_fast_path_equals_node_path(claims: list[Any], evidence: list[Any]) -> None:
    fast = _ours(claims, evidence)
    assert fast == _oracle(claims, evidence)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_records, "regular_table", lambda records, keys: None)
        assert _ours(claims, evidence) == fast


def test_regular_table_is_exact() -> None:
    # Exact dicts of str / int / lists of them become a table; anything else does not.
    keys = frozenset({"id", "citations"})
    table = _records.regular_table([{"id": "a", "citations": ["x"]}, {"id": None}], keys)
    assert table is not None and table.num_rows == 2
    assert table.column("id").to_pylist() == ["a", None]
    for odd in ([{"id": True}], [{"id": 1.0}], [{"id": StrId("a")}], [{"id": 2**70}]):
        assert _records.regular_table(odd, keys) is None  # bool, float, subclass, > int64
    assert _records.regular_table([{"citations": ["a", 1]}], keys) is None  # mixed list
    assert _records.regular_table([Record(id="a")], keys) is None  # not a dict
    # Lists of plain dicts become list<struct> over the rule keys only.
    table = _records.regular_table([{"citations": [{"evidence_id": "e1", "quote": "q"}]}], keys)
    assert table is not None
    assert table.column("citations").to_pylist() == [[{"evidence_id": "e1"}]]
    assert _records.regular_table([{"citations": [{"evidence_id": True}]}], keys) is None


# -- the citation-item bound ------------------------------------------------------------------


def test_bound_exceeded_before_a_huge_list_is_read() -> None:
    # Claim 0 has 1 item, claim 1 claims 10**9: the running total passes 5 at claim 1, and
    # the list (whose items raise if read) is never read.
    claims = [{"citations": ["e1"]}, {"citations": Huge()}, Broken()]
    assert _ours(claims, ["e1"], Limits(citations=5)) == (
        "error",
        "citation items exceed the configured limit",
    )


def test_bound_and_unreadable_claims_in_record_order() -> None:
    limit = Limits(citations=2)
    over = [{"citations": ["e1", "e2", "e3"]}]
    # The bound is exceeded at claim 0; the unreadable claim 1 comes later: limit error.
    assert (
        _ours([*over, Broken()], ["e1"], limit)[1] == "citation items exceed the configured limit"
    )
    # The unreadable claim comes first: access error (the oracle reads in the same order).
    assert _ours([Broken(), *over], ["e1"], limit)[1] == "summary citation input is not accessible"
    # An unreadable citation item of claim 0 before the bound is exceeded at claim 1.
    early = [{"citations": [Broken()]}, *over]
    assert _ours(early, ["e1"], limit)[1] == "summary citation input is not accessible"
    # Exactly the bound is accepted: 1 + 1 direct + 0 = 2 items.
    ok = _ours([{"citations": "e1"}, {"start": 0, "end": 1}, {}], ["e1"], limit)
    assert ok["citation_count"] == 2


def test_large_list_bound_is_fast() -> None:
    # 600,001 items in one list: exceeded by its length alone, well under a second.
    claims = [{"citations": [None] * 600_001}]
    started = time.perf_counter()
    assert _ours(claims, ["e1"], Limits())[1] == "citation items exceed the configured limit"
    assert time.perf_counter() - started < 2.0


# -- hostile nesting --------------------------------------------------------------------------


def test_deep_nesting_finishes_quickly() -> None:
    # 200,000 levels of nesting under every rule key: reading stops at the nesting caps
    # (§5: 4 container levels; §7: 10 wrappers, 5 inside a list item), so this is fast and
    # equals the oracle (one claim; its items are lost below the caps).
    deep: Any = {"start": 0, "end": 5}
    for _ in range(200_000):
        deep = {"citations": deep, "span": deep, "evidence": deep}
    deep_list: Any = [0, 5]
    for _ in range(200_000):
        deep_list = [deep_list]
    claims = [{"citations": deep}, {"citations": [deep]}, {"references": deep_list}]
    evidence = [deep, {"id": "e1", "span": deep}, deep_list]
    started = time.perf_counter()
    got = _ours(claims, evidence)
    assert time.perf_counter() - started < 2.0
    assert got == _oracle(claims, evidence)
