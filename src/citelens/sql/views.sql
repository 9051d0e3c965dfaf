-- citelens: DuckDB views over corpus outputs
-- (the directory written by `citelens corpus support INPUT --out DIR`).
--
-- `citelens sql DIR` and `citelens.sql.open_views(DIR)` set the variables below and run the
-- blocks of this file; nothing here contains a path. To use the file by hand in a DuckDB shell:
--
--   SET VARIABLE citelens_documents = '/path/to/DIR/documents.parquet';
--   SET VARIABLE citelens_edges = '/path/to/DIR/edges.parquet';          -- optional file
--   SET VARIABLE citelens_scorecards = ['/path/to/results/history/run.parquet'];  -- optional
--   .read sql/views.sql
--
-- Variables:
--   citelens_documents   VARCHAR    DIR/documents.parquet (required)
--   citelens_edges       VARCHAR    DIR/edges.parquet (optional edge-level output)
--   citelens_scorecards  VARCHAR[]  the gold harness history files <results>/history/*.parquet
--   citelens_provenance  VARCHAR    DIR/provenance.parquet (optional, `citelens provenance`)
--
-- Each statement follows a `-- @view NAME` line. `-- @view NAME if SOURCE` runs only when that
-- optional source exists; `-- @view NAME unless SOURCE` is the empty view of the same columns
-- used when it does not. The empty variant comes first, so running the whole file by hand
-- leaves the empty view in place when a file is missing.

-- @view documents
-- One row per document: document_ref, status ('ok' | 'error'), error_category, error_message,
-- then the 59 report columns of CitationSupportReport.to_arrow() with dotted names
-- ("deterministic_span_checks.passed", "clinician_adjudication.label_counts.supports", ...).
-- The report columns are NULL on error rows.
CREATE OR REPLACE VIEW documents AS
SELECT *
FROM read_parquet(getvariable('citelens_documents'), hive_partitioning = false);

-- @view reasons
-- One row per evaluated document and reason code (all six codes, zero counts included):
-- the number of de-duplicated citation edges of that document invalid for that reason.
CREATE OR REPLACE VIEW reasons AS
SELECT document_ref, reason, count
FROM (
    UNPIVOT (
        SELECT
            document_ref,
            "deterministic_span_checks.invalid_citation_reasons.citation_outside_evidence"
                AS citation_outside_evidence,
            "deterministic_span_checks.invalid_citation_reasons.invalid_citation_span"
                AS invalid_citation_span,
            "deterministic_span_checks.invalid_citation_reasons.invalid_evidence_span"
                AS invalid_evidence_span,
            "deterministic_span_checks.invalid_citation_reasons.missing_claim"
                AS missing_claim,
            "deterministic_span_checks.invalid_citation_reasons.missing_evidence"
                AS missing_evidence,
            "deterministic_span_checks.invalid_citation_reasons.source_mismatch"
                AS source_mismatch
        FROM documents
        WHERE status = 'ok'
    )
    ON citation_outside_evidence, invalid_citation_span, invalid_evidence_span,
        missing_claim, missing_evidence, source_mismatch
    INTO NAME reason VALUE count
);

-- @view edges unless edges
CREATE OR REPLACE VIEW edges AS
SELECT
    CAST(NULL AS VARCHAR) AS document_ref,
    CAST(NULL AS VARCHAR) AS claim_id,
    CAST(NULL AS VARCHAR) AS evidence_id,
    CAST(NULL AS BIGINT) AS "start",
    CAST(NULL AS BIGINT) AS "end",
    CAST(NULL AS VARCHAR) AS source_id,
    CAST(NULL AS BIGINT) AS multiplicity,
    CAST(NULL AS VARCHAR) AS reason,
    CAST(NULL AS BOOLEAN) AS valid,
    CAST(NULL AS VARCHAR) AS label
WHERE false;

-- @view edges if edges
-- One row per de-duplicated citation edge of every evaluated document; identifiers are
-- pseudonymised ("hmac-sha256:" + hex, keyed), source_id is '' when the edge names no source, reason is
-- NULL on a valid edge, label is the reviewer label of a valid, adjudicated edge.
CREATE OR REPLACE VIEW edges AS
SELECT
    CAST(document_ref AS VARCHAR) AS document_ref,
    CAST(claim_id AS VARCHAR) AS claim_id,
    CAST(evidence_id AS VARCHAR) AS evidence_id,
    CAST("start" AS BIGINT) AS "start",
    CAST("end" AS BIGINT) AS "end",
    CAST(source_id AS VARCHAR) AS source_id,
    CAST(multiplicity AS BIGINT) AS multiplicity,
    CAST(reason AS VARCHAR) AS reason,
    CAST(valid AS BOOLEAN) AS valid,
    CAST(label AS VARCHAR) AS label
FROM read_parquet(getvariable('citelens_edges'), hive_partitioning = false);

-- @view scorecards unless scorecards
CREATE OR REPLACE VIEW scorecards AS
SELECT
    CAST(NULL AS VARCHAR) AS run_id,
    CAST(NULL AS TIMESTAMPTZ) AS "timestamp",
    CAST(NULL AS VARCHAR) AS citelens_version,
    CAST(NULL AS VARCHAR) AS evaluated_sha,
    CAST(NULL AS BOOLEAN) AS evaluated_dirty,
    CAST(NULL AS VARCHAR) AS adapter,
    CAST(NULL AS VARCHAR) AS run_model,
    CAST(NULL AS BOOLEAN) AS online,
    CAST(NULL AS INTEGER) AS repeats,
    CAST(NULL AS INTEGER) AS case_count,
    CAST(NULL AS VARCHAR) AS dataset_digest,
    CAST(NULL AS VARCHAR) AS scorer,
    CAST(NULL AS VARCHAR) AS scorer_status,
    CAST(NULL AS VARCHAR) AS metric,
    CAST(NULL AS DOUBLE) AS value,
    CAST(NULL AS VARCHAR) AS kind,
    CAST(NULL AS VARCHAR) AS direction,
    CAST(NULL AS BOOLEAN) AS is_baseline
WHERE false;

-- @view scorecards if scorecards
-- The gold harness history (`citelens gold run`, gold-harness.md §9.7): one row per run,
-- scorer and metric, unrounded values.
CREATE OR REPLACE VIEW scorecards AS
SELECT
    CAST(run_id AS VARCHAR) AS run_id,
    CAST("timestamp" AS TIMESTAMPTZ) AS "timestamp",
    CAST(citelens_version AS VARCHAR) AS citelens_version,
    CAST(evaluated_sha AS VARCHAR) AS evaluated_sha,
    CAST(evaluated_dirty AS BOOLEAN) AS evaluated_dirty,
    CAST(adapter AS VARCHAR) AS adapter,
    CAST(run_model AS VARCHAR) AS run_model,
    CAST(online AS BOOLEAN) AS online,
    CAST(repeats AS INTEGER) AS repeats,
    CAST(case_count AS INTEGER) AS case_count,
    CAST(dataset_digest AS VARCHAR) AS dataset_digest,
    CAST(scorer AS VARCHAR) AS scorer,
    CAST(scorer_status AS VARCHAR) AS scorer_status,
    CAST(metric AS VARCHAR) AS metric,
    CAST(value AS DOUBLE) AS value,
    CAST(kind AS VARCHAR) AS kind,
    CAST(direction AS VARCHAR) AS direction,
    CAST(is_baseline AS BOOLEAN) AS is_baseline
FROM read_parquet(
    getvariable('citelens_scorecards'), union_by_name = true, hive_partitioning = false
);

-- @view gold_history
-- The name the gold harness documents for the same history (gold-harness.md §9.7).
CREATE OR REPLACE VIEW gold_history AS
SELECT * FROM scorecards;

-- @view provenance unless provenance
CREATE OR REPLACE VIEW provenance AS
SELECT
    CAST(NULL AS VARCHAR) AS document_ref,
    CAST(NULL AS VARCHAR) AS claim_id,
    CAST(NULL AS VARCHAR) AS evidence_id,
    CAST(NULL AS VARCHAR) AS source_id,
    CAST(NULL AS VARCHAR) AS status,
    CAST(NULL AS BIGINT) AS cited_start,
    CAST(NULL AS BIGINT) AS cited_end,
    CAST(NULL AS BIGINT) AS found_start,
    CAST(NULL AS BIGINT) AS found_end,
    CAST(NULL AS VARCHAR) AS found_source_id,
    CAST(NULL AS DOUBLE) AS score,
    CAST(NULL AS VARCHAR) AS offset_unit,
    CAST(NULL AS VARCHAR) AS matched_unit
WHERE false;

-- @view provenance if provenance
-- One row per citation edge of `citelens provenance DIR --out OUT` when its provenance.parquet
-- is in the directory: keyed pseudonyms of the identifiers, the status (exact, offset_unit,
-- relocated, misattributed, normalized, fuzzy, absent, not_checkable), the cited and found
-- code-point offsets, the score and the offset units (docs/provenance.md). No quote, no text.
CREATE OR REPLACE VIEW provenance AS
SELECT
    CAST(document_ref AS VARCHAR) AS document_ref,
    CAST(claim_id AS VARCHAR) AS claim_id,
    CAST(evidence_id AS VARCHAR) AS evidence_id,
    CAST(source_id AS VARCHAR) AS source_id,
    CAST(status AS VARCHAR) AS status,
    CAST(cited_start AS BIGINT) AS cited_start,
    CAST(cited_end AS BIGINT) AS cited_end,
    CAST(found_start AS BIGINT) AS found_start,
    CAST(found_end AS BIGINT) AS found_end,
    CAST(found_source_id AS VARCHAR) AS found_source_id,
    CAST(score AS DOUBLE) AS score,
    CAST(offset_unit AS VARCHAR) AS offset_unit,
    CAST(matched_unit AS VARCHAR) AS matched_unit
FROM read_parquet(getvariable('citelens_provenance'), hive_partitioning = false);
