"""Orphan claims, unused evidence and de-duplication (support-metrics.md §3.6, §6.3, §6.6)."""

from __future__ import annotations

from typing import Any

from ._helpers import compute


def ev(eid: str) -> dict[str, Any]:
    return {"evidence_id": eid, "start": 0, "end": 10}


def test_claim_without_edges_is_orphan() -> None:
    # 2 claims, only c1 cites -> 1 orphan, rate 1/2.
    report = compute([{"claim_id": "c1", "citations": "e1"}, {"claim_id": "c2"}], [ev("e1")])
    assert report.orphan_claim_count == 1
    assert report.orphan_claim_rate == 0.5
    assert report.orphan_claims == 1
    assert report.unused_evidence_count == 0
    assert report.unused_evidence_rate == 0.0


def test_claim_citing_missing_evidence_is_not_orphan() -> None:
    report = compute([{"claim_id": "c1", "citations": ["nope"]}], [ev("e1")])
    assert report.orphan_claim_count == 0
    # e1 is cited by nobody -> unused 1 / 1.
    assert report.unused_evidence_count == 1
    assert report.unused_evidence_rate == 1.0
    assert report.unused_evidence == 1


def test_evidence_cited_only_by_missing_claim_is_unused() -> None:
    report = compute([{"claim_id": "c1"}], [ev("e1")], [("ghost", "e1")])
    assert report.unused_evidence_count == 1
    assert report.orphan_claim_count == 1
    assert dict(report.deterministic.invalid_citation_reasons) == {"missing_claim": 1}


def test_invalid_edge_still_uses_evidence() -> None:
    # Edge (c1, e1, [3, 30)) is outside the evidence but attaches: no orphan, no unused.
    report = compute(
        [{"claim_id": "c1"}],
        [ev("e1")],
        [{"claim_id": "c1", "evidence_id": "e1", "start": 3, "end": 30}],
    )
    assert report.orphan_claim_count == 0
    assert report.unused_evidence_count == 0
    assert report.deterministic.invalid_citation_count == 1


def test_embedded_citation_record_of_another_claim() -> None:
    # c1's list holds {"claim_id": "c2", ...}: that edge belongs to c2, c1 is an orphan.
    report = compute(
        [
            {"claim_id": "c1", "citations": [{"claim_id": "c2", "evidence_id": "e1"}]},
            {"claim_id": "c2"},
        ],
        [ev("e1")],
    )
    assert report.orphan_claim_count == 1
    tables = report.tables(raw_identifiers=True)
    orphans = dict(zip(tables.claims["claim_id"].to_pylist(), tables.claims["orphan"].to_pylist()))
    assert orphans == {"c1": True, "c2": False}


def test_rates_one_third() -> None:
    # 3 claims, 1 orphan: 1/3 = 0.3333333333333333; Markdown shows 0.3333.
    claims = [{"claim_id": f"c{k}", "citations": ["e1"] if k else []} for k in range(3)]
    evidence = [ev("e1"), ev("e2"), ev("e3")]
    report = compute(claims, evidence)
    assert report.orphan_claim_rate == 1 / 3
    # Evidence e2 and e3 unused: 2/3.
    assert report.unused_evidence_rate == 2 / 3
    assert '"orphan_claim_rate":0.3333333333333333' in report.to_json()
    assert '"unused_evidence_rate":0.6666666666666666' in report.to_json()
    assert "| Orphan claims | 1 (0.3333) |" in report.to_markdown()
    assert "| Unused evidence | 2 (0.6667) |" in report.to_markdown()


def test_exact_duplicates_count_once() -> None:
    # Claim-embedded (c1, e1) + explicit (c1, e1) + pair ("c1", "e1") -> 3 edges before,
    # 1 after de-duplication: duplicate_citation_count = 2.
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [ev("e1")],
        [{"claim_id": "c1", "evidence_id": "e1"}, ["c1", "e1"]],
    )
    data = report.to_dict()["deterministic_span_checks"]
    assert report.citation_count == 1
    assert data["citation_count"] == 1
    assert data["duplicate_citation_count"] == 2


def test_plain_sub_span_and_source_variants_are_distinct() -> None:
    # (c1,e1) plain, (c1,e1,[0,5)), (c1,e1) with source "s" and (c1,e1,[0,5)) again:
    # 4 edges before, 3 after; duplicate count 1.
    report = compute(
        [{"claim_id": "c1"}],
        [{"evidence_id": "e1", "start": 0, "end": 10, "source_id": "s"}],
        [
            {"claim_id": "c1", "evidence_id": "e1"},
            {"claim_id": "c1", "evidence_id": "e1", "start": 0, "end": 5},
            {"claim_id": "c1", "evidence_id": "e1", "source_id": "s"},
            {"claim_id": "c1", "evidence_id": "e1", "span": [0, 5]},
        ],
    )
    assert report.citation_count == 3
    assert report.deterministic.duplicate_citation_count == 1


def test_identifier_normalisation_makes_duplicates() -> None:
    # 7, "7" and " 7 " are one identifier: one edge after de-duplication.
    report = compute(
        [{"claim_id": "c1", "citations": [7, "7", " 7 "]}],
        [{"evidence_id": 7, "start": 0, "end": 1}],
    )
    assert report.citation_count == 1
    assert report.deterministic.duplicate_citation_count == 2
    assert report.deterministic.valid_citation_count == 1


def test_compact_citation_mapping() -> None:
    # {claim: value}: a list of ids, a single id, a record.
    report = compute(
        [{"claim_id": "c1"}, {"claim_id": "c2"}, {"claim_id": "c3"}],
        [ev("e1"), ev("e2")],
        {"c1": ["e1", "e2"], "c2": "e1", "c3": {"evidence_id": "e2", "start": 1, "end": 2}},
    )
    assert report.citation_count == 4
    assert report.orphan_claim_count == 0
    assert report.deterministic.valid_citation_count == 4


def test_no_claims_no_evidence() -> None:
    report = compute([], [], [("c1", "e1")])
    # The edge exists (missing claim) but attaches to nothing.
    assert report.citation_count == 1
    assert report.orphan_claim_rate == 0.0
    assert report.unused_evidence_rate == 0.0
    assert dict(report.deterministic.invalid_citation_reasons) == {"missing_claim": 1}


def test_small_rates_json_and_markdown() -> None:
    import pyarrow as pa

    # 100,000 claims, all but one cite e1: orphan rate 1 / 100,000 = 1e-05 in JSON, 0.0000 in
    # Markdown (§7.3); 30,000 claims: 1 / 30,000 = 3.3333333333333335e-05.
    for count, text in ((100_000, "1e-05"), (30_000, "3.3333333333333335e-05")):
        citations = [["e1"]] * (count - 1) + [[]]
        claims = pa.table({"claim_id": [f"c{k}" for k in range(count)], "citations": citations})
        report = compute(claims, [{"evidence_id": "e1", "start": 0, "end": 1}])
        assert report.orphan_claim_count == 1
        assert report.orphan_claim_rate == 1 / count
        assert f'"orphan_claim_rate":{text}' in report.to_json()
        assert "| Orphan claims | 1 (0.0000) |" in report.to_markdown()
