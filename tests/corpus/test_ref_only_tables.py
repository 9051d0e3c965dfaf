"""A role table whose only column is ``document_ref``: each row is a record with no fields,
so the document fails with that role's "identifier required" record error (support-metrics.md
§5), on every supported Polars. Polars 1.43 (the floor) gives a frame without columns height 0,
which once lost these rows (an internal ShapeError, found by the floors job)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from citelens import corpus

REF_ONLY = pa.table({"document_ref": ["doc-a"]})
CLAIMS = pa.table({"document_ref": ["doc-a"], "claim_id": ["claim-1"]})


@pytest.mark.parametrize(
    ("position", "message"),
    [
        (0, "claim identifier is required"),
        (1, "evidence identifier is required"),
        (2, "citation requires claim and evidence identifiers"),
        (3, "adjudication requires claim, evidence, and label"),
    ],
)
def test_a_record_without_fields_fails_its_document(position: int, message: str) -> None:
    # claims of one valid claim, then the document_ref-only table in the role under test
    tables: list[pa.Table | None] = [CLAIMS, None, None, None]
    tables[position] = REF_ONLY
    result = corpus.evaluate_support_tables(*tables)
    rows = result.select(["document_ref", "status", "error_category", "error_message"])
    assert rows.to_pylist() == [
        {
            "document_ref": "doc-a",
            "status": "error",
            "error_category": "record",
            "error_message": message,
        }
    ]
