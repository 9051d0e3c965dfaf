"""The plain-Python digest recipe of support-metrics.md Appendix A (test oracle only)."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from typing import Any

LABEL_CODE = {"supports": 0, "contradicts": 1, "irrelevant": 2, "unclear": 3}


def s(value: str) -> bytes:
    """String field: uint32 little-endian byte length, then the UTF-8 bytes."""
    data = value.encode("utf-8")
    return struct.pack("<I", len(data)) + data


def i(value: int | None) -> bytes:
    """Nullable int64 field: 9 bytes."""
    if value is None:
        return b"\x00" + bytes(8)
    return b"\x01" + struct.pack("<q", value)


def n(count: int) -> bytes:
    """Row count: uint64 little-endian."""
    return struct.pack("<Q", count)


def skey(value: str) -> bytes:
    return value.encode("utf-8")


def ikey(value: int | None) -> tuple[int, int]:
    return (0, 0) if value is None else (1, value)


def claim_row(r: tuple[Any, ...]) -> bytes:
    return s(r[0]) + i(r[1]) + i(r[2]) + s(r[3]) + i(r[4]) + s(r[5])


def evidence_row(r: tuple[Any, ...]) -> bytes:
    return s(r[0]) + i(r[1]) + i(r[2]) + s(r[3]) + i(r[4])


def edge_row(r: tuple[Any, ...]) -> bytes:
    return s(r[0]) + s(r[1]) + i(r[2]) + i(r[3]) + s(r[4])


def adjudication_row(r: tuple[Any, ...]) -> bytes:
    return s(r[0]) + s(r[1]) + bytes([LABEL_CODE[r[2]]])


def edge_key(r: tuple[Any, ...]) -> tuple[Any, ...]:
    return (skey(r[0]), skey(r[1]), ikey(r[2]), ikey(r[3]), skey(r[4]))


def digest(message: bytes) -> str:
    return "sha256:" + hashlib.sha256(message).hexdigest()


def adjudication_message(adjudications: Iterable[tuple[Any, ...]]) -> bytes:
    rows = sorted(adjudications, key=lambda r: (skey(r[0]), skey(r[1]), LABEL_CODE[r[2]]))
    return (
        s("citelens.support.adjudication_digest.v1")
        + n(len(rows))
        + b"".join(map(adjudication_row, rows))
    )


def evidence_message(evidence: Iterable[tuple[Any, ...]]) -> bytes:
    rows = sorted(evidence, key=lambda r: skey(r[0]))
    return (
        s("citelens.support.evidence_digest.v1") + n(len(rows)) + b"".join(map(evidence_row, rows))
    )


def citelens_digests(
    claims: Iterable[tuple[Any, ...]],
    evidence: Iterable[tuple[Any, ...]],
    edges: Iterable[tuple[Any, ...]],
    adjudications: Iterable[tuple[Any, ...]],
) -> dict[str, str]:
    """The four provenance digests of the normalised rows (Appendix A)."""
    claims = sorted(claims, key=lambda r: skey(r[0]))
    edges = sorted(edges, key=edge_key)
    claim_ids = {r[0] for r in claims}
    attached = [r for r in edges if r[0] in claim_ids]
    claim_digest = digest(
        s("citelens.support.claim_digest.v1")
        + n(len(claims))
        + b"".join(map(claim_row, claims))
        + n(len(attached))
        + b"".join(map(edge_row, attached))
    )
    evidence_digest = digest(evidence_message(evidence))
    adjudication_digest = digest(adjudication_message(adjudications))
    input_digest = digest(
        s("citelens.support.input_digest.v1")
        + bytes.fromhex(claim_digest[7:])
        + bytes.fromhex(evidence_digest[7:])
        + bytes.fromhex(adjudication_digest[7:])
        + n(len(edges))
        + b"".join(map(edge_row, edges))
    )
    return {
        "adjudication_digest": adjudication_digest,
        "claim_digest": claim_digest,
        "evidence_digest": evidence_digest,
        "input_digest": input_digest,
    }
