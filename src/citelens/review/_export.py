"""Review export: the public request and the sealed private document (review.md §5)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any

from citelens.review._common import (
    DOMAIN_REF,
    DOMAIN_SEAL,
    MAX_PRIVATE_JSON,
    REVIEW_SCHEMA,
    H,
    KeyedDigester,
    Reject,
    artifact_digest,
    cj,
    collapse,
    is_row_collection,
    keyed_digest,
    refused,
)
from citelens.review._mapping import SealedIdentityMapping
from citelens.review._packets import BlindedPacket, verify_sealed_identity_mapping
from citelens.support import (
    AtomicClaim,
    CitationSupportReport,
    EvidenceSpan,
    compute_citation_support_metrics,
)
from citelens.support._records import typed_claims, typed_evidence

__all__ = [
    "EVIDENCE_KINDS",
    "REQUEST_KEYS",
    "Reject",
    "ReviewBinding",
    "SealedSummaryReview",
    "export_impl",
    "export_summary_review",
    "normalise_claims",
    "normalise_evidence",
]

EVIDENCE_KINDS = ("synthetic", "reviewer")

REQUEST_KEYS = (
    "schema_version",
    "rubric_version",
    "rubric_digest",
    "evidence_kind",
    "mapping_commitment",
    "packet_digest",
    "summary_digest",
    "source_digest",
    "claim_digest",
    "evidence_digest",
    "reviews",
    "request_digest",
)


@dataclass(frozen=True)
class ReviewBinding:
    """Private link between a packet candidate and one claim/evidence pair (checked on export)."""

    case_ref: str
    candidate_identity: str
    claim_id: str
    evidence_id: str

    def __repr__(self) -> str:
        return "ReviewBinding(<redacted>)"


@dataclass(frozen=True)
class SealedSummaryReview:
    """The sealed private document (raw identifiers) and its HMAC commitment.

    Keep it under access control, separately from the key; never send it to reviewers.
    """

    private_json: str
    commitment: str

    def __repr__(self) -> str:
        return "SealedSummaryReview(<redacted>)"


def _typed_as_they_are(
    items: Sequence[Any], cls: type, convert: Callable[[list[Any]], list[Any]]
) -> list[Any]:
    """Typed records of ``cls`` as they are, the others through ``convert`` in one pass."""
    others = [i for i, item in enumerate(items) if type(item) is not cls]
    out = list(items)
    for i, record in zip(others, convert([items[i] for i in others]), strict=True):
        out[i] = record
    return out


def normalise_claims(claims: Sequence[Any]) -> list[Any]:
    """Each claim as ``AtomicClaim.from_mapping`` gives it (typed claims as they are), all
    in one columnar pass of the claim record rule."""
    return _typed_as_they_are(claims, AtomicClaim, typed_claims)


def normalise_evidence(evidence: Sequence[Any]) -> list[Any]:
    """Each evidence record as ``EvidenceSpan.from_mapping`` gives it (typed as they are)."""
    return _typed_as_they_are(evidence, EvidenceSpan, typed_evidence)


_CITATION_ALIASES = ("citations", "citation_ids", "evidence_ids", "evidence", "sources")

Normalised = tuple[
    dict[str, tuple[int, int]],
    set[tuple[str, str]],
    dict[str, tuple[int, int]],
    list[Any],
    list[Any],
]


def _plain_citations(claims: Sequence[Any]) -> bool:
    """Whether every claim is typed, or a mapping whose citation values are plain identifiers.

    Then each claim's own citation-id list (``AtomicClaim.from_mapping``) gives exactly the
    claim-embedded edges of the citation-support tables, and the columnar path applies.
    """
    for claim in claims:
        if type(claim) is AtomicClaim:
            continue
        if type(claim) is not dict:
            return False
        for alias in _CITATION_ALIASES:
            value = claim.get(alias)
            if value is None or type(value) is str or type(value) is int:
                continue
            if (type(value) is list or type(value) is tuple) and all(
                type(item) is str or type(item) is int for item in value
            ):
                continue
            return False
    return True


def _normalised(
    machine: CitationSupportReport, claims: Sequence[Any], evidence: Sequence[Any]
) -> Normalised:
    """Claim spans, expected pairs, evidence spans and source lengths (review.md §5.2 step 5).

    Columnar from the citation-support tables when the citation values are plain identifiers;
    otherwise through the record rules of ``AtomicClaim.from_mapping`` and
    ``EvidenceSpan.from_mapping`` (one columnar pass each).
    """
    tables = machine.tables(raw_identifiers=True)
    if tables is not None and _plain_citations(claims):
        claim_table = tables.claims
        evidence_table = tables.evidence
        edges = tables.edges
        claim_spans = dict(
            zip(
                claim_table.column("claim_id").to_pylist(),
                zip(
                    claim_table.column("start").to_pylist(),
                    claim_table.column("end").to_pylist(),
                ),
            )
        )
        expected = set(
            zip(edges.column("claim_id").to_pylist(), edges.column("evidence_id").to_pylist())
        )
        evidence_spans = dict(
            zip(
                evidence_table.column("evidence_id").to_pylist(),
                zip(
                    evidence_table.column("start").to_pylist(),
                    evidence_table.column("end").to_pylist(),
                ),
            )
        )
        return (
            claim_spans,
            expected,
            evidence_spans,
            claim_table.column("source_length").to_pylist(),
            evidence_table.column("source_length").to_pylist(),
        )
    claim_records = normalise_claims(claims)
    evidence_records = normalise_evidence(evidence)
    return (
        {c.claim_id: (c.start, c.end) for c in claim_records},
        {(c.claim_id, e) for c in claim_records for e in c.citations},
        {e.evidence_id: (e.start, e.end) for e in evidence_records},
        [c.source_length for c in claim_records],
        [e.source_length for e in evidence_records],
    )


def _private_json(body_json: str, request_digest: str, private_rows: list[Any]) -> str:
    """``CJ({"request": request, "bindings": private_rows})`` without serialising twice.

    ``body_json`` is ``CJ`` of the request without ``request_digest``; in sorted key order
    ``request_digest`` falls right before ``reviews``, whose key is the first ``,"reviews":`` of
    the text (the keys before it hold only digests and fixed words).
    """
    marker = ',"reviews":'
    request_json = body_json.replace(marker, ',"request_digest":' + cj(request_digest) + marker, 1)
    return '{"bindings":' + cj(private_rows) + ',"request":' + request_json + "}"


def _fits(spans: dict[str, tuple[int, int]], lengths: list[Any], length: int) -> bool:
    """Every span ends within ``length`` and every present source length equals it (step 6)."""
    return all(end <= length for _, end in spans.values()) and all(
        value is None or value == length for value in lengths
    )


def _unbound_expected(
    pair: tuple[Any, Any], expected: set[tuple[str, str]], bound: set[tuple[str, str]]
) -> bool:
    """Whether a binding's ``(claim_id, evidence_id)`` is an expected pair not bound before.

    The two ids are caller objects (``ReviewBinding`` does not validate): hashing or comparing
    them may raise, which fails this check (conventions.md §1.2). Ids that are not text can
    never be bound, even when they compare equal to an expected id.
    """
    found = False
    try:
        found = pair in expected and pair not in bound
    except Exception:  # a caller object's __hash__ or __eq__ raised
        found = False
    return found and isinstance(pair[0], str) and isinstance(pair[1], str)


def export_impl(
    *,
    packets: Any,
    mapping: Any,
    sealing_key: Any,
    bindings: Any,
    claims: Any,
    evidence: Any,
    summary: Any,
    source: Any,
    rubric_version: Any,
    evidence_kind: Any,
) -> tuple[dict[str, Any], SealedSummaryReview]:
    """The export with its internal check codes (raises :class:`Reject`)."""
    # 1.
    if type(rubric_version) is not int or rubric_version < 1:
        raise Reject("invalid_rubric")
    if type(evidence_kind) is not str or evidence_kind not in EVIDENCE_KINDS:
        raise Reject("invalid_evidence_kind")
    # 2.
    for collection in (packets, bindings, claims, evidence):
        if not is_row_collection(collection):
            raise Reject("invalid_collection")
    if type(summary) is not str or type(source) is not str:
        raise Reject("artifact_span_mismatch")
    # 3. (an invalid key or mapping type raises a review error: the check fails)
    audit = refused(lambda: verify_sealed_identity_mapping(packets, mapping, sealing_key))
    if audit is None or not audit.valid or type(mapping) is not SealedIdentityMapping:
        raise Reject("invalid_mapping")
    packet_list: list[BlindedPacket] = list(packets)
    # 4. (a citation-support error for these records fails the check)
    machine = refused(lambda: compute_citation_support_metrics(claims, evidence))
    if (
        machine is None
        or not machine.deterministic.passed
        or machine.adjudication.available
        or machine.orphan_claim_count != 0
    ):
        raise Reject("invalid_machine_inputs")
    # 5.–6.
    normalised = _normalised(machine, claims, evidence)
    claim_spans, expected, evidence_spans, claim_lengths, evidence_lengths = normalised
    if not _fits(claim_spans, claim_lengths, len(summary)) or not _fits(
        evidence_spans, evidence_lengths, len(source)
    ):
        raise Reject("artifact_span_mismatch")
    # 7.
    summary_digest = artifact_digest(summary)
    ref_digest = KeyedDigester(sealing_key, DOMAIN_REF)
    packet_index = {packet.case_ref: index for index, packet in enumerate(packet_list)}
    excerpt_index: dict[int, dict[str, int]] = {}
    assignment_index: dict[int, dict[str, tuple[str, str, str]]] = {}
    bound: set[tuple[str, str]] = set()
    public_rows: list[dict[str, Any]] = []
    private_rows: list[dict[str, Any]] = []
    for binding in bindings:
        if type(binding) is not ReviewBinding:
            raise Reject("invalid_binding")
        pair = (binding.claim_id, binding.evidence_id)
        if not _unbound_expected(pair, expected, bound):
            raise Reject("invalid_binding")
        bound.add(pair)
        case_ref = binding.case_ref
        index = packet_index.get(case_ref) if type(case_ref) is str else None
        if index is None:
            raise Reject("reviewer_recused")
        packet = packet_list[index]
        if packet.conflict_of_interest.status != "cleared":
            raise Reject("reviewer_recused")
        aliases = assignment_index.get(index)
        if aliases is None:
            aliases = {
                a.candidate_identity: (
                    a.alias,
                    a.output_digest,
                    "["
                    + encode_basestring_ascii(case_ref)
                    + ","
                    + encode_basestring_ascii(a.alias),
                )
                for a in mapping.entries[index].assignments
            }
            assignment_index[index] = aliases
        identity = binding.candidate_identity
        assigned = aliases.get(identity) if type(identity) is str else None
        if assigned is None or assigned[1] != summary_digest:
            raise Reject("stale_output")
        alias, _, prefix = assigned
        excerpts = excerpt_index.get(index)
        if excerpts is None:
            excerpts = {s.evidence_ref: i for i, s in enumerate(packet.source_evidence)}
            excerpt_index[index] = excerpts
        evidence_id = binding.evidence_id
        position = excerpts.get(evidence_id)
        start, end = evidence_spans[evidence_id]
        if position is None or packet.source_evidence[position].content != source[start:end]:
            raise Reject("stale_evidence")
        claim_id = binding.claim_id
        # CJ([case_ref, alias, claim_id, evidence_id]) with the first two items cached per slot
        payload = (
            prefix
            + ","
            + encode_basestring_ascii(claim_id)
            + ","
            + encode_basestring_ascii(evidence_id)
            + "]"
        )
        review_ref = ref_digest(payload.encode())
        claim_start, claim_end = claim_spans[claim_id]
        public_rows.append(
            {
                "review_ref": review_ref,
                "case_index": index,
                "candidate_alias": alias,
                "evidence_index": position,
                "claim_start": claim_start,
                "claim_end": claim_end,
            }
        )
        private_rows.append(
            {"review_ref": review_ref, "claim_id": claim_id, "evidence_id": evidence_id}
        )
    # 8.
    if not bound or bound != expected:
        raise Reject("incomplete_binding")
    rubric = packet_list[0].to_dict()["rubric"]
    for packet in packet_list[1:]:
        if [r.to_dict() for r in packet.rubric] != rubric:
            raise Reject("inconsistent_rubric")
    # 9.
    public_rows.sort(key=lambda row: row["review_ref"])
    private_rows.sort(key=lambda row: row["review_ref"])
    request: dict[str, Any] = {
        "schema_version": REVIEW_SCHEMA,
        "rubric_version": rubric_version,
        "rubric_digest": H(rubric),
        "evidence_kind": evidence_kind,
        "mapping_commitment": mapping.mapping_commitment,
        "packet_digest": H([p.to_dict() for p in packet_list]),
        "summary_digest": summary_digest,
        "source_digest": artifact_digest(source),
        "claim_digest": machine.claim_digest,
        "evidence_digest": machine.evidence_digest,
        "reviews": public_rows,
    }
    body_json = cj(request)
    request_digest = artifact_digest(body_json)
    request["request_digest"] = request_digest
    private_json = _private_json(body_json, request_digest, private_rows)
    if len(private_json) > MAX_PRIVATE_JSON:
        raise Reject("review_export_limit")
    commitment = keyed_digest(sealing_key, DOMAIN_SEAL, private_json.encode("utf-8"))
    return request, SealedSummaryReview(private_json=private_json, commitment=commitment)


def export_summary_review(
    *,
    packets: Sequence[BlindedPacket],
    mapping: SealedIdentityMapping,
    sealing_key: bytes,
    bindings: Sequence[ReviewBinding],
    claims: Sequence[Mapping[str, Any] | Any],
    evidence: Sequence[Mapping[str, Any] | Any],
    summary: str,
    source: str,
    rubric_version: int,
    evidence_kind: str = "synthetic",
) -> tuple[dict[str, Any], SealedSummaryReview]:
    """Export a blinded review request and its sealed private document (review.md §5).

    Returns ``(request, sealed)``: send ``request`` with the packets to reviewers; keep
    ``sealed`` (raw identifiers) under access control.

    Raises:
        SummaryReviewError: ``invalid_review_export`` when any check fails, including an error
            of citation-support metrics for the records.
        InternalError: an unexpected exception inside citelens (a bug, never bad input).
    """
    return collapse(
        lambda: export_impl(
            packets=packets,
            mapping=mapping,
            sealing_key=sealing_key,
            bindings=bindings,
            claims=claims,
            evidence=evidence,
            summary=summary,
            source=source,
            rubric_version=rubric_version,
            evidence_kind=evidence_kind,
        ),
        "invalid_review_export",
    )
