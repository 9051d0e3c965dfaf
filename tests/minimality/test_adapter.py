"""The thin record adapter: records of every kind reach the one set of column rules.

Differential tests against the sequential oracle (tests/oracle/minimality_rows.py) on defective
records of mixed kinds — bools against ints, floats, big ints, text offsets, nested span
containers around the nesting cap, caller objects read by attribute, lookups and comparisons
that raise — and literal cases checked by hand. Tables and records holding the same data give
identical results.
"""

from __future__ import annotations

import json
import math
import pathlib
import random
from collections.abc import Callable
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.errors import CitationMinimalityError
from citelens.minimality import CitationSpan, check_citation_minimality
from oracle.minimality_inputs import (
    IDS,
    TEXT,
    Attrs,
    RaisingAttrs,
    RaisingMapping,
    citation_record,
    claim_record,
    offset_value,
)
from oracle.minimality_rows import Fail, oracle_check, span_from

C0, C1 = IDS[0], IDS[1]


def _engine(text: str, claims: Any, cites: Any) -> Any:
    try:
        report = check_citation_minimality(text, claims, cites)
    except CitationMinimalityError as exc:
        return ("error", (str(exc), exc.category))
    data = report.to_dict()
    del data["disclaimer"]
    return ("ok", data)


def _inputs(seed: int) -> tuple[list[Any], list[Any]]:
    rng = random.Random(seed)
    claims = [claim_record(rng) for _ in range(rng.randrange(0, 5))]
    cites = [citation_record(rng) for _ in range(rng.randrange(0, 6))]
    return claims, cites


@settings(max_examples=600, deadline=None)
@given(st.integers(0, 10**9))
def test_mixed_kind_records_equal_the_oracle(seed: int) -> None:
    # Built twice from one seed: iterators inside the records are consumed by reading.
    engine = _engine(TEXT, *_inputs(seed))
    assert engine == oracle_check(TEXT, *_inputs(seed))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9))
def test_span_parser_equals_the_oracle(seed: int) -> None:
    # CitationSpan.from_obj is the adapter's span flattening plus the column rules.
    from oracle.minimality_inputs import span_value

    def run(parse: Any) -> Any:
        try:
            return ("ok", parse(span_value(random.Random(seed))))
        except CitationMinimalityError as exc:
            return ("error", (str(exc), exc.category))
        except Fail as failure:
            return ("error", failure.pair)

    assert run(lambda v: CitationSpan.from_obj(v).source_offset) == run(span_from)


# -- literal cases, checked by hand --------------------------------------------------------
# TEXT = "alpha beta, gamma d\u0301elta 患者 3.5mg ok": alpha [0,5), beta [6,10), "," [10,11),
# gamma [12,17), ...


def _wrap(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = {"offset": value}
    return value


def _self_wrapper() -> dict[str, Any]:
    wrapper: dict[str, Any] = {}
    wrapper["offset"] = wrapper
    return wrapper


def _claims(**fields: Any) -> list[dict[str, Any]]:
    return [{"claim_id": C0, **fields}]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # 6 == 6.0: the aliases agree (Python ==); READ returns the first present value in
        # alias order (source_start before start), the int 6.
        ({"source_start": 6, "start": 6.0, "end": 10}, (6, 10)),
        # 1 == True: source_start=1 and start=True agree, the first (1) is used.
        ({"source_start": 1, "start": True, "end": 10}, (1, 10)),
        # required_start wins over start (READ order), both 6.
        ({"required_start": 6, "start": 6, "end": 10}, (6, 10)),
        # A list span and equal explicit offsets: no alias conflict.
        ({"required_span": [6, 10], "start": 6, "end": 10}, (6, 10)),
        # A typed span inside a mapping wrapper.
        ({"required_span": {"offset": CitationSpan(6, 10)}}, (6, 10)),
        # start/end next to an equal nested offset (§6 step 4).
        ({"required_span": {"start": 6, "end": 10, "offset": (6, 10)}}, (6, 10)),
        # A claim record with only a top-level ``offset``: the record falls through (step 5).
        ({"offset": [6, 10]}, (6, 10)),
    ],
)
def test_literal_spans(fields: dict[str, Any], expected: tuple[int, int]) -> None:
    report = check_citation_minimality(TEXT, _claims(**fields), [{"claim_id": C0, "start": 6,
                                                                  "end": 10}])  # fmt: skip
    (record,) = report.records
    assert record.required_offset == expected
    assert (
        oracle_check(TEXT, _claims(**fields), [{"claim_id": C0, "start": 6, "end": 10}])[0] == "ok"
    )


FIELDS = ("citation record fields are invalid", "record")
NOT_INTS = ("citation offsets must be integers", "span")
NO_OFFSETS = ("citation spans require start and end offsets", "span")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # "6" != 6 (text against an int): the field READ fails.
        ({"start": 6, "source_start": "6", "end": 10}, FIELDS),
        # 6.5 != 6.
        ({"start": 6, "source_start": 6.5, "end": 10}, FIELDS),
        # nan is not equal to itself, so two nan aliases conflict.
        ({"start": math.nan, "source_start": math.nan, "end": 10},
         FIELDS),
        # True == 1 agrees, but the first present value (source_start, True) is not an int.
        ({"source_start": True, "start": 1, "end": 10}, NOT_INTS),
        # 6.0 == 6 agrees; the first value 6.0 is a float, not an int.
        ({"source_start": 6.0, "start": 6, "end": 10}, NOT_INTS),
        # 2**64 and 2**64 + 1 differ although both exceed int64.
        ({"start": 2**64, "source_start": 2**64 + 1, "end": 10},
         FIELDS),
        # float(2**64) == 2**64 exactly: the aliases agree; the first (the int) >= end fails.
        ({"source_start": 2**64, "start": float(2**64), "end": 10},
         ("citation offsets must form a non-empty half-open span", "span")),
        # [6, 10] != (6, 10): a list and a tuple are unequal under ==.
        ({"required_span": {"offset": [6, 10], "source_offset": (6, 10)}},
         FIELDS),
        # The nested offset disagrees with start/end of the same wrapper.
        ({"required_span": {"start": 6, "end": 10, "offset": [6, 11]}},
         ("citation span aliases conflict", "span")),
        # 32 wrappers are fine, 33 exceed the cap.
        ({"required_span": _wrap([6, 10], 33)}, ("citation span nesting exceeds limit", "limit")),
        # Three items are not a pair (category span), one item is too few.
        ({"required_span": (6, 10, 11)},
         ("citation collection is invalid or exceeds limit", "span")),
        ({"required_span": [6]}, NO_OFFSETS),
        # A mapping whose nested value is itself has no offsets.
        ({"required_span": _self_wrapper()}, NO_OFFSETS),
    ],
)  # fmt: skip
def test_literal_errors(fields: dict[str, Any], expected: tuple[str, str]) -> None:
    assert _engine(TEXT, _claims(**fields), []) == ("error", expected)
    assert oracle_check(TEXT, _claims(**fields), []) == ("error", expected)


def test_nesting_cap_is_32_levels() -> None:
    # 32 wrappers reach the pair at depth 32: accepted.
    (record,) = check_citation_minimality(
        TEXT, _claims(required_span=_wrap([6, 10], 32)), [{"claim_id": C0, "start": 6, "end": 10}]
    ).records
    assert record.required_offset == (6, 10)


def test_caller_objects_are_read_by_attribute() -> None:
    # An object with claim_id / start / end attributes is a record; its to_dict (which
    # raises) is never called.
    claims = [Attrs(claim_id=C0, start=6, end=10)]
    cites = [Attrs(claim_id=C0, source_span=(6, 17))]
    # [6, 17) = "beta, gamma": beta, ",", gamma → 3 tokens, 1 required → excess 2.
    (record,) = check_citation_minimality(TEXT, claims, cites).records
    assert (record.citation_token_count, record.excess_token_count) == (3, 2)


def test_raising_lookups_are_field_errors_at_their_step() -> None:
    fields_error = ("error", ("citation record fields are invalid", "record"))
    # Reading the span alias raises: the fields error of that alias' step.
    record = RaisingAttrs("required_span", claim_id=C0, required_span=[6, 10])
    assert _engine(TEXT, [record], []) == fields_error == oracle_check(TEXT, [record], [])
    # A mapping whose lookup raises.
    mapping = RaisingMapping("end", {"claim_id": C0, "start": 6, "end": 10})
    assert _engine(TEXT, [mapping], []) == fields_error == oracle_check(TEXT, [mapping], [])
    # A missing claim id comes first (step 1) even when a later lookup raises.
    missing = RaisingMapping("end", {"start": 6, "end": 10})
    expected = ("error", ("atomic claims require an opaque claim id", "record"))
    assert _engine(TEXT, [missing], []) == expected == oracle_check(TEXT, [missing], [])


def test_iterables_are_pulled_at_most_three_items() -> None:
    def endless() -> Any:
        while True:
            yield 1

    # An endless generator as a span: three items are pulled, then "not a pair".
    expected = ("error", ("citation collection is invalid or exceeds limit", "span"))
    assert _engine(TEXT, _claims(required_span=endless()), []) == expected


# -- tables and records: the same data, the same result ------------------------------------


def _rows(rng: random.Random, claims: bool, n: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(n):
        s = rng.randrange(-1, 34)
        row: dict[str, Any] = {"claim_id": rng.choice([*IDS, "bad", None])}
        if rng.random() < 0.3:
            row["id"] = rng.choice([row["claim_id"], IDS[2]])
        row["start"] = rng.choice([s, s, None])
        row["source_start"] = rng.choice([None, None, s, s + 1])
        row["end"] = rng.choice([s + rng.randrange(0, 8), None])
        if not claims:
            row["citation_id"] = rng.choice([IDS[0], None, "X"])
        row["required_span" if claims else "source_span"] = rng.choice(
            [None, [s, s + 4], [s], [0, 1, 2], [None, 3]]
        )
        rows.append(row)
    return rows


def _typed_columns(rows: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The same rows with offsets of another column type (floats, bools, text)."""
    converters: dict[str, Callable[[int], Any]] = {
        "float": float,
        "bool": lambda v: v % 2 == 1,
        "text": str,
    }
    convert = converters[kind]
    out = []
    for row in rows:
        new = dict(row)
        for name in ("source_start",):
            if new.get(name) is not None:
                new[name] = convert(new[name])
        out.append(new)
    return out


def _records(table: pa.Table) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if v is not None} for row in table.to_pylist()]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from(["int", "float", "bool", "text"]))
def test_tables_and_records_agree(seed: int, kind: str) -> None:
    rng = random.Random(seed)
    claims = _rows(rng, True, rng.randrange(0, 5))
    cites = _rows(rng, False, rng.randrange(0, 5))
    if kind != "int":
        claims, cites = _typed_columns(claims, kind), _typed_columns(cites, kind)
    claims_t, cites_t = pa.Table.from_pylist(claims), pa.Table.from_pylist(cites)
    records = _engine(TEXT, _records(claims_t), _records(cites_t))
    assert _engine(TEXT, claims_t, cites_t) == records
    assert _engine(TEXT, pl.from_arrow(claims_t), pl.from_arrow(cites_t)) == records
    assert oracle_check(TEXT, _records(claims_t), _records(cites_t)) == records


def test_big_offsets_agree_across_tables_and_records() -> None:
    # uint64 cells beyond int64 are the same ints as Python's: 2**63 vs 2**63 + 1 differ, so
    # start/source_start conflict; equal values agree and then exceed the text.
    for source_start, expected in (
        (2**63 + 1, ("citation record fields are invalid", "record")),
        (2**63, ("citation offsets exceed source text", "span")),
    ):
        rows = [{"claim_id": C0, "start": 2**63, "source_start": source_start,
                 "end": 2**63 + 5}]  # fmt: skip
        table = pa.table({k: pa.array([v], pa.uint64()) if k != "claim_id" else [v]
                          for k, v in rows[0].items()})  # fmt: skip
        assert _engine(TEXT, rows, []) == ("error", expected) == _engine(TEXT, table, [])


def test_jsonl_and_csv_files_agree_with_records(tmp_path: pathlib.Path) -> None:
    # JSONL keeps JSON kinds: "6" (text) against 6 is a conflict; 6.0 against 6 agrees.
    rows = [
        {"claim_id": C0, "source_start": 6, "start": 6.0, "end": 10},
        {"claim_id": C1, "start": 6, "source_start": "6", "end": 10},
    ]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    expected = ("error", ("citation record fields are invalid", "record"))
    assert _engine(TEXT, path, []) == expected == _engine(TEXT, rows, [])
    # CSV start/end cells matching -?[0-9]+ are ints: "06" == "6" == 6; "6.0" stays text.
    csv = tmp_path / "claims.csv"
    csv.write_text(f"claim_id,start,source_start,end\n{C0},06,6,10\n", encoding="utf-8")
    same = [{"claim_id": C0, "start": 6, "source_start": 6, "end": 10}]
    assert _engine(TEXT, csv, []) == _engine(TEXT, same, [])
    csv.write_text(f"claim_id,start,source_start,end\n{C0},6,6.0,10\n", encoding="utf-8")
    text_cell = [{"claim_id": C0, "start": 6, "source_start": "6.0", "end": 10}]
    assert _engine(TEXT, csv, []) == _engine(TEXT, text_cell, []) == expected


def test_offset_values_of_every_kind_against_the_oracle() -> None:
    # Every offset kind the generator knows, as start and as end, literally enumerated.
    rng = random.Random(0)
    values = [offset_value(rng) for _ in range(200)]
    for start in values[:40]:
        for end in values[40:60]:
            claims = [{"claim_id": C0, "start": start, "end": end}]
            assert _engine(TEXT, claims, []) == oracle_check(TEXT, claims, [])


_T = "alpha beta gamma delta"
_CITE = [{"claim_id": C0, "start": 6, "end": 10}]


@pytest.mark.parametrize(
    "table",
    [
        # The record fallback: a top-level ``offset`` list, an int, a text, a null row.
        pa.table({"claim_id": [C0], "offset": pa.array([[6, 10]])}),
        pa.table({"claim_id": [C0], "offset": pa.array([5])}),
        pa.table({"claim_id": [C0], "offset": pa.array(["x"])}),
        pa.table({"claim_id": [C0, C0], "offset": pa.array([None, [6, 10]])}),
        pa.table({"claim_id": [C0], "note": ["n"]}),
        # Column types: dictionary text, large / fixed-size lists, small ints, float16, bools.
        pa.table({"claim_id": pa.array([C0]).dictionary_encode(), "start": [6], "end": [10]}),
        pa.table({"claim_id": [C0],
                  "required_span": pa.array([[6, 10]], pa.large_list(pa.int64()))}),
        pa.table({"claim_id": [C0], "required_span": pa.array([[6, 10]], pa.list_(pa.int8(), 2))}),
        pa.table({"claim_id": [C0], "start": pa.array([6], pa.float16()), "end": [10]}),
        pa.table({"claim_id": [C0], "start": pa.array([6], pa.int8()), "source_start": [6.0],
                  "end": [10]}),
        pa.table({"claim_id": [C0], "source_start": [True], "start": [1], "end": [10]}),
        # Nested values go through the record adapter.
        pa.table({"claim_id": [C0], "required_span": pa.array([{"start": 6, "end": 10}])}),
        pa.table({"claim_id": [C0], "required_span": pa.array([[[6, 10]]])}),
        pa.table({"claim_id": [C0], "start": pa.array([b"6"]), "end": [10]}),
        # List items of other kinds, null items, two list aliases that disagree.
        pa.table({"claim_id": [C0], "required_span": pa.array([["6", "10"]])}),
        pa.table({"claim_id": [C0], "required_span": pa.array([[6.0, 10.0]])}),
        pa.table({"claim_id": [C0], "required_span": pa.array([[None, 10]])}),
        pa.table({"claim_id": [C0], "required_span": pa.array([[6, 10]]),
                  "minimal_span": pa.array([[6, 11]])}),
        # Id aliases: an int against text, equal texts.
        pa.table({"claim_id": [C0], "id": [5], "start": [6], "end": [10]}),
        pa.table({"claim_id": [C0], "id": [C0], "start": [6], "end": [10]}),
        # Offsets at the int64 / uint64 edges.
        pa.table({"id": [C0], "start": pa.array([2**63], pa.uint64()),
                  "end": pa.array([2**64 - 1], pa.uint64())}),
        pa.table({"claim_id": [C0], "start": pa.array([-(2**63)], pa.int64()), "end": [10]}),
        pa.table({"claim_id": [C0], "required_span": pa.array([[-(2**63), 2**63 - 1]])}),
    ],
)  # fmt: skip
def test_table_schemas_agree_with_records(table: pa.Table) -> None:
    assert _engine(_T, table, _CITE) == oracle_check(_T, _records(table), _CITE)


def test_records_and_tables_share_one_set_of_field_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    # READ (alias reading and equality) exists once, in _tables: breaking it breaks records,
    # typed records and tables alike (an internal error, never a silent second path).
    import citelens.minimality._tables as tables
    from citelens.errors import InternalError
    from citelens.minimality import MinimalityClaim

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(tables, "read_group", boom)
    rows = [{"claim_id": C0, "start": 6, "end": 10}]
    for claims in (rows, pa.Table.from_pylist(rows), [Attrs(**rows[0])]):
        with pytest.raises(InternalError):
            check_citation_minimality(_T, claims, [])
    with pytest.raises(InternalError):
        MinimalityClaim(C0, {"start": 6, "end": 10})
