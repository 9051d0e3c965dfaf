"""Fuzzing ``citelens.review`` with near-valid inputs (issue 10): the complete canary scenario
of ``tests/review/_scenario.py`` with one argument, one nested field, one record changed after
construction or one byte range of the sealed JSON mutated, so the fuzz gets past the first
check; a mutated private document is re-sealed with the scenario key, so the import reaches its
later checks. The review CLI reads files (the library does not): its file bytes are fuzzed too.
Every call satisfies ``_review.check``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citelens.review as rv
from citelens.errors import SummaryReviewError
from citelens.review._common import cj
from review import _scenario as sc  # tests/review: the canary scenario

from ._review import (
    _SPLICES,
    ANY,
    EXAMPLES,
    FUZZ,
    HEAVY,
    JSONISH,
    _clean,
    _document,
    _gate_kwargs,
    _public_checks,
    _public_export,
    _public_import,
    _public_render,
    _request_of,
    _reseal,
    check,
    imported,
    mutated,
    scenario,
)

pytestmark = pytest.mark.fuzz


# --------------------------------------------------------------------------------------------
# Near-valid inputs


@HEAVY
@given(st.data())
def test_export_with_one_record_field_mutated(data: st.DataObject) -> None:
    s = scenario()
    kwargs = s.export_kwargs()
    field = data.draw(st.sampled_from(["claims", "evidence", "bindings", "summary"]))
    if field == "bindings":
        # ReviewBinding does not validate (review.md §5.1): any field may be hostile
        index = data.draw(st.integers(0, len(kwargs["bindings"]) - 1))
        name = data.draw(
            st.sampled_from(["case_ref", "candidate_identity", "claim_id", "evidence_id"])
        )
        old = kwargs["bindings"][index]
        parts = {n: getattr(old, n) for n in ("case_ref", "candidate_identity")}
        parts.update(claim_id=old.claim_id, evidence_id=old.evidence_id)
        parts[name] = data.draw(ANY)
        kwargs["bindings"][index] = rv.ReviewBinding(**parts)
    elif field == "summary":
        kwargs["summary"] = data.draw(st.text(max_size=3).map(lambda t: sc.SUMMARY + t))
    else:
        kwargs[field] = data.draw(mutated(kwargs[field]))
    check(lambda: rv.export_summary_review(**kwargs), _public_export, "invalid_review_export")


@HEAVY
@given(st.data())
def test_import_with_one_document_field_mutated(data: st.DataObject) -> None:
    s = scenario()
    document = data.draw(mutated(_document(), st.one_of(JSONISH, ANY)))
    kwargs = s.import_kwargs(minimum_cell_size=2)
    result = check(
        lambda: rv.import_summary_review(document, **kwargs),
        _public_import,
        "invalid_review_import",
    )
    if not isinstance(result, BaseException):  # a harmless change, e.g. another known reason
        assert result.to_dict()["states"]["accepted"] + result.to_dict()["states"]["unclear"] <= 3


@HEAVY
@given(st.data())
def test_import_with_current_artifacts_mutated(data: st.DataObject) -> None:
    s = scenario()
    kwargs = s.import_kwargs(minimum_cell_size=2)
    field = data.draw(st.sampled_from(["claims", "evidence"]))
    kwargs[field] = data.draw(mutated(kwargs[field]))
    check(
        lambda: rv.import_summary_review(_document(), **kwargs),
        _public_import,
        "invalid_review_import",
    )


@FUZZ
@given(st.data())
def test_import_with_resealed_private_document_mutated(data: st.DataObject) -> None:
    s = scenario()
    private = json.loads(s.sealed.private_json)
    changed = data.draw(mutated(private, JSONISH))
    try:
        text = cj(changed)
    except ValueError:  # e.g. an int beyond the digit limit: use the plain serialisation
        text = s.sealed.private_json
    kwargs = {**s.import_kwargs(minimum_cell_size=2), "sealed": _reseal(text)}
    result = check(
        lambda: rv.import_summary_review(_document(), **kwargs),
        _public_import,
        "invalid_review_import",
    )
    if _request_of(changed) != private["request"]:  # the request digest no longer matches
        assert isinstance(result, SummaryReviewError)


@FUZZ
@given(st.data())
def test_import_with_sealed_json_text_spliced(data: st.DataObject) -> None:
    s = scenario()
    original = s.sealed.private_json
    # splice at an object start or at any character, optionally cutting a few characters
    starts = [i + 1 for i, ch in enumerate(original) if ch == "{"]
    at = data.draw(st.one_of(st.sampled_from(starts), st.integers(0, len(original))))
    cut = data.draw(st.integers(0, 3))
    text = original[:at] + data.draw(_SPLICES) + original[at + cut :]
    kwargs = {**s.import_kwargs(minimum_cell_size=2), "sealed": _reseal(text)}
    result = check(
        lambda: rv.import_summary_review(_document(), **kwargs),
        _public_import,
        "invalid_review_import",
    )
    try:
        same = _request_of(json.loads(text)) == json.loads(original)["request"]
    except (ValueError, RecursionError):
        same = False
    if not same:  # unreadable, or the request changed: its digest no longer matches
        assert isinstance(result, SummaryReviewError)


@HEAVY
@given(st.data())
def test_gate_with_one_field_mutated(data: st.DataObject) -> None:
    kwargs = _gate_kwargs()
    field = data.draw(
        st.sampled_from(
            ["thresholds", "required_spans", "claims", "evidence", "protected_surfaces"]
        )
    )
    kwargs[field] = data.draw(mutated(kwargs[field]))
    result = check(lambda: rv.evaluate_summary_gate(**kwargs), _public_checks)
    assert not isinstance(result, BaseException)


# --------------------------------------------------------------------------------------------
# Records changed after construction (object.__setattr__ defeats frozen): every boundary checks
# them again, as support does for its typed records


def _tampered(record: Any, name: str, value: Any) -> Any:
    copy = dataclasses.replace(record)  # a fresh, validated copy; then changed behind its back
    object.__setattr__(copy, name, value)
    return copy


def _nested(data: st.DataObject, record: Any) -> Any:
    """``record`` with one field, or one field of one record inside it, set to a hostile value."""
    name = data.draw(st.sampled_from(sorted(record.__dataclass_fields__)))
    inner = getattr(record, name)
    if (
        type(inner) is tuple
        and inner
        and dataclasses.is_dataclass(inner[0])
        and data.draw(st.booleans())
    ):
        index = data.draw(st.integers(0, len(inner) - 1))
        child = _nested(data, inner[index])
        items = [*inner[:index], child, *inner[index + 1 :]]
        # the changed record inside the tuple the constructor stored, or inside another
        # sequence (which the constructor would have converted)
        container = data.draw(st.sampled_from([tuple, list, iter]))
        return _tampered(record, name, container(items))
    return _tampered(record, name, data.draw(ANY))


@FUZZ
@given(st.data())
def test_tampered_packets_and_mapping(data: st.DataObject) -> None:
    s = scenario()
    packets, mapping = list(s.packets), s.mapping
    if data.draw(st.booleans()):
        packets[0] = _nested(data, packets[0])
    else:
        mapping = _nested(data, mapping)
    audit = check(lambda: rv.verify_sealed_identity_mapping(packets, mapping, sc.KEY))
    check(lambda: rv.validate_packet_balance(mapping))
    kwargs = {**s.export_kwargs(), "packets": packets, "mapping": mapping}
    check(lambda: rv.export_summary_review(**kwargs), _public_export, "invalid_review_export")
    if isinstance(audit, rv.MappingAudit):  # a changed record is not silently accepted ...
        # ... unless the change kept it valid and bound (e.g. another valid excerpt text)
        assert not audit.valid or all(rv.BlindedPacket.from_dict(p.to_dict()) for p in packets)


@FUZZ
@given(st.data())
def test_tampered_render_inputs(data: st.DataObject) -> None:
    kwargs = sc.setup_kwargs()
    which = data.draw(st.sampled_from(["cases", "rubric", "conflict_of_interest"]))
    if which == "conflict_of_interest":
        kwargs[which] = _nested(data, kwargs[which])
    else:
        kwargs[which] = [_nested(data, kwargs[which][0]), *kwargs[which][1:]]
    check(lambda: rv.render_blinded_packets(**kwargs), _public_render)


@HEAVY  # a gate evaluation per example
@given(st.data())
def test_tampered_decisions_and_import_result(data: st.DataObject) -> None:
    decision = _nested(data, rv.ReviewerDecision("case", "reviewer", "supports"))
    other = rv.ReviewerDecision("case", "reviewer-2", "supports")
    check(lambda: rv.reviewer_agreement_report([decision, other], minimum_cell_size=2))
    result = _nested(data, imported())
    kwargs = {**_gate_kwargs(), "review_import": result}
    matched = check(
        lambda: result.matches(
            kwargs["claims"], kwargs["evidence"], summary=sc.SUMMARY, source=sc.SOURCE
        )
    )
    assert type(matched) is bool
    checks = check(lambda: rv.evaluate_summary_gate(**kwargs), _public_checks)
    assert not isinstance(checks, BaseException)


# --------------------------------------------------------------------------------------------
# The review CLI reads files (the library functions do not): fuzz the file bytes


SAMPLES = Path(__file__).resolve().parents[2] / "data-samples" / "review"
CLI = settings(
    FUZZ,
    max_examples=EXAMPLES if "CITELENS_FUZZ_EXAMPLES" in os.environ else min(EXAMPLES, 10),
)
_BYTES = st.one_of(
    _SPLICES.map(lambda t: t.encode("utf-8", "surrogatepass")),  # lone surrogate: bad UTF-8
    st.binary(max_size=6),
    st.sampled_from(
        [b"\xff\xfe", b"\xc3", b"\xef\xbb\xbf", b'"CANARY-bytes":', b"PAR1\x00\x00PAR1"]
    ),
)
_WHOLE = st.sampled_from(
    [
        b"",
        b"null",
        b"[]",
        b"{}",
        b'"CANARY-whole"',
        b"9" * 5000,
        b"[" * 100_000,
        b'{"a":' * 2000 + b"1" + b"}" * 2000,
        b'{"CANARY-k":1,"CANARY-k":2}',
        b"PAR1" + b"\x00" * 16 + b"PAR1",
        b"\x80CANARY",
    ]
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample review rendered and exported once: every file the import and gate read."""
    from citelens.cli import main

    work = tmp_path_factory.mktemp("review-cli")
    for path in SAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, work / path.name)
    key = str(work / "demo-key.txt")
    packets, mapping = str(work / "packets.json"), str(work / "mapping.json")
    render = ["review", "render", str(work / "setup.json"), "--key-file", key]
    export = ["review", "export", "--packets", packets, "--mapping", mapping, "--key-file", key]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*render, "--packets-out", packets, "--mapping-out", mapping]) == 0
        assert (
            main(
                [
                    *export,
                    *("--bindings", str(work / "bindings.json"), *_cli_artifacts(work)),
                    *("--evidence-kind", "reviewer", "--sealed-out", str(work / "sealed.json")),
                ]
            )
            == 0
        )
        unchanged = [
            *("review", "import", str(work / "returned-resolved.json")),
            *("--sealed", str(work / "sealed.json"), "--key-file", key),
            *("--minimum-cell-size", "2", *_cli_artifacts(work)),
        ]
        assert main(unchanged) == 0  # the control: unchanged files import completely
    return work


def _cli_artifacts(work: Path) -> list[str]:
    return [
        *("--claims", str(work / "claims.json"), "--evidence", str(work / "evidence.json")),
        *("--summary", str(work / "summary.txt"), "--source", str(work / "source.txt")),
    ]


def _changed_file(data: st.DataObject, original: bytes) -> bytes:
    if data.draw(st.integers(0, 3)) == 0:
        return data.draw(_WHOLE)
    at = data.draw(st.integers(0, len(original)))
    cut = data.draw(st.integers(0, 3))
    return original[:at] + data.draw(_BYTES) + original[at + cut :]


def _run_cli(argv: list[str]) -> None:
    """Run the CLI: exit 0, 1 or 2 (never 3, an internal error), and on failure one line of
    the fixed form on stderr; no canary on stdout or stderr."""
    from citelens.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code in (0, 1, 2), err.getvalue()
    _clean(out.getvalue(), err.getvalue())
    if code == 2:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith("citelens: error [")


@CLI
@given(st.data())
def test_cli_import_with_a_file_changed(exported: Path, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["returned-resolved.json", "sealed.json", "claims.json"]))
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for path in exported.iterdir():
            shutil.copy(path, work / path.name)
        (work / name).write_bytes(_changed_file(data, (exported / name).read_bytes()))
        _run_cli(
            [
                *("review", "import", str(work / "returned-resolved.json")),
                *("--sealed", str(work / "sealed.json"), "--key-file", str(work / "demo-key.txt")),
                *("--minimum-cell-size", "2", *_cli_artifacts(work)),
            ]
        )


@CLI
@given(st.data())
def test_cli_gate_with_a_file_changed(exported: Path, data: st.DataObject) -> None:
    name = data.draw(
        st.sampled_from(["thresholds.json", "protected_surfaces.json", "required_spans.json"])
    )
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for path in exported.iterdir():
            shutil.copy(path, work / path.name)
        (work / name).write_bytes(_changed_file(data, (exported / name).read_bytes()))
        _run_cli(
            [
                *("review", "gate", *_cli_artifacts(work)),
                *("--thresholds", str(work / "thresholds.json")),
                *("--protected-surfaces", str(work / "protected_surfaces.json")),
                *("--required-spans", str(work / "required_spans.json")),
            ]
        )
