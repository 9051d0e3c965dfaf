"""Regressions found by fuzzing the review API (issue 10, ``tests/fuzz/test_review_entry_points``).

* A ``tuple`` subclass was taken as it is, so its raising ``__iter__`` escaped as an internal
  error from ``ComparisonCase``, ``render_blinded_packets`` and
  ``verify_sealed_identity_mapping``.
* ``gate_passed`` raised whatever a caller iterable or item raised.
* Records changed after construction (``object.__setattr__`` defeats ``frozen``) were trusted by
  type: a changed packet or mapping gave internal errors, and packets whose rubric or conflict
  metadata had been replaced by garbage still verified as valid.

Every value below carries ``CANARY``; no message may show it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from citelens.review import (
    BlindedPacket,
    ComparisonCase,
    GateCheck,
    MappingAudit,
    ReviewerDecision,
    SummaryReviewError,
    evaluate_summary_gate,
    export_summary_review,
    gate_passed,
    import_summary_review,
    render_blinded_packets,
    reviewer_agreement_report,
    validate_packet_balance,
    verify_sealed_identity_mapping,
)

from . import _scenario as sc


class RaisingTuple(tuple):  # type: ignore[type-arg]
    """A tuple whose iteration raises (caller code behind an ``isinstance(…, tuple)``)."""

    def __iter__(self) -> Any:
        raise RuntimeError("CANARY-tuple")

    def __len__(self) -> int:
        raise RuntimeError("CANARY-tuple")


class Raising:
    """A value whose comparison, hash, length and iteration raise."""

    def _boom(self, *_args: object) -> Any:
        raise RuntimeError("CANARY-raising")

    __eq__ = __hash__ = __len__ = __iter__ = __str__ = _boom  # type: ignore[assignment]


def _fails(call: Callable[[], object], message: str) -> None:
    with pytest.raises(SummaryReviewError) as caught:
        call()
    error = caught.value
    assert str(error) == message and error.args == (message,)
    assert "CANARY" not in repr(error)
    assert error.__cause__ is None and error.__context__ is None


def _tampered(record: Any, name: str, value: Any) -> Any:
    copy = dataclasses.replace(record)
    object.__setattr__(copy, name, value)  # what a caller can do to a frozen dataclass
    return copy


# --------------------------------------------------------------------------------------------
# tuple subclasses are read through the guarded path


def test_tuple_subclass_source_evidence_is_an_invalid_sequence() -> None:
    _fails(
        lambda: ComparisonCase("CANARY-case", RaisingTuple(), {"a": "x", "b": "y"}),
        "source_evidence: invalid_sequence",
    )


def test_tuple_subclass_cases_and_rubric_are_invalid_sequences() -> None:
    kwargs = sc.setup_kwargs()
    _fails(
        lambda: render_blinded_packets(**{**kwargs, "cases": RaisingTuple()}),
        "cases: invalid_sequence",
    )
    _fails(
        lambda: render_blinded_packets(**{**kwargs, "rubric": RaisingTuple()}),
        "rubric: invalid_sequence",
    )


def test_tuple_subclass_packets_are_an_invalid_packet_set() -> None:
    scenario = sc.build()
    audit = verify_sealed_identity_mapping(RaisingTuple(), scenario.mapping, sc.KEY)
    # review.md §4.4: packets that cannot be read as BlindedPackets
    assert audit == MappingAudit(valid=False, reason_codes=("invalid_packet_set",), packet_count=0)


def test_benign_tuple_subclass_is_still_read() -> None:
    scenario = sc.build()

    class Packets(tuple):  # type: ignore[type-arg]
        pass

    audit = verify_sealed_identity_mapping(Packets(scenario.packets), scenario.mapping, sc.KEY)
    assert audit.valid and audit.packet_count == 2  # the scenario's two cases


# --------------------------------------------------------------------------------------------
# gate_passed fails closed


def test_gate_passed_is_false_for_anything_but_passing_checks() -> None:
    assert gate_passed([GateCheck("a", True), GateCheck("b", True)])
    assert not gate_passed(Raising())  # iter() raises
    assert not gate_passed(RaisingTuple())
    assert not gate_passed(5)  # not iterable
    assert not gate_passed(["CANARY"])  # not a GateCheck
    assert not gate_passed([GateCheck("a", 1)])  # truthy, but not the verdict True
    assert not gate_passed([GateCheck("a", Raising())])  # its truth value would raise

    def stream() -> Any:
        yield GateCheck("a", True)
        raise RuntimeError("CANARY-stream")

    assert not gate_passed(stream())


def test_gate_passed_stops_at_the_first_failing_check() -> None:
    read: list[int] = []

    def stream() -> Any:
        for index in range(3):
            read.append(index)
            yield GateCheck("a", index != 1)

    assert not gate_passed(stream())
    assert read == [0, 1]  # the third check is never read


# --------------------------------------------------------------------------------------------
# records changed after construction are checked again


def test_changed_packet_is_an_invalid_packet_set() -> None:
    scenario = sc.build()
    for name, value in (
        ("case_ref", Raising()),  # compared with the mapping: raised before
        ("candidates", 5),  # len() of an int: raised before
        ("rubric", "CANARY"),  # not compared by the audit: verified as valid before
        ("conflict_of_interest", None),  # idem
    ):
        packets = [_tampered(scenario.packets[0], name, value), scenario.packets[1]]
        audit = verify_sealed_identity_mapping(packets, scenario.mapping, sc.KEY)
        assert audit.reason_codes == ("invalid_packet_set",), name
        _fails(
            lambda packets=packets: export_summary_review(  # type: ignore[misc]
                **{**scenario.export_kwargs(), "packets": packets}
            ),
            "invalid_review_export",
        )


def test_changed_nested_candidate_is_an_invalid_packet_set() -> None:
    scenario = sc.build()
    packet = scenario.packets[0]
    candidates = (_tampered(packet.candidates[0], "alias", Raising()), *packet.candidates[1:])
    packets = [_tampered(packet, "candidates", candidates), scenario.packets[1]]
    audit = verify_sealed_identity_mapping(packets, scenario.mapping, sc.KEY)
    assert audit.reason_codes == ("invalid_packet_set",)


def test_changed_record_inside_a_list_is_an_invalid_packet_set() -> None:
    # the changed candidate is not inside the tuple the constructor stored, so checking
    # only the tuple's records would miss it: a sequence field must still be a tuple
    scenario = sc.build()
    packet = scenario.packets[0]
    candidates = [_tampered(packet.candidates[0], "alias", Raising()), *packet.candidates[1:]]
    packets = [_tampered(packet, "candidates", candidates), scenario.packets[1]]
    audit = verify_sealed_identity_mapping(packets, scenario.mapping, sc.KEY)
    assert audit.reason_codes == ("invalid_packet_set",)
    case = sc.setup_kwargs()["cases"][0]
    evidence = iter([_tampered(case.source_evidence[0], "evidence_ref", Raising())])
    kwargs = sc.setup_kwargs()
    kwargs["cases"] = [_tampered(case, "source_evidence", evidence), kwargs["cases"][1]]
    _fails(lambda: render_blinded_packets(**kwargs), "cases: invalid_sequence")


def test_changed_mapping_is_an_invalid_mapping() -> None:
    scenario = sc.build()
    for name, value in (("entries", Raising()), ("holdout_commitment_digest", Raising())):
        mapping = _tampered(scenario.mapping, name, value)
        _fails(
            lambda mapping=mapping: verify_sealed_identity_mapping(  # type: ignore[misc]
                scenario.packets, mapping, sc.KEY
            ),
            "mapping: invalid_mapping",
        )
        _fails(
            lambda mapping=mapping: validate_packet_balance(mapping),  # type: ignore[misc]
            "mapping: invalid_mapping",
        )


def test_changed_render_inputs_are_refused() -> None:
    kwargs = sc.setup_kwargs()
    case = _tampered(kwargs["cases"][0], "case_ref", Raising())
    _fails(
        lambda: render_blinded_packets(**{**kwargs, "cases": [case, kwargs["cases"][1]]}),
        "cases: invalid_sequence",
    )
    criterion = _tampered(kwargs["rubric"][0], "minimum_score", 99)
    _fails(
        lambda: render_blinded_packets(**{**kwargs, "rubric": [criterion]}),
        "rubric: invalid_sequence",
    )
    conflict = _tampered(kwargs["conflict_of_interest"], "reviewer_ref", Raising())
    _fails(
        lambda: render_blinded_packets(**{**kwargs, "conflict_of_interest": conflict}),
        "conflict_of_interest: invalid_metadata",
    )


def test_changed_decision_is_an_invalid_record() -> None:
    decision = _tampered(ReviewerDecision("CANARY-case", "r1", "supports"), "case_id", Raising())
    other = ReviewerDecision("CANARY-case", "r2", "supports")
    _fails(
        lambda: reviewer_agreement_report([decision, other], minimum_cell_size=2),
        "invalid_decision_record",
    )


def test_changed_import_result_does_not_match_and_fails_the_gate() -> None:
    scenario = sc.build()
    imported = import_summary_review(scenario.returned(), **scenario.import_kwargs())
    changed = _tampered(imported, "claim_digest", Raising())
    artifacts = scenario.artifacts()
    assert not changed.matches(
        artifacts["claims"], artifacts["evidence"], summary=sc.SUMMARY, source=sc.SOURCE
    )
    checks = evaluate_summary_gate(
        **artifacts,
        thresholds=sc.THRESHOLDS,
        protected_surfaces=sc.PROTECTED,
        review_import=changed,
    )
    # review.md §11.2 step 3: an import that does not match is invalid evaluation input
    assert [c.to_dict() for c in checks] == [
        {
            "gate": "summary_input",
            "passed": False,
            "reason": "invalid_evaluation_input",
            "details": {},
        }
    ]


def test_unchanged_records_still_pass() -> None:
    # the checks added at the boundaries accept what the constructors built
    scenario = sc.build()
    assert verify_sealed_identity_mapping(scenario.packets, scenario.mapping, sc.KEY).valid
    assert validate_packet_balance(scenario.mapping).balanced
    assert all(BlindedPacket.from_dict(p.to_dict()) == p for p in scenario.packets)


# --------------------------------------------------------------------------------------------
# leakage over many surfaces is not one scan of the text per surface


def _digest(surface: str) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(surface.encode()).hexdigest()


def test_leakage_decisions_of_the_shortcut_are_the_contract_ones() -> None:
    from citelens.review import check_identifier_leakage

    text = "JOHN   smith was seen; MRN:4471902. Annabel - (Ng)"
    surfaces = ["John Smith", "mrn:4471902", "Ann", "-", "ng", "smith was", "4471902 Annabel"]
    result = check_identifier_leakage(text, surfaces)
    # leak: case and whitespace folded; bounded by ". " after the record number; "-" has no
    # word run (always searched) and stands between spaces; "ng" between parentheses;
    # "smith was" inside the text. No leak: "Ann" inside "Annabel"; "4471902 Annabel" has
    # "." between the two words in the text, not whitespace only.
    leaked = ["john smith", "mrn:4471902", "-", "ng", "smith was"]
    assert list(result.leaked_token_hashes) == sorted(_digest(s) for s in leaked)
    assert result.checked_token_count == 7 and not result.passed


def test_leakage_over_many_surfaces_is_bounded_in_time() -> None:
    import time

    from citelens.review import check_identifier_leakage

    text = "Zebulon  QUACKENBUSH was seen. " + "filler " * 30_000  # about 210 kB
    surfaces = [f"CANARY-name{i} surname" for i in range(20_000)] + ["zebulon quackenbush"]
    started = time.perf_counter()
    result = check_identifier_leakage(text, surfaces)
    elapsed = time.perf_counter() - started
    # one leak (the name in the first sentence); 20,001 distinct surfaces checked
    assert result.leaked_token_hashes == (_digest("zebulon quackenbush"),)
    assert result.checked_token_count == 20_001
    # a regular-expression scan of the text per surface took about three minutes here (4.5 ms
    # per surface and 100 kB); set lookups take well under a second (the bound leaves room
    # for a loaded machine)
    assert elapsed < 5.0
