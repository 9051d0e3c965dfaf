"""Random defective minimality inputs for differential tests (records of every kind).

Every generator takes a ``random.Random`` and returns fresh objects, so one seed can build the
same input twice (once for the engine, once for the oracle: generators and caller iterables
are consumed by reading).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from citelens.minimality import CitationSpan

__all__ = [
    "IDS",
    "TEXT",
    "Attrs",
    "RaisingAttrs",
    "RaisingMapping",
    "citation_record",
    "claim_record",
    "offset_value",
    "span_value",
]

TEXT = "alpha beta, gamma d\u0301elta \u60a3\u8005 3.5mg ok"  # 35 code points


def _ref(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()


IDS = [_ref(f"c{i}") for i in range(3)]


class Attrs:
    """A caller object read by attributes (``to_dict`` is never called: §6 READ uses getattr)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def to_dict(self) -> dict[str, Any]:
        raise RuntimeError("to_dict must not be called")

    def __repr__(self) -> str:
        return f"Attrs({self.__dict__!r})"


class RaisingAttrs(Attrs):
    """Reading the attribute named ``bad`` raises."""

    def __init__(self, bad: str, **values: Any) -> None:
        super().__init__(**values)
        self.__dict__["_bad"] = bad

    def __getattribute__(self, name: str) -> Any:
        if name == object.__getattribute__(self, "__dict__").get("_bad"):
            raise RuntimeError("property raised")
        return object.__getattribute__(self, name)


class RaisingMapping(Mapping[str, Any]):
    """A mapping whose lookup of ``bad`` raises something other than ``KeyError``."""

    def __init__(self, bad: str, values: dict[str, Any]) -> None:
        self._bad = bad
        self._values = values

    def __getitem__(self, key: str) -> Any:
        if key == self._bad:
            raise RuntimeError("lookup raised")
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class Always:
    """Equal to everything (a caller ``__eq__``)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class EqRaises:
    """Comparing raises (a caller ``__eq__``)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq raised")

    __hash__ = object.__hash__


class Pairs:
    """An iterable caller object (SPAN_FROM pulls at most 3 items)."""

    def __init__(self, items: list[Any], fail: bool = False) -> None:
        self.items = items
        self.fail = fail

    def __iter__(self) -> Iterator[Any]:
        yield from self.items
        if self.fail:
            raise RuntimeError("iteration raised")


def offset_value(rng: random.Random) -> Any:
    """An offset of any kind: ints, bools, floats, text, big ints, numpy ints, objects."""
    return rng.choice(
        [0, 1, 3, 6, 6, 10, 12, 18, 35, 36, -1, -7, True, False, 6.0, 10.0, 6.5, math.nan,
         math.inf, "6", 2**62, 2**63, 2**64, 2**64 + 1, -(2**64), float(2**64), np.int64(6),
         None, [6], Always()]
    )  # fmt: skip


def _pair(rng: random.Random) -> list[int]:
    start = rng.randrange(0, 30)
    return [start, start + rng.randrange(1, 8)]


def span_value(rng: random.Random, depth: int = 0) -> Any:
    """A span value: pairs, mappings, objects, typed spans, iterables, nested wrappers."""
    kind = rng.randrange(16)
    if kind <= 2:
        return _pair(rng)
    if kind == 3:
        return tuple(offset_value(rng) for _ in range(rng.choice([0, 1, 2, 2, 3, 4])))
    if kind == 4:
        return {"start": offset_value(rng), "end": offset_value(rng)}
    if kind == 5:
        s, e = _pair(rng)
        span: dict[str, Any] = {"start": s, "source_start": rng.choice([s, s, float(s), True]),
                                "end": e, "source_end": rng.choice([e, e + 1, None])}  # fmt: skip
        return span
    if kind == 6:
        return {
            rng.choice(["offset", "source_offset", "source_offsets"]): span_value(rng, depth + 1)
        }
    if kind == 7:
        s, e = _pair(rng)
        inner = rng.choice([[s, e], [s, e + 1], {"start": s, "end": e}, span_value(rng, depth + 1)])
        return {"start": s, "end": e, "offset": inner}
    if kind == 8:
        # A chain of wrappers around the nesting cap (32 levels allowed, 33 fail).
        value: Any = _pair(rng)
        for _ in range(rng.choice([1, 31, 32, 33, 34])):
            value = {"offset": value}
        return value
    if kind == 9:
        s, e = _pair(rng)
        return CitationSpan(s, e)
    if kind == 10:
        s, e = _pair(rng)
        return Attrs(start=s, end=e) if rng.random() < 0.6 else Attrs(offset=[s, e])
    if kind == 11:
        return Pairs(_pair(rng) + ([99] if rng.random() < 0.2 else []), fail=rng.random() < 0.3)
    if kind == 12:
        return iter(_pair(rng))
    if kind == 13:
        wrapper: dict[str, Any] = {}
        wrapper["offset"] = wrapper  # a value whose nested value is itself
        return rng.choice([wrapper, Attrs(offset=None, start=3)])
    if kind == 14:
        return {"offset": [1, 4], "source_offset": rng.choice([[1, 4], (1, 4), [1, 5], Always()])}
    return rng.choice(["0,5", 5, b"05", {"from": 1}, 2.5, EqRaises()])


def _id(rng: random.Random) -> Any:
    return rng.choice(IDS) if rng.random() < 0.85 else rng.choice(["bad", 5, [IDS[0]], None])


def _fields(rng: random.Random, claims: bool) -> dict[str, Any]:
    record: dict[str, Any] = {}
    if rng.random() < 0.93:
        record["claim_id"] = _id(rng)
    if rng.random() < 0.12:
        same = record.get("claim_id", IDS[0])
        record["id"] = rng.choice([same, same, IDS[1], [same], Always(), EqRaises()])
    if not claims and rng.random() < 0.6:
        cid = rng.choice([IDS[0], IDS[1], "X", None])
        record["citation_id"] = cid
        if rng.random() < 0.15:
            record["evidence_id"] = rng.choice([cid, IDS[2]])
    aliases = (
        ("required_span", "minimal_span", "source_offset", "required_offset")
        if claims
        else ("source_span", "citation_offset", "offset", "source_offsets")
    )
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        record[rng.choice(aliases)] = span_value(rng)
    if rng.random() < 0.35:
        s, e = _pair(rng)
        record["start" if rng.random() < 0.7 else "source_start"] = rng.choice([s, s, float(s)])
        if rng.random() < 0.9:
            record["end"] = e
    if rng.random() < 0.15:
        names = ("required_start", "minimal_start") if claims else ("citation_start",)
        record[rng.choice(names)] = offset_value(rng)
    if rng.random() < 0.08:
        record["start"] = offset_value(rng)
    if claims and rng.random() < 0.06:
        record["offset"] = span_value(rng)
    return record


def _shape(rng: random.Random, record: dict[str, Any]) -> Any:
    """The record as a dict, a caller object, a raising object, or a raising mapping."""
    kind = rng.randrange(10)
    if kind <= 5 or not record:
        return record
    if kind <= 7:
        return Attrs(**record)
    bad = rng.choice(sorted(record))
    if kind == 8:
        return RaisingAttrs(bad, **record)
    return RaisingMapping(bad, record)


def claim_record(rng: random.Random) -> Any:
    """One random (often defective) claim record."""
    return _shape(rng, _fields(rng, True))


def citation_record(rng: random.Random) -> Any:
    """One random (often defective) citation record."""
    return _shape(rng, _fields(rng, False))
