"""Property tests (hypothesis): order independence, typed/mapping and file/record
equivalence, canary privacy, and a black-box differential test against openmed 3.1.0."""

from __future__ import annotations

import json
import pathlib
import tempfile
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ._helpers import CANARY_ID, CANARY_TEXT, compute, faithful_table, without_provenance

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

CLAIM_POOL = [f"c{k}" for k in range(6)]
EVIDENCE_POOL = [f"e{k}" for k in range(6)]
LABELS = [
    "supports",
    "Supported",
    "contradicts",
    "refuted",
    "irrelevant",
    "unclear",
    "PENDING",
    "does not support",
]

offsets = st.one_of(st.none(), st.integers(min_value=-2, max_value=30))
lengths = st.one_of(st.none(), st.integers(min_value=-1, max_value=40))
sources = st.one_of(st.none(), st.sampled_from(["s1", "s2"]))


def put(record: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        record[key] = value


@st.composite
def span_fields(draw: st.DrawFn, record: dict[str, Any]) -> dict[str, Any]:
    put(record, "start", draw(offsets))
    put(record, "end", draw(offsets))
    return record


@st.composite
def claims_strategy(
    draw: st.DrawFn, ids: list[str], evidence_ids: list[str], plain_ids: bool
) -> list[dict[str, Any]]:
    out = []
    for claim_id in ids:
        record: dict[str, Any] = {"claim_id": claim_id}
        draw(span_fields(record))
        put(record, "source_id", draw(sources))
        put(record, "source_length", draw(lengths))
        cited = draw(st.lists(st.sampled_from(evidence_ids), max_size=4))
        if plain_ids:
            citations: list[Any] = cited
        else:
            citations = []
            for evidence_id in cited:
                if draw(st.booleans()):
                    citations.append(evidence_id)
                else:
                    item: dict[str, Any] = {"evidence_id": evidence_id}
                    draw(span_fields(item))
                    citations.append(item)
        if citations or draw(st.booleans()):
            record["citations"] = citations
        out.append(record)
    return out


@st.composite
def evidence_strategy(
    draw: st.DrawFn, ids: list[str], claim_ids: list[str], embed: bool
) -> list[dict[str, Any]]:
    out = []
    for evidence_id in ids:
        record: dict[str, Any] = {"evidence_id": evidence_id}
        draw(span_fields(record))
        put(record, "source_id", draw(sources))
        put(record, "source_length", draw(lengths))
        if embed and draw(st.integers(0, 3)) == 0:
            record["claim_id"] = draw(st.sampled_from(claim_ids))
            record["label"] = draw(st.sampled_from(LABELS))
        out.append(record)
    return out


@st.composite
def citations_strategy(
    draw: st.DrawFn, claim_ids: list[str], evidence_ids: list[str], pairs: bool
) -> list[Any]:
    out: list[Any] = []
    for _ in range(draw(st.integers(0, 6))):
        claim_id = draw(st.sampled_from(claim_ids))
        evidence_id = draw(st.sampled_from(evidence_ids))
        if pairs and draw(st.integers(0, 3)) == 0:
            out.append([claim_id, evidence_id])
            continue
        record: dict[str, Any] = {"claim_id": claim_id, "evidence_id": evidence_id}
        draw(span_fields(record))
        put(record, "source_id", draw(sources))
        out.append(record)
    return out


@st.composite
def adjudications_strategy(
    draw: st.DrawFn, claim_ids: list[str], evidence_ids: list[str]
) -> list[dict[str, Any]] | None:
    if draw(st.integers(0, 4)) == 0:
        return None
    return [
        {
            "claim_id": draw(st.sampled_from(claim_ids)),
            "evidence_id": draw(st.sampled_from(evidence_ids)),
            "label": draw(st.sampled_from(LABELS)),
        }
        for _ in range(draw(st.integers(0, 6)))
    ]


@st.composite
def datasets(
    draw: st.DrawFn, *, flat: bool = False, ids: tuple[list[str], list[str]] | None = None
) -> dict[str, Any]:
    claim_pool, evidence_pool = ids or (CLAIM_POOL, EVIDENCE_POOL)
    claim_ids = draw(st.lists(st.sampled_from(claim_pool), unique=True, max_size=5))
    evidence_ids = draw(st.lists(st.sampled_from(evidence_pool), unique=True, max_size=5))
    # References may point to missing records: use the whole pools plus one outsider.
    ref_claims = [*claim_pool, claim_pool[0] + "x"]
    ref_evidence = [*evidence_pool, evidence_pool[0] + "x"]
    return {
        "claims": draw(claims_strategy(claim_ids, ref_evidence, plain_ids=flat)),
        "evidence": draw(evidence_strategy(evidence_ids, ref_claims, embed=True)),
        "citations": draw(citations_strategy(ref_claims, ref_evidence, pairs=not flat)),
        "adjudications": draw(adjudications_strategy(ref_claims, ref_evidence)),
    }


def run(data: dict[str, Any]) -> Any:
    return compute(data["claims"], data["evidence"], data["citations"], data["adjudications"])


def shuffled_keys(record: Any, rnd: Any) -> Any:
    if isinstance(record, dict):
        items = list(record.items())
        rnd.shuffle(items)
        return {key: shuffled_keys(value, rnd) for key, value in items}
    if isinstance(record, list):
        return [shuffled_keys(item, rnd) for item in record]
    return record


@SETTINGS
@given(datasets(), st.randoms(use_true_random=False))
def test_order_independence(data: dict[str, Any], rnd: Any) -> None:
    expected = run(data)
    shuffled: dict[str, Any] = {}
    for name, value in data.items():
        if value is None:
            shuffled[name] = None
            continue
        value = shuffled_keys(value, rnd)
        rnd.shuffle(value)
        for record in value:
            if isinstance(record, dict) and isinstance(record.get("citations"), list):
                rnd.shuffle(record["citations"])
        shuffled[name] = value
    actual = run(shuffled)
    assert actual.to_json() == expected.to_json()
    assert actual.to_markdown() == expected.to_markdown()


@SETTINGS
@given(datasets(flat=True))
def test_typed_records_equal_mappings(data: dict[str, Any]) -> None:
    from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan

    claims = [
        AtomicClaim(
            r["claim_id"],
            r.get("start"),
            r.get("end"),
            r.get("citations", ()),
            r.get("source_id", ""),
            r.get("source_length"),
        )
        for r in data["claims"]
    ]
    evidence = [
        EvidenceSpan(
            r["evidence_id"],
            r.get("start"),
            r.get("end"),
            r.get("source_id", ""),
            r.get("source_length"),
        )
        for r in data["evidence"]
    ]
    embedded = [
        ClinicianAdjudication(r["claim_id"], r["evidence_id"], r["label"])
        for r in data["evidence"]
        if "label" in r
    ]
    citations = [
        Citation(
            r["claim_id"], r["evidence_id"], r.get("start"), r.get("end"), r.get("source_id", "")
        )
        for r in data["citations"]
    ]
    explicit = [
        ClinicianAdjudication(r["claim_id"], r["evidence_id"], r["label"])
        for r in data["adjudications"] or []
    ]
    adjudications = embedded + explicit if (embedded or data["adjudications"] is not None) else None
    typed = compute(claims, evidence, citations, adjudications)
    assert typed.to_json() == run(data).to_json()


@SETTINGS
@given(datasets(flat=True))
def test_files_tables_and_records_equal(data: dict[str, Any]) -> None:
    expected = run(data).to_json()
    tables = {}
    for name, value in data.items():
        if value is None:
            tables[name] = None
            continue
        table = faithful_table(value)
        assume(table is not None)
        tables[name] = table
    assert compute(*tables.values()).to_json() == expected
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        parquet: list[Any] = []
        jsonl: list[Any] = []
        for name, table in tables.items():
            if table is None:
                parquet.append(None)
                jsonl.append(None)
                continue
            pq.write_table(table, folder / f"{name}.parquet")
            parquet.append(folder / f"{name}.parquet")
            path = folder / f"{name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in data[name]), encoding="utf-8")
            jsonl.append(path)
        assert compute(*parquet).to_json() == expected
        assert compute(*jsonl).to_json() == expected


CANARY_CLAIMS = [f"{CANARY_ID}-claim-{k}" for k in range(4)]
CANARY_EVIDENCE = [f"{CANARY_ID}-ev-{k}" for k in range(4)]


def all_text(report: Any) -> str:
    parts = [
        report.to_json(),
        report.to_markdown(),
        repr(report),
        repr(report.deterministic),
        repr(report.adjudication),
    ]
    parts.append(json.dumps(report.to_arrow().to_pylist()))
    tables = report.tables()
    parts.extend(json.dumps(getattr(tables, name).to_pylist()) for name in tables._fields)
    parts.append(str(report.to_dict()))
    return "\n".join(parts)


@SETTINGS
@given(
    datasets(ids=(CANARY_CLAIMS, CANARY_EVIDENCE)),
    st.sampled_from(["text", "comment", "source_text", "note"]),
)
def test_canaries_never_leak(data: dict[str, Any], text_key: str) -> None:
    for collection in ("claims", "evidence", "citations", "adjudications"):
        for record in data[collection] or []:
            if isinstance(record, dict):
                record[text_key] = CANARY_TEXT
                if "source_id" in record:
                    record["source_id"] = CANARY_ID + record["source_id"]
    report = run(data)
    text = all_text(report)
    assert CANARY_ID not in text
    assert "CANARYTEXT" not in text
    from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan

    for obj in (
        AtomicClaim(CANARY_ID, 0, 1, [CANARY_ID], CANARY_ID, 5, "x"),
        EvidenceSpan(CANARY_ID, 0, 1, CANARY_ID, 4),
        Citation(CANARY_ID, CANARY_ID, 0, 1, CANARY_ID),
        ClinicianAdjudication(CANARY_ID, CANARY_ID, "supports"),
    ):
        assert CANARY_ID not in repr(obj)


@SETTINGS
@given(
    datasets(ids=(CANARY_CLAIMS, CANARY_EVIDENCE)),
    st.sampled_from(
        [
            {"claim_id": CANARY_ID + "\x00"},
            {"claim_id": CANARY_ID, "start": CANARY_TEXT},
            {"claim_id": CANARY_ID, "claim_type": "_" + CANARY_ID},
            {"claim_id": CANARY_ID, "citations": [CANARY_ID + "\nx"]},
            {"claim_id": CANARY_ID, "id": CANARY_TEXT},
            {"claim_id": CANARY_ID, "source_length": CANARY_TEXT},
        ]
    ),
)
def test_canaries_never_in_errors(data: dict[str, Any], bad: dict[str, Any]) -> None:
    import citelens

    claims = [*data["claims"], bad]
    with pytest.raises(citelens.CitationSupportError) as info:
        compute(claims, data["evidence"], data["citations"], data["adjudications"])
    text = str(info.value) + repr(info.value) + repr(info.value.args)
    assert CANARY_ID not in text and "CANARYTEXT" not in text
    assert info.value.__cause__ is None and info.value.__context__ is None


# --- differential test against openmed 3.1.0 (black box) ----------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets())
def test_differential_against_openmed(data: dict[str, Any]) -> None:
    """Every report value except provenance equals the reference's on inputs outside §2.

    The generated inputs avoid the §2 decisions: no ``text`` keys, citation records always
    carry ``evidence_id`` (so ``source_id`` means the same to both), small offsets, no
    surrogates, no limits, Python lists only.
    """
    om = pytest.importorskip("openmed.eval")
    ours = run(data)
    reference = om.compute_citation_support_metrics(
        data["claims"], data["evidence"], data["citations"], data["adjudications"]
    )
    theirs = dict(reference.to_dict())
    theirs.pop("provenance")
    assert json.dumps(without_provenance(ours), sort_keys=True) == json.dumps(
        theirs, sort_keys=True
    )
    assert list(without_provenance(ours)) == list(theirs)
    assert ours.to_markdown() == reference.to_markdown()


def test_no_canary_in_log_records(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    import citelens

    caplog.set_level(logging.DEBUG)
    claims = [{"claim_id": CANARY_ID, "text": CANARY_TEXT, "citations": [CANARY_ID + "-e"]}]
    evidence = [{"evidence_id": CANARY_ID + "-e", "start": 0, "end": 3, "comment": CANARY_TEXT}]
    report = compute(claims, evidence)
    report.to_json()
    report.to_markdown()
    report.tables()
    with pytest.raises(citelens.CitationSupportError):
        compute([{"claim_id": CANARY_ID + "\x00"}])
    assert CANARY_ID not in caplog.text
    assert "CANARYTEXT" not in caplog.text
