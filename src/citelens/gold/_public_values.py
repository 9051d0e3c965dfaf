"""The public value functions of :mod:`citelens.gold` with their argument checks (issue 10, item 2):
citation detection, keys and metric primitives, grounding, and the reference adapter's text
helpers.

Each one checks its arguments with :mod:`citelens.gold._guard` (an unusable argument raises
``GoldError("gold input is invalid")``), copies caller collections under a guard, and runs the
implementation inside :func:`citelens._fixed.attempt`, so that anything else that escapes is an
``InternalError`` (a bug), never a foreign exception. The implementations in the private modules
stay unchecked: the scorers call them on data the harness has already read, and an adapter's odd
value there is a scorer matter (gold-harness.md §6.0), not an argument error. This module imports
no adapter or run code, so the adapters can re-export its helpers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from citelens._fixed import attempt
from citelens.gold import _cases, _citations, _grounding, _metrics, _text
from citelens.gold._cases import CitationKey
from citelens.gold._grounding import GroundingResult
from citelens.gold._guard import (
    as_flag,
    as_items,
    as_number,
    as_optional_text,
    as_text,
    as_text_items,
    caller,
    invalid,
    key_text,
)

__all__ = [
    "canonical_key",
    "check_grounding",
    "claim_match",
    "confusion_matrix",
    "contains",
    "content",
    "detect_author_year",
    "detect_citations",
    "exact_set_match",
    "fold",
    "jaccard",
    "mean",
    "neg_norm",
    "norm_claim_text",
    "norm_passage",
    "normalise_citations",
    "numbers_in",
    "parse_numeric_citations",
    "passage_status",
    "percentile",
    "precision_recall_f1",
    "round_metric",
    "sentences",
    "strip_markers",
    "tokens",
    "verdict_index",
]


# --- citation detection (§4) ---------------------------------------------------------------


def normalise_citations(text: str) -> str:
    """Rewrite glued superscript, comma-glued and parenthesised markers as ``[...]`` groups."""
    value = as_text(text)
    return attempt(lambda: _citations.normalise_citations(value))


def parse_numeric_citations(text: str) -> list[int]:
    """The distinct integers of every bracket group, ascending (ranges expanded, 0 dropped)."""
    value = as_text(text)
    return attempt(lambda: _citations.parse_numeric_citations(value))


def detect_author_year(text: str) -> list[str]:
    """Author-year keys (``"Smith 2020"``, ``"Meyer 2020a"``) found in ``text``, sorted."""
    value = as_text(text)
    return attempt(lambda: _citations.detect_author_year(value))


def detect_citations(text: str) -> list[int | str]:
    """Numeric citations (ascending) followed by author-year keys (sorted) found in ``text``."""
    value = as_text(text)
    return attempt(lambda: _citations.detect_citations(value))


# --- keys and metric primitives (§2.5, §5) -------------------------------------------------


def canonical_key(value: object) -> CitationKey:
    """Canonical citation key (§2.5): digit strings become ints, other strings are trimmed of
    the contract's WS; other types go through ``str()`` (the adapter-side rule)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__index__(value)
    text = as_text(value) if isinstance(value, str) else key_text(value)
    if text is None:
        raise invalid()  # nested too deep, too large along its paths, or its __str__ raised
    return attempt(lambda: _cases.canonical_key(text))


def _keys(value: object) -> list[CitationKey]:
    return [canonical_key(item) for item in as_items(value)]


def exact_set_match(a: Iterable[object], b: Iterable[object]) -> bool:
    """The canonical key sets are equal (§5.3)."""
    left, right = _keys(a), _keys(b)
    return attempt(lambda: _metrics.exact_set_match(left, right))


def jaccard(a: Iterable[object], b: Iterable[object]) -> float:
    """``|A ∩ B| / |A ∪ B|`` on canonical keys; two empty sets give 1.0."""
    left, right = _keys(a), _keys(b)
    return attempt(lambda: _metrics.jaccard(left, right))


def norm_claim_text(s: str) -> str:
    """Lowercase and keep only ASCII ``a-z``/``0-9`` (§5.1)."""
    value = as_text(s)
    return attempt(lambda: _metrics.norm_claim_text(value))


def claim_match(a: str, b: str) -> bool:
    """Equality of normalised texts, or containment with a 12-character floor (§5.2)."""
    left, right = as_text(a), as_text(b)
    return attempt(lambda: _metrics.claim_match(left, right))


def precision_recall_f1(
    pred: Sequence[Any], gold: Sequence[Any], match: Any
) -> tuple[float, float, float, int]:
    """Greedy one-to-one matching in prediction order (§5.4): ``(precision, recall, f1, tp)``.

    ``match`` is the caller's: whatever it raises (or its result's truth value raises) is an
    input error.
    """
    left, right = as_items(pred), as_items(gold)
    if not callable(match):
        raise invalid()

    def matched(p: object, g: object) -> bool:
        return caller(lambda: bool(match(p, g)))

    return attempt(lambda: _metrics.precision_recall_f1(left, right, matched))


def confusion_matrix(pairs: Iterable[tuple[str, str | None]]) -> _metrics.Confusion:
    """Build a :class:`~citelens.gold.metrics.Confusion` from ``(gold, predicted)`` pairs."""
    checked: list[tuple[str, str | None]] = []
    for pair in as_items(pairs):
        items = as_items(pair)
        if len(items) != 2:
            raise invalid()
        checked.append((as_text(items[0]), as_optional_text(items[1])))
    return attempt(lambda: _metrics.confusion_matrix(checked))


def norm_passage(s: str) -> str:
    """NFKC, casefold, Unicode letter/digit runs joined by single spaces (§5.6)."""
    value = as_text(s)
    return attempt(lambda: _metrics.norm_passage(value))


def passage_status(quote: str, reference_text: str) -> str:
    """``verified``, ``hallucinated`` or ``empty`` for a quoted passage (§5.6)."""
    q, r = as_text(quote), as_text(reference_text)
    return attempt(lambda: _metrics.passage_status(q, r))


def mean(xs: Sequence[float]) -> float | None:
    """``fsum / len``; ``None`` (undefined) for an empty list."""
    values = [as_number(x) for x in as_items(xs)]
    return attempt(lambda: _metrics.mean(values))


def percentile(values: Iterable[float], p: int) -> float | None:
    """Upper nearest-rank percentile without interpolation (§5.7); ``None`` when empty.

    Items that are not real numbers, and non-finite floats, are left out (as the scorers'
    latency samples are); ``p`` is an integer from 0 to 100.
    """
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 100:
        raise invalid()
    rank = int.__index__(p)
    finite: list[float] = []
    for item in as_items(values):
        if isinstance(item, float) and not isinstance(item, bool):
            number = float.__float__(item)
            if number == number and abs(number) != float("inf"):
                finite.append(number)
        elif isinstance(item, int) and not isinstance(item, bool):
            finite.append(as_number(item))  # an int beyond float range is an input error
    return attempt(lambda: _metrics.percentile(finite, rank))


def round_metric(x: float) -> float:
    """Four decimals, halves away from zero, on the shortest repr of ``x`` (§5.8)."""
    value = as_number(x)
    return attempt(lambda: _metrics.round_metric(value))


def verdict_index(label: str) -> int | None:
    """The scale index of ``label`` (``None`` when it is not one of the six labels)."""
    return _cases.verdict_index(as_text(label))


# --- grounding (§6.4) -----------------------------------------------------------------------


def fold(s: str) -> str:
    """NFKC then casefold."""
    value = as_text(s)
    return attempt(lambda: _grounding.fold(value))


def contains(haystack: str, needle: str) -> bool:
    """Whitespace-insensitive, case-folded containment; an empty needle never matches."""
    h, n = as_text(haystack), as_text(needle)
    return attempt(lambda: _grounding.contains(h, n))


def neg_norm(s: str) -> str:
    """Fold, collapse whitespace and expand negative contractions (``can't`` → ``cannot``)."""
    value = as_text(s)
    return attempt(lambda: _grounding.neg_norm(value))


def numbers_in(s: str) -> list[str]:
    """Distinct canonical numbers of ``s`` in order of first appearance."""
    value = as_text(s)
    return attempt(lambda: _grounding.numbers_in(value))


def _anchor(value: object) -> object:
    # The three anchor forms of §6.4 (text, mapping, object with value/aliases), copied so that
    # the check reads plain data; a part of the wrong type is left out, as the check leaves it.
    if isinstance(value, str):
        return as_text(value)
    if isinstance(value, Mapping):
        raw_value = caller(lambda: value.get("value"))
        raw_aliases = caller(lambda: value.get("aliases"))
    else:
        raw_value = caller(lambda: getattr(value, "value", ""))
        raw_aliases = caller(lambda: getattr(value, "aliases", ()))
    aliases = [] if not raw_aliases else as_items(raw_aliases)
    return {
        "value": as_text(raw_value) if isinstance(raw_value, str) else "",
        "aliases": [as_text(alias) for alias in aliases if isinstance(alias, str)],
    }


def _number_text(value: object) -> str:
    # allowed_new_numbers holds "strings or numbers" (§2.4); anything else goes through str()
    if isinstance(value, str):
        return as_text(value)
    text = key_text(value)
    if text is None:
        raise invalid()
    return text


def check_grounding(
    answer: str,
    context: str | Sequence[str],
    question: str | None = None,
    anchors: Iterable[object] | None = None,
    allowed_new_numbers: Iterable[object] | None = None,
    answerable: bool = True,
    abstain_markers: Iterable[str] | None = None,
) -> GroundingResult:
    """Check one answer against its context: anchors, new numbers, abstention (§6.4)."""
    text = as_text(answer)
    ctx: str | list[str] = as_text(context) if isinstance(context, str) else as_text_items(context)
    q = as_optional_text(question)
    anchor_list = None if anchors is None else [_anchor(a) for a in as_items(anchors)]
    numbers = (
        None
        if allowed_new_numbers is None
        else [_number_text(n) for n in as_items(allowed_new_numbers)]
    )
    flag = as_flag(answerable)
    markers = None if abstain_markers is None else as_text_items(abstain_markers)
    return attempt(
        lambda: _grounding.check_grounding(text, ctx, q, anchor_list, numbers, flag, markers)
    )


# --- the reference adapter's text helpers (§8.4) -------------------------------------------


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences by the deterministic rules of §8.4."""
    value = as_text(text)
    return attempt(lambda: _text.sentences(value))


def tokens(s: str) -> list[str]:
    """Letter/digit runs of ``neg_norm(s)``."""
    value = as_text(s)
    return attempt(lambda: _text.tokens(value))


def content(s: str) -> set[str]:
    """Stemmed content tokens: no stop words, no all-digit tokens."""
    value = as_text(s)
    return attempt(lambda: _text.content(value))


def strip_markers(s: str) -> str:
    """The clean claim text: numeric markers removed, author-year prose kept."""
    value = as_text(s)
    return attempt(lambda: _text.strip_markers(value))
