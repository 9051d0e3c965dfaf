"""Tamper tests: any single-field change of the returned document, the sealed private JSON or
the current artifacts is rejected with ``invalid_review_import`` (review.md §7.1)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens.review import SealedSummaryReview, SummaryReviewError, import_summary_review
from citelens.review._common import cj

from . import _scenario as sc

SCENARIO = sc.build("reviewer")
# A document that imports cleanly, with a resolution so that every field kind is present.
BASELINE = SCENARIO.returned(
    labels={0: ("supports", "irrelevant")},
    reasons={0: "evidence_quality"},
    resolutions=[SCENARIO.resolution(0, "supports", "evidence_quality")],
)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k in value for p in _leaves(value[k], (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path]


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _mutated(value: Any, path: tuple[Any, ...], position: int) -> Any:
    """A copy with the leaf at ``path`` changed: one character of the same length for text
    (replaced by ``x``, or ``y`` when it already is ``x``), ``+1`` for integers, a reason code
    for ``None``."""
    out = copy.deepcopy(value)
    parent = _get(out, path[:-1])
    leaf = parent[path[-1]]
    if isinstance(leaf, bool):
        parent[path[-1]] = not leaf
    elif isinstance(leaf, int):
        parent[path[-1]] = leaf + 1
    elif isinstance(leaf, str):
        i = position % len(leaf)
        parent[path[-1]] = leaf[:i] + ("y" if leaf[i] == "x" else "x") + leaf[i + 1 :]
    elif leaf is None:
        parent[path[-1]] = "other"
    else:  # pragma: no cover - the documents hold no other leaf type
        raise AssertionError(type(leaf))
    return out


def _text(value: str, position: int) -> str:
    i = position % len(value)
    return value[:i] + ("y" if value[i] == "x" else "x") + value[i + 1 :]


def _rejected(document: Any, **overrides: Any) -> bool:
    kwargs = SCENARIO.import_kwargs()
    kwargs.update(overrides)
    try:
        import_summary_review(document, **kwargs)
    except SummaryReviewError as exc:
        assert str(exc) == "invalid_review_import"
        assert exc.category == "review"
        assert exc.__cause__ is None and exc.__context__ is None
        return True
    return False


PRIVATE = json.loads(SCENARIO.sealed.private_json)
ARTIFACT_DOCS = {"claims": SCENARIO.claims, "evidence": SCENARIO.evidence}
TARGETS: list[tuple[str, tuple[Any, ...]]] = (
    [("returned", p) for p in _leaves(BASELINE)]
    + [("private", p) for p in _leaves(PRIVATE)]
    + [("claims", p) for p in _leaves(SCENARIO.claims)]
    + [("evidence", p) for p in _leaves(SCENARIO.evidence)]
    + [("summary", ()), ("source", ())]
)


def _attempt(target: str, path: tuple[Any, ...], position: int) -> bool:
    if target == "returned":
        return _rejected(_mutated(BASELINE, path, position))
    if target == "private":
        changed = cj(_mutated(PRIVATE, path, position))
        sealed = SealedSummaryReview(changed, SCENARIO.sealed.commitment)
        return _rejected(BASELINE, sealed=sealed)
    if target in ARTIFACT_DOCS:
        return _rejected(BASELINE, **{target: _mutated(ARTIFACT_DOCS[target], path, position)})
    original = SCENARIO.summary if target == "summary" else SCENARIO.source
    return _rejected(BASELINE, **{target: _text(original, position)})


def test_baseline_imports() -> None:
    assert not _rejected(BASELINE)
    assert len(TARGETS) > 80


@pytest.mark.parametrize(("target", "path"), TARGETS, ids=[f"{t}{list(p)}" for t, p in TARGETS])
def test_every_single_field_flip_is_rejected(target: str, path: tuple[Any, ...]) -> None:
    # first and last character of text leaves
    assert _attempt(target, path, 0)
    assert _attempt(target, path, -1)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(index=st.integers(0, len(TARGETS) - 1), position=st.integers(0, 10_000))
def test_random_single_field_mutations_are_all_rejected(index: int, position: int) -> None:
    target, path = TARGETS[index]
    assert _attempt(target, path, position)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(position=st.integers(0, 100_000), char=st.characters(codec="ascii"))
def test_random_character_edits_of_private_json_are_rejected(position: int, char: str) -> None:
    text = SCENARIO.sealed.private_json
    i = position % len(text)
    if text[i] == char:
        return
    changed = text[:i] + char + text[i + 1 :]
    # The private JSON is ASCII and canonical (no whitespace, no escapes), so any one-character
    # edit either breaks the JSON or changes its content, and with it the seal.
    sealed = SealedSummaryReview(changed, SCENARIO.sealed.commitment)
    assert _rejected(BASELINE, sealed=sealed)


def test_commitment_flip_and_wrong_key_are_rejected() -> None:
    commitment = SCENARIO.sealed.commitment
    sealed = SealedSummaryReview(SCENARIO.sealed.private_json, _text(commitment, -1))
    assert _rejected(BASELINE, sealed=sealed)
    assert _rejected(BASELINE, sealing_key=sc.KEY[:-1] + b"!")
    assert _rejected(BASELINE, sealing_key=bytearray(sc.KEY))
    assert _rejected(BASELINE, sealing_key=b"short")


def test_whitespace_reformatting_still_verifies() -> None:
    """Kept on purpose (§2): the seal covers the canonical re-serialisation."""
    indented = json.dumps(PRIVATE, indent=4)
    sealed = SealedSummaryReview(indented, SCENARIO.sealed.commitment)
    assert not _rejected(BASELINE, sealed=sealed)
