"""Every export and import check, in the contract's order (review.md §5.2, §7.1, §8)."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.review import (
    ImportedSummaryReview,
    ReviewBinding,
    SealedSummaryReview,
    SummaryReviewError,
    export_summary_review,
    import_summary_review,
    render_blinded_packets,
)
from citelens.review._common import DOMAIN_SEAL, H, cj, keyed_digest
from citelens.review._export import REQUEST_KEYS, Reject, export_impl
from citelens.review._import import _body_digest, import_impl
from citelens.support import AtomicClaim, EvidenceSpan

from . import _scenario as sc

SCENARIO = sc.build("reviewer")


def _export_code(**override: Any) -> str:
    kwargs = SCENARIO.export_kwargs()
    kwargs.update(override)
    with pytest.raises(Reject) as info:
        export_impl(**kwargs)
    with pytest.raises(SummaryReviewError) as public:
        export_summary_review(**kwargs)
    assert str(public.value) == "invalid_review_export" and public.value.category == "review"
    assert public.value.__cause__ is None and public.value.__context__ is None
    return info.value.code


def test_export_is_deterministic_and_binding_order_free() -> None:
    kwargs = SCENARIO.export_kwargs()
    first = export_summary_review(**kwargs)
    kwargs["bindings"] = list(reversed(kwargs["bindings"]))
    kwargs["claims"] = list(reversed(kwargs["claims"]))
    kwargs["evidence"] = tuple(reversed(kwargs["evidence"]))
    second = export_summary_review(**kwargs)
    assert first[0] == second[0] and first[1] == second[1]
    assert first[0]["request_digest"] == H(
        {k: v for k, v in first[0].items() if k != "request_digest"}
    )


def test_typed_records_export_identically() -> None:
    claims = [AtomicClaim.from_mapping(c) for c in sc.claims()]
    evidence = [EvidenceSpan.from_mapping(e) for e in sc.evidence()]
    kwargs = SCENARIO.export_kwargs()
    request, sealed = export_summary_review(**{**kwargs, "claims": claims, "evidence": evidence})
    assert request == SCENARIO.request and sealed == SCENARIO.sealed


def test_export_checks() -> None:
    assert _export_code(rubric_version=0) == "invalid_rubric"
    assert _export_code(rubric_version=True) == "invalid_rubric"
    assert _export_code(evidence_kind="human") == "invalid_evidence_kind"
    assert _export_code(bindings=iter(sc.bindings())) == "invalid_collection"
    assert _export_code(claims={"c": [0, 5]}) == "invalid_collection"
    assert _export_code(sealing_key=b"z" * 32) == "invalid_mapping"
    assert _export_code(sealing_key="k") == "invalid_mapping"
    assert _export_code(packets=SCENARIO.packets[:1]) == "invalid_mapping"
    uncited = [*sc.claims(), {"claim_id": "c3", "claim_span": [0, 3]}]
    assert _export_code(claims=uncited) == "invalid_machine_inputs"
    labelled = sc.evidence()
    labelled[0] = {**labelled[0], "claim_id": sc.CLAIMS[0], "relation": "supported"}
    assert _export_code(evidence=labelled) == "invalid_machine_inputs"
    no_span = sc.claims()
    del no_span[0]["claim_span"]
    assert _export_code(claims=no_span) == "invalid_machine_inputs"
    long_claim = sc.claims()
    long_claim[1]["claim_span"] = [47, len(sc.SUMMARY) + 1]
    assert _export_code(claims=long_claim) == "artifact_span_mismatch"
    length = sc.claims()
    length[0]["source_length"] = len(sc.SUMMARY) + 1
    assert _export_code(claims=length) == "artifact_span_mismatch"
    assert _export_code(source=sc.SOURCE + " more") == "artifact_span_mismatch"
    bindings = sc.bindings()
    assert _export_code(bindings=[*bindings, bindings[0]]) == "invalid_binding"
    assert _export_code(bindings=[{"case_ref": sc.CASE}]) == "invalid_binding"
    stranger = ReviewBinding(sc.CASE, sc.IDENTITY, sc.CLAIMS[1], sc.EVIDENCE[0])
    assert _export_code(bindings=[stranger]) == "invalid_binding"
    padded = ReviewBinding(sc.CASE, sc.IDENTITY, " " + sc.CLAIMS[0], sc.EVIDENCE[0])
    assert _export_code(bindings=[padded, *bindings[1:]]) == "invalid_binding"
    lost = dataclasses.replace(bindings[0], case_ref="nowhere")
    assert _export_code(bindings=[lost, *bindings[1:]]) == "reviewer_recused"
    other = dataclasses.replace(bindings[0], candidate_identity="CANARY-MODEL-beta")
    assert _export_code(bindings=[other, *bindings[1:]]) == "stale_output"
    unknown = dataclasses.replace(bindings[0], candidate_identity="ghost")
    assert _export_code(bindings=[unknown, *bindings[1:]]) == "stale_output"
    edited = sc.SOURCE.replace("community-acquired", "community-acquirex")
    assert _export_code(source=edited) == "stale_evidence"
    assert _export_code(bindings=bindings[:2]) == "incomplete_binding"
    assert _export_code(bindings=[]) == "incomplete_binding"


def test_export_stale_evidence_when_excerpt_missing_from_packet() -> None:
    setup = sc.setup_kwargs()
    case = setup["cases"][0]
    setup["cases"][0] = dataclasses.replace(case, source_evidence=case.source_evidence[:2])
    packets, mapping = render_blinded_packets(**setup)
    kwargs = {**SCENARIO.export_kwargs(), "packets": packets, "mapping": mapping}
    with pytest.raises(Reject) as info:
        export_impl(**kwargs)
    assert info.value.code == "stale_evidence"


def test_export_inconsistent_rubric() -> None:
    # The rubric is not covered by the mapping commitment, so the mapping still verifies.
    packets = SCENARIO.packets
    changed = dataclasses.replace(packets[1].rubric[0], maximum_score=3)
    packets = (packets[0], dataclasses.replace(packets[1], rubric=(changed,)))
    kwargs = {**SCENARIO.export_kwargs(), "packets": packets}
    with pytest.raises(Reject) as info:
        export_impl(**kwargs)
    assert info.value.code == "inconsistent_rubric"


# --------------------------------------------------------------------------------------------


def _import_code(document: Any, **override: Any) -> str:
    kwargs = SCENARIO.import_kwargs()
    kwargs.update(override)
    with pytest.raises(Reject) as info:
        import_impl(document, **kwargs)
    with pytest.raises(SummaryReviewError) as public:
        import_summary_review(document, **kwargs)
    assert str(public.value) == "invalid_review_import" and public.value.category == "review"
    assert public.value.__cause__ is None and public.value.__context__ is None
    return info.value.code


def _resealed(private: Any) -> SealedSummaryReview:
    text = cj(private)
    return SealedSummaryReview(text, keyed_digest(sc.KEY, DOMAIN_SEAL, text.encode()))


def test_import_sealed_and_request_checks() -> None:
    good = SCENARIO.returned()
    assert _import_code(good, sealed=SCENARIO.sealed.private_json) == "invalid_sealed_review"
    huge = SealedSummaryReview(" " * 32_000_001, SCENARIO.sealed.commitment)
    assert _import_code(good, sealed=huge) == "invalid_sealed_review"
    nan = SealedSummaryReview('{"x": NaN}', SCENARIO.sealed.commitment)
    assert _import_code(good, sealed=nan) == "invalid_seal"  # NaN cannot be re-canonicalised
    not_json = SealedSummaryReview("{", SCENARIO.sealed.commitment)
    assert _import_code(good, sealed=not_json) == "invalid_sealed_review"
    private = json.loads(SCENARIO.sealed.private_json)
    broken = copy.deepcopy(private)
    broken["request"]["rubric_version"] = 2
    assert _import_code(good, sealed=_resealed(broken)) == "invalid_request"  # digest differs
    extra = {**private, "note": 1}
    assert _import_code(good, sealed=_resealed(extra)) == "invalid_request"
    bad_binding = copy.deepcopy(private)
    bad_binding["bindings"][0]["extra"] = 1
    assert _import_code(good, sealed=_resealed(bad_binding)) == "invalid_request"
    # resealing the unchanged document with the right key reproduces the commitment
    assert _resealed(private) == SCENARIO.sealed


def test_import_return_document_checks() -> None:
    good = SCENARIO.returned()
    assert _import_code({**good, "comment": "x"}) == "invalid_record"
    assert _import_code(list(good.items())) == "invalid_record"
    assert _import_code({**good, "rubric_version": 1.0}) == "request_mismatch"
    assert _import_code({**good, "rubric_version": True}) == "request_mismatch"
    assert _import_code({**good, "evidence_kind": "synthetic"}) == "request_mismatch"
    assert _import_code({**good, "review_evidence_digest": None}) == "missing_review_evidence"
    assert _import_code(good, minimum_cell_size=1) == "invalid_minimum_cell_size"
    assert _import_code(good, minimum_cell_size=5.0) == "invalid_minimum_cell_size"


def test_import_stale_artifacts() -> None:
    good = SCENARIO.returned()
    assert _import_code(good, claims=tuple(sc.claims())[:1]) == "stale_artifacts"
    assert _import_code(good, claims=iter(sc.claims())) == "stale_artifacts"
    labelled = sc.evidence()
    labelled[0] = {**labelled[0], "claim_id": sc.CLAIMS[0], "label": "supports"}
    assert _import_code(good, evidence=labelled) == "stale_artifacts"
    assert _import_code(good, summary=sc.SUMMARY + " ") == "stale_artifacts"
    assert _import_code(good, source=sc.SOURCE.replace("72", "73")) == "stale_artifacts"
    assert _import_code(good, summary=b"bytes") == "stale_artifacts"


def test_import_decision_checks() -> None:
    refs = SCENARIO.refs

    def doc(mutate: Any) -> dict[str, Any]:
        document = SCENARIO.returned()
        mutate(document)
        return document

    assert _import_code(doc(lambda d: d["decisions"][0].update(note="x"))) == "invalid_record"
    assert _import_code(doc(lambda d: d.update(decisions=iter([])))) == "invalid_record"
    assert (
        _import_code(doc(lambda d: d["decisions"][0].update(review_ref="sha256:" + "0" * 64)))
        == "invalid_decision"
    )
    assert (
        _import_code(doc(lambda d: d["decisions"][0].update(reviewer_ref="alice")))
        == "invalid_decision"
    )
    assert (
        _import_code(doc(lambda d: d["decisions"][0].update(label="Supports")))
        == "invalid_decision"
    )
    assert (
        _import_code(doc(lambda d: d["decisions"][1].update(reviewer_ref=sc.REVIEWERS[0])))
        == "duplicate_decision"
    )
    assert (
        _import_code(doc(lambda d: d["decisions"][0].update(reason="because")))
        == "invalid_decision"
    )
    # first failure in document order wins: a bad label before a duplicate
    first = doc(
        lambda d: (
            d["decisions"][0].update(label="x"),
            d["decisions"][3].update(reviewer_ref=sc.REVIEWERS[0]),
        )
    )
    assert _import_code(first) == "invalid_decision"
    resolution = SCENARIO.resolution(0, "supports", "other")
    assert (
        _import_code(doc(lambda d: d.update(resolutions=[{**resolution, "x": 1}])))
        == "invalid_record"
    )
    assert (
        _import_code(doc(lambda d: d.update(resolutions=[resolution, resolution])))
        == "invalid_resolution"
    )
    assert (
        _import_code(doc(lambda d: d.update(resolutions=[{**resolution, "label": "yes"}])))
        == "invalid_resolution"
    )
    assert (
        _import_code(doc(lambda d: d.update(resolutions=[{**resolution, "adjudicator_ref": "a"}])))
        == "invalid_resolution"
    )
    assert (
        _import_code(doc(lambda d: d.update(resolutions=[{**resolution, "reason": None}])))
        == "invalid_resolution"
    )
    # resolutions only on real disagreements
    assert _import_code(doc(lambda d: d.update(resolutions=[resolution]))) == "invalid_adjudicator"
    single = doc(lambda d: (d["decisions"].pop(0), d.update(resolutions=[resolution])))
    assert _import_code(single) == "invalid_adjudicator"
    assert refs


def test_import_disagreement_rules() -> None:
    s = SCENARIO
    missing_reason = s.returned(labels={1: ("supports", "contradicts")})
    assert _import_code(missing_reason) == "missing_disagreement_reason"
    mixed = s.returned(labels={1: ("supports", "contradicts")}, reasons={1: "other"})
    mixed["decisions"][3]["reason"] = "evidence_quality"
    assert _import_code(mixed) == "missing_disagreement_reason"
    wrong = s.returned(
        labels={1: ("supports", "contradicts")},
        reasons={1: "other"},
        resolutions=[s.resolution(1, "supports", "evidence_quality")],
    )
    assert _import_code(wrong) == "inconsistent_disagreement_reason"
    unanimous_reason = s.returned(reasons={2: "other"})
    assert _import_code(unanimous_reason) == "unexpected_disagreement_reason"
    # a single decision's reason is only checked for being a valid code (kept on purpose)
    single = s.returned(reasons={0: "other"})
    single["decisions"].pop(0)
    imported = import_summary_review(single, **s.import_kwargs())
    assert imported.state_counts["incomplete"] == 1


def test_three_reviewers_and_states() -> None:
    s = SCENARIO
    document = s.returned(reviewers=3, labels={2: ("contradicts",) * 3})
    imported = import_summary_review(document, **s.import_kwargs(minimum_cell_size=2))
    assert imported.complete
    assert imported.citation_support.adjudication.contradicting_citation_count == 1
    agreement = imported.to_dict()["reviewer_agreement"]
    assert agreement["agreement"]["rate"] == 1.0 and agreement["agreement"]["denominator"] == 3
    # the decisions digest does not depend on decision order
    shuffled = copy.deepcopy(document)
    shuffled["decisions"].reverse()
    again = import_summary_review(shuffled, **s.import_kwargs(minimum_cell_size=2))
    assert again.decisions_digest == imported.decisions_digest
    assert again.to_dict() == imported.to_dict()


def test_imported_result_validation_and_matches() -> None:
    s = SCENARIO
    imported = import_summary_review(s.returned(), **s.import_kwargs())
    artifacts = s.artifacts()
    assert imported.matches(
        artifacts["claims"], artifacts["evidence"], summary=s.summary, source=s.source
    )
    assert not imported.matches("claims", None, summary=s.summary, source=s.source)
    assert not imported.matches(
        artifacts["claims"], artifacts["evidence"], summary=1, source=s.source
    )
    for change in [
        {"evidence_kind": "human"},
        {"request_digest": "sha256:x"},
        {"states": imported.states[:4]},
        {"states": (("accepted", -1), *imported.states[1:])},
        {"citation_support": imported.citation_support.to_dict()},
        {"reviewer_agreement": {}},
        {"adjudications": imported.adjudications[:2]},
        {"adjudications": list(imported.adjudications)},
    ]:
        with pytest.raises(SummaryReviewError) as info:
            dataclasses.replace(imported, **change)
        assert str(info.value) == "invalid_review_result"
        assert info.value.category == "report"
        assert info.value.__context__ is None
    assert isinstance(imported, ImportedSummaryReview)
    assert repr(imported) == "ImportedSummaryReview(<redacted>)"


def test_serialisation_shortcuts_are_exact() -> None:
    request, sealed = SCENARIO.request, SCENARIO.sealed
    private = json.loads(sealed.private_json)
    assert sealed.private_json == cj({"request": request, "bindings": private["bindings"]})
    body = {k: v for k, v in request.items() if k != "request_digest"}
    assert _body_digest(cj(private), private["request"]) == H(body)
    # a nested review row (never produced by an export) takes the exact, slower path
    odd = copy.deepcopy(private)
    odd["request"]["reviews"][0]["request"] = {"x": 1}
    odd_body = {k: odd["request"][k] for k in REQUEST_KEYS if k != "request_digest"}
    assert _body_digest(cj(odd), odd["request"]) == H(odd_body)


def test_mapping_citation_items_take_the_record_path() -> None:
    """Citation items given as records normalise through ``AtomicClaim.from_mapping``."""
    claims = sc.claims()
    for claim in claims:
        claim["citations"] = [{"evidence_id": e} for e in claim["citations"]]
    kwargs = {**SCENARIO.export_kwargs(), "claims": claims}
    request, _ = export_summary_review(**kwargs)
    assert request["reviews"] == SCENARIO.request["reviews"]


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.randoms(use_true_random=False))
def test_outputs_do_not_depend_on_input_order(seed: Any) -> None:
    kwargs = SCENARIO.export_kwargs()
    for name in ("bindings", "claims", "evidence"):
        items = list(kwargs[name])
        seed.shuffle(items)
        kwargs[name] = items
    for claim in kwargs["claims"]:
        seed.shuffle(claim["citations"])
    request, sealed = export_summary_review(**kwargs)
    assert cj(request) == cj(SCENARIO.request) and sealed == SCENARIO.sealed

    document = SCENARIO.returned(
        labels={0: ("supports", "irrelevant")},
        reasons={0: "evidence_quality"},
        resolutions=[SCENARIO.resolution(0, "supports", "evidence_quality")],
    )
    baseline = import_summary_review(document, **SCENARIO.import_kwargs(minimum_cell_size=2))
    seed.shuffle(document["decisions"])
    current = SCENARIO.import_kwargs(minimum_cell_size=2)
    seed.shuffle(current["claims"])
    seed.shuffle(current["evidence"])
    again = import_summary_review(document, **current)
    assert cj(again.to_dict()) == cj(baseline.to_dict())
