-- Documents that fail: rejected by the per-document contract (status = 'error') or whose
-- deterministic span checks did not pass. Worst first: errors, then most invalid edges.
SELECT
    document_ref,
    status,
    error_category,
    claim_count,
    citation_count,
    "deterministic_span_checks.invalid_citation_count" AS invalid_edges,
    "deterministic_span_checks.missing_claim_span_count"
        + "deterministic_span_checks.invalid_claim_span_count" AS unverified_claim_spans,
    orphan_claim_count AS orphan_claims
FROM documents
WHERE status = 'error' OR NOT "deterministic_span_checks.passed"
ORDER BY
    status = 'error' DESC,
    invalid_edges DESC NULLS LAST,
    unverified_claim_spans DESC NULLS LAST,
    document_ref
LIMIT 20;
