"""Integers outside int64 are input errors (issue 10 item 2), not an overflow in
``to_arrow()``: the fixture count is written as an int64 column."""

from __future__ import annotations

import pytest

from citelens.errors import SummaryCitationError
from citelens.summary_citations import SummaryCitationReport, build_summary_citation_report


def test_the_largest_int64_fixture_count_is_written() -> None:
    report = build_summary_citation_report([], [], fixture_count=2**63 - 1)
    assert report.to_arrow().column("fixture_count").to_pylist() == [2**63 - 1]


@pytest.mark.parametrize("count", [2**63, 2**64, -1])
def test_fixture_counts_outside_int64_are_refused(count: int) -> None:
    with pytest.raises(SummaryCitationError) as caught:
        build_summary_citation_report([], [], fixture_count=count)
    assert (str(caught.value), caught.value.category) == (
        "fixture_count must be a non-negative integer",
        "policy",
    )
    metrics = build_summary_citation_report([], []).metrics
    with pytest.raises(SummaryCitationError):
        SummaryCitationReport(metrics, fixture_count=count)
