-- Evidence sources (pseudonymised source_id of the citation edge) whose citations are most often
-- unusable: invalid edges plus valid edges that reviewers did not label 'supports'.
-- Needs the optional edges.parquet of the corpus run; empty without it.
SELECT
    source_id,
    count(DISTINCT document_ref) AS documents,
    count(*) AS edges,
    count(*) FILTER (WHERE NOT valid) AS invalid_edges,
    count(*) FILTER (WHERE label = 'supports') AS supporting,
    count(*) FILTER (WHERE label IN ('contradicts', 'irrelevant', 'unclear')) AS not_supporting,
    round(
        (count(*) FILTER (WHERE NOT valid)
            + count(*) FILTER (WHERE label IN ('contradicts', 'irrelevant', 'unclear')))
        / count(*),
        4
    ) AS problem_rate
FROM edges
WHERE source_id <> ''
GROUP BY source_id
HAVING count(*) >= 5
ORDER BY problem_rate DESC, edges DESC, source_id
LIMIT 10;
