"""Hypothesis strategies of hostile Python inputs with canaries planted in every text.

Values are JSON-like (text, integers of any size, floats, booleans, None, lists and dicts) with
the field names the contracts read, plus objects whose caller code raises (``__str__``,
``__iter__``, ``__eq__``, ``__getitem__``), lone surrogates and deep nesting. Every text holds
:data:`CANARY`, so a message, repr or output that shows an input value is caught.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import strategies as st

CANARY = "CANARY-fuzz-c4n4"
EXAMPLES = int(os.environ.get("CITELENS_FUZZ_EXAMPLES", "60"))
"""Examples per entry point: small in ``make test``, ``make fuzz`` sets 100,000."""

KEYS = (
    "claim_id",
    "id",
    "evidence_id",
    "citation_id",
    "start",
    "end",
    "span",
    "source_id",
    "source_length",
    "source_text",
    "citations",
    "evidence",
    "label",
    "supports",
    "claim",
    "claim_type",
    "document_ref",
    "text",
    "citation_ids",
    "claim_span",
    "begin",
    "stop",
)


class Raising:
    """Caller code that raises wherever it is read."""

    def __str__(self) -> str:
        raise RuntimeError(CANARY)

    def __repr__(self) -> str:  # Hypothesis shows the examples it found
        return "Raising()"

    def __iter__(self) -> Any:
        raise RuntimeError(CANARY)

    def __eq__(self, other: object) -> bool:
        raise RuntimeError(CANARY)

    def __hash__(self) -> int:
        return 7

    def __len__(self) -> int:
        raise RuntimeError(CANARY)

    def __getitem__(self, key: object) -> Any:
        raise RuntimeError(CANARY)


class RaisingText(str):
    def __str__(self) -> str:
        raise RuntimeError(CANARY)


class RaisingInt(int):
    def __str__(self) -> str:
        raise RuntimeError(CANARY)

    def __int__(self) -> int:
        raise RuntimeError(CANARY)


texts = st.one_of(
    st.text(max_size=8).map(lambda t: CANARY + t),
    st.sampled_from([CANARY, " " + CANARY + " ", CANARY + "\ud800", CANARY + "\x00", ""]),
    st.builds(RaisingText, st.just(CANARY)),
)
integers = st.one_of(
    st.integers(min_value=-5, max_value=50),
    st.sampled_from([2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**30]),
    st.builds(RaisingInt, st.integers(0, 9)),
)
scalars = st.one_of(
    texts, integers, st.booleans(), st.none(), st.floats(allow_nan=True), st.builds(Raising)
)


def _deep(value: Any) -> Any:
    for _ in range(200):
        value = [value]
    return value


values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
        inner.map(_deep),
    ),
    max_leaves=12,
)
records = st.dictionaries(st.sampled_from(KEYS), values, max_size=7)
collections = st.one_of(
    st.lists(st.one_of(records, values), max_size=5),
    st.dictionaries(texts, values, max_size=4),
    values,
)
