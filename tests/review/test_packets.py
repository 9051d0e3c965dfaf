"""Blinded packets and the sealed identity mapping (review.md §4)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.review import (
    BlindedCandidate,
    BlindedPacket,
    ComparisonCase,
    ConflictOfInterest,
    IdentityAssignment,
    MappingEntry,
    RubricCriterion,
    SealedIdentityMapping,
    SourceEvidence,
    SummaryReviewError,
    artifact_digest,
    render_blinded_packets,
    validate_packet_balance,
    verify_sealed_identity_mapping,
)

from . import _scenario as sc

D = "sha256:" + "a" * 64
KEY = b"k" * 32


def _raises(message: str, category: str, func: Any, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(SummaryReviewError) as info:
        func(*args, **kwargs)
    assert str(info.value) == message
    assert info.value.args == (message,)
    assert info.value.category == category
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_artifact_digest() -> None:
    assert artifact_digest("") == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )

    class Sub(str):
        pass

    for bad in [b"x", Sub("x"), "\ud800", None]:
        _raises("invalid_artifact", "input", artifact_digest, bad)


EVIDENCE = (SourceEvidence("ev-1", "text"),)
OUTPUTS = {"m-a": "one", "m-b": "two"}


@pytest.mark.parametrize(
    ("factory", "message", "category"),
    [
        (
            lambda: RubricCriterion("-bad", "q?", 0, 2),
            "criterion_ref: invalid_reference",
            "identifier",
        ),
        (lambda: RubricCriterion("ok", "  ", 0, 2), "question: invalid_text", "value"),
        (lambda: RubricCriterion("ok", "q" * 501, 0, 2), "question: invalid_text", "value"),
        (lambda: RubricCriterion("ok", "q?", 0, 5), "score_range: invalid_range", "value"),
        (lambda: RubricCriterion("ok", "q?", 2, 2), "score_range: invalid_range", "value"),
        (lambda: RubricCriterion("ok", "q?", True, 2), "score_range: invalid_range", "value"),
        (lambda: RubricCriterion("ok", "q?", 7, 11), "score_range: invalid_range", "value"),
        (lambda: SourceEvidence("a b", "x"), "evidence_ref: invalid_reference", "identifier"),
        (lambda: SourceEvidence("a", ""), "content: invalid_text", "value"),
        (
            lambda: ComparisonCase("c/1", EVIDENCE, OUTPUTS),
            "case_ref: invalid_reference",
            "identifier",
        ),
        (
            lambda: ComparisonCase("c", (), OUTPUTS),
            "source_evidence: invalid_sequence",
            "collection",
        ),
        (
            lambda: ComparisonCase("c", ("x",), OUTPUTS),
            "source_evidence: invalid_sequence",
            "collection",
        ),
        (
            lambda: ComparisonCase("c", EVIDENCE * 2, OUTPUTS),
            "source_evidence: duplicate_reference",
            "reference",
        ),
        (
            lambda: ComparisonCase("c", EVIDENCE, [("m", "x")]),
            "candidate_outputs: invalid_mapping",
            "collection",
        ),
        (
            lambda: ComparisonCase("c", EVIDENCE, {"m": "x"}),
            "candidate_outputs: invalid_count",
            "collection",
        ),
        (
            lambda: ComparisonCase("c", EVIDENCE, {f"m{i}": "x" for i in range(27)}),
            "candidate_outputs: invalid_count",
            "collection",
        ),
        (
            lambda: ComparisonCase("c", EVIDENCE, {"m a": "x", "m-b": "y"}),
            "candidate_identity: invalid_reference",
            "identifier",
        ),
        (
            lambda: ComparisonCase("c", EVIDENCE, {"m-a": "x", "m-b": " "}),
            "candidate_output: invalid_text",
            "value",
        ),
        (lambda: ConflictOfInterest("", D), "reviewer_ref: invalid_reference", "identifier"),
        (
            lambda: ConflictOfInterest("r", "sha256:AB"),
            "declaration_digest: invalid_digest",
            "value",
        ),
        (lambda: ConflictOfInterest("r", D, "maybe"), "conflict_status: invalid_status", "value"),
        (
            lambda: BlindedCandidate("candidate-A", "x"),
            "candidate_alias: invalid_alias",
            "identifier",
        ),
        (lambda: BlindedCandidate("candidate-a", "\n"), "candidate_content: invalid_text", "value"),
        (
            lambda: IdentityAssignment("cand-a", "m", D, D),
            "assignment_alias: invalid_alias",
            "identifier",
        ),
        (
            lambda: IdentityAssignment("candidate-a", "", D, D),
            "candidate_identity: invalid_reference",
            "identifier",
        ),
        (
            lambda: IdentityAssignment("candidate-a", "m", "x", D),
            "submission_manifest_digest: invalid_digest",
            "value",
        ),
        (
            lambda: IdentityAssignment("candidate-a", "m", D, D + "\n"),
            "output_digest: invalid_digest",
            "value",
        ),
    ],
)
def test_record_validation(factory: Any, message: str, category: str) -> None:
    _raises(message, category, factory)


def _assignment(slot: int, identity: str) -> IdentityAssignment:
    return IdentityAssignment("candidate-" + "abc"[slot], identity, D, D)


def test_mapping_entry_and_mapping_validation() -> None:
    a, b = _assignment(0, "m-a"), _assignment(1, "m-b")
    _raises("assignments: invalid_count", "collection", MappingEntry, "c", (a,))
    _raises("assignments: invalid_alias_order", "reference", MappingEntry, "c", (b, a))
    _raises(
        "assignments: duplicate_identity",
        "reference",
        MappingEntry,
        "c",
        (a, _assignment(1, "m-a")),
    )
    entry = MappingEntry("c", (a, b))
    _raises(
        "schema_version: unsupported_version",
        "value",
        SealedIdentityMapping,
        "s",
        D,
        (entry,),
        D,
        "v0",
    )
    _raises("mapping_entries: invalid_count", "collection", SealedIdentityMapping, "s", D, (), D)
    _raises(
        "mapping_entries: duplicate_case",
        "reference",
        SealedIdentityMapping,
        "s",
        D,
        (entry, entry),
        D,
    )
    _raises(
        "mapping_commitment: invalid_digest", "value", SealedIdentityMapping, "s", D, (entry,), "x"
    )


def test_packet_validation() -> None:
    packet = sc.build().packets[0]
    _raises(
        "candidates: invalid_alias_order",
        "reference",
        dataclasses.replace,
        packet,
        candidates=tuple(reversed(packet.candidates)),
    )
    _raises(
        "candidates: invalid_sequence", "collection", dataclasses.replace, packet, candidates=()
    )
    _raises("rubric: invalid_sequence", "collection", dataclasses.replace, packet, rubric=())
    _raises(
        "source_evidence: invalid_sequence",
        "collection",
        dataclasses.replace,
        packet,
        source_evidence=(),
    )
    _raises(
        "conflict_of_interest: invalid_metadata",
        "record",
        dataclasses.replace,
        packet,
        conflict_of_interest={"status": "cleared"},
    )
    _raises(
        "schema_version: unsupported_version",
        "value",
        dataclasses.replace,
        packet,
        schema_version="x",
    )


def test_round_trips_and_invalid_documents() -> None:
    scenario = sc.build()
    for packet in scenario.packets:
        assert BlindedPacket.from_dict(packet.to_dict()) == packet
        document = packet.to_dict()
        document["extra"] = 1
        _raises("packet: invalid_document", "record", BlindedPacket.from_dict, document)
        document = packet.to_dict()
        del document["candidates"][0]["content"]
        _raises("packet: invalid_document", "record", BlindedPacket.from_dict, document)
        assert "candidate_identity" not in packet.to_json()
        assert sc.IDENTITY not in packet.to_json()
    mapping = scenario.mapping
    assert SealedIdentityMapping.from_private_dict(mapping.to_private_dict()) == mapping
    document = mapping.to_private_dict()
    document["entries"][0]["assignments"][0]["note"] = "x"
    _raises(
        "mapping: invalid_document", "record", SealedIdentityMapping.from_private_dict, document
    )
    _raises("mapping: invalid_document", "record", SealedIdentityMapping.from_private_dict, [])


def test_render_check_order() -> None:
    good = sc.setup_kwargs()
    cases = [
        (
            {"packet_set_ref": "", "holdout_commitment_digest": "x"},
            "packet_set_ref: invalid_reference",
            "identifier",
        ),
        (
            {"holdout_commitment_digest": "x", "randomization_key": b""},
            "holdout_commitment_digest: invalid_digest",
            "value",
        ),
        ({"randomization_key": b"k" * 31}, "randomization_key: invalid_key", "input"),
        ({"randomization_key": bytearray(b"k" * 32)}, "randomization_key: invalid_key", "input"),
        (
            {"conflict_of_interest": None, "cases": []},
            "conflict_of_interest: invalid_metadata",
            "record",
        ),
        (
            {
                "conflict_of_interest": sc.setup_kwargs("recused")["conflict_of_interest"],
                "cases": [],
            },
            "conflict_of_interest: reviewer_recused",
            "review",
        ),
        ({"cases": []}, "cases: invalid_sequence", "collection"),
        ({"cases": [good["cases"][0]] * 2}, "cases: duplicate_reference", "reference"),
        ({"rubric": []}, "rubric: invalid_sequence", "collection"),
        ({"rubric": [good["rubric"][0]] * 2}, "rubric: duplicate_reference", "reference"),
        (
            {"cases": [good["cases"][0], ComparisonCase("x", EVIDENCE, OUTPUTS)]},
            "cases: inconsistent_candidates",
            "reference",
        ),
        (
            {"submission_manifest_digests": {}},
            "submission_manifest_digests: invalid_keys",
            "reference",
        ),
        (
            {
                "submission_manifest_digests": dict.fromkeys(
                    good["submission_manifest_digests"], "x"
                )
            },
            "submission_manifest_digest: invalid_digest",
            "value",
        ),
    ]
    for override, message, category in cases:
        kwargs = dict(good)
        kwargs.update(override)
        _raises(message, category, render_blinded_packets, **kwargs)


def _cases(n_cases: int, n_candidates: int) -> list[ComparisonCase]:
    return [
        ComparisonCase(
            f"case-{i}",
            (SourceEvidence("ev", f"excerpt {i}"),),
            {f"model-{j}": f"output {i} {j}" for j in range(n_candidates)},
        )
        for i in range(n_cases)
    ]


def _render(cases: list[ComparisonCase], key: bytes = KEY) -> Any:
    n = len(cases[0].candidate_outputs)
    return render_blinded_packets(
        packet_set_ref="set",
        cases=cases,
        rubric=[RubricCriterion("support", "Supported?", 0, 2)],
        conflict_of_interest=ConflictOfInterest("rev", D),
        holdout_commitment_digest=D,
        submission_manifest_digests={f"model-{j}": D for j in range(n)},
        randomization_key=key,
    )


@settings(max_examples=25, deadline=None)
@given(
    n_cases=st.integers(1, 12),
    n_candidates=st.integers(2, 6),
    seed=st.randoms(use_true_random=False),
)
def test_render_is_order_independent_balanced_and_verifies(
    n_cases: int, n_candidates: int, seed: Any
) -> None:
    cases = _cases(n_cases, n_candidates)
    packets, mapping = _render(cases)
    shuffled = list(cases)
    seed.shuffle(shuffled)
    packets2, mapping2 = _render(shuffled)
    assert packets == packets2
    assert mapping.to_private_json() == mapping2.to_private_json()
    balance = validate_packet_balance(mapping)
    assert balance.balanced and balance.maximum_slot_imbalance <= 1
    assert balance.packet_count == n_cases and balance.candidate_count == n_candidates
    audit = verify_sealed_identity_mapping(packets, mapping, KEY)
    assert audit.valid and audit.reason_codes == ("valid",)


def test_verification_reasons() -> None:
    packets, mapping = _render(_cases(4, 3))
    other_key = b"q" * 32
    audit = verify_sealed_identity_mapping(packets, mapping, other_key)
    assert audit.reason_codes == ("commitment_mismatch",)
    audit = verify_sealed_identity_mapping(packets[:-1], mapping, KEY)
    assert audit.reason_codes == ("mapping_mismatch",) and audit.packet_count == 3
    swapped = (packets[1], packets[0], *packets[2:])
    assert verify_sealed_identity_mapping(swapped, mapping, KEY).reason_codes == (
        "mapping_mismatch",
    )
    edited = dataclasses.replace(
        packets[0],
        candidates=(BlindedCandidate("candidate-a", "edited"), *packets[0].candidates[1:]),
    )
    audit = verify_sealed_identity_mapping((edited, *packets[1:]), mapping, KEY)
    assert audit.to_dict() == {
        "packet_count": 4,
        "reason_codes": ["mapping_mismatch"],
        "schema_version": "citelens.review.mapping_audit.v1",
        "valid": False,
    }
    both = verify_sealed_identity_mapping((edited, *packets[1:]), mapping, other_key)
    assert both.reason_codes == ("commitment_mismatch", "mapping_mismatch")
    assert verify_sealed_identity_mapping([], mapping, KEY).reason_codes == ("invalid_packet_set",)
    assert verify_sealed_identity_mapping(["x"], mapping, KEY).packet_count == 0
    _raises(
        "randomization_key: invalid_key",
        "input",
        verify_sealed_identity_mapping,
        packets,
        mapping,
        "k" * 32,
    )
    _raises("mapping: invalid_mapping", "record", verify_sealed_identity_mapping, packets, {}, KEY)
    _raises("mapping: invalid_mapping", "record", validate_packet_balance, None)


def test_unbalanced_mapping_is_reported() -> None:
    a, b = _assignment(0, "m-a"), _assignment(1, "m-b")
    b2, a2 = _assignment(0, "m-b"), _assignment(1, "m-a")
    same = [MappingEntry(f"c{i}", (a, b)) for i in range(3)]
    mapping = SealedIdentityMapping("s", D, tuple(same), D)
    balance = validate_packet_balance(mapping)
    # m-a sits in slot a three times and never in slot b: imbalance 3 - 0 = 3
    assert balance.to_dict() == {
        "balanced": False,
        "candidate_count": 2,
        "maximum_slot_imbalance": 3,
        "packet_count": 3,
        "schema_version": "citelens.review.balance.v1",
    }
    rotated = SealedIdentityMapping("s", D, (same[0], MappingEntry("c9", (b2, a2))), D)
    assert validate_packet_balance(rotated).balanced
