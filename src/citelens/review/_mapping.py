"""The sealed identity mapping and its HMAC commitment (review.md §4.1, §4.3, §4.5).

The mapping records which candidate identity sits behind each blinded alias of each case. It is
the identity-bearing half of a packet set: it never travels with the packets, and its commitment
(a keyed digest of the canonical payload) is what binds the packets to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citelens.review._common import (
    AUDIT_SCHEMA,
    BALANCE_SCHEMA,
    DOMAIN_MAPPING,
    MAPPING_SCHEMA,
    MAX_ROWS,
    alias_for,
    cj,
    entry_point,
    error,
    exact_keys,
    exact_rows,
    is_digest,
    is_public_ref,
    keyed_digest,
    record,
    set_field,
    still_valid,
    tuple_of,
)

__all__ = [
    "ALIAS",
    "IdentityAssignment",
    "MappingAudit",
    "MappingEntry",
    "PacketBalance",
    "SealedIdentityMapping",
    "mapping_commitment",
    "mapping_payload",
    "validate_packet_balance",
]

ALIAS = re.compile(r"candidate-[a-z]")

_MAPPING_KEYS = frozenset(
    {
        "entries",
        "holdout_commitment_digest",
        "mapping_commitment",
        "packet_set_ref",
        "schema_version",
    }
)
_ENTRY_KEYS = frozenset({"assignments", "case_ref"})
_ASSIGNMENT_KEYS = frozenset(
    {"alias", "candidate_identity", "output_digest", "submission_manifest_digest"}
)


def _mapping_shape(document: object) -> bool:
    return (
        exact_keys(document, _MAPPING_KEYS)
        and isinstance(document, dict)
        and exact_rows(document["entries"], _ENTRY_KEYS)
        and all(exact_rows(entry["assignments"], _ASSIGNMENT_KEYS) for entry in document["entries"])
    )


@record
@dataclass(frozen=True)
class IdentityAssignment:
    """Private: which candidate identity sits behind one alias of one case."""

    alias: str
    candidate_identity: str
    submission_manifest_digest: str
    output_digest: str

    def __post_init__(self) -> None:
        if type(self.alias) is not str or ALIAS.fullmatch(self.alias) is None:
            raise error("assignment_alias: invalid_alias")
        if not is_public_ref(self.candidate_identity):
            raise error("candidate_identity: invalid_reference")
        if not is_digest(self.submission_manifest_digest):
            raise error("submission_manifest_digest: invalid_digest")
        if not is_digest(self.output_digest):
            raise error("output_digest: invalid_digest")

    def __repr__(self) -> str:
        return "IdentityAssignment(<redacted>)"

    def to_private_dict(self) -> dict[str, Any]:
        """``{alias, candidate_identity, output_digest, submission_manifest_digest}``."""
        return {
            "alias": self.alias,
            "candidate_identity": self.candidate_identity,
            "output_digest": self.output_digest,
            "submission_manifest_digest": self.submission_manifest_digest,
        }


@record
@dataclass(frozen=True)
class MappingEntry:
    """Private: the alias assignments of one case, in slot order."""

    case_ref: str
    assignments: tuple[IdentityAssignment, ...]

    def __post_init__(self) -> None:
        if not is_public_ref(self.case_ref):
            raise error("case_ref: invalid_reference")
        assignments = tuple_of(self.assignments, IdentityAssignment, 2, 26)
        if assignments is None:
            raise error("assignments: invalid_count")
        if [a.alias for a in assignments] != [alias_for(i) for i in range(len(assignments))]:
            raise error("assignments: invalid_alias_order")
        if len({a.candidate_identity for a in assignments}) != len(assignments):
            raise error("assignments: duplicate_identity")
        set_field(self, "assignments", assignments)

    def __repr__(self) -> str:
        return "MappingEntry(<redacted>)"

    def to_private_dict(self) -> dict[str, Any]:
        """``{assignments: [...], case_ref}``."""
        return {
            "assignments": [a.to_private_dict() for a in self.assignments],
            "case_ref": self.case_ref,
        }


@record
@dataclass(frozen=True)
class SealedIdentityMapping:
    """The identity-bearing mapping of a packet set and its HMAC commitment.

    Keep it under access control; never attach it to packets or reports.
    """

    packet_set_ref: str
    holdout_commitment_digest: str
    entries: tuple[MappingEntry, ...]
    mapping_commitment: str
    schema_version: str = MAPPING_SCHEMA

    def __post_init__(self) -> None:
        if type(self.schema_version) is not str or self.schema_version != MAPPING_SCHEMA:
            raise error("schema_version: unsupported_version")
        if not is_public_ref(self.packet_set_ref):
            raise error("packet_set_ref: invalid_reference")
        if not is_digest(self.holdout_commitment_digest):
            raise error("holdout_commitment_digest: invalid_digest")
        if not is_digest(self.mapping_commitment):
            raise error("mapping_commitment: invalid_digest")
        entries = tuple_of(self.entries, MappingEntry, 1, MAX_ROWS)
        if entries is None:
            raise error("mapping_entries: invalid_count")
        if len({e.case_ref for e in entries}) != len(entries):
            raise error("mapping_entries: duplicate_case")
        set_field(self, "entries", entries)

    def __repr__(self) -> str:
        return "SealedIdentityMapping(<redacted>)"

    def to_private_dict(self) -> dict[str, Any]:
        """The private mapping document (review.md §4.2)."""
        return {
            "entries": [e.to_private_dict() for e in self.entries],
            "holdout_commitment_digest": self.holdout_commitment_digest,
            "mapping_commitment": self.mapping_commitment,
            "packet_set_ref": self.packet_set_ref,
            "schema_version": self.schema_version,
        }

    def to_private_json(self) -> str:
        """Canonical JSON of :meth:`to_private_dict` without a trailing newline."""
        return cj(self.to_private_dict())

    @classmethod
    def from_private_dict(cls, document: object) -> SealedIdentityMapping:
        """Rebuild a mapping from exactly the document of :meth:`to_private_dict`.

        The result is only as trustworthy as its commitment: verify it before use.
        """
        if not _mapping_shape(document):
            raise error("mapping: invalid_document")
        assert isinstance(document, dict)
        return cls(
            packet_set_ref=document["packet_set_ref"],
            holdout_commitment_digest=document["holdout_commitment_digest"],
            entries=tuple(
                MappingEntry(
                    case_ref=entry["case_ref"],
                    assignments=tuple(
                        IdentityAssignment(
                            alias=a["alias"],
                            candidate_identity=a["candidate_identity"],
                            submission_manifest_digest=a["submission_manifest_digest"],
                            output_digest=a["output_digest"],
                        )
                        for a in entry["assignments"]
                    ),
                )
                for entry in document["entries"]
            ),
            mapping_commitment=document["mapping_commitment"],
            schema_version=document["schema_version"],
        )


@dataclass(frozen=True)
class MappingAudit:
    """The result of :func:`verify_sealed_identity_mapping`."""

    valid: bool
    reason_codes: tuple[str, ...]
    packet_count: int
    schema_version: str = AUDIT_SCHEMA

    def to_dict(self) -> dict[str, Any]:
        """``{packet_count, reason_codes, schema_version, valid}``."""
        return {
            "packet_count": self.packet_count,
            "reason_codes": list(self.reason_codes),
            "schema_version": self.schema_version,
            "valid": self.valid,
        }


@dataclass(frozen=True)
class PacketBalance:
    """How evenly each candidate identity is spread over the alias slots."""

    balanced: bool
    candidate_count: int
    maximum_slot_imbalance: int
    packet_count: int
    schema_version: str = field(default=BALANCE_SCHEMA)

    def to_dict(self) -> dict[str, Any]:
        """``{balanced, candidate_count, maximum_slot_imbalance, packet_count, schema_version}``."""
        return {
            "balanced": self.balanced,
            "candidate_count": self.candidate_count,
            "maximum_slot_imbalance": self.maximum_slot_imbalance,
            "packet_count": self.packet_count,
            "schema_version": self.schema_version,
        }


# --------------------------------------------------------------------------------------------
# The commitment (§4.3) and the balance (§4.5)


def mapping_payload(
    packet_set_ref: str, holdout_commitment_digest: str, entries: Iterable[MappingEntry]
) -> dict[str, Any]:
    """The payload the mapping commitment covers (review.md §4.3)."""
    return {
        "entries": [e.to_private_dict() for e in entries],
        "holdout_commitment_digest": holdout_commitment_digest,
        "packet_set_ref": packet_set_ref,
        "schema_version": MAPPING_SCHEMA,
    }


def mapping_commitment(key: bytes, payload: dict[str, Any]) -> str:
    return keyed_digest(key, DOMAIN_MAPPING, cj(payload).encode("utf-8"))


@entry_point
def validate_packet_balance(mapping: SealedIdentityMapping) -> PacketBalance:
    """Count how often each identity occupies each alias slot (review.md §4.5)."""
    if type(mapping) is not SealedIdentityMapping or not still_valid(mapping):
        raise error("mapping: invalid_mapping")
    first = mapping.entries[0]
    count = len(first.assignments)
    identities = frozenset(a.candidate_identity for a in first.assignments)
    slots: dict[str, list[int]] = {identity: [0] * count for identity in identities}
    shape_valid = True
    for entry in mapping.entries:
        names = [a.candidate_identity for a in entry.assignments]
        if len(names) != count or frozenset(names) != identities:
            shape_valid = False
            continue
        for slot, identity in enumerate(names):
            slots[identity][slot] += 1
    imbalance = max((max(c) - min(c) for c in slots.values()), default=0)
    return PacketBalance(
        balanced=shape_valid and imbalance <= 1,
        candidate_count=count,
        maximum_slot_imbalance=imbalance,
        packet_count=len(mapping.entries),
    )
