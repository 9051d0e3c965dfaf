"""Python object forms through the thin adapter and the engine, against the record oracle.

Every shape that used to take the per-record path in ``src/`` (typed records, compact mappings,
objects converted by ``to_dict`` / ``vars``, mixed Python types under one key, int/float mixes,
flag keys holding ``None``, integers beyond 64 bits, lone surrogates, nested citation lists with
mixed items, citation pairs) is generated with defects; the entry point must give exactly the
oracle's outcome (report JSON and Markdown, or message and category). Then literal cases, each
checked by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citelens
from citelens.support import AtomicClaim, Citation, ClinicianAdjudication, EvidenceSpan
from oracle.support_rows import oracle_outcome


def outcome(*args: Any, **kwargs: Any) -> tuple[str, str, str]:
    try:
        report = citelens.compute_citation_support_metrics(*args, **kwargs)
    except citelens.CitationSupportError as exc:
        assert exc.__cause__ is None and exc.__context__ is None
        return ("error", str(exc), exc.category)
    return ("ok", report.to_json(), report.to_markdown())


class ToDict:
    def __init__(self, record: dict[str, Any]) -> None:
        self._record = record

    def to_dict(self) -> dict[str, Any]:
        return self._record


class BrokenToDict:
    def to_dict(self) -> dict[str, Any]:
        raise RuntimeError("secret")


@dataclass
class Plain:
    claim_id: Any = None
    evidence_id: Any = None
    start: Any = None
    end: Any = None
    label: Any = None


IDS = ["c1", "c2", "e1", "e2", 7, " c1 ", "", "a\tb", "x\ud800", 2**70, 1.5, None, True]
OFFSETS = [0, 3, 5, 9, -1, 2.0, 2**64, None, "3", True]
LABELS = ["supports", "Refuted", "n/a", "\ud800supports", True, False, 3, None]

ids = st.sampled_from(IDS)
offsets = st.sampled_from(OFFSETS)


def maybe(draw: st.DrawFn, record: dict[str, Any], key: str, values: Any, p: int = 2) -> None:
    if draw(st.integers(0, p - 1)) == 0:
        record[key] = draw(values)


@st.composite
def citation_item(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        item: dict[str, Any] = {}
        maybe(draw, item, "evidence_id", ids, 1 if draw(st.booleans()) else 3)
        maybe(draw, item, "claim_id", st.sampled_from(["c1", "c2", None]), 3)
        maybe(draw, item, "start", offsets, 3)
        maybe(draw, item, "end", offsets, 3)
        maybe(draw, item, "span", st.sampled_from([[1, 3], {"begin": 1, "stop": 3}, [1]]), 4)
        return item
    return draw(ids)


@st.composite
def claim(draw: st.DrawFn) -> Any:
    form = draw(st.integers(0, 9))
    if form == 0:
        return AtomicClaim(
            draw(st.sampled_from(["c1", "c2", 7])),
            draw(st.sampled_from([None, 0, 2])),
            draw(st.sampled_from([None, 4, 9])),
            tuple(draw(st.lists(st.sampled_from(["e1", "e2", 7]), max_size=2))),
        )
    record: dict[str, Any] = {}
    maybe(draw, record, "claim_id", ids, 1 if draw(st.integers(0, 5)) else 2)
    maybe(draw, record, "id", ids, 5)
    maybe(draw, record, "start", offsets)
    maybe(draw, record, "end", offsets)
    maybe(draw, record, "span", st.sampled_from([[0, 4], (1, 2), {"start": 0, "end": 4}, "1-4"]), 5)
    maybe(draw, record, "source_id", st.sampled_from(["s1", "", None, 3, "s\ud800"]), 4)
    maybe(draw, record, "source_length", st.sampled_from([10, 2.0, 2**64, None]), 4)
    maybe(draw, record, "claim_type", st.sampled_from(["Dose", "!!!", 3, [1], None]), 5)
    citations = st.one_of(
        st.lists(citation_item(), max_size=3),
        citation_item(),
        st.sampled_from([None, {1, 2}, 2.5, ("e1", "e2")]),
    )
    maybe(draw, record, "citations", citations)
    maybe(draw, record, "evidence_ids", st.lists(st.sampled_from(["e1", "e2"]), max_size=2), 6)
    if form == 1:
        return ToDict(record)
    if form == 2:
        return Plain(record.get("claim_id"), None, record.get("start"), record.get("end"))
    if form == 3:
        return draw(st.sampled_from([BrokenToDict(), ["c1"], 5, None]))
    return record


@st.composite
def evidence_item(draw: st.DrawFn) -> Any:
    form = draw(st.integers(0, 9))
    if form == 0:
        return EvidenceSpan(
            draw(st.sampled_from(["e1", "e2", 7])),
            draw(st.sampled_from([None, 0, 1])),
            draw(st.sampled_from([None, 4, 9])),
            source_length=draw(st.sampled_from([None, 5, 20])),
        )
    record: dict[str, Any] = {}
    maybe(draw, record, "evidence_id", ids, 1 if draw(st.integers(0, 5)) else 2)
    maybe(draw, record, "start", offsets)
    maybe(draw, record, "end", offsets)
    maybe(draw, record, "source_length", st.sampled_from([10, 3, 2.0, None]), 3)
    maybe(draw, record, "source_id", st.sampled_from(["s1", "", None]), 4)
    maybe(draw, record, "claim_id", st.sampled_from(["c1", "c2", 7, None, 1.5]), 3)
    maybe(draw, record, "label", st.sampled_from(LABELS), 3)
    maybe(draw, record, "supports", st.sampled_from([True, False, None, 1]), 4)
    if form == 1:
        return ToDict(record)
    if form == 2:
        return draw(st.sampled_from([BrokenToDict(), ("e1",), Plain()]))
    return record


@st.composite
def citation_entry(draw: st.DrawFn) -> Any:
    form = draw(st.integers(0, 5))
    if form == 0:
        return Citation(draw(st.sampled_from(["c1", "c2"])), draw(st.sampled_from(["e1", "e2"])))
    if form == 1:
        return draw(st.sampled_from([("c1", "e1"), ["c2", 7], ("c1",), ("c1", None), "c1e1", 5]))
    record: dict[str, Any] = {}
    maybe(draw, record, "claim_id", ids, 1 if draw(st.integers(0, 5)) else 2)
    maybe(draw, record, "evidence_id", ids, 1 if draw(st.integers(0, 5)) else 2)
    maybe(draw, record, "start", offsets, 3)
    maybe(draw, record, "end", offsets, 3)
    maybe(draw, record, "source_id", st.sampled_from(["s1", "s2", None]), 3)
    return record


@st.composite
def adjudication_item(draw: st.DrawFn) -> Any:
    form = draw(st.integers(0, 7))
    if form == 0:
        return ClinicianAdjudication(
            draw(st.sampled_from(["c1", "c2"])),
            draw(st.sampled_from(["e1", "e2"])),
            draw(st.sampled_from(["supports", "Refuted", "unclear"])),
        )
    record: dict[str, Any] = {}
    maybe(draw, record, "claim_id", ids, 1 if draw(st.integers(0, 5)) else 2)
    maybe(draw, record, "evidence_id", ids, 1 if draw(st.integers(0, 5)) else 2)
    maybe(draw, record, "label", st.sampled_from(LABELS), 1 if draw(st.integers(0, 3)) else 2)
    maybe(draw, record, "contradicts", st.sampled_from([True, False, None]), 4)
    if form == 1:
        return ToDict(record)
    if form == 2:
        return draw(st.sampled_from([BrokenToDict(), ("c1", "e1"), Plain("c1", "e1", label="x")]))
    return record


def compact(entries: Any, keys: Any) -> Any:
    return st.dictionaries(keys, entries, max_size=4)


compact_keys = st.sampled_from(["c1", "c2", "e1", "e2", " k ", "", "a\tb", "z\ud800"])
claim_values = st.one_of(
    claim(), st.sampled_from([[0, 4], [0, 4, 9], "e1", None, 5, [True, 1], (2, 3)])
)
evidence_values = st.one_of(evidence_item(), st.sampled_from([[0, 4], "e1", None, [1, 2, 3]]))
citation_values = st.one_of(
    st.lists(st.one_of(citation_entry(), ids), max_size=3),
    citation_entry(),
    st.sampled_from([None, "e1", 7, 2.5, {1}]),
)

collections = st.fixed_dictionaries(
    {
        "claims": st.one_of(st.lists(claim(), max_size=4), compact(claim_values, compact_keys)),
        "evidence": st.one_of(
            st.lists(evidence_item(), max_size=4), compact(evidence_values, compact_keys)
        ),
        "citations": st.one_of(
            st.none(),
            st.lists(citation_entry(), max_size=4),
            compact(citation_values, compact_keys),
        ),
        "adjudications": st.one_of(
            st.none(),
            st.lists(adjudication_item(), max_size=4),
            compact(adjudication_item(), compact_keys),
        ),
        "source_lengths": st.one_of(
            st.none(),
            st.dictionaries(
                st.sampled_from(["s1", " s1", 3, "", None]),
                st.sampled_from([10, 2, 2.0, 2**64, True]),
                max_size=2,
            ),
        ),
    }
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections, small=st.booleans())
def test_python_forms_equal_the_oracle(data: dict[str, Any], small: bool) -> None:
    limits = citelens.Limits(citations=3, adjudications=2) if small else None
    args = (data["claims"], data["evidence"], data["citations"], data["adjudications"])
    kwargs = {"source_lengths": data["source_lengths"], "limits": limits}
    assert outcome(*args, **kwargs) == oracle_outcome(*args, **kwargs)


# -- literal cases, each checked by hand ----------------------------------------------------

ERROR = "error"


def error_of(*args: Any, **kwargs: Any) -> tuple[str, str]:
    result = outcome(*args, **kwargs)
    assert result[0] == ERROR, result
    assert oracle_outcome(*args, **kwargs) == result
    return result[1], result[2]


def test_typed_and_mapping_inputs_give_identical_reports() -> None:
    typed = (
        [AtomicClaim("c1", 0, 5, ("e1",)), AtomicClaim("c2")],
        [EvidenceSpan("e1", 0, 9, source_length=20)],
        [Citation("c2", "e1", 1, 3)],
        [ClinicianAdjudication("c1", "e1", "Supported")],
    )
    plain = (
        [{"claim_id": "c1", "start": 0, "end": 5, "citations": ["e1"]}, {"claim_id": "c2"}],
        [{"evidence_id": "e1", "start": 0, "end": 9, "source_length": 20}],
        [{"claim_id": "c2", "evidence_id": "e1", "start": 1, "end": 3}],
        [{"claim_id": "c1", "evidence_id": "e1", "label": "supports"}],
    )
    assert outcome(*typed) == outcome(*plain) == oracle_outcome(*typed)
    report = citelens.compute_citation_support_metrics(*typed)
    # c1 → e1 plain edge and c2 → e1 [1, 3) inside [0, 9): two valid edges; c1's pair labelled
    assert report.citation_count == 2
    assert report.deterministic.valid_citation_count == 2
    assert report.citation_precision == 1.0


def test_compact_claims_and_evidence() -> None:
    # {"c": [0, 5]} is a span; {"d": [0, 5, 9]} cites "0", "5", "9" (all missing evidence)
    report = citelens.compute_citation_support_metrics(
        {"c": [0, 5], "d": [0, 5, 9]}, {"e": [0, 3], "f": {"start": 1, "end": 2}}
    )
    assert report.claim_count == 2
    assert report.evidence_count == 2
    assert report.citation_count == 3
    assert report.deterministic.invalid_citation_reasons == {"missing_evidence": 3}
    assert oracle_outcome({"c": [0, 5], "d": [0, 5, 9]}, {"e": [0, 3]})[0] == "ok"


def test_compact_keys_are_checked_before_records() -> None:
    # record "a" is defective (a float offset), but key "" comes later and keys go first
    assert error_of({"a": {"start": 1.5}, "": [0, 1]}) == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )
    # evidence: key then value entry by entry — the first entry's value is not a record
    assert error_of([], {"e": "text", "": [0, 1]}) == (
        "evidence mapping values must be records or spans",
        "record",
    )


def test_conversion_errors_keep_input_order() -> None:
    # row 0 has a bad span, row 1 cannot be converted: row 0 wins
    assert error_of([{"claim_id": "c", "start": "1"}, BrokenToDict()]) == (
        "span offsets must be integers",
        "span",
    )
    # and the other way round
    assert error_of([BrokenToDict(), {"claim_id": "c", "start": "1"}]) == (
        "claim record cannot be normalized",
        "record",
    )
    # a slotted typed record of the wrong kind has no vars(): not a mapping
    assert error_of([EvidenceSpan("e")]) == ("claim record must be a mapping", "record")
    assert error_of([], [], None, [("c", "e")]) == (
        "adjudication record must be a mapping",
        "record",
    )


def test_objects_convert_by_to_dict_and_vars() -> None:
    claims = [ToDict({"claim_id": "c1", "citations": ["e1"]}), Plain("c2")]
    report = citelens.compute_citation_support_metrics(claims, [{"evidence_id": "e1"}])
    # c2 (from vars) has no citation: one orphan; e1 has no span: an invalid evidence span
    assert report.claim_count == 2
    assert report.orphan_claim_count == 1
    assert report.deterministic.invalid_citation_reasons == {"invalid_evidence_span": 1}


def test_mixed_types_under_one_key() -> None:
    # 1 and "1" are the same identifier; 1.0 under an alias equals 1 (no conflict)
    assert error_of([{"claim_id": 1}, {"claim_id": "1"}]) == (
        "duplicate claim identifiers",
        "reference",
    )
    report = citelens.compute_citation_support_metrics(
        [{"claim_id": "c", "start": 2, "span_start": 2.0, "end": 4}, {"claim_id": 5}]
    )
    assert report.deterministic.valid_claim_span_count == 1
    # an int/float mix under "start": the float is rejected at its own row (row 1)
    assert error_of([{"claim_id": "a", "start": 1}, {"claim_id": "b", "start": 1.0}]) == (
        "span offsets must be integers",
        "span",
    )


def test_flag_key_holding_none() -> None:
    # a None flag is present and not a boolean in a mapping (a null cell in a table is absent)
    assert error_of([], [], None, [{"claim_id": "c", "evidence_id": "e", "supports": None}]) == (
        "adjudication flags must be boolean",
        "value",
    )


def test_big_integers_and_surrogates() -> None:
    # beyond int64: an identifier (its decimal text), never an offset or a length
    report = citelens.compute_citation_support_metrics([{"claim_id": 2**70}])
    assert report.claim_count == 1
    assert error_of([{"claim_id": "c", "start": 2**63}]) == (
        "span offsets must be integers",
        "span",
    )
    assert error_of([{"claim_id": "c", "source_length": -(2**63) - 1}]) == (
        "source lengths must be integers",
        "value",
    )
    # a lone surrogate is rejected in an identifier (decision i) but a label may hold one
    assert error_of([{"claim_id": "c\ud800"}]) == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )
    adjudicated = citelens.compute_citation_support_metrics(
        [{"claim_id": "c", "citations": ["e"]}],
        [{"evidence_id": "e", "start": 0, "end": 1}],
        None,
        [{"claim_id": "c", "evidence_id": "e", "label": "\ud800supports"}],
    )
    assert adjudicated.citation_precision == 1.0


def test_nested_citation_lists_with_mixed_items() -> None:
    # items: an id, a record with a sub-span, an int id; the record's span [1, 3) lies inside
    claims = [{"claim_id": "c", "citations": ["e1", {"evidence_id": "e2", "span": [1, 3]}, 7]}]
    evidence = [
        {"evidence_id": "e1", "start": 0, "end": 4},
        {"evidence_id": "e2", "start": 0, "end": 4},
        {"evidence_id": 7, "start": 0, "end": 4},
    ]
    report = citelens.compute_citation_support_metrics(claims, evidence)
    assert report.citation_count == 3
    assert report.deterministic.valid_citation_count == 3
    assert oracle_outcome(claims, evidence) == outcome(claims, evidence)
    # a None item is not an identifier; an item {"id": ...} passes step 8 but has no edge
    assert error_of([{"claim_id": "c", "citations": ["e1", None]}]) == (
        "identifier must be a string",
        "identifier",
    )
    assert error_of([{"claim_id": "c", "citations": [{"id": "e1"}]}]) == (
        "citation requires claim and evidence identifiers",
        "record",
    )
    # a mapping item whose claim_id key holds None gets no default claim
    assert error_of([{"claim_id": "c", "citations": [{"evidence_id": "e", "claim_id": None}]}]) == (
        "citation requires claim and evidence identifiers",
        "record",
    )


def test_citation_pairs_and_compact_citations() -> None:
    assert error_of([], [], [("c", "e"), ("c",)]) == (
        "citation tuple must contain two identifiers",
        "record",
    )
    assert error_of([], [], [("c", None)]) == ("identifier must be a string", "identifier")
    assert error_of([], [], ["ce"]) == ("citation records must be mappings or pairs", "record")
    # compact: the key is the claim, each item one edge; keys are not pre-validated
    report = citelens.compute_citation_support_metrics(
        [{"claim_id": "c"}], [{"evidence_id": "e", "start": 0, "end": 2}], {"c": ["e", "e"]}
    )
    assert report.citation_count == 1  # two identical plain edges: one after de-duplication
    assert report.deterministic.duplicate_citation_count == 1
    assert error_of([], [], {"c": 2.5}) == (
        "citation values must be identifiers or records",
        "record",
    )
    # running bound: the 4th item overall exceeds citations=3
    assert error_of(
        [], [], {"a": ["e1", "e2"], "b": ["e3", "e4"]}, limits=citelens.Limits(citations=3)
    ) == (
        "citation collection exceeds the record limit",
        "limit",
    )


def test_compact_adjudications_use_the_key_as_claim() -> None:
    report = citelens.compute_citation_support_metrics(
        [{"claim_id": "c", "citations": ["e"]}],
        [{"evidence_id": "e", "start": 0, "end": 1}],
        None,
        {"c": {"evidence_id": "e", "label": "supports"}},
    )
    assert report.citation_precision == 1.0
    assert error_of([], [], None, {"c": {"evidence_id": "e"}, "": {}}) == (
        "identifier is empty, bounded, and control-free",
        "identifier",
    )


def test_source_lengths() -> None:
    report = citelens.compute_citation_support_metrics(
        [{"claim_id": "c", "source_id": "s", "start": 0, "end": 5}], source_lengths={" s ": 4}
    )
    # the key normalises to "s"; length 4 < end 5: out of bounds
    assert report.deterministic.invalid_claim_span_count == 1
    assert error_of([], source_lengths={"s": 2.0}) == ("source lengths must be integers", "value")
    assert error_of([], source_lengths=[("s", 1)]) == (
        "source_lengths must be a mapping",
        "collection",
    )


@pytest.mark.parametrize("bad", [object(), b"x", {1, 2}])
def test_foreign_values_are_not_identifiers(bad: Any) -> None:
    assert error_of([{"claim_id": bad}]) == ("identifier must be a string", "identifier")


CLEAN_CLAIMS = [{"claim_id": "c1", "citations": ["e1"]}, {"claim_id": "c2", "start": 0, "end": 4}]
CLEAN_EVIDENCE = [
    {"evidence_id": "e1", "start": 0, "end": 9, "source_id": "s1"},
    {"evidence_id": "e2", "start": 2, "end": 6},
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    citations=st.one_of(
        st.lists(citation_entry(), max_size=5), compact(citation_values, compact_keys)
    ),
    adjudications=st.one_of(
        st.lists(adjudication_item(), max_size=5), compact(adjudication_item(), compact_keys)
    ),
    small=st.booleans(),
)
def test_later_stages_equal_the_oracle(citations: Any, adjudications: Any, small: bool) -> None:
    # clean claims and evidence, so that the citation and adjudication stages decide
    limits = citelens.Limits(citations=4, adjudications=3) if small else None
    args = (CLEAN_CLAIMS, CLEAN_EVIDENCE, citations, adjudications)
    assert outcome(*args, limits=limits) == oracle_outcome(*args, limits=limits)
