"""Record-by-record oracle of summary citations (summary-citations.md §6, §8, §9.2).

Plain Python sets and dicts, one record at a time, written from the contract text only: it
shares nothing with the columnar kernel (``citelens.summary_citations._kernel``) or the
metrics derivation (``_derive``). Citation items are extracted with the contract's own
helpers (``oracle.summary_walk.claim_citations`` / ``source_refs``: §5–§7, the former
per-record path), so a differential test against
this oracle checks registration, resolution, duplicates, aggregates and the verdict.
"""

from __future__ import annotations

from typing import Any

from oracle.summary_walk import claim_citations, source_refs

__all__ = ["oracle_metrics"]


def _register(evidence: list[Any]) -> tuple[dict[tuple[Any, ...], int], int, int, int]:
    """§6: the reference → record index map, and valid / invalid / duplicate counts."""
    index: dict[tuple[Any, ...], int] = {}
    valid = invalid = duplicate = 0
    for record in evidence:
        ident, span = source_refs(record)
        refs: list[tuple[Any, ...]] = []
        if ident is not None:
            refs.append(("i", ident))
        if span is not None:
            refs.append(("s", span[0], span[1]))
        if not refs:
            invalid += 1
        elif any(ref in index for ref in refs):
            duplicate += 1  # none of its references is registered
        else:
            for ref in refs:
                index[ref] = valid
            valid += 1
    return index, valid, invalid, duplicate


def oracle_metrics(claims: list[Any], evidence: list[Any]) -> dict[str, Any]:
    """``SummaryCitationMetrics.to_dict()`` of the records, computed record by record."""
    index, n_valid_ev, n_invalid_ev, n_dup_ev = _register(evidence)
    reasons: set[str] = set()
    supported = citations = valid_c = dup_c = missing_c = missing_rec = unavail = 0
    referenced: set[int] = set()
    for claim in claims:
        items = claim_citations(claim)
        citations += len(items)
        if not items:
            missing_c += 1
            reasons.add("missing_citation")
        seen_keys: set[Any] = set()
        claim_supported = False
        for refs in items:
            resolved = {index[r] for r in refs if r in index}
            unresolved = [r for r in refs if r not in index]
            key: Any = None
            if len(resolved) == 1:
                key = ("record", next(iter(resolved)))
            elif refs:
                key = ("refs", frozenset(refs))
            if key is not None:
                if key in seen_keys:
                    dup_c += 1
                    reasons.add("duplicate_citation")
                seen_keys.add(key)
            if refs and not unresolved and len(resolved) == 1:
                valid_c += 1
                claim_supported = True
                referenced |= resolved
                continue
            reasons.add("invalid_citation")
            if any(r[0] == "s" for r in unresolved):
                unavail += 1
                reasons.add("unavailable_span")
            if any(r[0] == "i" for r in unresolved):
                missing_rec += 1
                reasons.add("missing_source_record")
        if claim_supported:
            supported += 1
        else:
            reasons.add("unsupported_claim")
    if n_dup_ev:
        reasons.add("duplicate_source_evidence")
    if n_invalid_ev:
        reasons.add("invalid_source_evidence")
    if n_valid_ev == 0:
        reasons.add("missing_source_evidence")
    available = n_valid_ev > 0 and n_invalid_ev == 0 and n_dup_ev == 0
    n_claims = len(claims)
    unsupported = n_claims - supported
    if available:
        coverage = supported / n_claims if n_claims else 1.0
        evidence_coverage = len(referenced) / n_valid_ev
    else:
        coverage = evidence_coverage = 0.0
    return {
        "schema_version": 1,
        "coverage": coverage,
        "abstention_rate": unsupported / n_claims if n_claims else 0.0,
        "claim_count": n_claims,
        "supported_claim_count": supported,
        "unsupported_claim_count": unsupported,
        "abstention_count": unsupported,
        "citation_count": citations,
        "valid_citation_count": valid_c,
        "invalid_citation_count": citations - valid_c,
        "duplicate_citation_count": dup_c,
        "missing_citation_count": missing_c,
        "missing_source_record_count": missing_rec,
        "unavailable_span_count": unavail,
        "evidence_record_count": len(evidence),
        "valid_evidence_record_count": n_valid_ev,
        "invalid_evidence_record_count": n_invalid_ev,
        "duplicate_evidence_record_count": n_dup_ev,
        "referenced_evidence_count": len(referenced),
        "evidence_coverage": evidence_coverage,
        "source_evidence_available": available,
        "fail_closed": not available,
        "passed": available and not reasons,
        "failure_reasons": sorted(reasons),
    }
