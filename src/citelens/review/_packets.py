"""Blinded packets: the records reviewers receive, their rendering and verification (review.md §4).

A packet shows one case's source excerpts and candidate outputs under blinded aliases; the
identity mapping behind the aliases lives in :mod:`citelens.review._mapping`.
"""

from __future__ import annotations

import hmac
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from citelens.review._common import (
    DOMAIN_CANDIDATE_ORDER,
    DOMAIN_CASE_ORDER,
    MAX_ROWS,
    PACKET_SCHEMA,
    alias_for,
    artifact_digest,
    cj,
    entry_point,
    error,
    exact_keys,
    exact_rows,
    is_digest,
    is_key,
    is_public_ref,
    is_text,
    keyed,
    record,
    set_field,
    still_valid,
    tuple_of,
)
from citelens.review._mapping import (
    ALIAS,
    IdentityAssignment,
    MappingAudit,
    MappingEntry,
    SealedIdentityMapping,
    mapping_commitment,
    mapping_payload,
    validate_packet_balance,
)

__all__ = [
    "BlindedCandidate",
    "BlindedPacket",
    "ComparisonCase",
    "ConflictOfInterest",
    "RubricCriterion",
    "SourceEvidence",
    "render_blinded_packets",
    "verify_sealed_identity_mapping",
]

_TEXT_LIMIT = 1_000_000
_QUESTION_LIMIT = 500


def _as_tuple(value: object, limit: int) -> tuple[Any, ...] | None:
    """``value`` as a tuple of at most ``limit + 1`` items, or ``None`` if it cannot be read."""
    if type(value) is tuple:
        return value
    # A tuple subclass is caller code (its __iter__ or __len__ may raise): read it like any
    # other iterable, through the guard below.
    if isinstance(value, (str, bytes, bytearray, Mapping)) or value is None:
        return None
    failed = False
    items: tuple[Any, ...] = ()
    try:
        items = tuple(itertools.islice(iter(value), limit + 1))  # type: ignore[call-overload]
    except Exception:  # the caller's iterable raised: not a readable sequence
        failed = True
    if failed:
        return None
    return items


# --------------------------------------------------------------------------------------------
# Records (§4.1)


@record
@dataclass(frozen=True)
class RubricCriterion:
    """One rubric question with an integer score range (at most 4 points wide, within 0–10)."""

    criterion_ref: str
    question: str
    minimum_score: int
    maximum_score: int

    def __post_init__(self) -> None:
        if not is_public_ref(self.criterion_ref):
            raise error("criterion_ref: invalid_reference")
        if not is_text(self.question, _QUESTION_LIMIT):
            raise error("question: invalid_text")
        low, high = self.minimum_score, self.maximum_score
        if not (
            type(low) is int and type(high) is int and 0 <= low < high <= 10 and high - low <= 4
        ):
            raise error("score_range: invalid_range")

    def __repr__(self) -> str:
        return (
            f"RubricCriterion(<redacted>, minimum_score={self.minimum_score!r}, "
            f"maximum_score={self.maximum_score!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        """``{criterion_ref, maximum_score, minimum_score, question}``."""
        return {
            "criterion_ref": self.criterion_ref,
            "maximum_score": self.maximum_score,
            "minimum_score": self.minimum_score,
            "question": self.question,
        }


@record
@dataclass(frozen=True)
class SourceEvidence:
    """One source excerpt shown to reviewers, keyed by its evidence reference."""

    evidence_ref: str
    content: str

    def __post_init__(self) -> None:
        if not is_public_ref(self.evidence_ref):
            raise error("evidence_ref: invalid_reference")
        if not is_text(self.content, _TEXT_LIMIT):
            raise error("content: invalid_text")

    def __repr__(self) -> str:
        return "SourceEvidence(<redacted>)"

    def to_dict(self) -> dict[str, Any]:
        """``{content, evidence_ref}``."""
        return {"content": self.content, "evidence_ref": self.evidence_ref}


@record
@dataclass(frozen=True)
class ComparisonCase:
    """One case: its source excerpts and the candidate outputs keyed by candidate identity."""

    case_ref: str
    source_evidence: tuple[SourceEvidence, ...]
    candidate_outputs: Mapping[str, str]

    def __post_init__(self) -> None:
        if not is_public_ref(self.case_ref):
            raise error("case_ref: invalid_reference")
        evidence = _as_tuple(self.source_evidence, MAX_ROWS)
        if (
            not evidence
            or len(evidence) > MAX_ROWS
            or not all(type(item) is SourceEvidence for item in evidence)
        ):
            raise error("source_evidence: invalid_sequence")
        if len({item.evidence_ref for item in evidence}) != len(evidence):
            raise error("source_evidence: duplicate_reference")
        outputs = self.candidate_outputs
        if not isinstance(outputs, Mapping):
            raise error("candidate_outputs: invalid_mapping")
        failed = False
        items: list[tuple[Any, Any]] = []
        try:
            for key, value in itertools.islice(outputs.items(), 27):
                items.append((key, value))
        except Exception:  # the caller's mapping raised while being read
            failed = True
        if failed:
            raise error("candidate_outputs: invalid_mapping")
        if not 2 <= len(items) <= 26:
            raise error("candidate_outputs: invalid_count")
        for key, _ in items:
            if not is_public_ref(key):
                raise error("candidate_identity: invalid_reference")
        for _, value in items:
            if not is_text(value, _TEXT_LIMIT):
                raise error("candidate_output: invalid_text")
        copied = dict(items)
        if len(copied) != len(items):
            raise error("candidate_outputs: invalid_mapping")
        set_field(self, "source_evidence", evidence)
        set_field(self, "candidate_outputs", MappingProxyType(copied))

    def __repr__(self) -> str:
        return "ComparisonCase(<redacted>)"


@record
@dataclass(frozen=True)
class ConflictOfInterest:
    """The reviewer's conflict-of-interest declaration (``cleared`` or ``recused``)."""

    reviewer_ref: str
    declaration_digest: str
    status: str = "cleared"

    def __post_init__(self) -> None:
        if not is_public_ref(self.reviewer_ref):
            raise error("reviewer_ref: invalid_reference")
        if not is_digest(self.declaration_digest):
            raise error("declaration_digest: invalid_digest")
        if type(self.status) is not str or self.status not in ("cleared", "recused"):
            raise error("conflict_status: invalid_status")

    def __repr__(self) -> str:
        return "ConflictOfInterest(<redacted>)"

    def to_dict(self) -> dict[str, Any]:
        """``{declaration_digest, reviewer_ref, status}``."""
        return {
            "declaration_digest": self.declaration_digest,
            "reviewer_ref": self.reviewer_ref,
            "status": self.status,
        }


@record
@dataclass(frozen=True)
class BlindedCandidate:
    """One candidate output under its blinded alias ``candidate-a`` … ``candidate-z``."""

    alias: str
    content: str

    def __post_init__(self) -> None:
        if type(self.alias) is not str or ALIAS.fullmatch(self.alias) is None:
            raise error("candidate_alias: invalid_alias")
        if not is_text(self.content, _TEXT_LIMIT):
            raise error("candidate_content: invalid_text")

    def __repr__(self) -> str:
        return f"BlindedCandidate(alias={self.alias!r}, <redacted>)"

    def to_dict(self) -> dict[str, Any]:
        """``{alias, content}``."""
        return {"alias": self.alias, "content": self.content}


@record
@dataclass(frozen=True)
class BlindedPacket:
    """The packet one reviewer receives for one case: no candidate identity inside."""

    packet_set_ref: str
    case_ref: str
    holdout_commitment_digest: str
    mapping_commitment: str
    source_evidence: tuple[SourceEvidence, ...]
    candidates: tuple[BlindedCandidate, ...]
    rubric: tuple[RubricCriterion, ...]
    conflict_of_interest: ConflictOfInterest
    schema_version: str = PACKET_SCHEMA

    def __post_init__(self) -> None:
        if type(self.schema_version) is not str or self.schema_version != PACKET_SCHEMA:
            raise error("schema_version: unsupported_version")
        if not is_public_ref(self.packet_set_ref):
            raise error("packet_set_ref: invalid_reference")
        if not is_public_ref(self.case_ref):
            raise error("case_ref: invalid_reference")
        if not is_digest(self.holdout_commitment_digest):
            raise error("holdout_commitment_digest: invalid_digest")
        if not is_digest(self.mapping_commitment):
            raise error("mapping_commitment: invalid_digest")
        evidence = tuple_of(self.source_evidence, SourceEvidence, 1, MAX_ROWS)
        if evidence is None:
            raise error("source_evidence: invalid_sequence")
        candidates = tuple_of(self.candidates, BlindedCandidate, 2, 26)
        if candidates is None:
            raise error("candidates: invalid_sequence")
        if [c.alias for c in candidates] != [alias_for(i) for i in range(len(candidates))]:
            raise error("candidates: invalid_alias_order")
        rubric = tuple_of(self.rubric, RubricCriterion, 1, 8)
        if rubric is None:
            raise error("rubric: invalid_sequence")
        if type(self.conflict_of_interest) is not ConflictOfInterest:
            raise error("conflict_of_interest: invalid_metadata")
        set_field(self, "source_evidence", evidence)
        set_field(self, "candidates", candidates)
        set_field(self, "rubric", rubric)

    def __repr__(self) -> str:
        return f"BlindedPacket(<redacted>, candidate_count={len(self.candidates)})"

    def to_dict(self) -> dict[str, Any]:
        """The packet document (review.md §4.2); lists in stored order."""
        return {
            "candidates": [c.to_dict() for c in self.candidates],
            "case_ref": self.case_ref,
            "conflict_of_interest": self.conflict_of_interest.to_dict(),
            "holdout_commitment_digest": self.holdout_commitment_digest,
            "mapping_commitment": self.mapping_commitment,
            "packet_set_ref": self.packet_set_ref,
            "rubric": [r.to_dict() for r in self.rubric],
            "schema_version": self.schema_version,
            "source_evidence": [s.to_dict() for s in self.source_evidence],
        }

    def to_json(self) -> str:
        """Canonical JSON of :meth:`to_dict` without a trailing newline."""
        return cj(self.to_dict())

    @classmethod
    def from_dict(cls, document: object) -> BlindedPacket:
        """Rebuild a packet from exactly the document of :meth:`to_dict`."""
        if not _packet_shape(document):
            raise error("packet: invalid_document")
        assert isinstance(document, dict)
        return cls(
            packet_set_ref=document["packet_set_ref"],
            case_ref=document["case_ref"],
            holdout_commitment_digest=document["holdout_commitment_digest"],
            mapping_commitment=document["mapping_commitment"],
            source_evidence=tuple(
                SourceEvidence(evidence_ref=s["evidence_ref"], content=s["content"])
                for s in document["source_evidence"]
            ),
            candidates=tuple(
                BlindedCandidate(alias=c["alias"], content=c["content"])
                for c in document["candidates"]
            ),
            rubric=tuple(
                RubricCriterion(
                    criterion_ref=r["criterion_ref"],
                    question=r["question"],
                    minimum_score=r["minimum_score"],
                    maximum_score=r["maximum_score"],
                )
                for r in document["rubric"]
            ),
            conflict_of_interest=ConflictOfInterest(
                reviewer_ref=document["conflict_of_interest"]["reviewer_ref"],
                declaration_digest=document["conflict_of_interest"]["declaration_digest"],
                status=document["conflict_of_interest"]["status"],
            ),
            schema_version=document["schema_version"],
        )


_PACKET_KEYS = frozenset(
    {
        "candidates",
        "case_ref",
        "conflict_of_interest",
        "holdout_commitment_digest",
        "mapping_commitment",
        "packet_set_ref",
        "rubric",
        "schema_version",
        "source_evidence",
    }
)
_CANDIDATE_KEYS = frozenset({"alias", "content"})
_CRITERION_KEYS = frozenset({"criterion_ref", "maximum_score", "minimum_score", "question"})
_COI_KEYS = frozenset({"declaration_digest", "reviewer_ref", "status"})
_EVIDENCE_KEYS = frozenset({"content", "evidence_ref"})


def _packet_shape(document: object) -> bool:
    return (
        exact_keys(document, _PACKET_KEYS)
        and isinstance(document, dict)
        and exact_rows(document["candidates"], _CANDIDATE_KEYS)
        and exact_rows(document["rubric"], _CRITERION_KEYS)
        and exact_rows(document["source_evidence"], _EVIDENCE_KEYS)
        and exact_keys(document["conflict_of_interest"], _COI_KEYS)
    )


# --------------------------------------------------------------------------------------------
# Rendering (§4.3) and verification (§4.4)


@entry_point
def render_blinded_packets(
    *,
    packet_set_ref: str,
    cases: Iterable[ComparisonCase],
    rubric: Iterable[RubricCriterion],
    conflict_of_interest: ConflictOfInterest,
    holdout_commitment_digest: str,
    submission_manifest_digests: Mapping[str, str],
    randomization_key: bytes,
) -> tuple[tuple[BlindedPacket, ...], SealedIdentityMapping]:
    """Render one blinded packet per case and the sealed identity mapping (review.md §4.3).

    Cases are ordered by a keyed hash of their reference; candidates follow one keyed base order
    rotated by the case position, so every identity visits every alias slot evenly.
    """
    if not is_public_ref(packet_set_ref):
        raise error("packet_set_ref: invalid_reference")
    if not is_digest(holdout_commitment_digest):
        raise error("holdout_commitment_digest: invalid_digest")
    if not is_key(randomization_key):
        raise error("randomization_key: invalid_key")
    if type(conflict_of_interest) is not ConflictOfInterest or not still_valid(
        conflict_of_interest
    ):
        raise error("conflict_of_interest: invalid_metadata")
    if conflict_of_interest.status != "cleared":
        raise error("conflict_of_interest: reviewer_recused")
    case_tuple = _as_tuple(cases, MAX_ROWS)
    if (
        not case_tuple
        or len(case_tuple) > MAX_ROWS
        or not all(type(c) is ComparisonCase and still_valid(c) for c in case_tuple)
    ):
        raise error("cases: invalid_sequence")
    if len({c.case_ref for c in case_tuple}) != len(case_tuple):
        raise error("cases: duplicate_reference")
    rubric_tuple = _as_tuple(rubric, 8)
    if (
        not rubric_tuple
        or len(rubric_tuple) > 8
        or not all(type(r) is RubricCriterion and still_valid(r) for r in rubric_tuple)
    ):
        raise error("rubric: invalid_sequence")
    if len({r.criterion_ref for r in rubric_tuple}) != len(rubric_tuple):
        raise error("rubric: duplicate_reference")
    identities = frozenset(case_tuple[0].candidate_outputs)
    for case in case_tuple:
        if frozenset(case.candidate_outputs) != identities:
            raise error("cases: inconsistent_candidates")
    manifests = _manifest_digests(submission_manifest_digests, identities)
    key = randomization_key
    base = sorted(
        identities, key=lambda i: (keyed(key, DOMAIN_CANDIDATE_ORDER, i.encode("utf-8")), i)
    )
    ordered = sorted(
        case_tuple,
        key=lambda c: (keyed(key, DOMAIN_CASE_ORDER, c.case_ref.encode("utf-8")), c.case_ref),
    )
    count = len(base)
    entries: list[MappingEntry] = []
    slot_orders: list[list[str]] = []
    for position, case in enumerate(ordered):
        rotation = position % count
        order = base[rotation:] + base[:rotation]
        slot_orders.append(order)
        entries.append(
            MappingEntry(
                case_ref=case.case_ref,
                assignments=tuple(
                    IdentityAssignment(
                        alias=alias_for(slot),
                        candidate_identity=identity,
                        submission_manifest_digest=manifests[identity],
                        output_digest=artifact_digest(case.candidate_outputs[identity]),
                    )
                    for slot, identity in enumerate(order)
                ),
            )
        )
    commitment = mapping_commitment(
        key, mapping_payload(packet_set_ref, holdout_commitment_digest, entries)
    )
    mapping = SealedIdentityMapping(
        packet_set_ref=packet_set_ref,
        holdout_commitment_digest=holdout_commitment_digest,
        entries=tuple(entries),
        mapping_commitment=commitment,
    )
    if not validate_packet_balance(mapping).balanced:
        raise error("mapping: unbalanced")
    packets = tuple(
        BlindedPacket(
            packet_set_ref=packet_set_ref,
            case_ref=case.case_ref,
            holdout_commitment_digest=holdout_commitment_digest,
            mapping_commitment=commitment,
            source_evidence=case.source_evidence,
            candidates=tuple(
                BlindedCandidate(alias=alias_for(slot), content=case.candidate_outputs[identity])
                for slot, identity in enumerate(order)
            ),
            rubric=rubric_tuple,
            conflict_of_interest=conflict_of_interest,
        )
        for case, order in zip(ordered, slot_orders)
    )
    return packets, mapping


def _manifest_digests(value: object, identities: frozenset[str]) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise error("submission_manifest_digests: invalid_keys")
    failed = False
    items: list[tuple[Any, Any]] = []
    try:
        items = list(itertools.islice(value.items(), len(identities) + 1))
    except Exception:  # the caller's mapping raised while being read
        failed = True
    if failed:
        raise error("submission_manifest_digests: invalid_keys")
    keys = [k for k, _ in items]
    if len(keys) != len(identities) or not all(type(k) is str for k in keys):
        raise error("submission_manifest_digests: invalid_keys")
    if frozenset(keys) != identities:
        raise error("submission_manifest_digests: invalid_keys")
    result: dict[str, str] = {}
    for k, v in items:
        if not is_digest(v):
            raise error("submission_manifest_digest: invalid_digest")
        result[k] = v
    return result


@entry_point
def verify_sealed_identity_mapping(
    packets: Iterable[BlindedPacket], mapping: SealedIdentityMapping, randomization_key: bytes
) -> MappingAudit:
    """Check a packet set against its sealed identity mapping (review.md §4.4)."""
    if not is_key(randomization_key):
        raise error("randomization_key: invalid_key")
    if type(mapping) is not SealedIdentityMapping or not still_valid(mapping):
        raise error("mapping: invalid_mapping")
    packet_tuple = _as_tuple(packets, MAX_ROWS)
    if (
        not packet_tuple
        or len(packet_tuple) > MAX_ROWS
        or not all(type(p) is BlindedPacket and still_valid(p) for p in packet_tuple)
    ):
        return MappingAudit(valid=False, reason_codes=("invalid_packet_set",), packet_count=0)
    reasons: list[str] = []
    expected = mapping_commitment(
        randomization_key,
        mapping_payload(mapping.packet_set_ref, mapping.holdout_commitment_digest, mapping.entries),
    )
    if not hmac.compare_digest(
        expected.encode("ascii"), mapping.mapping_commitment.encode("ascii")
    ):
        reasons.append("commitment_mismatch")
    if len(packet_tuple) != len(mapping.entries):
        reasons.append("mapping_mismatch")
    else:
        for packet, entry in zip(packet_tuple, mapping.entries):
            if not _packet_matches(packet, entry, mapping):
                reasons.append("mapping_mismatch")
                break
    return MappingAudit(
        valid=not reasons,
        reason_codes=tuple(reasons) if reasons else ("valid",),
        packet_count=len(packet_tuple),
    )


def _packet_matches(
    packet: BlindedPacket, entry: MappingEntry, mapping: SealedIdentityMapping
) -> bool:
    if (
        packet.packet_set_ref != mapping.packet_set_ref
        or packet.holdout_commitment_digest != mapping.holdout_commitment_digest
        or packet.mapping_commitment != mapping.mapping_commitment
        or packet.case_ref != entry.case_ref
        or len(packet.candidates) != len(entry.assignments)
    ):
        return False
    return all(
        candidate.alias == assignment.alias
        and artifact_digest(candidate.content) == assignment.output_digest
        for candidate, assignment in zip(packet.candidates, entry.assignments)
    )
