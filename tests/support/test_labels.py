"""Label normalisation and the label rule (support-metrics.md §3.7)."""

from __future__ import annotations

from typing import Any

import pytest

from ._helpers import compute

SPELLINGS = {
    "supports": [
        "supports",
        "support",
        "supported",
        "entails",
        "entailed",
        "relevant_support",
        "true",
    ],
    "contradicts": ["contradicts", "contradict", "contradicted", "refutes", "refuted", "false"],
    "irrelevant": [
        "irrelevant",
        "unrelated",
        "does_not_support",
        "not_supporting",
        "unsupported",
        "insufficient",
    ],
    "unclear": ["unclear", "uncertain", "ambiguous", "unknown", "unresolved", "pending"],
}


def effective_label(record: dict[str, Any]) -> str:
    """The effective label of pair (c1, e1) when ``record`` is its only adjudication."""
    report = compute(
        [{"claim_id": "c1", "citations": ["e1"]}],
        [{"evidence_id": "e1", "start": 0, "end": 5}],
        None,
        [{"claim_id": "c1", "evidence_id": "e1", **record}],
    )
    counts = dict(report.adjudication.label_counts)
    assert sum(counts.values()) == 1
    return next(label for label, count in counts.items() if count)


def label_error(record: dict[str, Any]) -> tuple[str, str]:
    import citelens

    with pytest.raises(citelens.CitationSupportError) as info:
        effective_label(record)
    assert info.value.__cause__ is None and info.value.__context__ is None
    return str(info.value), info.value.category


@pytest.mark.parametrize(
    ("spelling", "label"),
    [(spelling, label) for label, spellings in SPELLINGS.items() for spelling in spellings],
)
def test_vocabulary(spelling: str, label: str) -> None:
    assert effective_label({"label": spelling}) == label


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("  Supported ", "supports"),
        ("DOES NOT SUPPORT", "irrelevant"),
        ("does-not-support", "irrelevant"),
        ("Not supporting!!", "irrelevant"),
        ("__pending__", "unclear"),
        ("Relevant Support", "supports"),
        ("ENTAILS.", "supports"),
        (True, "supports"),
        (False, "irrelevant"),  # the boolean False ...
        ("false", "contradicts"),  # ... but the string "false"
        ("FALSE", "contradicts"),
        ("True", "supports"),
    ],
)
def test_normalisation(raw: Any, label: str) -> None:
    assert effective_label({"label": raw}) == label


@pytest.mark.parametrize(
    "key",
    [
        "label",
        "adjudication",
        "adjudication_label",
        "judgment",
        "clinician_label",
        "support_label",
        "verdict",
        "relation",
    ],
)
def test_label_keys(key: str) -> None:
    assert effective_label({key: "contradicted"}) == "contradicts"


@pytest.mark.parametrize(
    ("flags", "label"),
    [
        ({"supports": True}, "supports"),
        ({"supported": True}, "supports"),
        ({"supports_claim": True}, "supports"),
        ({"contradicts": True}, "contradicts"),
        ({"contradicts_claim": True}, "contradicts"),
        ({"supports": False}, "irrelevant"),  # only False flags -> irrelevant
        ({"supports": False, "contradicts": False}, "irrelevant"),
        ({"contradicts": True, "supports": False}, "contradicts"),
        ({"label": "supports", "supports": True}, "supports"),
        ({"label": "supports", "contradicts": False}, "supports"),
        ({"label": "refuted", "contradicts_claim": True, "supports": False}, "contradicts"),
        ({"label": "supports", "verdict": "entailed"}, "supports"),
    ],
)
def test_flags(flags: dict[str, Any], label: str) -> None:
    assert effective_label(flags) == label


@pytest.mark.parametrize(
    "record",
    [
        {"label": "supports", "verdict": "contradicts"},
        {"label": "supports", "supports": False},
        {"supports": True, "contradicts": True},
        {"label": "irrelevant", "supports": True},
        {"label": "unclear", "contradicts": True},
    ],
)
def test_conflicting_labels(record: dict[str, Any]) -> None:
    assert label_error(record) == ("conflicting adjudication labels", "value")


@pytest.mark.parametrize("value", [None, 1, 0, "yes", "true", 1.0])
def test_flags_must_be_boolean(value: Any) -> None:
    # A present flag key (even with None) must hold exactly True or False.
    assert label_error({"label": "supports", "supports": value}) == (
        "adjudication flags must be boolean",
        "value",
    )


@pytest.mark.parametrize("value", [1, 1.5, ["supports"], {"x": 1}])
def test_label_must_be_string(value: Any) -> None:
    assert label_error({"label": value}) == ("adjudication label must be a string", "value")


@pytest.mark.parametrize("value", ["n/a", "", "   ", "maybe", "supports it", "__"])
def test_label_unsupported(value: str) -> None:
    assert label_error({"label": value}) == ("adjudication label is unsupported", "value")


def test_first_bad_key_raises() -> None:
    # label is read before verdict: the non-string label error comes first.
    assert label_error({"label": 3, "verdict": "n/a"}) == (
        "adjudication label must be a string",
        "value",
    )
    assert label_error({"label": "n/a", "verdict": 3}) == (
        "adjudication label is unsupported",
        "value",
    )


def test_null_label_is_absent() -> None:
    # label None is skipped; verdict gives the label.
    assert effective_label({"label": None, "verdict": "pending"}) == "unclear"


def test_missing_label_is_a_record_error() -> None:
    assert label_error({"comment": "no label"}) == (
        "adjudication requires claim, evidence, and label",
        "record",
    )


def test_adjudication_labels_constant() -> None:
    import citelens.support as support

    assert support.ADJUDICATION_LABELS == ("supports", "contradicts", "irrelevant", "unclear")


def test_typed_adjudication_label_normalised() -> None:
    import citelens
    from citelens.support import ClinicianAdjudication

    assert ClinicianAdjudication("c", "e", "ENTAILED").label == "supports"
    assert ClinicianAdjudication("c", "e", False).label == "irrelevant"
    with pytest.raises(citelens.CitationSupportError) as info:
        ClinicianAdjudication("c", "e", "n/a")
    assert (str(info.value), info.value.category) == ("adjudication label is unsupported", "value")
