-- Why citation edges are invalid: for each reason code, the edges it invalidates, the share of
-- all invalid edges, and how many documents it affects.
SELECT
    reason,
    sum(count) AS invalid_edges,
    round(sum(count) / nullif(sum(sum(count)) OVER (), 0), 4) AS share_of_invalid,
    count(*) FILTER (WHERE count > 0) AS documents_affected
FROM reasons
GROUP BY reason
ORDER BY invalid_edges DESC, reason;
