"""Every message of the error catalogue (§2), triggered with canary-laden inputs.

Each error must carry the fixed message and category, hold no input value in ``str``,
``repr`` or ``args``, and be unchained (``__cause__`` and ``__context__`` both ``None``).
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pyarrow as pa
import pytest

from citelens import Limits
from citelens.errors import CitelensError, SummaryCitationError, SummaryCitationGateError
from citelens.summary_citations import (
    SummaryCitationMetrics,
    SummaryCitationReport,
    assert_summary_citation_gate,
    build_summary_citation_report,
    compute_summary_citation_metrics,
)

CANARY = "CANARY-7d1e"
EVIDENCE = [{"id": f"{CANARY}-e1", "start": 0, "end": 5, "value": f"{CANARY} value"}]
CLAIMS = [{"claim": f"{CANARY} text", "citations": [f"{CANARY}-e1"]}]


def _assert_clean(
    exc: BaseException, message: str, category: str, cls: type = SummaryCitationError
):
    assert type(exc) is cls
    assert str(exc) == message
    assert exc.args == (message,)
    assert getattr(exc, "category", None) == category
    assert exc.__cause__ is None
    assert exc.__context__ is None
    for text in (CANARY, "secret"):
        assert text not in str(exc)
        assert text not in repr(exc)


def _raises(func: Callable[[], Any], message: str, category: str) -> None:
    with pytest.raises(CitelensError) as info:
        func()
    _assert_clean(info.value, message, category)


class _Boom(Exception):
    pass


class ExplodingToDict:
    def to_dict(self) -> dict[str, Any]:
        raise _Boom(f"{CANARY} secret")


class ExplodingProperty:
    @property
    def to_dict(self) -> Any:
        raise _Boom(f"{CANARY} secret")


class ExplodingMapping(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise _Boom(f"{CANARY} secret")

    def __iter__(self) -> Iterator[str]:
        raise _Boom(f"{CANARY} secret")

    def __len__(self) -> int:
        return 1


class ExplodingStream:
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        raise _Boom(f"{CANARY} secret")


class RaisingCitelensError:
    def to_dict(self) -> dict[str, Any]:
        raise SummaryCitationError(f"{CANARY} secret", "input")


def _gen_then_raise() -> Iterator[Any]:
    yield CLAIMS[0]
    raise RuntimeError(f"{CANARY} upstream secret value")


@pytest.mark.parametrize("entry", [build_summary_citation_report, compute_summary_citation_metrics])
def test_alias_collisions(entry: Callable[..., Any]) -> None:
    _raises(
        lambda: entry(CLAIMS, EVIDENCE, summary_claims=CLAIMS),
        "claims was supplied more than once",
        "input",
    )
    _raises(
        lambda: entry(CLAIMS, EVIDENCE, source_evidence=EVIDENCE),
        "evidence was supplied more than once",
        "input",
    )
    _raises(
        lambda: entry(CLAIMS, EVIDENCE, source_records=EVIDENCE),
        "evidence was supplied more than once",
        "input",
    )
    _raises(
        lambda: entry(CLAIMS, source_evidence=EVIDENCE, source_records=EVIDENCE),
        "evidence was supplied more than once",
        "input",
    )


def test_not_iterable_and_raising_iterators() -> None:
    _raises(
        lambda: build_summary_citation_report(5, EVIDENCE),
        "claims must be an iterable of structured records",
        "collection",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, 3.5),
        "evidence must be an iterable of structured records",
        "collection",
    )
    _raises(
        lambda: build_summary_citation_report(_gen_then_raise(), EVIDENCE),
        "claims must be an iterable of structured records",
        "collection",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, _gen_then_raise()),
        "evidence must be an iterable of structured records",
        "collection",
    )


@pytest.mark.parametrize(
    "bad", [ExplodingToDict(), ExplodingProperty(), ExplodingMapping(), RaisingCitelensError()]
)
def test_inaccessible_caller_objects(bad: Any) -> None:
    # As a claim record, as an evidence record, and (for the mapping) as a whole argument.
    _raises(
        lambda: build_summary_citation_report([bad], EVIDENCE),
        "summary citation input is not accessible",
        "input",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, [bad]),
        "summary citation input is not accessible",
        "input",
    )
    if isinstance(bad, Mapping):
        _raises(
            lambda: build_summary_citation_report(bad, EVIDENCE),
            "summary citation input is not accessible",
            "input",
        )


def test_inaccessible_nested_citation_attribute() -> None:
    class Span:
        @property
        def start(self) -> int:
            raise _Boom(f"{CANARY} secret")

        __slots__ = ()

    _raises(
        lambda: build_summary_citation_report([{"citations": [Span()]}], EVIDENCE),
        "summary citation input is not accessible",
        "input",
    )


def test_file_errors(tmp_path: pathlib.Path) -> None:
    text_file = tmp_path / f"{CANARY}.txt"
    text_file.write_text("x", encoding="utf-8")
    _raises(
        lambda: build_summary_citation_report(text_file, EVIDENCE),
        "claims file type is not supported",
        "input",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, text_file),
        "evidence file type is not supported",
        "input",
    )
    missing = tmp_path / f"{CANARY}-missing.parquet"
    _raises(
        lambda: build_summary_citation_report(missing, EVIDENCE),
        "claims file could not be read",
        "input",
    )
    bad_json = tmp_path / f"{CANARY}.json"
    bad_json.write_text('{"id": NaN}', encoding="utf-8")
    _raises(
        lambda: build_summary_citation_report(CLAIMS, bad_json),
        "evidence file could not be read",
        "input",
    )
    bad_utf8 = tmp_path / "bad.jsonl"
    bad_utf8.write_bytes(b'{"id": "\xff"}\n')
    _raises(
        lambda: build_summary_citation_report(CLAIMS, str(bad_utf8)),
        "evidence file could not be read",
        "input",
    )
    ragged = tmp_path / "ragged.csv"
    ragged.write_text(f"id,start,end\n{CANARY},0,5,extra\n", encoding="utf-8")
    _raises(
        lambda: build_summary_citation_report(CLAIMS, ragged),
        "evidence file could not be read",
        "input",
    )
    number = tmp_path / "number.json"
    number.write_text("12", encoding="utf-8")
    _raises(
        lambda: build_summary_citation_report(number, EVIDENCE),
        "claims must be an iterable of structured records",
        "collection",
    )


def test_table_errors() -> None:
    _raises(
        lambda: build_summary_citation_report(ExplodingStream(), EVIDENCE),
        "claims table could not be read",
        "input",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, ExplodingStream()),
        "evidence table could not be read",
        "input",
    )


def test_limit_errors() -> None:
    _raises(
        lambda: build_summary_citation_report(CLAIMS * 3, EVIDENCE, limits=Limits(claims=2)),
        "claims collection exceeds the configured limit",
        "limit",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, EVIDENCE * 3, limits=Limits(evidence=2)),
        "evidence collection exceeds the configured limit",
        "limit",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS * 3, EVIDENCE, limits=Limits(citations=2)),
        "citation items exceed the configured limit",
        "limit",
    )


def test_policy_errors() -> None:
    for bad in (-1, True, 1.0, "1", None):
        _raises(
            lambda bad=bad: build_summary_citation_report(CLAIMS, EVIDENCE, fixture_count=bad),
            "fixture_count must be a non-negative integer",
            "policy",
        )
        _raises(
            lambda bad=bad: assert_summary_citation_gate(CLAIMS, EVIDENCE, fixture_count=bad),
            "fixture_count must be a non-negative integer",
            "policy",
        )
    for bad_limits in ({"claims": 2}, 5, "Limits"):
        _raises(
            lambda bad_limits=bad_limits: build_summary_citation_report(
                CLAIMS, EVIDENCE, limits=bad_limits
            ),
            "limits must be a Limits instance",
            "policy",
        )


def test_limits_checked_before_collections() -> None:
    # (1) limits type comes before everything, even an unusable claims value.
    _raises(
        lambda: build_summary_citation_report(5, 5, limits=3),
        "limits must be a Limits instance",
        "policy",
    )
    # (2) aliases before collections, (3) claims before evidence, (6) fixture_count last.
    _raises(
        lambda: build_summary_citation_report(5, 5, summary_claims=[]),
        "claims was supplied more than once",
        "input",
    )
    _raises(
        lambda: build_summary_citation_report(5, 5, fixture_count=-1),
        "claims must be an iterable of structured records",
        "collection",
    )
    _raises(
        lambda: build_summary_citation_report(CLAIMS, 5, fixture_count=-1),
        "evidence must be an iterable of structured records",
        "collection",
    )


def test_write_error(tmp_path: pathlib.Path) -> None:
    report = build_summary_citation_report(CLAIMS, EVIDENCE)
    blocker = tmp_path / "file"
    blocker.write_text("keep", encoding="utf-8")
    target = blocker / f"{CANARY}.json"
    for write in (report.write_json, report.write_markdown, report.write_parquet):
        _raises(
            lambda write=write: write(target),
            "summary citation report could not be written",
            "io",
        )
    assert blocker.read_text(encoding="utf-8") == "keep"


def _metric_kwargs(**overrides: Any) -> dict[str, Any]:
    metrics = build_summary_citation_report(CLAIMS, EVIDENCE).metrics
    values = {f.name: getattr(metrics, f.name) for f in dataclasses.fields(metrics)}
    values.update(overrides)
    return values


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"claim_count": -1}, "summary citation counts must be non-negative integers"),
        ({"citation_count": 1.0}, "summary citation counts must be non-negative integers"),
        ({"valid_citation_count": True}, "summary citation counts must be non-negative integers"),
        ({"coverage": 1.5}, "summary citation ratios must be finite values between 0 and 1"),
        (
            {"coverage": float("nan")},
            "summary citation ratios must be finite values between 0 and 1",
        ),
        (
            {"evidence_coverage": True},
            "summary citation ratios must be finite values between 0 and 1",
        ),
        (
            {"abstention_rate": "0.5"},
            "summary citation ratios must be finite values between 0 and 1",
        ),
        ({"schema_version": 2}, "summary citation schema version is invalid"),
        ({"failure_reasons": (CANARY,)}, "failure reasons must be known reason codes"),
        ({"failure_reasons": "missing_citation"}, "failure reasons must be known reason codes"),
        ({"failure_reasons": 5}, "failure reasons must be known reason codes"),
    ],
)
def test_metrics_construction_errors(overrides: dict[str, Any], message: str) -> None:
    _raises(lambda: SummaryCitationMetrics(**_metric_kwargs(**overrides)), message, "report")


def test_report_construction_errors() -> None:
    metrics = build_summary_citation_report(CLAIMS, EVIDENCE).metrics
    _raises(
        lambda: SummaryCitationReport(metrics={"coverage": 1.0}),  # type: ignore[arg-type]
        "summary citation report requires metrics",
        "report",
    )
    _raises(
        lambda: SummaryCitationReport(metrics, fixture_count=-3),
        "fixture_count must be a non-negative integer",
        "policy",
    )
    with pytest.raises(SummaryCitationError) as info:
        dataclasses.replace(metrics, coverage=2.0)
    _assert_clean(
        info.value, "summary citation ratios must be finite values between 0 and 1", "report"
    )


def test_gate_error() -> None:
    claims = [{"citations": [f"{CANARY}-unknown"]}, {"claim": f"{CANARY} text"}]
    with pytest.raises(SummaryCitationGateError) as info:
        assert_summary_citation_gate(claims, EVIDENCE)
    message = (
        "summary citation-consistency gate failed: invalid_citation, missing_citation, "
        "missing_source_record, unsupported_claim"
    )
    _assert_clean(info.value, message, "gate", SummaryCitationGateError)
    assert isinstance(info.value, AssertionError)
    assert info.value.failure_reasons == (
        "invalid_citation",
        "missing_citation",
        "missing_source_record",
        "unsupported_claim",
    )
    assert info.value.report.passed is False
    assert CANARY not in repr(info.value.report)


def test_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        build_summary_citation_report(CLAIMS, EVIDENCE, claims_file="x")  # type: ignore[call-arg]


def test_table_objects_never_iterated_as_records() -> None:
    table = pa.table({"citations": [[f"{CANARY}-e1"]]})
    report = build_summary_citation_report(table, EVIDENCE)
    assert report.passed
