"""Privacy: no candidate identity, case or claim id, reviewer reference, key or text appears in
the public request, the public import result, gate checks, any error message or ``repr``
(review.md §12, conventions.md §5.4)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from citelens.review import DisagreementReason as Reason
from citelens.review import (
    ImportedSummaryReview,
    ReviewBinding,
    ReviewerDecision,
    SealedSummaryReview,
    SummaryReviewError,
    check_identifier_leakage,
    evaluate_summary_gate,
    export_summary_review,
    import_summary_review,
    render_blinded_packets,
)
from citelens.review._common import cj

from . import _scenario as sc


def _assert_clean(text: str) -> None:
    lowered = text.lower()
    for value in sc.PRIVATE_VALUES:
        assert value.lower() not in lowered, "a private value leaked"
    assert "canary" not in lowered


def _error_text(exc: BaseException) -> str:
    return " ".join([str(exc), repr(exc), repr(exc.args)])


def test_request_holds_no_private_value() -> None:
    scenario = sc.build("reviewer")
    _assert_clean(cj(scenario.request))
    # the private document does hold them (it stays under access control)
    assert sc.CLAIMS[0] in scenario.sealed.private_json
    assert sc.IDENTITY not in scenario.sealed.private_json


def test_import_result_and_gate_hold_no_private_value() -> None:
    scenario = sc.build("reviewer")
    document = scenario.returned(
        labels={0: ("supports", "irrelevant")},
        reasons={0: "evidence_quality"},
        resolutions=[scenario.resolution(0, "supports", "evidence_quality")],
    )
    imported = import_summary_review(document, **scenario.import_kwargs(minimum_cell_size=2))
    _assert_clean(cj(imported.to_dict()))
    _assert_clean(repr(imported))
    checks = evaluate_summary_gate(
        **scenario.artifacts(),
        thresholds=sc.THRESHOLDS,
        protected_surfaces=sc.PROTECTED,
        review_import=imported,
    )
    _assert_clean(cj([c.to_dict() for c in checks]))
    _assert_clean(repr(checks))


def test_reprs_are_redacted() -> None:
    scenario = sc.build("reviewer")
    setup = sc.setup_kwargs()
    objects: list[Any] = [
        scenario.mapping,
        *scenario.mapping.entries,
        *scenario.mapping.entries[0].assignments,
        *setup["cases"],
        setup["conflict_of_interest"],
        *scenario.packets,
        *scenario.packets[0].source_evidence,
        *scenario.packets[0].candidates,
        scenario.sealed,
        *sc.bindings(),
        ReviewerDecision(sc.REVIEWERS[0], sc.REVIEWERS[1], "supports", Reason.OTHER, True),
        check_identifier_leakage(sc.SUMMARY, sc.PROTECTED),
    ]
    for obj in objects:
        _assert_clean(repr(obj))
        _assert_clean(str(obj))
    assert repr(scenario.sealed) == "SealedSummaryReview(<redacted>)"
    assert repr(sc.bindings()[0]) == "ReviewBinding(<redacted>)"
    assert repr(scenario.mapping) == "SealedIdentityMapping(<redacted>)"


def _export_failures(scenario: sc.Scenario) -> list[dict[str, Any]]:
    good = scenario.export_kwargs()
    variants: list[dict[str, Any]] = []
    stale = dict(good, summary=good["summary"].replace("ceftriaxone", "ceftriaxonx"))
    variants.append(stale)
    wrong = dict(good, bindings=[ReviewBinding(sc.CASE, sc.IDENTITY, "CANARY-X", "CANARY-Y")])
    variants.append(wrong)
    variants.append(dict(good, claims=[{"claim_id": "CANARY-Z", "citations": 5.5}]))
    variants.append(dict(good, sealing_key=b"CANARYKEY-short"))
    return variants


def test_errors_never_echo_values() -> None:
    scenario = sc.build("reviewer")
    for kwargs in _export_failures(scenario):
        with pytest.raises(SummaryReviewError) as info:
            export_summary_review(**kwargs)
        assert str(info.value) == "invalid_review_export"
        _assert_clean(_error_text(info.value))
        assert info.value.__cause__ is None and info.value.__context__ is None

    document = scenario.returned()
    document["decisions"][0]["label"] = "CANARY-LABEL"
    bad_sealed = SealedSummaryReview('{"CANARY": "' + sc.CLAIMS[0] + '"}', "CANARY")
    for doc, overrides in [
        (document, {}),
        (scenario.returned(), {"sealed": bad_sealed}),
        (scenario.returned(), {"summary": "CANARY text"}),
        ({"CANARY": sc.CLAIMS[0]}, {}),
    ]:
        kwargs = scenario.import_kwargs()
        kwargs.update(overrides)
        with pytest.raises(SummaryReviewError) as info:
            import_summary_review(doc, **kwargs)
        assert str(info.value) == "invalid_review_import"
        _assert_clean(_error_text(info.value))
        assert info.value.__cause__ is None and info.value.__context__ is None

    setup = sc.setup_kwargs()
    setup["submission_manifest_digests"] = {"CANARY-ONLY": "sha256:" + "c" * 64}
    with pytest.raises(SummaryReviewError) as info:
        render_blinded_packets(**setup)
    _assert_clean(_error_text(info.value))


def test_caller_objects_that_raise_become_fixed_errors() -> None:
    class Exploding(dict):  # type: ignore[type-arg]
        def __getitem__(self, key: Any) -> Any:
            raise RuntimeError("CANARY upstream secret")

    scenario = sc.build("reviewer")
    kwargs = scenario.export_kwargs()
    kwargs["claims"] = [Exploding(claim_id="x")]
    with pytest.raises(SummaryReviewError) as info:
        export_summary_review(**kwargs)
    assert "secret" not in _error_text(info.value).lower()
    assert info.value.__context__ is None

    kwargs = scenario.import_kwargs()
    kwargs["evidence"] = [Exploding(evidence_id="x")]
    with pytest.raises(SummaryReviewError) as info:
        import_summary_review(scenario.returned(), **kwargs)
    assert "secret" not in _error_text(info.value).lower()
    assert info.value.__context__ is None


def test_imported_result_holds_no_decisions_or_bindings() -> None:
    scenario = sc.build("reviewer")
    imported = import_summary_review(scenario.returned(), **scenario.import_kwargs())
    published = json.dumps(imported.to_dict())
    for ref in scenario.refs:
        assert ref not in published  # review refs are not re-published either
    assert isinstance(imported, ImportedSummaryReview)
