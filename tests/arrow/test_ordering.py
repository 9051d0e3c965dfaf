"""order_citations_table over every table form (issue 11 item 3).

Claim C has two citations in one document and section: [20, 30) then [5, 9) in input order;
the canonical order sorts by start, so [5, 9) comes first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citelens.ordering import order_citations_table

from ._forms import TABLE_FORMS, arrow_table, forms

CLAIM, DOC, SECTION = "sha256:" + "a" * 64, "sha256:" + "b" * 64, "sha256:" + "c" * 64
E1, E2 = "sha256:" + "d" * 64, "sha256:" + "e" * 64
ROWS = [
    {"claim_id": CLAIM, "document_id": DOC, "section": SECTION, "source_start": 20,
     "source_end": 30, "evidence_id": E1, "primary": False},
    {"claim_id": CLAIM, "document_id": DOC, "section": SECTION, "source_start": 5,
     "source_end": 9, "evidence_id": E2, "primary": True},
]  # fmt: skip


@pytest.mark.parametrize("form", TABLE_FORMS)
def test_every_table_form_is_ordered_alike(form: str, tmp_path: Path) -> None:
    expected = order_citations_table(arrow_table(ROWS))
    assert expected.column("source_start").to_pylist() == [5, 20]
    assert expected.column("evidence_id").to_pylist() == [E2, E1]
    result = order_citations_table(forms(ROWS, tmp_path, "citations")[form]())
    # the same rows in the same order; the column types are the input's (Polars gives
    # large_string where Arrow gives string), as order_citations_table keeps its columns
    assert result.to_pylist() == expected.to_pylist()
