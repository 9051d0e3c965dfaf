"""Hand-checked metrics, serialisation details and metadata (§8–§12)."""

from __future__ import annotations

import json
import pathlib

import pyarrow.parquet as pq

from citelens.summary_citations import (
    REASON_CODES,
    SUMMARY_CITATION_CONSISTENCY,
    SUMMARY_CITATION_SCHEMA_VERSION,
    build_summary_citation_report,
    compute_summary_citation_metrics,
    summary_citation_metadata,
)

EVIDENCE = [
    {"id": "e1", "start": 0, "end": 5},
    {"id": "e2", "start": 6, "end": 10},
    {"id": "e3", "start": 11, "end": 20},
    {"id": "e4", "start": 21, "end": 30},
]


def test_mixed_batch_by_hand() -> None:
    claims = [
        {"citations": ["e1", "e2"]},  # c0: two valid items
        {"citations": ["e1", {"start": 0, "end": 5}]},  # c1: e1 twice -> 1 duplicate, 2 valid
        {"citations": ["nope"]},  # c2: 1 invalid (missing record), unsupported
        {"citations": [{"start": 1, "end": 4}]},  # c3: 1 invalid (unavailable span), unsupp.
        {"claim": "no citation"},  # c4: missing citation, unsupported
        {"evidence_id": "e3", "start": 11, "end": 20},  # c5: ONE direct item (D1), valid
        {"evidence_id": "e4", "start": 0, "end": 5},  # c6: id->e4, span->e1: invalid, no count
    ]
    m = compute_summary_citation_metrics(claims, EVIDENCE)
    # claims 7; supported c0, c1, c5 = 3; unsupported 4 (c2, c3, c4, c6)
    assert (m.claim_count, m.supported_claim_count, m.unsupported_claim_count) == (7, 3, 4)
    assert m.abstention_count == 4
    # items: c0 2 + c1 2 + c2 1 + c3 1 + c4 0 + c5 1 + c6 1 = 8
    assert m.citation_count == 8
    # valid: c0 2 + c1 2 + c5 1 = 5; invalid = 8 - 5 = 3
    assert (m.valid_citation_count, m.invalid_citation_count) == (5, 3)
    assert m.duplicate_citation_count == 1
    assert m.missing_citation_count == 1
    assert m.missing_source_record_count == 1
    assert m.unavailable_span_count == 1
    # referenced records: e1, e2, e3 = 3 of 4 valid records
    assert m.referenced_evidence_count == 3
    assert m.evidence_coverage == 3 / 4
    # coverage 3/7 = 0.42857142857142855, abstention 4/7 = 0.5714285714285714
    assert m.coverage == 3 / 7
    assert m.abstention_rate == 4 / 7
    assert m.failure_reasons == (
        "duplicate_citation",
        "invalid_citation",
        "missing_citation",
        "missing_source_record",
        "unavailable_span",
        "unsupported_claim",
    )
    assert not m.passed and not m.fail_closed and m.source_evidence_available


def test_fail_closed_keeps_abstention_and_counts() -> None:
    evidence = [*EVIDENCE, {"id": "e1"}, {"value": "no reference"}]
    claims = [{"citations": ["e1"]}, {"citations": ["e2"]}, {}]
    m = compute_summary_citation_metrics(claims, evidence)
    # 6 records: 4 valid, 1 duplicate (id e1 again), 1 invalid -> fail closed
    assert (m.evidence_record_count, m.valid_evidence_record_count) == (6, 4)
    assert (m.duplicate_evidence_record_count, m.invalid_evidence_record_count) == (1, 1)
    assert m.fail_closed and not m.source_evidence_available
    # coverage and evidence_coverage forced to 0.0; abstention 1/3 still describes claims
    assert (m.coverage, m.evidence_coverage) == (0.0, 0.0)
    assert m.abstention_rate == 1 / 3
    assert m.supported_claim_count == 2 and m.referenced_evidence_count == 2
    assert m.failure_reasons == (
        "duplicate_source_evidence",
        "invalid_source_evidence",
        "missing_citation",
        "unsupported_claim",
    )


def test_sequential_registration_only_earlier_valid_records_block() -> None:
    # r0 {a, span 0-5} valid; r1 {b, span 0-5} duplicate (span) and NOT registered, so
    # r2 {b, span 6-9} is valid: b was never registered by a valid record.
    evidence = [
        {"id": "a", "start": 0, "end": 5},
        {"id": "b", "start": 0, "end": 5},
        {"id": "b", "start": 6, "end": 9},
    ]
    m = compute_summary_citation_metrics([{"citations": ["b", "a"]}], evidence)
    assert (m.valid_evidence_record_count, m.duplicate_evidence_record_count) == (2, 1)
    assert m.valid_citation_count == 2 and m.referenced_evidence_count == 2


def test_large_ratios_float_repr() -> None:
    # 99,999 of 100,000 claims supported: abstention 1e-05, coverage 0.99999 (§10.4).
    claims = [{"citations": ["e1"]}] * 99_999 + [{}]
    report = build_summary_citation_report(claims, EVIDENCE[:1])
    text = report.to_json()
    assert '"abstention_rate": 1e-05' in text
    assert '"coverage": 0.99999' in text
    assert "| Abstention rate | 0.000010 |" in report.to_markdown()
    assert "| Coverage | 0.999990 |" in report.to_markdown()


def test_contract_example_serialisation() -> None:
    claims = [{"citations": ["e1"]}, {}, {}]
    evidence = [{"id": "e1", "start": 0, "end": 5}, {"id": "e2", "start": 6, "end": 10}]
    report = build_summary_citation_report(claims, evidence)
    assert report.metrics.to_json() == (
        '{"schema_version":1,"coverage":0.3333333333333333,"abstention_rate":0.6666666666666666,'
        '"claim_count":3,"supported_claim_count":1,"unsupported_claim_count":2,'
        '"abstention_count":2,"citation_count":1,"valid_citation_count":1,'
        '"invalid_citation_count":0,"duplicate_citation_count":0,"missing_citation_count":2,'
        '"missing_source_record_count":0,"unavailable_span_count":0,"evidence_record_count":2,'
        '"valid_evidence_record_count":2,"invalid_evidence_record_count":0,'
        '"duplicate_evidence_record_count":0,"referenced_evidence_count":1,'
        '"evidence_coverage":0.5,"source_evidence_available":true,"fail_closed":false,'
        '"passed":false,"failure_reasons":["missing_citation","unsupported_claim"]}'
    )
    assert "| Coverage | 0.333333 |" in report.to_markdown()
    assert "| Abstention rate | 0.666667 |" in report.to_markdown()
    indented = report.to_json(indent=2)
    assert '  "failure_reasons": [\n      "missing_citation",\n' in indented
    assert report["metrics"]["claim_count"] == 3 and report.metrics["claim_count"] == 3


def test_report_properties_and_metadata() -> None:
    report = build_summary_citation_report([], EVIDENCE, fixture_count=0)
    assert report.suite == SUMMARY_CITATION_CONSISTENCY == "summary_citation_consistency"
    assert report.schema_version == SUMMARY_CITATION_SCHEMA_VERSION == 1
    assert report.synthetic is True
    assert report.passed is True and report.coverage == 1.0
    assert list(report.to_dict()) == [
        "suite",
        "schema_version",
        "fixture_count",
        "synthetic",
        "passed",
        "metrics",
    ]
    meta = summary_citation_metadata()
    assert meta == {
        "suite": "summary_citation_consistency",
        "schema_version": 1,
        "synthetic": True,
        "matching": "opaque_evidence_ids_or_exact_source_spans",
        "metrics": ["coverage", "abstention_rate", "duplicate_citation_count"],
        "fail_closed_on_missing_source_evidence": True,
    }
    meta["suite"] = "changed"
    assert summary_citation_metadata()["suite"] == "summary_citation_consistency"
    assert tuple(sorted(REASON_CODES)) == REASON_CODES and len(REASON_CODES) == 9


def test_writes_and_arrow_row(tmp_path: pathlib.Path) -> None:
    report = build_summary_citation_report([{"citations": ["e1"]}], EVIDENCE)
    json_path = report.write_json(tmp_path / "deep" / "r.json")
    assert json_path.read_text(encoding="utf-8") == report.to_json(indent=2) + "\n"
    compact = report.write_json(str(tmp_path / "c.json"), indent=None)
    assert compact.read_text(encoding="utf-8") == report.to_json() + "\n"
    md = report.write_markdown(tmp_path / "r.md")
    assert md.read_text(encoding="utf-8") == report.to_markdown()
    pq_path = report.write_parquet(tmp_path / "r.parquet")
    row = pq.read_table(pq_path).to_pylist()
    assert len(row) == 1
    expected = dict(report.metrics.to_dict())
    expected.update(
        {"suite": report.suite, "fixture_count": 1, "synthetic": True, "passed": report.passed}
    )
    assert row[0] == expected
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".citelens-")] == []
    assert json.loads(json_path.read_text(encoding="utf-8")) == report.to_dict()
