"""One engine: the columnar rules are the only rules, and a failure inside them is visible.

* A failing NumPy / PyArrow operation inside the engine surfaces as ``InternalError`` (CLI exit
  3), never as an input error and never as a silent slower path.
* The same contract step gives the same error whether the input is records or a table.
* Deprecated names still import, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from citelens.cli import main
from citelens.errors import InternalError
from citelens.minimality import (
    MinimalityClaim,
    check_citation_minimality,
    check_citation_minimality_batch,
    tokenize,
)
from citelens.ordering import OrderingCitation, order_citations, order_citations_table

from ._helpers import C1, C2, TEXT, X1, citation, claim, expect_error, ref

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples" / "minimality"


class Boom(Exception):
    """What the patched operation raises."""


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise Boom("secret value 4242")


def _expect_internal(call: Any) -> None:
    expect_error(call, "internal error (Boom)", "internal", cls=InternalError)


# -- a failing operation inside the engine is an internal error --------------------------


def test_failing_searchsorted_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    # np.searchsorted counts the tokens of every span (§13 step 2).
    monkeypatch.setattr(np, "searchsorted", _boom)
    _expect_internal(lambda: check_citation_minimality(TEXT, [claim()], [citation()]))
    docs = [{"document_ref": ref("d"), "source_text": TEXT, "claims": [claim()]}]
    _expect_internal(lambda: check_citation_minimality_batch(docs, errors="collect"))


def test_failing_identifier_rule_is_internal_for_records_and_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The identifier rule is one Arrow expression for records and tables alike (64 rows and
    # more; fewer ids are matched by Python's re with the same pattern): breaking it breaks
    # records too, as there is no per-record copy of the rule to fall back to.
    rows = [claim(ref(f"c{i}"), (6, 10)) for i in range(64)]
    monkeypatch.setattr(pc, "match_substring_regex", _boom)
    _expect_internal(lambda: check_citation_minimality(TEXT, rows, []))
    table = pa.Table.from_pylist([{"claim_id": r["claim_id"], "start": 6, "end": 10} for r in rows])
    _expect_internal(lambda: check_citation_minimality(TEXT, table, []))
    monkeypatch.undo()
    assert check_citation_minimality(TEXT, rows, []).claim_count == 64


def test_failing_offset_rule_is_internal_for_typed_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Typed records are one-row arrays of the same offset rule (np.logical_and of the
    # "exact int" flags, §5).
    monkeypatch.setattr(np, "logical_and", _boom)
    _expect_internal(lambda: MinimalityClaim(C1, (6, 10)))
    _expect_internal(lambda: OrderingCitation(ref("doc"), ref("sec"), 0, 5, ref("e")))
    monkeypatch.undo()
    assert MinimalityClaim(C1, (6, 10)).required_span.source_offset == (6, 10)


def test_failing_sort_is_internal_in_ordering(monkeypatch: pytest.MonkeyPatch) -> None:
    citation_ = OrderingCitation(ref("doc"), ref("sec"), 0, 5, ref("e"))
    monkeypatch.setattr(pc, "sort_indices", _boom)
    _expect_internal(lambda: order_citations([citation_]))
    row = {"claim_id": C1, "document_id": ref("doc"), "section": ref("sec"), "source_start": 0,
           "source_end": 5, "evidence_id": ref("e"), "primary": False}  # fmt: skip
    _expect_internal(lambda: order_citations_table(pa.Table.from_pylist([row])))


def test_failing_tokenizer_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(np, "flatnonzero", _boom)
    _expect_internal(lambda: tokenize("alpha beta"))


def test_cli_exit_3_on_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(np, "searchsorted", _boom)
    code = main(
        [
            "minimality",
            "--source",
            str(SAMPLES / "source.txt"),
            "--claims",
            str(SAMPLES / "claims.json"),
            "--citations",
            str(SAMPLES / "citations.jsonl"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 3
    assert err == "citelens: error [internal]: internal error (Boom)\n"
    assert "4242" not in err


# -- records and tables: the same step, the same error ----------------------------------


def _both(rows: list[dict[str, Any]], cites: list[dict[str, Any]] | None = None) -> list[Any]:
    """The report JSON or (message, category) for records and for the equivalent table."""
    out = []
    for claims in (rows, pa.Table.from_pylist(rows)):
        citations: Any = cites or []
        if cites and not isinstance(claims, list):
            citations = pa.Table.from_pylist(cites)
        try:
            out.append(check_citation_minimality(TEXT, claims, citations).to_json())
        except Exception as exc:  # compared with the other form, not hidden
            out.append((str(exc), getattr(exc, "category", None)))
    return out


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # A list span of 3 items breaks the pair rule before its offsets are looked at.
        ([{"claim_id": C1, "required_span": [0, 5, 6]}],
         ("citation collection is invalid or exceeds limit", "span")),
        ([{"claim_id": C1, "required_span": [0]}],
         ("citation spans require start and end offsets", "span")),
        # The alias span is checked (not integers) before start/end are read (§6 steps 2, 3).
        ([{"claim_id": C1, "required_span": [0.5, 2.0], "start": 1, "end": 9}],
         ("citation offsets must be integers", "span")),
        # [0, 5) from the alias and [6, 10) from start/end disagree.
        ([{"claim_id": C1, "required_span": [0, 5], "start": 6, "end": 10}],
         ("citation span aliases conflict", "span")),
        # Two id aliases with different values.
        ([{"claim_id": C1, "id": C2, "start": 0, "end": 5}],
         ("citation record fields are invalid", "record")),
        # The identifier is checked last: a bad id with a bad span reports the span.
        ([{"claim_id": "x", "start": 5, "end": 5}],
         ("citation offsets must form a non-empty half-open span", "span")),
        ([{"claim_id": "x", "start": 0, "end": 5}],
         ("citation identifiers must be opaque sha256 references", "identifier")),
        # A row without any span field: the record itself has no offsets.
        ([{"claim_id": C1, "note": "n"}], ("citation spans require start and end offsets", "span")),
        # Second row defective: the first failing row in input order is reported.
        ([{"claim_id": C1, "start": 0, "end": 5}, {"claim_id": C2, "start": 3, "end": 1}],
         ("citation offsets must form a non-empty half-open span", "span")),
    ],
)  # fmt: skip
def test_records_and_tables_report_the_same_first_problem(
    rows: list[dict[str, Any]], expected: tuple[str, str]
) -> None:
    assert _both(rows) == [expected, expected]


def test_offsets_beyond_int64_stay_exact() -> None:
    # start 2**63, end 2**63 + 1 is a valid half-open span that exceeds the text (22 code
    # points); clamping both to one value would wrongly report an empty span instead.
    rows = [{"claim_id": C1, "start": 2**63, "end": 2**63 + 1}]
    expected = ("citation offsets exceed source text", "span")
    expect_error(lambda: check_citation_minimality(TEXT, rows, []), *expected)
    table = pa.table({"claim_id": [C1], "start": pa.array([2**63], pa.uint64()),
                      "end": pa.array([2**63 + 1], pa.uint64())})  # fmt: skip
    expect_error(lambda: check_citation_minimality(TEXT, table, []), *expected)
    # Two huge but different ends for one span: an alias conflict, not "equal after clamp".
    conflict = [{"claim_id": C1, "required_span": [0, 10**30], "start": 0, "end": 10**31}]
    expect_error(
        lambda: check_citation_minimality(TEXT, conflict, []),
        "citation span aliases conflict",
        "span",
    )


def test_csv_aliases_compare_as_typed_cells(tmp_path: pathlib.Path) -> None:
    # CSV cells "06" and "6" are both the int 6 (§6), so start/source_start agree; the span
    # [6, 10) of TEXT is "beta": 1 token, the citation [6, 16) has 2 (beta, gamma).
    path = tmp_path / "claims.csv"
    path.write_text(f"claim_id,start,source_start,end\n{C1},06,6,10\n", encoding="utf-8")
    report = check_citation_minimality(TEXT, path, [citation()])
    (record,) = report.records
    assert record.required_offset == (6, 10)
    assert (record.citation_token_count, record.required_token_count) == (2, 1)
    # "6" and "x" differ ("x" stays text): the record fields are invalid.
    path.write_text(f"claim_id,start,source_start,end\n{C1},6,x,10\n", encoding="utf-8")
    expect_error(
        lambda: check_citation_minimality(TEXT, path, []),
        "citation record fields are invalid",
        "record",
    )


def test_citation_checks_literal() -> None:
    # TEXT = "alpha beta gamma delta": alpha [0,5), beta [6,10), gamma [11,16), delta [17,22).
    # Claim C1 requires [6, 10) (beta, 1 token). Citation [5, 17) covers it: its tokens are
    # beta and gamma (2; the spaces at 5 and 16 belong to no token, delta starts at 17), so
    # the excess is 2 - 1 = 1 with pieces [5, 6) and [10, 17).
    report = check_citation_minimality(TEXT, [claim()], [citation(span=(5, 17))])
    (record,) = report.to_dict()["records"]
    assert record["citation_token_count"] == 2
    assert record["required_token_count"] == 1
    assert record["excess_token_count"] == 1
    assert record["excess_context_offsets"] == [{"start": 5, "end": 6}, {"start": 10, "end": 17}]
    assert record["status"] == "excess_context"
    table = pa.table({"claim_id": [C1], "citation_id": [X1], "start": [5], "end": [17]})
    assert check_citation_minimality(TEXT, [claim()], table).to_json() == report.to_json()


# -- deprecated names --------------------------------------------------------------------


def test_deprecated_minimality_claim_name() -> None:
    import citelens.minimality as minimality
    import citelens.minimality._api as api

    for module in (minimality, api):
        with pytest.warns(DeprecationWarning, match="use citelens.minimality"):
            old = module.AtomicClaim
        assert old is MinimalityClaim
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert minimality.MinimalityClaim is MinimalityClaim  # the new name does not warn
    with pytest.raises(AttributeError):
        _ = minimality.NoSuchName
    assert "AtomicClaim" not in minimality.__all__


def test_deprecated_ordering_citation_name() -> None:
    import citelens.ordering as ordering

    with pytest.warns(DeprecationWarning, match="OrderingCitation"):
        old = ordering.Citation
    assert old is OrderingCitation
    with pytest.warns(DeprecationWarning):
        from citelens.ordering import Citation  # noqa: F401
    assert "Citation" not in ordering.__all__
    with pytest.raises(AttributeError):
        _ = ordering.NoSuchName


def test_tables_never_reach_the_record_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    # A flat or list-span table is read whole-column even when it is defective: with the
    # record adapter disabled, the defect is still found (and the clean table still checked).
    import citelens.minimality._parse as parse

    monkeypatch.setattr(parse, "claims_from_records", _boom)
    monkeypatch.setattr(parse, "citations_from_records", _boom)
    bad = pa.table({"claim_id": [C1, C2], "start": [6, 9], "end": [10, 4]})
    expect_error(
        lambda: check_citation_minimality(TEXT, bad, []),
        "citation offsets must form a non-empty half-open span",
        "span",
    )
    listed = pa.table({"claim_id": [C1], "required_span": pa.array([[6, 10]])})
    cites = pa.table({"claim_id": [C1], "source_span": pa.array([[6, 16]])})
    # [6, 16) = "beta gamma": 2 tokens against 1 required → excess 1.
    (record,) = check_citation_minimality(TEXT, listed, cites).records
    assert (record.citation_token_count, record.excess_token_count) == (2, 1)
