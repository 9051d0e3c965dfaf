"""Step 8 of the claim record rule (support-metrics.md §3.5): a claim's own citation items.

A mapping item contributes the *first value* of ``evidence_id, evidence, citation_id, id``, so
two of those aliases with different values are ``conflicting field aliases`` (the first-value
rule), and none of them is ``citation record requires an evidence identifier``. Items are
expanded in order and the first item that fails first-value decides; only then does every
contributed value meet the identifier rule.
"""

from __future__ import annotations

from typing import Any

import pytest

from citelens import compute_citation_support_metrics
from citelens.errors import CitationSupportError

CONFLICT = ("conflicting field aliases", "record")
NO_EVIDENCE = ("citation record requires an evidence identifier", "record")
IDENTIFIER = ("identifier must be a string", "identifier")


def outcome(items: list[Any]) -> tuple[str, str] | None:
    """The error of one claim whose citation value is ``items`` (``None`` when accepted)."""
    try:
        compute_citation_support_metrics(
            [{"claim_id": "c", "citations": items}], [{"evidence_id": "e1"}]
        )
    except CitationSupportError as exc:
        return (str(exc), exc.category)
    return None


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        # evidence_id "e1" and id "x" are two aliases with different values: a conflict
        ([{"evidence_id": "e1", "id": "x"}], CONFLICT),
        # the same value under two aliases is no conflict (first-value compares values)
        ([{"evidence_id": "e1", "id": "e1"}], None),
        # a plain item before the conflicting mapping changes nothing: the mapping still fails
        (["e1", {"evidence_id": "e1", "citation_id": "x"}], CONFLICT),
        # item order decides: the item without evidence comes first ...
        ([{"start": 1}, {"evidence_id": "e1", "id": "x"}], NO_EVIDENCE),
        # ... or the conflicting one does
        ([{"evidence_id": "e1", "id": "x"}, {"start": 1}], CONFLICT),
        # a bad identifier (None) in an earlier item loses to a later first-value failure:
        # identifiers are checked only after every item contributed its value
        ([None, {"evidence": "e1", "id": "x"}], CONFLICT),
        ([None, {"start": 1}], NO_EVIDENCE),
        # with every item's first value found, the identifier rule runs: None is no string
        ([{"evidence": "e1"}, None], IDENTIFIER),
    ],
)
def test_claim_item_first_value(items: list[Any], expected: tuple[str, str] | None) -> None:
    assert outcome(items) == expected
