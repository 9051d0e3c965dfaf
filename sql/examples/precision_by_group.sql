-- Citation precision and support recall by document group. The group is the part of
-- document_ref before the first '/' (for example a release or a test set); references without a
-- '/' fall in '(none)'. Micro-averaged values pool the edges and claims of the group;
-- macro-averaged precision is the mean over documents that have adjudicated edges.
SELECT
    CASE WHEN contains(document_ref, '/') THEN split_part(document_ref, '/', 1)
        ELSE '(none)' END AS document_group,
    count(*) AS documents,
    count(*) FILTER (WHERE status = 'error') AS errors,
    sum("clinician_adjudication.adjudicated_citation_count") AS adjudicated_edges,
    round(
        sum("clinician_adjudication.supporting_citation_count")
        / nullif(sum("clinician_adjudication.adjudicated_citation_count"), 0),
        4
    ) AS micro_precision,
    round(avg(citation_precision), 4) AS macro_precision,
    round(
        sum("clinician_adjudication.supported_claim_count")
            FILTER (WHERE "clinician_adjudication.adjudicated_citation_count" > 0)
        / nullif(sum(claim_count)
            FILTER (WHERE "clinician_adjudication.adjudicated_citation_count" > 0), 0),
        4
    ) AS micro_recall
FROM documents
GROUP BY document_group
ORDER BY document_group;
