"""Fuzzing the pure public functions of ``citelens.gold`` (issue 10, item 2).

Every entry point of ``citelens.gold.__all__``, ``citelens.gold.citations``, ``.metrics`` and
``.grounding`` that takes plain values gets arguments that are hostile (``_fuzz.HOSTILE``) or
well-typed but odd (canary texts, surrogates, huge numbers); it must return or raise a citelens
error with a fixed, canary-free message and no chained exception (``_fuzz.check_call``). The
number of examples is ``CITELENS_FUZZ_EXAMPLES`` (default 200).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citelens.gold as gold
from citelens.errors import GoldError
from citelens.gold import adapters, citations, grounding, metrics

from ._fuzz import CANARY, FUZZ, HOSTILE, TEXT, Hostile, HostileText, check_call

pytestmark = pytest.mark.fuzz  # `make fuzz` runs these with 100,000 examples

_KEYS = st.lists(st.one_of(TEXT, st.integers(), HOSTILE), max_size=5)
_NUMBERS = st.lists(
    st.one_of(st.integers(), st.floats(), st.sampled_from([1024, 1400]).map(lambda b: 2**b)),
    max_size=5,
)

# entry point -> one strategy per positional argument (each may also be fully hostile)
_TEXT_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "detect_citations": gold.detect_citations,
    "detect_author_year": gold.detect_author_year,
    "normalise_citations": gold.normalise_citations,
    "parse_numeric_citations": gold.parse_numeric_citations,
    "citations.detect_citations": citations.detect_citations,
    "norm_claim_text": gold.norm_claim_text,
    "norm_passage": gold.norm_passage,
    "verdict_index": gold.verdict_index,
    "baseline_file_name": gold.baseline_file_name,
    "canonical_key": gold.canonical_key,
    "fold": grounding.fold,
    "neg_norm": grounding.neg_norm,
    "numbers_in": grounding.numbers_in,
    "round_metric": gold.round_metric,
    "adapters.sentences": adapters.sentences,
    "adapters.tokens": adapters.tokens,
    "adapters.content": adapters.content,
    "adapters.strip_markers": adapters.strip_markers,
}
_PAIR_FUNCTIONS: dict[str, tuple[Callable[..., Any], st.SearchStrategy[Any]]] = {
    "claim_match": (gold.claim_match, TEXT),
    "passage_status": (metrics.passage_status, TEXT),
    "contains": (grounding.contains, TEXT),
    "exact_set_match": (gold.exact_set_match, _KEYS),
    "jaccard": (gold.jaccard, _KEYS),
}


def _either(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(plausible, HOSTILE)


@pytest.mark.parametrize("name", sorted(_TEXT_FUNCTIONS))
def test_one_argument_functions(name: str) -> None:
    """Text (or number) in, result or fixed citelens error out."""
    func = _TEXT_FUNCTIONS[name]

    @FUZZ
    @given(_either(st.one_of(TEXT, st.floats(), st.integers())))
    def fuzz(value: Any) -> None:
        check_call(lambda: func(value))

    fuzz()


@pytest.mark.parametrize("name", sorted(_PAIR_FUNCTIONS))
def test_two_argument_functions(name: str) -> None:
    """Two texts or two key collections in, result or fixed citelens error out."""
    func, plausible = _PAIR_FUNCTIONS[name]

    @FUZZ
    @given(_either(plausible), _either(plausible))
    def fuzz(a: Any, b: Any) -> None:
        check_call(lambda: func(a, b))

    fuzz()


# identity, not `a == b`: `==` on two shared-reference values (_fuzz._shared, 40 levels) walks
# 2**40 paths, the caller's own exponential code, which hung a full-suite run
_MATCHERS = st.one_of(
    st.sampled_from([gold.claim_match, lambda a, b: a is b, lambda a, b: Hostile(), None, 3]),
    st.builds(Hostile),  # raises when called (a sampled Hostile would break Hypothesis itself)
)


@FUZZ
@given(
    _either(st.lists(TEXT, max_size=4)),
    _either(st.lists(TEXT, max_size=4)),
    _MATCHERS,
)
def test_precision_recall_f1(pred: Any, gold_items: Any, match: Any) -> None:
    """The caller's ``match`` may raise, or return an object whose truth value raises."""
    check_call(lambda: gold.precision_recall_f1(pred, gold_items, match))


@FUZZ
@given(_either(_NUMBERS), _either(st.integers(min_value=-5, max_value=105)))
def test_percentile(values: Any, p: Any) -> None:
    """Non-numbers are skipped, an int beyond float range and a bad rank are input errors."""
    check_call(lambda: gold.percentile(values, p))


@FUZZ
@given(_either(_NUMBERS))
def test_mean(values: Any) -> None:
    """Every item must be a finite real within float range."""
    check_call(lambda: metrics.mean(values))


_LABELS = st.sampled_from([*gold.VERDICT_SCALE, "other", CANARY])


@FUZZ
@given(_either(st.lists(st.tuples(_either(_LABELS), _either(st.none() | _LABELS)), max_size=4)))
def test_confusion_matrix(pairs: Any) -> None:
    """Pairs of a gold label and a predicted label (or ``None``)."""
    check_call(lambda: metrics.confusion_matrix(pairs))


_ANCHORS = st.lists(
    st.one_of(
        TEXT,
        st.fixed_dictionaries({"value": _either(TEXT)}, optional={"aliases": _either(_KEYS)}),
        HOSTILE,
    ),
    max_size=3,
)


@FUZZ
@given(
    _either(TEXT),
    _either(st.one_of(TEXT, st.lists(TEXT, max_size=3))),
    st.fixed_dictionaries(
        {},
        optional={
            "question": _either(st.none() | TEXT),
            "anchors": _either(st.none() | _ANCHORS),
            "allowed_new_numbers": _either(st.none() | _KEYS),
            "answerable": _either(st.booleans()),
            "abstain_markers": _either(st.none() | st.lists(TEXT, max_size=3)),
        },
    ),
)
def test_check_grounding(answer: Any, context: Any, options: dict[str, Any]) -> None:
    """Every argument of the grounding check, alone or together, hostile or odd."""
    check_call(lambda: grounding.check_grounding(answer, context, **options))


@FUZZ
@given(_either(st.lists(_either(st.tuples(_either(TEXT), _either(st.binary()))), max_size=3)))
def test_dataset_digest(files: Any) -> None:
    """Pairs of a relative path and raw bytes."""
    check_call(lambda: gold.dataset_digest(files))


@FUZZ
@given(_either(st.lists(_either(TEXT), max_size=3)))
def test_parse_tolerances(specs: Any) -> None:
    """A collection of tolerance texts; a bad one is returned, not raised."""
    check_call(lambda: gold.parse_tolerances(specs))


# Typed as Any: the calls below pass wrong types on purpose.
_gold: Any = gold
_metrics: Any = metrics
_grounding: Any = grounding


# Hand-checked cases of what the fuzzing found (each raised a foreign exception before).
@pytest.mark.parametrize(
    "call",
    [
        lambda: _gold.detect_citations(None),  # TypeError from re
        lambda: _gold.claim_match(5, "x"),  # AttributeError: int has no lower()
        lambda: _gold.jaccard(5, [1]),  # TypeError: int is not iterable
        lambda: _gold.jaccard([Hostile()], [1]),  # the caller's __str__ raised
        lambda: _gold.exact_set_match(Hostile(), []),  # the caller's __iter__ raised
        lambda: _gold.round_metric(float("nan")),  # decimal.InvalidOperation
        lambda: _gold.round_metric(2**1024),  # OverflowError
        lambda: _gold.percentile([2**1024], 50),  # OverflowError in math.isfinite
        lambda: _gold.precision_recall_f1(["a"], ["a"], Hostile()),  # the caller's match raised
        lambda: _metrics.mean(["1"]),  # TypeError from math.fsum
        lambda: _metrics.confusion_matrix([([], "x")]),  # TypeError: unhashable label
        lambda: _grounding.check_grounding(CANARY, None),  # TypeError: join of None
        lambda: _gold.dataset_digest([("\ud800", b"")]),  # UnicodeEncodeError
        lambda: _gold.parse_tolerances([None]),  # AttributeError: None has no strip()
        lambda: _gold.verdict_index([]),  # TypeError: unhashable
        lambda: _gold.exact_set_match(HostileText("1"), [1]),  # text is not a key collection
    ],
)
def test_found_cases_are_gold_errors(call: Callable[[], object]) -> None:
    """Each of these is ``GoldError("gold input is invalid")``, category ``input``."""
    error = check_call(call)
    assert isinstance(error, GoldError)
    assert str(error) == "gold input is invalid" and error.category == "input"


def test_values_the_fixes_keep() -> None:
    """Worked examples of what the checks and fixes return (they must not turn into errors)."""
    assert _gold.round_metric(1e25) == 1e25  # 28-digit context raised; quantize is exact here
    assert _gold.round_metric(0.00005) == 0.0001  # halves away from zero (§11 item 2)
    assert _gold.percentile([1, 2, float("nan"), "3", True], 50) == 2.0  # nan, "3", True skipped
    assert _gold.canonical_key(" 007 ") == 7
    assert _gold.canonical_key("\u001c1\u0085") == "\u001c1\u0085"  # not contract WS: kept
    assert _gold.canonical_key("\ufeff12\u3000") == 12  # contract WS (U+FEFF, U+3000) trimmed
    assert _gold.canonical_key("0" * 6000 + "5") == 5  # leading zeros are not digits that count
    assert _gold.canonical_key("9" * 5000) == "9" * 5000  # beyond the limit: stays a string
    assert _gold.jaccard(["1", 2], [1, "2 "]) == 1.0
    assert _gold.exact_set_match([HostileText(" 3")], [3]) is True  # a copy of the characters
