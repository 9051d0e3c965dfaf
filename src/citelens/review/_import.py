"""Review import: sealed, bound, fail-closed ingestion of returned decisions (review.md §7, §8)."""

from __future__ import annotations

import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citelens._fixed import attempt
from citelens.review._agreement import (
    DisagreementReason,
    ReviewerAgreementReport,
    summarise_cases,
)
from citelens.review._common import (
    DOMAIN_SEAL,
    MAX_PRIVATE_JSON,
    REVIEW_LABELS,
    REVIEW_SCHEMA,
    H,
    Reject,
    artifact_digest,
    cj,
    collapse,
    error,
    exact_keys,
    is_digest,
    is_key,
    is_row_collection,
    keyed_digest,
    refused,
    unique_object,
)
from citelens.review._export import EVIDENCE_KINDS, REQUEST_KEYS, SealedSummaryReview
from citelens.support import (
    CitationSupportReport,
    ClinicianAdjudication,
    compute_citation_support_metrics,
)

__all__ = ["STATES", "ImportedSummaryReview", "import_impl", "import_summary_review"]

STATES = ("accepted", "disputed", "incomplete", "missing", "unclear")
RETURN_KEYS = frozenset(
    {
        "schema_version",
        "request_digest",
        "rubric_version",
        "rubric_digest",
        "evidence_kind",
        "review_evidence_digest",
        "decisions",
        "resolutions",
    }
)
COPIED_KEYS = (
    "schema_version",
    "request_digest",
    "rubric_version",
    "rubric_digest",
    "evidence_kind",
)
DECISION_KEYS = frozenset({"review_ref", "reviewer_ref", "label", "reason"})
RESOLUTION_KEYS = frozenset({"review_ref", "label", "reason", "adjudicator_ref"})
REQUEST_DIGEST_KEYS = (
    "rubric_digest",
    "mapping_commitment",
    "packet_digest",
    "summary_digest",
    "source_digest",
    "claim_digest",
    "evidence_digest",
    "request_digest",
)
BINDING_KEYS = frozenset({"review_ref", "claim_id", "evidence_id"})
REASON_VALUES = frozenset(reason.value for reason in DisagreementReason)
_DIGEST_FIELDS = (
    "review_evidence_digest",
    "request_digest",
    "summary_digest",
    "source_digest",
    "claim_digest",
    "evidence_digest",
    "decisions_digest",
)


def _support(claims: Any, evidence: Any, adjudications: Any = None) -> CitationSupportReport:
    return compute_citation_support_metrics(claims, evidence, adjudications=adjudications)


@dataclass(frozen=True, repr=False)
class ImportedSummaryReview:
    """A verified review import: citation support from accepted decisions, states, agreement.

    Publish only :meth:`to_dict`; it holds digests, counts and fixed labels, never bindings,
    identities, case or reviewer references, individual decisions or text.
    """

    citation_support: Any
    reviewer_agreement: ReviewerAgreementReport | None
    adjudications: tuple[Any, ...]
    states: tuple[tuple[str, int], ...]
    evidence_kind: str
    review_evidence_digest: str
    request_digest: str
    summary_digest: str
    source_digest: str
    claim_digest: str
    evidence_digest: str
    decisions_digest: str

    def __post_init__(self) -> None:
        if not self._valid():
            raise error("invalid_review_result")

    def still_valid(self) -> bool:
        """Whether the fields still pass the constructor's validation: a frozen object can be
        changed after construction (``object.__setattr__``), so :meth:`matches` and the gate
        check again before they read it."""
        return self._valid()

    def _valid(self) -> bool:
        # Only exact types are compared, so no caller object's __eq__ or __hash__ runs here.
        if type(self.evidence_kind) is not str or self.evidence_kind not in EVIDENCE_KINDS:
            return False
        if not all(is_digest(getattr(self, name)) for name in _DIGEST_FIELDS):
            return False
        states = self.states
        if (
            type(states) is not tuple
            or len(states) != len(STATES)
            or not all(type(s) is tuple and len(s) == 2 and type(s[0]) is str for s in states)
            or tuple(s[0] for s in states) != STATES
            or not all(type(s[1]) is int and s[1] >= 0 for s in states)
        ):
            return False
        if type(self.citation_support) is not CitationSupportReport:
            return False
        if (
            self.reviewer_agreement is not None
            and type(self.reviewer_agreement) is not ReviewerAgreementReport
        ):
            return False
        return (
            type(self.adjudications) is tuple
            and all(type(a) is ClinicianAdjudication for a in self.adjudications)
            and len(self.adjudications) == dict(states)["accepted"]
        )

    def __repr__(self) -> str:
        return "ImportedSummaryReview(<redacted>)"

    @property
    def state_counts(self) -> dict[str, int]:
        """``{state: count}`` for the five states."""
        return dict(self.states)

    @property
    def complete(self) -> bool:
        """Every edge accepted and every claim and valid citation adjudicated."""
        counts = self.state_counts
        adjudication = self.citation_support.adjudication
        return (
            all(counts[state] == 0 for state in STATES if state != "accepted")
            and counts["accepted"] > 0
            and adjudication.unadjudicated_claim_count == 0
            and adjudication.unadjudicated_citation_count == 0
        )

    @property
    def reviewer_evidence_available(self) -> bool:
        """Complete and declared reviewer evidence at export (synthetic never counts)."""
        return self.complete and self.evidence_kind == "reviewer"

    def matches(self, claims: Any, evidence: Any, *, summary: Any, source: Any) -> bool:
        """Whether the current artifacts are exactly those reviewed.

        Malformed current inputs (a citation-support or artifact error) give ``False``
        (review.md §8); an unexpected exception raises :class:`~citelens.errors.InternalError`.
        """
        return attempt(
            lambda: (
                self.still_valid()
                and bool(refused(lambda: self._matches(claims, evidence, summary, source)))
            )
        )

    def _matches(self, claims: Any, evidence: Any, summary: Any, source: Any) -> bool:
        machine = _support(claims, evidence)
        if (
            machine.adjudication.available
            or machine.claim_digest != self.claim_digest
            or machine.evidence_digest != self.evidence_digest
            or artifact_digest(summary) != self.summary_digest
            or artifact_digest(source) != self.source_digest
        ):
            return False
        again = _support(claims, evidence, self.adjudications)
        return bool(again.to_dict() == self.citation_support.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """The only form to publish (review.md §8)."""
        return {
            "schema_version": REVIEW_SCHEMA,
            "evidence_kind": self.evidence_kind,
            "review_evidence_digest": self.review_evidence_digest,
            "request_digest": self.request_digest,
            "decisions_digest": self.decisions_digest,
            "complete": self.complete,
            "reviewer_evidence_available": self.reviewer_evidence_available,
            "human_review_required": True,
            "states": dict(self.states),
            "machine_span_checks": self.citation_support.deterministic.to_dict(),
            "citation_support": self.citation_support.to_dict(),
            "reviewer_agreement": (
                None if self.reviewer_agreement is None else self.reviewer_agreement.to_dict()
            ),
        }


def _same(left: object, right: object) -> bool:
    return type(left) is type(right) and left == right


def _body_digest(canonical: str, request: dict[str, Any]) -> str:
    """``H`` of the request without ``request_digest``, cut from the canonical private JSON.

    In ``canonical`` the request is the last member (``bindings`` < ``request``). When every
    review row is a flat record of scalars, no ``,"request":{`` can occur inside the request
    text and ``"request_digest":<digest>,`` occurs once, so the cut is exact; otherwise the
    request is serialised again.
    """
    reviews = request["reviews"]
    flat = (type(reviews) is list) and all(
        type(row) is dict
        and all(type(v) is str or type(v) is int or v is None for v in row.values())
        for row in reviews
    )
    start = canonical.rfind(',"request":{')
    if flat and start >= 0:
        request_json = canonical[start + len(',"request":') : -1]
        segment = '"request_digest":' + cj(request["request_digest"]) + ","
        if request_json.count(segment) == 1:
            return artifact_digest(request_json.replace(segment, "", 1))
    return H({key: request[key] for key in REQUEST_KEYS if key != "request_digest"})


def _request(parsed: Any, canonical: str) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    if not exact_keys(parsed, frozenset({"request", "bindings"})):
        raise Reject("invalid_request")
    request = parsed["request"]
    if not exact_keys(request, frozenset(REQUEST_KEYS)):
        raise Reject("invalid_request")
    if (
        not _same(request["schema_version"], REVIEW_SCHEMA)
        or type(request["rubric_version"]) is not int
        or request["rubric_version"] < 1
        or type(request["evidence_kind"]) is not str
        or request["evidence_kind"] not in EVIDENCE_KINDS
        or not all(is_digest(request[key]) for key in REQUEST_DIGEST_KEYS)
    ):
        raise Reject("invalid_request")
    if _body_digest(canonical, request) != request["request_digest"]:
        raise Reject("invalid_request")
    bindings = parsed["bindings"]
    if not is_row_collection(request["reviews"]) or not is_row_collection(bindings):
        raise Reject("invalid_request")
    bound: dict[str, tuple[str, str]] = {}
    for row in bindings:
        if not exact_keys(row, BINDING_KEYS):
            raise Reject("invalid_request")
        review_ref = row["review_ref"]
        if not is_digest(review_ref) or review_ref in bound:
            raise Reject("invalid_request")
        bound[review_ref] = (row["claim_id"], row["evidence_id"])
    return request, bound


def _parse(private_json: str) -> tuple[Any, str | None]:
    """The parsed private document and its canonical form (``None`` when it has none).

    ``private_json`` is caller input: ``json.loads`` fails on malformed JSON (``ValueError``),
    on a key repeated in any object (``DuplicateKey``, a ``ValueError``: the last occurrence
    would win, so a tampered earlier member would still verify) or on nesting too deep for
    the parser (``RecursionError``); the canonical form fails on ``NaN``/``Infinity``
    (``ValueError``) and on too deep nesting. Each fails a check.
    """
    failed = False
    parsed: Any = None
    try:
        parsed = json.loads(private_json, object_pairs_hook=unique_object)
    except (ValueError, RecursionError):
        failed = True
    if failed:
        raise Reject("invalid_sealed_review")
    canonical: str | None = None
    try:
        canonical = cj(parsed)
    except (ValueError, RecursionError):
        canonical = None
    return parsed, canonical


def _current(claims: Any, evidence: Any, summary: Any, source: Any, request: Any) -> bool:
    """Whether the current artifacts are exactly those the request binds.

    A citation-support error for the records or an artifact that is not text means they are
    not (the check fails).
    """

    def same() -> bool:
        machine = _support(claims, evidence)
        return (
            not machine.adjudication.available
            and machine.claim_digest == request["claim_digest"]
            and machine.evidence_digest == request["evidence_digest"]
            and artifact_digest(summary) == request["summary_digest"]
            and artifact_digest(source) == request["source_digest"]
        )

    return bool(refused(same))


def import_impl(
    decisions: Any,
    *,
    sealed: Any,
    sealing_key: Any,
    claims: Any,
    evidence: Any,
    summary: Any,
    source: Any,
    minimum_cell_size: Any = 5,
) -> ImportedSummaryReview:
    """The import with its internal check codes (raises :class:`Reject`)."""
    # 1.
    if (
        type(sealed) is not SealedSummaryReview
        or type(sealed.private_json) is not str
        or len(sealed.private_json) > MAX_PRIVATE_JSON
        or type(sealed.commitment) is not str
    ):
        raise Reject("invalid_sealed_review")
    parsed, canonical = _parse(sealed.private_json)
    # 2.
    if not is_key(sealing_key) or canonical is None:
        raise Reject("invalid_seal")
    expected_seal = keyed_digest(sealing_key, DOMAIN_SEAL, canonical.encode("utf-8"))
    if not hmac.compare_digest(
        expected_seal.encode("utf-8"), sealed.commitment.encode("utf-8", "surrogatepass")
    ):
        raise Reject("invalid_seal")
    # 3.
    request, bound = _request(parsed, canonical)
    # 4.
    if not exact_keys(decisions, RETURN_KEYS):
        raise Reject("invalid_record")
    if not all(_same(decisions[key], request[key]) for key in COPIED_KEYS):
        raise Reject("request_mismatch")
    if not is_digest(decisions["review_evidence_digest"]):
        raise Reject("missing_review_evidence")
    # 5.
    if type(minimum_cell_size) is not int or minimum_cell_size < 2:
        raise Reject("invalid_minimum_cell_size")
    # 6.
    if not is_row_collection(claims) or not is_row_collection(evidence):
        raise Reject("stale_artifacts")
    if not _current(claims, evidence, summary, source, request):
        raise Reject("stale_artifacts")
    # 7.
    rows = decisions["decisions"]
    if not is_row_collection(rows):
        raise Reject("invalid_record")
    by_edge: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        if not exact_keys(row, DECISION_KEYS):
            raise Reject("invalid_record")
        review_ref, reviewer_ref, label = row["review_ref"], row["reviewer_ref"], row["label"]
        if (
            type(review_ref) is not str
            or review_ref not in bound
            or not is_digest(reviewer_ref)
            or type(label) is not str
            or label not in REVIEW_LABELS
        ):
            raise Reject("invalid_decision")
        pair = (review_ref, reviewer_ref)
        if pair in seen:
            raise Reject("duplicate_decision")
        seen.add(pair)
        reason = row["reason"]
        if reason is not None and (type(reason) is not str or reason not in REASON_VALUES):
            raise Reject("invalid_decision")
        by_edge.setdefault(review_ref, []).append(row)
    # 8.
    resolution_rows = decisions["resolutions"]
    if not is_row_collection(resolution_rows):
        raise Reject("invalid_record")
    resolved: dict[str, dict[str, Any]] = {}
    for row in resolution_rows:
        if not exact_keys(row, RESOLUTION_KEYS):
            raise Reject("invalid_record")
        review_ref, label = row["review_ref"], row["label"]
        if (
            type(review_ref) is not str
            or review_ref not in bound
            or review_ref in resolved
            or type(label) is not str
            or label not in REVIEW_LABELS
            or not is_digest(row["adjudicator_ref"])
        ):
            raise Reject("invalid_resolution")
        reason = row["reason"]
        if type(reason) is not str or reason not in REASON_VALUES:
            raise Reject("invalid_resolution")
        resolved[review_ref] = row
    # 9.
    counts = dict.fromkeys(STATES, 0)
    accepted: list[Any] = []
    accepted_rows: list[dict[str, Any]] = []
    summaries: list[tuple[bool, DisagreementReason | None, bool]] = []
    for review_ref in sorted(bound):
        edge = by_edge.get(review_ref, [])
        labels = {row["label"] for row in edge}
        resolution = resolved.get(review_ref)
        if resolution is not None and (
            len(edge) < 2
            or len(labels) == 1
            or resolution["adjudicator_ref"] in {row["reviewer_ref"] for row in edge}
        ):
            raise Reject("invalid_adjudicator")
        if not edge:
            counts["missing"] += 1
            continue
        if len(edge) == 1:
            counts["incomplete"] += 1
            continue
        reasons = {row["reason"] for row in edge}
        edge_reason: str | None = None
        if len(labels) > 1:
            if len(reasons) != 1 or None in reasons:
                raise Reject("missing_disagreement_reason")
            (edge_reason,) = reasons
            if resolution is not None and resolution["reason"] != edge_reason:
                raise Reject("inconsistent_disagreement_reason")
        elif reasons != {None}:
            raise Reject("unexpected_disagreement_reason")
        if resolution is not None:
            final: str | None = resolution["label"]
        elif len(labels) == 1:
            (final,) = labels
        else:
            final = None
        if final is None:
            counts["disputed"] += 1
        elif final == "unclear":
            counts["unclear"] += 1
        else:
            counts["accepted"] += 1
            claim_id, evidence_id = bound[review_ref]
            adjudication = ClinicianAdjudication(claim_id, evidence_id, final)
            accepted.append(adjudication)
            accepted_rows.append(
                {
                    "claim_id": adjudication.claim_id,
                    "evidence_id": adjudication.evidence_id,
                    "label": adjudication.label,
                }
            )
        # The edge's rows enter the agreement input (review.md §7.1 step 9); the rules that
        # reviewer_agreement_report enforces were checked above, so its summary is built directly.
        summaries.append(
            (
                edge_reason is None,
                None if edge_reason is None else DisagreementReason(edge_reason),
                resolution is not None,
            )
        )
    # 10.
    # Typed and mapping adjudications give identical reports (support-metrics.md §3.9).
    citation_support = _support(claims, evidence, accepted_rows)
    agreement = summarise_cases(summaries, minimum_cell_size) if summaries else None
    # 11.
    ordered = dict(decisions)
    ordered["decisions"] = sorted(rows, key=lambda r: (r["review_ref"], r["reviewer_ref"]))
    ordered["resolutions"] = sorted(resolution_rows, key=lambda r: r["review_ref"])
    return ImportedSummaryReview(
        citation_support=citation_support,
        reviewer_agreement=agreement,
        adjudications=tuple(accepted),
        states=tuple((state, counts[state]) for state in STATES),
        evidence_kind=request["evidence_kind"],
        review_evidence_digest=decisions["review_evidence_digest"],
        request_digest=request["request_digest"],
        summary_digest=request["summary_digest"],
        source_digest=request["source_digest"],
        claim_digest=request["claim_digest"],
        evidence_digest=request["evidence_digest"],
        decisions_digest=H(ordered),
    )


def import_summary_review(
    decisions: dict[str, Any],
    *,
    sealed: SealedSummaryReview,
    sealing_key: bytes,
    claims: Sequence[Any],
    evidence: Sequence[Any],
    summary: str,
    source: str,
    minimum_cell_size: int = 5,
) -> ImportedSummaryReview:
    """Import a returned decision document against the sealed review and current artifacts.

    Every check of review.md §7.1 runs in order.

    Raises:
        SummaryReviewError: ``invalid_review_import`` when any check fails, including an error
            of citation-support metrics for the current records.
        InternalError: an unexpected exception inside citelens (a bug, never bad input).
    """
    return collapse(
        lambda: import_impl(
            decisions,
            sealed=sealed,
            sealing_key=sealing_key,
            claims=claims,
            evidence=evidence,
            summary=summary,
            source=source,
            minimum_cell_size=minimum_cell_size,
        ),
        "invalid_review_import",
    )
