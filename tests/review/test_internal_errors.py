"""No silent fallback: a bug inside citelens is an internal error, never a review verdict.

Each test makes one internal step raise ``RuntimeError("secret")`` and checks that the public
entry point raises :class:`citelens.errors.InternalError` (category ``internal``, message naming
the exception type only, never chained) instead of collapsing it into ``invalid_review_export``,
``invalid_review_import``, a failing ``summary_input`` check or ``matches() == False``; and that
the ``citelens review`` command exits 3 for it.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

import citelens.review._agreement as agreement_module
import citelens.review._export as export_module
import citelens.review._gate as gate_module
import citelens.review._import as import_module
import citelens.review._packets as packets_module
from citelens.cli import main
from citelens.errors import InternalError, SummaryReviewError
from citelens.review import (
    ReviewBinding,
    ReviewerDecision,
    evaluate_summary_gate,
    export_summary_review,
    import_summary_review,
    render_blinded_packets,
    reviewer_agreement_report,
)

from . import _scenario as sc

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples" / "review"
# The one message for a RuntimeError: "internal error (" + type name + ")".
INTERNAL = "internal error (RuntimeError)"


def _boom(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("secret")


def _assert_internal(call: Callable[[], Any]) -> None:
    with pytest.raises(InternalError) as info:
        call()
    error = info.value
    assert str(error) == INTERNAL and error.args == (INTERNAL,)
    assert error.category == "internal"
    assert "secret" not in str(error)
    assert error.__cause__ is None and error.__context__ is None
    # an internal error is not a review error: callers that catch SummaryReviewError miss it
    assert not isinstance(error, SummaryReviewError)


def test_export_bug_is_internal_not_invalid_export(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = sc.build("reviewer")
    # step 5 of review.md §5.2 (normalising the claim and evidence spans) breaks
    monkeypatch.setattr(export_module, "_normalised", _boom)
    _assert_internal(lambda: export_summary_review(**scenario.export_kwargs()))


def test_export_passes_an_internal_error_of_support_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = sc.build("reviewer")

    def broken_support(*_args: Any, **_kwargs: Any) -> Any:
        # what citelens.support raises when its own kernel has a bug
        raise InternalError.of(RuntimeError("secret"))

    monkeypatch.setattr(export_module, "compute_citation_support_metrics", broken_support)
    _assert_internal(lambda: export_summary_review(**scenario.export_kwargs()))


def test_import_bug_is_internal_not_invalid_import(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = sc.build("reviewer")
    # the default return document has two agreeing reviewers per edge, so step 10 builds the
    # agreement summary from three edges; make that step break
    monkeypatch.setattr(import_module, "summarise_cases", _boom)
    _assert_internal(lambda: import_summary_review(scenario.returned(), **scenario.import_kwargs()))


def test_import_passes_an_internal_error_of_support_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = sc.build("reviewer")

    def broken_support(*_args: Any, **_kwargs: Any) -> Any:
        raise InternalError.of(RuntimeError("secret"))

    monkeypatch.setattr(import_module, "compute_citation_support_metrics", broken_support)
    _assert_internal(lambda: import_summary_review(scenario.returned(), **scenario.import_kwargs()))


def test_matches_raises_internal_instead_of_false(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = sc.build("reviewer")
    imported = import_summary_review(scenario.returned(), **scenario.import_kwargs())
    artifacts = scenario.artifacts()
    # unchanged artifacts match (review.md §8)
    assert imported.matches(
        artifacts["claims"],
        artifacts["evidence"],
        summary=artifacts["summary"],
        source=artifacts["source"],
    )
    monkeypatch.setattr(import_module, "_support", _boom)
    _assert_internal(
        lambda: imported.matches(
            artifacts["claims"],
            artifacts["evidence"],
            summary=artifacts["summary"],
            source=artifacts["source"],
        )
    )


def _gate_kwargs(scenario: sc.Scenario) -> dict[str, Any]:
    return {
        **scenario.artifacts(),
        "thresholds": dict(sc.THRESHOLDS),
        "protected_surfaces": list(sc.PROTECTED),
    }


def test_gate_bug_is_internal_not_summary_input(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = sc.build("reviewer")
    kwargs = _gate_kwargs(scenario)
    # without the fault the gate evaluates: its first check is the machine span check
    assert evaluate_summary_gate(**kwargs)[0].gate == "summary_machine_spans"
    monkeypatch.setattr(gate_module, "check_identifier_leakage", _boom)
    _assert_internal(lambda: evaluate_summary_gate(**kwargs))


def test_gate_validation_bug_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = sc.build("reviewer")
    monkeypatch.setattr(gate_module, "_rate", _boom)
    _assert_internal(lambda: evaluate_summary_gate(**_gate_kwargs(scenario)))


def test_render_bug_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(packets_module, "validate_packet_balance", _boom)
    _assert_internal(lambda: render_blinded_packets(**sc.setup_kwargs()))


def test_agreement_bug_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    # one case, two reviewers who agree (no reason): a valid agreement input (review.md §9.1)
    decisions = [
        ReviewerDecision("case-1", "reviewer-1", "supports"),
        ReviewerDecision("case-1", "reviewer-2", "supports"),
    ]
    assert reviewer_agreement_report(decisions, minimum_cell_size=2).to_dict()
    monkeypatch.setattr(agreement_module, "summarise_cases", _boom)
    _assert_internal(lambda: reviewer_agreement_report(decisions, minimum_cell_size=2))


# --------------------------------------------------------------------------------------------
# citelens review …: exit 3


@pytest.fixture()
def work(tmp_path: pathlib.Path) -> pathlib.Path:
    for path in SAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _render_args(work: pathlib.Path) -> list[str]:
    return [
        "review",
        "render",
        str(work / "setup.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--packets-out",
        str(work / "out" / "packets.json"),
        "--mapping-out",
        str(work / "out" / "mapping.json"),
    ]


def _artifacts(work: pathlib.Path) -> list[str]:
    return [
        "--claims",
        str(work / "claims.json"),
        "--evidence",
        str(work / "evidence.json"),
        "--summary",
        str(work / "summary.txt"),
        "--source",
        str(work / "source.txt"),
    ]


def _export_args(work: pathlib.Path) -> list[str]:
    return [
        "review",
        "export",
        "--packets",
        str(work / "out" / "packets.json"),
        "--mapping",
        str(work / "out" / "mapping.json"),
        "--key-file",
        str(work / "demo-key.txt"),
        "--bindings",
        str(work / "bindings.json"),
        *_artifacts(work),
        "--sealed-out",
        str(work / "out" / "sealed.json"),
    ]


def test_cli_render_and_export_exit_3(
    capsys: pytest.CaptureFixture[str], work: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(packets_module, "validate_packet_balance", _boom)
        assert main(_render_args(work)) == 3
        out, err = capsys.readouterr()
        assert out == "" and err == f"citelens: error [internal]: {INTERNAL}\n"
    assert main(_render_args(work)) == 0  # the same command without the fault
    capsys.readouterr()
    monkeypatch.setattr(export_module, "_normalised", _boom)
    assert main(_export_args(work)) == 3
    out, err = capsys.readouterr()
    assert out == "" and err == f"citelens: error [internal]: {INTERNAL}\n"
    assert not (work / "out" / "sealed.json").exists()


def test_cli_gate_exit_3(
    capsys: pytest.CaptureFixture[str], work: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [
        "review",
        "gate",
        *_artifacts(work),
        "--thresholds",
        str(work / "thresholds.json"),
        "--protected-surfaces",
        str(work / "protected_surfaces.json"),
    ]
    # without a review import the gate fails closed (missing adjudication): exit 1
    assert main(args) == 1
    out, _ = capsys.readouterr()
    assert json.loads(out)["passed"] is False
    monkeypatch.setattr(gate_module, "check_identifier_leakage", _boom)
    assert main(args) == 3
    out, err = capsys.readouterr()
    assert out == "" and err == f"citelens: error [internal]: {INTERNAL}\n"


# --------------------------------------------------------------------------------------------
# Caller objects that raise are still input, not internal errors (conventions.md §1.2)


class _Unhashable:
    """A caller object whose ``__hash__`` and ``__eq__`` raise."""

    def __hash__(self) -> int:
        raise RuntimeError("secret")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("secret")


def test_binding_ids_that_raise_fail_the_export() -> None:
    scenario = sc.build("reviewer")
    kwargs = scenario.export_kwargs()
    first = kwargs["bindings"][0]
    kwargs["bindings"][0] = ReviewBinding(
        first.case_ref,
        first.candidate_identity,
        _Unhashable(),  # type: ignore[arg-type]
        first.evidence_id,
    )
    with pytest.raises(SummaryReviewError) as info:
        export_summary_review(**kwargs)
    assert str(info.value) == "invalid_review_export" and info.value.category == "review"
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_threshold_mapping_that_raises_is_invalid_gate_input() -> None:
    class Exploding(Mapping[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise RuntimeError("secret")

        def __iter__(self) -> Iterator[str]:
            raise RuntimeError("secret")

        def __len__(self) -> int:
            return 4

    scenario = sc.build("reviewer")
    kwargs = {**_gate_kwargs(scenario), "thresholds": Exploding()}
    checks = evaluate_summary_gate(**kwargs)
    assert [c.to_dict() for c in checks] == [
        {
            "gate": "summary_input",
            "passed": False,
            "reason": "invalid_evaluation_input",
            "details": {},
        }
    ]
