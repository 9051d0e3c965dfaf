"""Canonical Arrow schemas of the support engine (§9.1 without the derived columns)."""

from __future__ import annotations

import pyarrow as pa

__all__ = ["ADJUDICATION_SCHEMA", "CLAIM_SCHEMA", "EDGE_SCHEMA", "EVIDENCE_SCHEMA", "LABEL_CODES"]

_S = pa.large_string()
_I = pa.int64()

CLAIM_SCHEMA = pa.schema(
    [
        pa.field("claim_id", _S, nullable=False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, nullable=False),
        pa.field("source_length", _I),
        pa.field("claim_type", _S, nullable=False),
    ]
)
EVIDENCE_SCHEMA = pa.schema(
    [
        pa.field("evidence_id", _S, nullable=False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, nullable=False),
        pa.field("source_length", _I),
    ]
)
EDGE_SCHEMA = pa.schema(
    [
        pa.field("claim_id", _S, nullable=False),
        pa.field("evidence_id", _S, nullable=False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, nullable=False),
    ]
)
ADJUDICATION_SCHEMA = pa.schema(
    [
        pa.field("claim_id", _S, nullable=False),
        pa.field("evidence_id", _S, nullable=False),
        pa.field("label", _S, nullable=False),
        pa.field("origin", _S, nullable=False),
    ]
)

LABEL_CODES: dict[str, int] = {"supports": 0, "contradicts": 1, "irrelevant": 2, "unclear": 3}
