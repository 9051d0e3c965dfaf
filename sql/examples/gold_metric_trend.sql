-- Gold-set metrics over time, from the gold harness history (`citelens gold run`): one row per
-- run and gated metric. Empty when no history file exists.
SELECT
    "timestamp",
    run_id,
    adapter,
    scorer,
    metric,
    value,
    is_baseline
FROM scorecards
WHERE metric IS NOT NULL AND direction IN ('higher', 'lower')
ORDER BY adapter, scorer, metric, "timestamp", run_id;
