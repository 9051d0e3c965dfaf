"""Report objects: constructor invariants (§6.7), read-only mappings, to_dict/JSON/Markdown
details (§7), to_arrow (§9.2), tables (§9.1), file writes (§7.4) and typed records (§3.9)."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import pathlib
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa
import pytest

from ._helpers import CANARY_ID, compute

CLAIMS = [
    {
        "claim_id": "c1",
        "start": 0,
        "end": 5,
        "source_id": "summary",
        "claim_type": "Dose",
        "citations": ["e1", "e2"],
    },
    {"claim_id": "c2", "start": 6, "end": 9, "citations": ["e9"]},
    {"claim_id": "c3"},
]
EVIDENCE = [
    {"evidence_id": "e1", "start": 0, "end": 10, "source_id": "doc", "source_length": 20},
    {"evidence_id": "e2", "start": 0, "end": 4, "claim_id": "c1", "label": "contradicts"},
    {"evidence_id": "e3"},
]
CITATIONS = [
    {"claim_id": "c1", "evidence_id": "e1", "start": 2, "end": 4},
    {"claim_id": "c1", "evidence_id": "e1", "start": 2, "end": 4},
    {"claim_id": "c1", "evidence_id": "e1", "start": 8, "end": 12},
    ("ghost", "e3"),
]
ADJUDICATIONS = [
    {"claim_id": "c1", "evidence_id": "e1", "label": "supports"},
    {"claim_id": "c1", "evidence_id": "e1", "label": "supports"},
    {"claim_id": "c2", "evidence_id": "e9", "label": "irrelevant"},
]


@pytest.fixture(scope="module")
def report() -> Any:
    return compute(CLAIMS, EVIDENCE, CITATIONS, ADJUDICATIONS)


def report_error(func: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        func(*args, **kwargs)
    assert info.value.__cause__ is None and info.value.__context__ is None
    return str(info.value), info.value.category


def rebuild(obj: Any, **changes: Any) -> Any:
    """Call the class constructor directly with the fields of ``obj`` and ``changes``."""
    fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    fields.update(changes)
    return type(obj)(**fields)


def test_report_values(report: Any) -> None:
    # Edges: (c1,e1) (c1,e2) (c2,e9) embedded; (c1,e1,[2,4)) x2; (c1,e1,[8,12)); (ghost,e3).
    # 7 before, 6 after: duplicate 1.
    assert report.citation_count == 6
    det = report.deterministic
    assert det.duplicate_citation_count == 1
    # Reasons: (c2,e9) missing_evidence; (c1,e1,[8,12)) outside; (ghost,e3) missing_claim.
    assert dict(det.invalid_citation_reasons) == {
        "citation_outside_evidence": 1,
        "missing_claim": 1,
        "missing_evidence": 1,
    }
    assert (det.valid_citation_count, det.invalid_citation_count) == (3, 3)
    # Orphan: c3. Unused: e3 (only the missing claim cites it).
    assert (report.orphan_claim_count, report.unused_evidence_count) == (1, 1)
    adj = report.adjudication
    # Valid edges: (c1,e1), (c1,e1,[2,4)), (c1,e2). (c1,e1) supports (x2, no conflict),
    # (c1,e2) contradicts (embedded). (c2,e9) is unmatched. R = 3, supporting 2.
    assert adj.adjudicated_citation_count == 3
    assert adj.supporting_citation_count == 2
    assert adj.contradicting_citation_count == 1
    assert adj.unmatched_adjudication_count == 1
    assert adj.conflicting_adjudication_count == 0
    assert adj.citation_precision == 2 / 3
    assert adj.support_recall == 1 / 3
    assert adj.adjudication_coverage == 1.0


def test_report_accessors(report: Any) -> None:
    data = report.to_dict()
    assert report["claim_count"] == data["claim_count"] == 3
    assert report.deterministic["passed"] is False
    assert report.adjudication["status"] == "available"
    assert report.span_checks is report.deterministic
    assert report.clinician_adjudication is report.adjudication
    assert report.orphan_claims == report.orphan_claim_count
    assert report.unused_evidence == report.unused_evidence_count
    assert report.schema_version == 1
    assert data["suite"] == "citation_support_metrics"
    assert data["human_review_required"] is True
    assert (
        repr(report) == "CitationSupportReport(claim_count=3, evidence_count=3, citation_count=6)"
    )


def test_constants() -> None:
    import citelens
    import citelens.support as support

    assert support.SUITE == "citation_support_metrics"
    assert support.SCHEMA_VERSION == 1
    assert support.DISCLAIMER == (
        "Claim-level citation metrics are evaluation evidence only; they are not a clinical "
        "decision, compliance certification, or guarantee of clinical truth. Qualified human "
        "review remains required before clinical use."
    )
    assert citelens.compute_citation_support_metrics is support.compute_citation_support_metrics
    for name in ("compute_citation_support_metrics", "CitationSupportError", "Limits"):
        assert name in support.__all__
        assert name in citelens.__all__
    assert support.CitationSupportError is citelens.errors.CitationSupportError
    assert issubclass(support.CitationSupportError, ValueError)
    assert issubclass(support.CitationSupportError, citelens.CitelensError)
    # Trimmed API (decision g).
    for alias in ("citation_support_metrics", "evaluate_citation_support", "Claim", "SpanChecks"):
        assert not hasattr(support, alias)


def test_read_only_mappings(report: Any) -> None:
    with pytest.raises(TypeError):
        report.deterministic.invalid_citation_reasons["missing_claim"] = 0
    with pytest.raises(TypeError):
        report.adjudication.label_counts["supports"] = 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.claim_count = 0


def test_replace_and_equality(report: Any) -> None:
    same = dataclasses.replace(report)
    assert same == report
    assert same.to_json() == report.to_json()
    # A replaced or directly built report has no tables.
    assert same.tables() is None
    assert rebuild(report).tables() is None
    assert report.tables() is not None


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"claim_span_count": -1}, "report counts must be nonnegative integers"),
        ({"valid_citation_count": True}, "report counts must be nonnegative integers"),
        ({"duplicate_citation_count": 1.0}, "report counts must be nonnegative integers"),
        ({"invalid_citation_reasons": {"bogus": 1}}, "invalid citation reason"),
        (
            {"invalid_citation_reasons": {"missing_claim": -1}},
            "report counts must be nonnegative integers",
        ),
        (
            {"invalid_citation_reasons": {"missing_claim": 1.0}},
            "report counts must be nonnegative integers",
        ),
        ({"claim_span_count": 9}, "inconsistent span counts"),
        ({"evidence_span_count": 9}, "inconsistent span counts"),
        ({"citation_count": 9}, "inconsistent span counts"),
        ({"invalid_citation_reasons": {"missing_claim": 2}}, "inconsistent span counts"),
    ],
)
def test_deterministic_invariants(report: Any, changes: dict[str, Any], message: str) -> None:
    det = report.deterministic
    assert report_error(dataclasses.replace, det, **changes) == (message, "report")
    assert report_error(rebuild, det, **changes) == (message, "report")


def adjudication_changes() -> list[Any]:
    return [
        ({"supported_claim_count": -1}, "report counts must be nonnegative integers"),
        ({"unmatched_adjudication_count": True}, "report counts must be nonnegative integers"),
        ({"available": 1}, "inconsistent adjudication counts"),
        (
            {"label_counts": {"supports": 2, "contradicts": 1, "irrelevant": 0}},
            "inconsistent adjudication counts",
        ),
        (
            {"label_counts": {"contradicts": 1, "supports": 2, "irrelevant": 0, "unclear": 0}},
            "inconsistent adjudication counts",
        ),
        ({"supporting_citation_count": 3}, "inconsistent adjudication counts"),
        ({"supported_claim_count": 2}, "inconsistent adjudication counts"),
        ({"conflicting_adjudication_count": 4}, "inconsistent adjudication counts"),
        ({"citation_precision": 0.5}, "inconsistent adjudication rates"),
        ({"support_recall": None}, "inconsistent adjudication rates"),
        ({"adjudication_coverage": 0.5}, "inconsistent adjudication rates"),
    ]


@pytest.mark.parametrize(("changes", "message"), adjudication_changes())
def test_adjudication_invariants(report: Any, changes: dict[str, Any], message: str) -> None:
    adj = report.adjudication
    assert report_error(dataclasses.replace, adj, **changes) == (message, "report")


def test_adjudication_not_available_invariants() -> None:
    plain = compute(
        [{"claim_id": "c", "citations": ["e"]}], [{"evidence_id": "e", "start": 0, "end": 1}]
    )
    adj = plain.adjudication
    assert adj.available is False
    # Not available but unmatched rows counted.
    assert report_error(dataclasses.replace, adj, unmatched_adjudication_count=1) == (
        "inconsistent adjudication counts",
        "report",
    )
    # A rate that is a bool.
    single = compute(
        [{"claim_id": "c", "citations": ["e"]}],
        [{"evidence_id": "e", "start": 0, "end": 1}],
        None,
        [{"claim_id": "c", "evidence_id": "e", "label": "supports"}],
    )
    assert single.adjudication.citation_precision == 1.0
    assert report_error(dataclasses.replace, single.adjudication, citation_precision=True) == (
        "inconsistent adjudication rates",
        "report",
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"claim_count": -1}, "report counts must be nonnegative integers"),
        ({"orphan_claim_count": False}, "report counts must be nonnegative integers"),
        ({"claim_digest": "sha256:" + "A" * 64}, "invalid provenance digest"),
        ({"input_digest": "sha256:" + "0" * 63}, "invalid provenance digest"),
        ({"evidence_digest": "0" * 64}, "invalid provenance digest"),
        ({"adjudication_digest": None}, "invalid provenance digest"),
        ({"schema_version": 2}, "unsupported report schema"),
        ({"schema_version": True}, "unsupported report schema"),
        ({"schema_version": "1"}, "unsupported report schema"),
        ({"deterministic": "x"}, "invalid report sections"),
        ({"adjudication": None}, "invalid report sections"),
        ({"orphan_claim_count": 4, "claim_count": 3}, "inconsistent report counts"),
        ({"unused_evidence_count": 4}, "inconsistent report counts"),
        ({"claim_count": 4}, "inconsistent report counts"),
        ({"evidence_count": 4}, "inconsistent report counts"),
        ({"citation_count": 5}, "inconsistent report counts"),
        # Order: counts before digests before schema.
        ({"claim_count": -1, "claim_digest": "bad"}, "report counts must be nonnegative integers"),
        ({"claim_digest": "bad", "schema_version": 2}, "invalid provenance digest"),
    ],
)
def test_report_invariants(report: Any, changes: dict[str, Any], message: str) -> None:
    assert report_error(dataclasses.replace, report, **changes) == (message, "report")
    assert report_error(rebuild, report, **changes) == (message, "report")


def test_sections_are_revalidated(report: Any) -> None:
    # A section swapped for one of another report: the cross-section counts disagree.
    other = compute([{"claim_id": "x"}])
    assert report_error(dataclasses.replace, report, adjudication=other.adjudication) == (
        "inconsistent report counts",
        "report",
    )


class ExplodingMapping(Mapping[str, int]):
    def __getitem__(self, key: str) -> int:
        raise RuntimeError("secret " + CANARY_ID)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("secret " + CANARY_ID)

    def __len__(self) -> int:
        raise RuntimeError("secret " + CANARY_ID)


def test_foreign_exception_in_validation(report: Any) -> None:
    message = report_error(
        dataclasses.replace, report.deterministic, invalid_citation_reasons=ExplodingMapping()
    )
    assert message == ("citation-support input cannot be normalized", "input")
    message = report_error(
        dataclasses.replace, report.adjudication, label_counts=ExplodingMapping()
    )
    assert message == ("citation-support input cannot be normalized", "input")


# --- to_arrow (§9.2) ----------------------------------------------------------------------

REASONS = (
    "citation_outside_evidence",
    "invalid_citation_span",
    "invalid_evidence_span",
    "missing_claim",
    "missing_evidence",
    "source_mismatch",
)


def flat_columns(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if key == "invalid_citation_reasons":
            out.extend((f"{name}.{code}", value.get(code, 0)) for code in REASONS)
        elif isinstance(value, Mapping):
            out.extend(flat_columns(value, name + "."))
        else:
            out.append((name, value))
    return out


NULLABLE = {
    "citation_precision",
    "support_recall",
    "clinician_adjudication.citation_precision",
    "clinician_adjudication.support_recall",
}


@pytest.mark.parametrize("which", ["full", "empty", "no_adjudication"])
def test_to_arrow(report: Any, which: str) -> None:
    if which == "empty":
        report = compute([])
    elif which == "no_adjudication":
        report = compute(CLAIMS, EVIDENCE)
    table = report.to_arrow()
    expected = flat_columns(report.to_dict())
    assert len(expected) == 59
    assert table.num_rows == 1
    assert table.column_names == [name for name, _ in expected]
    row = table.to_pylist()[0]
    for name, value in expected:
        assert row[name] == value, name
        field = table.schema.field(name)
        assert field.nullable is (name in NULLABLE), name
        leaf = name.rsplit(".", 1)[-1]
        if isinstance(value, bool) or leaf in ("passed", "available", "human_review_required"):
            assert field.type == pa.bool_(), name
        elif leaf in ("suite", "status", "disclaimer") or leaf.endswith("_digest"):
            assert field.type == pa.large_string(), name
        elif leaf.endswith(("_rate", "_validity", "_coverage", "_precision", "_recall")):
            assert field.type == pa.float64(), name
        else:
            assert field.type == pa.int64(), name


def test_to_arrow_reports_concatenate(report: Any) -> None:
    tables = [report.to_arrow(), compute([]).to_arrow(), compute(CLAIMS, EVIDENCE).to_arrow()]
    assert pa.concat_tables(tables).num_rows == 3


# --- tables (§9.1) ------------------------------------------------------------------------

SCHEMAS = {
    "claims": [
        ("claim_id", pa.large_string(), False),
        ("start", pa.int64(), True),
        ("end", pa.int64(), True),
        ("source_id", pa.large_string(), False),
        ("source_length", pa.int64(), True),
        ("claim_type", pa.large_string(), False),
        ("span_status", pa.large_string(), False),
        ("orphan", pa.bool_(), False),
        ("adjudicated", pa.bool_(), False),
        ("supported", pa.bool_(), False),
    ],
    "evidence": [
        ("evidence_id", pa.large_string(), False),
        ("start", pa.int64(), True),
        ("end", pa.int64(), True),
        ("source_id", pa.large_string(), False),
        ("source_length", pa.int64(), True),
        ("span_status", pa.large_string(), False),
        ("used", pa.bool_(), False),
    ],
    "edges": [
        ("claim_id", pa.large_string(), False),
        ("evidence_id", pa.large_string(), False),
        ("start", pa.int64(), True),
        ("end", pa.int64(), True),
        ("source_id", pa.large_string(), False),
        ("multiplicity", pa.int64(), False),
        ("reason", pa.large_string(), True),
        ("valid", pa.bool_(), False),
        ("label", pa.large_string(), True),
    ],
    "adjudications": [
        ("claim_id", pa.large_string(), False),
        ("evidence_id", pa.large_string(), False),
        ("label", pa.large_string(), False),
        ("origin", pa.large_string(), False),
        ("matched", pa.bool_(), False),
    ],
}


def row_key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True)


PSEUDONYM_KEY = b"citelens-test-pseudonym-key-0001"


def pseudonym(value: str) -> str:
    # keyed (issue 10): "hmac-sha256:" + hex HMAC-SHA-256(key, UTF-8(value)); "" stays ""
    if value == "":
        return ""
    mac = hmac.new(PSEUDONYM_KEY, value.encode("utf-8"), hashlib.sha256)
    return "hmac-sha256:" + mac.hexdigest()


@pytest.mark.parametrize("raw", [False, True])
def test_tables_schemas(report: Any, raw: bool) -> None:
    import citelens.support as support

    tables = report.tables(raw_identifiers=raw)
    assert isinstance(tables, support.SupportTables)
    for name, columns in SCHEMAS.items():
        table = getattr(tables, name)
        assert isinstance(table, pa.Table)
        assert table.column_names == [c for c, _, _ in columns], name
        for column, data_type, nullable in columns:
            assert table.schema.field(column).type == data_type, (name, column)
            if not nullable:
                assert table.column(column).null_count == 0, (name, column)


def test_tables_raw_values(report: Any) -> None:
    tables = report.tables(raw_identifiers=True)
    claims = tables.claims.to_pylist()
    assert [r["claim_id"] for r in claims] == ["c1", "c2", "c3"]
    assert claims[0] == {
        "claim_id": "c1",
        "start": 0,
        "end": 5,
        "source_id": "summary",
        "source_length": None,
        "claim_type": "dose",
        "span_status": "valid",
        "orphan": False,
        "adjudicated": True,
        "supported": True,
    }
    assert [r["orphan"] for r in claims] == [False, False, True]
    evidence = tables.evidence.to_pylist()
    assert [(r["evidence_id"], r["span_status"], r["used"]) for r in evidence] == [
        ("e1", "valid", True),
        ("e2", "valid", True),
        ("e3", "missing", False),
    ]
    edges = tables.edges.to_pylist()
    assert [
        (
            r["claim_id"],
            r["evidence_id"],
            r["start"],
            r["end"],
            r["multiplicity"],
            r["reason"],
            r["label"],
        )
        for r in edges
    ] == [
        ("c1", "e1", None, None, 1, None, "supports"),
        ("c1", "e1", 2, 4, 2, None, "supports"),
        ("c1", "e1", 8, 12, 1, "citation_outside_evidence", None),
        ("c1", "e2", None, None, 1, None, "contradicts"),
        ("c2", "e9", None, None, 1, "missing_evidence", None),
        ("ghost", "e3", None, None, 1, "missing_claim", None),
    ]
    adjudications = tables.adjudications.to_pylist()
    assert [
        (r["claim_id"], r["evidence_id"], r["label"], r["origin"], r["matched"])
        for r in adjudications
    ] == [
        ("c1", "e1", "supports", "explicit", True),
        ("c1", "e1", "supports", "explicit", True),
        ("c1", "e2", "contradicts", "evidence", True),
        ("c2", "e9", "irrelevant", "explicit", False),
    ]


def test_tables_identities(report: Any) -> None:
    t = report.tables()
    det = report.deterministic
    adj = report.adjudication
    edges = t.edges.to_pylist()
    assert report.citation_count == len(edges)
    assert det.duplicate_citation_count == sum(r["multiplicity"] for r in edges) - len(edges)
    reasons: dict[str, int] = {}
    for r in edges:
        assert r["valid"] is (r["reason"] is None)
        if r["reason"] is not None:
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    assert reasons == dict(det.invalid_citation_reasons)
    assert report.orphan_claim_count == sum(t.claims.column("orphan").to_pylist())
    assert report.unused_evidence_count == t.evidence.num_rows - sum(
        t.evidence.column("used").to_pylist()
    )
    assert adj.unmatched_adjudication_count == t.adjudications.num_rows - sum(
        t.adjudications.column("matched").to_pylist()
    )
    labels = [r["label"] for r in edges if r["label"] is not None]
    assert {k: labels.count(k) for k in adj.label_counts} == dict(adj.label_counts)
    assert adj.supported_claim_count == sum(t.claims.column("supported").to_pylist())


def test_tables_pseudonymised_by_default(report: Any) -> None:
    raw = report.tables(raw_identifiers=True)
    pseudo = report.tables(pseudonym_key=PSEUDONYM_KEY)
    for name, columns in (
        ("claims", ("claim_id", "source_id", "claim_type")),
        ("evidence", ("evidence_id", "source_id")),
        ("edges", ("claim_id", "evidence_id", "source_id")),
        ("adjudications", ("claim_id", "evidence_id")),
    ):
        raw_rows = getattr(raw, name).to_pylist()
        pseudo_rows = getattr(pseudo, name).to_pylist()
        expected = []
        for row in raw_rows:
            row = dict(row)
            for column in columns:
                row[column] = pseudonym(row[column])
            expected.append(row)
        # Same multiset of rows; sorted by the pseudonymised values.
        assert sorted(map(row_key, pseudo_rows)) == sorted(map(row_key, expected))
        first = getattr(pseudo, name).column_names[0]
        firsts = [r[first] for r in pseudo_rows]
        assert firsts == sorted(firsts, key=lambda v: v.encode("utf-8"))
    # the default (a random key per call) hides the same values
    default = report.tables()
    for tables in (pseudo, default):
        text = json.dumps([getattr(tables, n).to_pylist() for n in SCHEMAS])
        for value in ('"c1"', '"e1"', "ghost", "summary", '"doc"'):
            assert value not in text
        assert '"dose"' not in text
        assert "hmac-sha256:" in text


def test_tables_not_in_repr_or_equality(report: Any) -> None:
    other = compute(
        list(reversed(CLAIMS)), list(reversed(EVIDENCE)), list(reversed(CITATIONS)), ADJUDICATIONS
    )
    assert other == report
    assert "c1" not in repr(report)


# --- write_json / write_markdown (§7.4) -----------------------------------------------------


def test_write_files(report: Any, tmp_path: pathlib.Path) -> None:
    target = tmp_path / "a" / "b" / "report.json"
    path = report.write_json(target)
    assert path == target and isinstance(path, pathlib.Path)
    assert target.read_bytes() == report.to_json().encode("utf-8")
    md = report.write_markdown(str(tmp_path / "report.md"))
    assert md == tmp_path / "report.md"
    assert md.read_text(encoding="utf-8") == report.to_markdown()
    # Overwrite in place; no temporary files left behind.
    report.write_json(target)
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]


def test_write_failures(report: Any, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / f"{CANARY_ID}.txt"
    blocker.write_text("x", encoding="utf-8")
    folder = tmp_path / f"{CANARY_ID}-dir"
    folder.mkdir()
    for method in ("write_json", "write_markdown"):
        for target in (blocker / "report.json", folder):
            message = report_error(getattr(report, method), target)
            assert message == ("citation-support report could not be written", "io")
    assert blocker.read_text(encoding="utf-8") == "x"
    assert list(folder.iterdir()) == []


def test_write_failure_leaves_target_unchanged(
    report: Any, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")

    def broken(*_: Any, **__: Any) -> None:
        raise OSError("disk full " + CANARY_ID)

    monkeypatch.setattr(os, "replace", broken)
    assert report_error(report.write_json, target) == (
        "citation-support report could not be written",
        "io",
    )
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


# --- typed records (§3.9) -----------------------------------------------------------------


def test_typed_records_normalise_and_redact() -> None:
    from citelens.support import AtomicClaim, Citation, EvidenceSpan

    claim = AtomicClaim(
        " c1 ", 0, 4, citations=[7, " e2 "], source_id="", claim_type="Medication Dose!"
    )
    assert claim.claim_id == "c1"
    assert tuple(claim.citations) == ("7", "e2")
    assert claim.claim_type == "medication-dose"
    assert repr(claim) == "AtomicClaim(<redacted>, span_present=True, citation_count=2)"
    assert AtomicClaim("c", citations=None).citations == ()
    assert tuple(AtomicClaim("c", citations="e").citations) == ("e",)
    assert tuple(AtomicClaim("c", citations=5).citations) == ("5",)
    evidence = EvidenceSpan("e1", source_id=None)
    assert evidence.source_id == ""
    assert repr(evidence) == "EvidenceSpan(<redacted>, span_present=False)"
    citation = Citation(1, "e1", 2, 3, "doc")
    assert (citation.claim_id, citation.start) == ("1", 2)
    assert repr(citation) == "Citation(<redacted>)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.claim_id = "x"  # type: ignore[misc]
    assert not hasattr(claim, "__dict__")


def test_typed_record_errors() -> None:
    from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan

    assert report_error(AtomicClaim, "c", citations=1.5) == (
        "citation identifiers must be a sequence",
        "record",
    )
    assert report_error(AtomicClaim, "c", citations={"e"}) == (
        "citation identifiers must be a sequence",
        "record",
    )
    assert report_error(AtomicClaim, "a\tb") == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )
    assert report_error(AtomicClaim, "c", 1.0, 2) == ("span offsets must be integers", "span")
    assert report_error(AtomicClaim, "c", claim_type="_x") == (
        "claim type must be a bounded label",
        "value",
    )
    assert report_error(EvidenceSpan, "e", source_length=True) == (
        "source lengths must be integers",
        "value",
    )
    assert report_error(Citation, None, "e") == ("identifier must be a string", "identifier")
    assert report_error(ClinicianAdjudication, "c", "e", 3) == (
        "adjudication label must be a string",
        "value",
    )


def test_from_mapping() -> None:
    from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan

    claim = AtomicClaim.from_mapping(
        {"start": 1, "end": 3, "evidence_ids": ["e1", {"evidence": "e2"}]}, default_id="k"
    )
    assert (claim.claim_id, claim.start, claim.end, tuple(claim.citations)) == (
        "k",
        1,
        3,
        ("e1", "e2"),
    )
    assert EvidenceSpan.from_mapping({"span": [0, 2]}, default_id="e").evidence_id == "e"
    assert (
        Citation.from_mapping({"claim": "c", "citation_id": "e", "source_id": "s"}).source_id == "s"
    )
    assert (
        ClinicianAdjudication.from_mapping(
            {"fact_id": "c", "source_id": "e", "verdict": "Refuted"}
        ).label
        == "contradicts"
    )
    assert report_error(Citation.from_mapping, ["c", "e"]) == (
        "citation record must be a mapping",
        "record",
    )
    assert report_error(EvidenceSpan.from_mapping, {"start": 1}) == (
        "evidence identifier is required",
        "record",
    )


def test_typed_and_mapping_inputs_identical() -> None:
    from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan

    typed = compute(
        [AtomicClaim("c1", 0, 5, ["e1"]), AtomicClaim("c2")],
        [EvidenceSpan("e1", 0, 9, "doc", 20)],
        [Citation("c2", "e1", 1, 4, "doc")],
        [ClinicianAdjudication("c1", "e1", "supports")],
    )
    mapping = compute(
        [{"claim_id": "c1", "start": 0, "end": 5, "citations": ["e1"]}, {"claim_id": "c2"}],
        [{"evidence_id": "e1", "start": 0, "end": 9, "source_id": "doc", "source_length": 20}],
        [{"claim_id": "c2", "evidence_id": "e1", "start": 1, "end": 4, "source_id": "doc"}],
        [{"claim_id": "c1", "evidence_id": "e1", "label": "supports"}],
    )
    assert typed.to_json() == mapping.to_json()
