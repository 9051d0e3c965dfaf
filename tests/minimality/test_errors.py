"""Every error message of minimality.md §2 and §12.4: fixed text, category, no echo, unchained."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

from citelens import Limits
from citelens.minimality import (
    CITATION_MINIMALITY_DISCLAIMER,
    CitationMinimalityRecord,
    CitationMinimalityReport,
    CitationMinimalityStatus,
    CitationSpan,
    ClaimCitation,
    MinimalityClaim,
    check_citation_minimality,
    check_citation_minimality_batch,
    tokenize,
)

from ._helpers import C1, C2, CANARY, TEXT, X1, citation, claim, expect_error, ref

CANARY_ID = "sha256:" + "CANARY" + "0" * 58


def check(claims: Any, citations: Any = (), text: str = TEXT, **kwargs: Any) -> Any:
    return check_citation_minimality(text, claims, citations, **kwargs)


class Raising:
    """A caller object whose attribute access raises with a secret message."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(CANARY)


class RaisingEq:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError(CANARY)

    __hash__ = object.__hash__


class RaisingIter:
    def __iter__(self) -> Iterator[int]:
        yield 1
        raise RuntimeError(CANARY)


class BrokenStream:
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        raise RuntimeError(CANARY)


def secret_iterator() -> Iterator[Any]:
    yield claim()
    raise RuntimeError(CANARY)


# -- arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, b"alpha", 5, type("S", (str,), {})("alpha")])
def test_source_text_must_be_text(text: Any) -> None:
    expect_error(lambda: check([], [], text=text), "source_text must be text", "input")
    expect_error(lambda: tokenize(text), "source_text must be text", "input")


@pytest.mark.parametrize("value", [-1, True, 1.0, "1", None])
def test_max_excess_tokens(value: Any) -> None:
    message = "max_excess_tokens must be a non-negative integer"
    expect_error(lambda: check([], max_excess_tokens=value), message, "policy")
    expect_error(
        lambda: check_citation_minimality_batch([], max_excess_tokens=value), message, "policy"
    )


@pytest.mark.parametrize("value", [{"claims": 1}, 5, "limits"])
def test_limits_instance(value: Any) -> None:
    expect_error(lambda: check([], limits=value), "limits must be a Limits instance", "policy")
    expect_error(
        lambda: check_citation_minimality_batch([], limits=value),
        "limits must be a Limits instance",
        "policy",
    )


@pytest.mark.parametrize("value", [0, -3, True, 2.0, None])
def test_max_documents(value: Any) -> None:
    expect_error(
        lambda: check_citation_minimality_batch([], max_documents=value),
        "max_documents must be a positive integer",
        "policy",
    )


@pytest.mark.parametrize("value", ["ignore", None, 1, "RAISE"])
def test_errors_mode(value: Any) -> None:
    expect_error(
        lambda: check_citation_minimality_batch([], errors=value),
        "errors must be 'raise' or 'collect'",
        "policy",
    )


# -- collections ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["records " + CANARY, b"x", bytearray(b"x")])
def test_collection_strings(value: Any) -> None:
    expect_error(lambda: check(value), "claims must be an iterable of records", "collection")
    expect_error(
        lambda: check([claim()], value), "citations must be an iterable of records", "collection"
    )
    expect_error(
        lambda: check_citation_minimality_batch(value),
        "documents must be an iterable of records",
        "collection",
    )


@pytest.mark.parametrize("value", [None, 5, 1.5, secret_iterator()])
def test_collection_not_iterable_or_raising(value: Any) -> None:
    expect_error(
        lambda: check(value), "citation collection is invalid or exceeds limit", "collection"
    )


def test_collection_limits() -> None:
    message = "citation collection is invalid or exceeds limit"
    two = [claim(C1, (0, 5)), claim(C2, (6, 10))]
    expect_error(lambda: check(two, limits=Limits(claims=1)), message, "limit")
    check(two, limits=Limits(claims=2))  # exactly the bound is accepted
    cites = [citation(span=(0, 5))] * 3
    expect_error(lambda: check([claim()], cites, limits=Limits(citations=2)), message, "limit")
    docs = [{"document_ref": ref(str(i)), "source_text": "a"} for i in range(3)]
    expect_error(lambda: check_citation_minimality_batch(docs, max_documents=2), message, "limit")


def test_limit_pulls_at_most_bound_plus_one() -> None:
    pulled = 0

    def records() -> Iterator[dict[str, Any]]:
        nonlocal pulled
        for _ in range(100):
            pulled += 1
            yield claim()

    expect_error(
        lambda: check(records(), limits=Limits(claims=3)),
        "citation collection is invalid or exceeds limit",
        "limit",
    )
    assert pulled == 4


def test_span_collection_message_for_bad_pairs() -> None:
    message = "citation collection is invalid or exceeds limit"
    expect_error(lambda: check([claim(span=(0, 5, 6))]), message, "span")
    expect_error(lambda: check([{"claim_id": C1, "required_span": 5}]), message, "span")
    expect_error(lambda: check([{"claim_id": C1, "required_span": RaisingIter()}]), message, "span")
    expect_error(
        lambda: check([{"claim_id": C1, "required_span": Raising()}]),
        "citation record fields are invalid",
        "record",
    )


def test_split_form_bound_per_document() -> None:
    docs = [{"document_ref": ref("d1"), "source_text": TEXT}]
    rows = [{"document_ref": ref("d1"), **claim(ref(str(i)), (0, 5))} for i in range(3)]
    expect_error(
        lambda: check_citation_minimality_batch(docs, rows, limits=Limits(claims=2)),
        "citation collection is invalid or exceeds limit",
        "limit",
    )


# -- spans ---------------------------------------------------------------------------------


def test_span_nesting() -> None:
    span: Any = [0, 5]
    for _ in range(33):
        span = {"offset": span}
    expect_error(
        lambda: check([{"claim_id": C1, "required_span": span}]),
        "citation span nesting exceeds limit",
        "limit",
    )
    expect_error(
        lambda: CitationSpan.from_obj(span), "citation span nesting exceeds limit", "limit"
    )


def test_span_aliases_conflict() -> None:
    message = "citation span aliases conflict"
    expect_error(lambda: check([claim(span=(0, 5), start=6, end=10)]), message, "span")
    expect_error(
        lambda: check(
            [{"claim_id": C1, "required_span": {"start": 6, "end": 10, "offset": [0, 5]}}]
        ),
        message,
        "span",
    )
    expect_error(
        lambda: check([claim()], [citation(span=(0, 5), citation_offset=[0, 10])]),
        message,
        "span",
    )


def test_span_requires_offsets() -> None:
    message = "citation spans require start and end offsets"
    expect_error(lambda: check([{"claim_id": C1, "start": 0}]), message, "span")
    expect_error(lambda: check([{"claim_id": C1}]), message, "span")
    expect_error(lambda: check([claim(span=(0,))]), message, "span")
    expect_error(lambda: check([{"claim_id": C1, "required_span": {"from": 0}}]), message, "span")
    expect_error(lambda: check([{"claim_id": C1, "required_span": "0,5"}]), message, "span")
    expect_error(lambda: check([claim()], [{"claim_id": C1, "citation_end": 5}]), message, "span")


def test_offsets_must_be_integers() -> None:
    message = "citation offsets must be integers"
    for span in ([True, 5], [0.0, 5], ["0", "5"], [0, None]):
        expect_error(lambda span=span: check([claim(span=span)]), message, "span")
    expect_error(lambda: CitationSpan(0, 5.0), message, "span")  # type: ignore[arg-type]


def test_offsets_half_open() -> None:
    message = "citation offsets must form a non-empty half-open span"
    for span in ([-1, 5], [5, 5], [6, 2]):
        expect_error(lambda span=span: check([claim(span=span)]), message, "span")
        expect_error(lambda span=span: CitationSpan(*span), message, "span")


def test_offsets_exceed_text() -> None:
    message = "citation offsets exceed source text"
    expect_error(lambda: check([claim(span=(0, 23))]), message, "span")
    expect_error(lambda: check([claim()], [citation(span=(6, 10**30))]), message, "span")


def test_required_span_without_token() -> None:
    expect_error(
        lambda: check([claim(span=(1, 4))], text="a   b"),
        "required claim spans must contain at least one token",
        "span",
    )


# -- records -------------------------------------------------------------------------------


def test_record_fields_invalid() -> None:
    message = "citation record fields are invalid"
    expect_error(
        lambda: check([{"claim_id": C1, "id": C2, "required_span": [0, 5]}]), message, "record"
    )
    expect_error(lambda: check([claim()], [citation(evidence_id=ref("other"))]), message, "record")
    expect_error(
        lambda: check([claim()], [citation(source_start=6, start=5, end=16)]), message, "record"
    )
    expect_error(lambda: check([Raising()]), message, "record")
    expect_error(
        lambda: check([{"claim_id": C1, "id": RaisingEq(), "required_span": [0, 5]}]),
        message,
        "record",
    )


def test_missing_claim_ids() -> None:
    expect_error(
        lambda: check([{"required_span": [0, 5], "text": CANARY}]),
        "atomic claims require an opaque claim id",
        "record",
    )
    expect_error(
        lambda: check([claim()], [{"citation_id": X1, "source_span": [0, 5]}]),
        "citations require an opaque claim id",
        "record",
    )
    expect_error(
        lambda: check_citation_minimality_batch([{"source_text": CANARY}]),
        "minimality documents require an opaque document reference",
        "record",
    )


@pytest.mark.parametrize(
    "bad",
    [CANARY, CANARY_ID, ref("x").upper(), ref("x") + "\n", " " + ref("x"), 5, ref("x")[:-1]],
)
def test_identifier_rule(bad: Any) -> None:
    message = "citation identifiers must be opaque sha256 references"
    canaries = (CANARY, "CANARY")
    expect_error(lambda: check([claim(bad)]), message, "identifier", canaries=canaries)
    expect_error(
        lambda: check([claim()], [citation(citation_id=bad)]),
        message,
        "identifier",
        canaries=canaries,
    )
    expect_error(
        lambda: check_citation_minimality_batch([{"document_ref": bad, "source_text": "a"}]),
        message,
        "identifier",
        canaries=canaries,
    )
    expect_error(lambda: MinimalityClaim(bad, (0, 5)), message, "identifier", canaries=canaries)
    expect_error(lambda: ClaimCitation(C1, (0, 5), bad), message, "identifier", canaries=canaries)


def test_reference_errors() -> None:
    expect_error(
        lambda: check([claim(), claim(span=(0, 5))]), "duplicate atomic claim id", "reference"
    )
    expect_error(
        lambda: check([claim()], [citation(C2)]),
        "citation refers to an unknown atomic claim",
        "reference",
    )
    expect_error(
        lambda: check([claim()], [citation(span=(6, 16)), citation(span=(6, 10))]),
        "citation id has conflicting offsets",
        "reference",
    )
    doc = {"document_ref": ref("d"), "source_text": "a"}
    expect_error(
        lambda: check_citation_minimality_batch([doc, dict(doc)]),
        "duplicate minimality document reference",
        "reference",
    )
    expect_error(
        lambda: check_citation_minimality_batch(
            [doc], [{"document_ref": ref("other"), **claim(span=(0, 1))}]
        ),
        "minimality row refers to an unknown document",
        "reference",
    )
    expect_error(
        lambda: check_citation_minimality_batch([doc], None, [claim(span=(0, 1))]),
        "minimality row refers to an unknown document",
        "reference",
    )


# -- files and tables ----------------------------------------------------------------------


def test_file_errors(tmp_path: pathlib.Path) -> None:
    bad_suffix = tmp_path / f"{CANARY}.txt"
    bad_suffix.write_text("[]", encoding="utf-8")
    expect_error(lambda: check(bad_suffix), "claims file type is not supported", "input")
    expect_error(
        lambda: check([claim()], bad_suffix), "citations file type is not supported", "input"
    )
    expect_error(
        lambda: check_citation_minimality_batch(bad_suffix),
        "documents file type is not supported",
        "input",
    )
    broken = tmp_path / f"{CANARY}.json"
    broken.write_text("[{" + CANARY, encoding="utf-8")
    expect_error(lambda: check(broken), "claims file could not be read", "input")
    expect_error(lambda: check([claim()], broken), "citations file could not be read", "input")
    missing = tmp_path / "missing.parquet"
    expect_error(
        lambda: check_citation_minimality_batch(missing),
        "documents file could not be read",
        "input",
    )
    expect_error(
        lambda: check(str(tmp_path / "nope.CSV")), "claims file could not be read", "input"
    )


def test_table_errors() -> None:
    expect_error(lambda: check(BrokenStream()), "claims table could not be read", "input")
    expect_error(
        lambda: check([claim()], BrokenStream()), "citations table could not be read", "input"
    )
    expect_error(
        lambda: check_citation_minimality_batch(BrokenStream()),
        "documents table could not be read",
        "input",
    )


def test_table_offsets_of_wrong_type() -> None:
    claims = pa.table({"claim_id": [C1], "start": [6.0], "end": [10.0]})
    expect_error(lambda: check(claims), "citation offsets must be integers", "span")
    flags = pa.table({"claim_id": [C1], "start": [True], "end": [True]})
    expect_error(lambda: check(flags), "citation offsets must be integers", "span")


# -- direct construction (§12.4) -----------------------------------------------------------


def record_kwargs(**changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "claim_id": C1,
        "citation_id": X1,
        "citation_span": CitationSpan(6, 16),
        "required_span": CitationSpan(6, 10),
        "citation_token_count": 2,
        "required_token_count": 1,
        "excess_token_count": 1,
        "excess_context_spans": (CitationSpan(10, 16),),
        "status": CitationMinimalityStatus.EXCESS_CONTEXT,
        "review_required": True,
    }
    values.update(changes)
    return values


@pytest.mark.parametrize(
    ("changes", "message", "category"),
    [
        (
            {"claim_id": CANARY},
            "citation identifiers must be opaque sha256 references",
            "identifier",
        ),
        (
            {"citation_span": [6, 6]},
            "citation offsets must form a non-empty half-open span",
            "span",
        ),
        ({"citation_token_count": -1}, "token counts must be non-negative integers", "report"),
        ({"excess_token_count": True}, "token counts must be non-negative integers", "report"),
        ({"status": "unknown"}, "unsupported citation minimality status", "report"),
        ({"review_required": 1}, "review_required must be a boolean", "report"),
        (
            {"excess_context_spans": ((10, 16),)},
            "excess context must contain CitationSpan records",
            "report",
        ),
        ({"excess_context_spans": 5}, "excess context must contain CitationSpan records", "report"),
        (
            {"excess_context_spans": (CitationSpan(0, 1),) * 3},
            "citation collection is invalid or exceeds limit",
            "report",
        ),
        ({"review_required": False}, "citation review flag conflicts with status", "report"),
        (
            {
                "status": "missing_required_span",
                "excess_token_count": 0,
                "excess_context_spans": (),
            },
            "citation status conflicts with coverage",
            "report",
        ),
        ({"excess_context_spans": ()}, "citation context or token counts are invalid", "report"),
        (
            {"required_token_count": 0, "citation_token_count": 1},
            "citation context or token counts are invalid",
            "report",
        ),
        ({"excess_token_count": 5}, "citation token counts are inconsistent", "report"),
    ],
)
def test_record_construction(changes: dict[str, Any], message: str, category: str) -> None:
    expect_error(lambda: CitationMinimalityRecord(**record_kwargs(**changes)), message, category)


def test_record_construction_accepts_valid_and_string_status() -> None:
    record = CitationMinimalityRecord(**record_kwargs(status="excess_context"))
    assert record.status is CitationMinimalityStatus.EXCESS_CONTEXT
    assert record.citation_offset == (6, 16)
    assert record.required_offset == (6, 10)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"schema_version": 2}, "unsupported citation minimality schema version"),
        ({"schema_version": True}, "unsupported citation minimality schema version"),
        ({"claim_count": -1}, "claim_count must be a non-negative integer"),
        ({"max_excess_tokens": -1}, "max_excess_tokens must be a non-negative integer"),
        ({"disclaimer": CANARY}, "citation minimality disclaimer is required"),
        ({"records": (5,)}, "records must contain CitationMinimalityRecord values"),
        ({"records": 5}, "records must contain CitationMinimalityRecord values"),
        ({"claim_count": 0}, "claim_count is inconsistent"),
        ({"max_excess_tokens": 1}, "citation status conflicts with policy"),
    ],
)
def test_report_construction(changes: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "records": (CitationMinimalityRecord(**record_kwargs()),),
        "claim_count": 1,
        "max_excess_tokens": 0,
        "schema_version": 1,
        "disclaimer": CITATION_MINIMALITY_DISCLAIMER,
    }
    values.update(changes)
    expect_error(lambda: CitationMinimalityReport(**values), message, "report")


def test_report_construction_sorts_and_equals_checker_output() -> None:
    report = check([claim()], [citation(span=(0, 22), citation_id=ref("b")), citation()])
    rebuilt = CitationMinimalityReport(tuple(reversed(report.records)), report.claim_count)
    assert rebuilt == report
    assert rebuilt.to_json() == report.to_json()


def test_foreign_citelens_error_is_replaced() -> None:
    from citelens.errors import CitationMinimalityError

    def raising() -> Iterator[Any]:
        raise CitationMinimalityError(CANARY, "input")
        yield  # pragma: no cover

    expect_error(
        lambda: check(raising()), "citation collection is invalid or exceeds limit", "collection"
    )


def test_foreign_exception_from_a_dict_key_becomes_fixed_error() -> None:
    class EvilKey(str):
        def __hash__(self) -> int:
            return hash("claim_id")

        def __eq__(self, other: object) -> bool:
            raise RuntimeError(CANARY)

    record = {EvilKey("x"): 1, "required_span": [0, 5]}
    expect_error(lambda: check([record]), "citation record fields are invalid", "record")
