"""The retrieval scorer (issue 13, rule 3): literal, hand-checked cases per rule."""

from __future__ import annotations

from typing import Any

import pytest

from citelens.gold import GoldDataset, LoadedAdapter, RetrievalAnchor, RetrievalCase
from citelens.gold.scorers import score_retrieval
from citelens.gold.scorers.retrieval import check_record, field_text

A = RetrievalAnchor
GOOD: dict[str, Any] = {
    "title": "A title",
    "authors": ["Haurani MJ", "Satiani B"],
    "year": "2020",
    "abstract_sections": ["The  Medicare\nAccess act.", "Second."],
}


def _case(
    fields: tuple[str, ...] = (), anchors: tuple[RetrievalAnchor, ...] = (), case_id: str = "t"
) -> RetrievalCase:
    return RetrievalCase(case_id, f"{case_id}.json", "123", "pubmed", fields, anchors)


def test_field_text_joins_arrays_lowercases_and_collapses_whitespace() -> None:
    assert field_text(["The  Medicare\nAccess", "B"]) == "the medicare access b"
    assert field_text(2020) == "2020"


def test_anchors_of_each_kind() -> None:
    anchors = (
        A("authors", "contains", "SATIANI"),  # ok: lower-cased on both sides
        A("abstract_sections", "contains", "the medicare access"),  # ok: whitespace collapsed
        A("year", "equals", "2020"),  # ok
        A("authors", "minCount", 2),  # ok: 2 >= 2
        A("authors", "minCount", 3),  # fails: 2 < 3
        A("year", "equals", "2021"),  # fails
        A("title", "minCount", 1),  # fails: not an array
        A("doi", "contains", "10."),  # fails: missing
    )
    assert check_record(_case(anchors=anchors), GOOD) == [
        'anchors[4] minCount on "authors": array has too few items',
        'anchors[5] equals on "year": value is not equal',
        'anchors[6] minCount on "title": field is not an array',
        'anchors[7] contains on "doi": field is missing',
    ]


def test_required_fields_present_and_non_empty() -> None:
    record = dict(GOOD, year="  ", abstract_sections=[])
    case = _case(fields=("title", "year", "abstract_sections", "journal"))
    assert check_record(case, record) == [
        'requireFields[1]: "year" is missing or empty',
        'requireFields[2]: "abstract_sections" is missing or empty',
        'requireFields[3]: "journal" is missing or empty',
    ]


def test_structural_invariants() -> None:
    record = {"title": "", "authors": {"name": "x"}, "journal": ["[object Object]"]}
    assert check_record(_case(), record) == [
        'structure: field "journal" holds serialisation residue',
        'structure: "authors" is not a non-empty array of non-empty strings',
        'structure: "title" is not a non-empty string',
    ]
    assert check_record(_case(), dict(GOOD, authors=["A", " "])) == [
        'structure: "authors" is not a non-empty array of non-empty strings'
    ]


class _Fetcher:
    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.requests: list[Any] = []

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def fetch_record(self, request: Any) -> Any:
        self.requests.append(request)
        return self.reply


def _dataset(*cases: RetrievalCase) -> GoldDataset:
    ids = tuple(c.id for c in cases)
    return GoldDataset("mem", (), (), {}, None, "sha256:0", ids, (), (), cases)


def test_scorer_counts_every_problem_and_caps_fidelity() -> None:
    case = _case(fields=("title",), anchors=(A("year", "equals", "1999"),))
    fetcher = _Fetcher({"record": {"year": "2020"}})
    r = score_retrieval(_dataset(case), LoadedAdapter(fetcher, "t", "t", ()), True)
    assert fetcher.requests == [{"id": "123", "type": "pubmed"}]
    # checks: 1 field + 1 anchor = 2; problems: title missing, year unequal, authors and title
    # structure = 4; fidelity 1 - min(4, 2) / 2 = 0
    assert r.metrics["n_checks"] == 2 and r.metrics["failed_checks"] == 4
    assert r.metrics["fidelity"] == 0
    assert len(r.failures) == 4 and r.failures[0] == (
        'RETRIEVAL t: requireFields[0]: "title" is missing or empty'
    )
    assert "123" not in repr(r.detail) + repr(r.failures)  # the record id is not shown


def test_passing_record_and_error() -> None:
    case = _case(fields=("title", "authors"), anchors=(A("year", "equals", "2020"),))
    ok = score_retrieval(
        _dataset(case), LoadedAdapter(_Fetcher({"record": GOOD}), "t", "t", ()), True
    )
    # 3 checks, 0 problems: fidelity 1 - 0/3 = 1
    assert ok.status == "passed" and ok.metrics["fidelity"] == pytest.approx(1.0)
    bad = score_retrieval(_dataset(case), LoadedAdapter(_Fetcher(GOOD), "t", "t", ()), True)
    assert bad.failures == [
        "case t: fetch_record failed: InvalidResponse: fetch_record did not return {record}"
    ]
    assert bad.metrics["fidelity"] is None and bad.metrics["n_checks"] == 3
