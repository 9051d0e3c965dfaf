"""Metric primitives, rounding and display formatting (gold-harness.md §5)."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import TypeVar

from citelens.gold._cases import VERDICT_SCALE, CitationKey, canonical_key, verdict_index

__all__ = [
    "Confusion",
    "claim_match",
    "confusion_matrix",
    "delta",
    "display_delta",
    "display_value",
    "exact_set_match",
    "jaccard",
    "mean",
    "norm_claim_text",
    "norm_passage",
    "passage_status",
    "percentile",
    "precision_recall_f1",
    "round_metric",
]

T = TypeVar("T")
G = TypeVar("G")

_NON_ALNUM = re.compile("[^a-z0-9]")
_WORD_RUN = re.compile(r"[^\W_]+")


def norm_claim_text(s: str) -> str:
    """Lowercase and keep only ASCII ``a-z``/``0-9`` (§5.1)."""
    return _NON_ALNUM.sub("", s.lower())


def claim_match(a: str, b: str) -> bool:
    """Equality of normalised texts, or containment with a 12-character floor (§5.2)."""
    x, y = norm_claim_text(a), norm_claim_text(b)
    if not x or not y:
        return False
    if x == y:
        return True
    short, long = (x, y) if len(x) <= len(y) else (y, x)
    return len(short) >= 12 and short in long


def _key_set(keys: Iterable[object]) -> set[CitationKey]:
    return {canonical_key(k) for k in keys}


def exact_set_match(a: Iterable[object], b: Iterable[object]) -> bool:
    """The canonical key sets are equal (§5.3)."""
    return _key_set(a) == _key_set(b)


def jaccard(a: Iterable[object], b: Iterable[object]) -> float:
    """``|A ∩ B| / |A ∪ B|`` on canonical keys; two empty sets give 1.0."""
    x, y = _key_set(a), _key_set(b)
    union = x | y
    if not union:
        return 1.0
    return len(x & y) / len(union)


def precision_recall_f1(
    pred: Sequence[T], gold: Sequence[G], match: Callable[[T, G], bool]
) -> tuple[float, float, float, int]:
    """Greedy one-to-one matching in prediction order (§5.4): ``(precision, recall, f1, tp)``."""
    taken = [False] * len(gold)
    tp = 0
    for p in pred:
        for i, g in enumerate(gold):
            if not taken[i] and match(p, g):
                taken[i] = True
                tp += 1
                break
    if pred:
        precision = tp / len(pred)
    else:
        precision = 0.0 if gold else 1.0
    recall = tp / len(gold) if gold else 1.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1, tp


class Confusion:
    """6×6 verdict confusion matrix (rows gold, columns predicted) plus off-scale tallies."""

    def __init__(self) -> None:
        self.matrix = [[0] * len(VERDICT_SCALE) for _ in VERDICT_SCALE]
        self.off_scale: dict[str, int] = {}

    def add(self, gold: str, predicted: str | None) -> tuple[bool, bool]:
        """Enter one pair; returns ``(exact, adjacent)``."""
        if predicted is None:
            return False, False
        gi = verdict_index(gold)
        pi = verdict_index(predicted)
        if pi is None:
            self.off_scale[predicted] = self.off_scale.get(predicted, 0) + 1
            return False, False
        if gi is None:
            return False, False
        self.matrix[gi][pi] += 1
        return gi == pi, abs(gi - pi) <= 1

    def to_dict(self) -> dict[str, object]:
        """``{labels, matrix, off_scale}`` as the scorecard detail holds it."""
        return {
            "labels": list(VERDICT_SCALE),
            "matrix": [list(row) for row in self.matrix],
            "off_scale": dict(sorted(self.off_scale.items())),
        }


def confusion_matrix(pairs: Iterable[tuple[str, str | None]]) -> Confusion:
    """Build a :class:`Confusion` from ``(gold, predicted)`` pairs."""
    conf = Confusion()
    for gold, predicted in pairs:
        conf.add(gold, predicted)
    return conf


def norm_passage(s: str) -> str:
    """NFKC, casefold, Unicode letter/digit runs joined by single spaces (§5.6)."""
    return " ".join(_WORD_RUN.findall(unicodedata.normalize("NFKC", s).casefold()))


def passage_status(quote: str, reference_text: str) -> str:
    """``verified``, ``hallucinated`` or ``empty`` for a quoted passage (§5.6)."""
    q = norm_passage(quote)
    if not q:
        return "empty"
    return "verified" if q in norm_passage(reference_text) else "hallucinated"


def mean(xs: Sequence[float]) -> float | None:
    """``fsum / len``; ``None`` (undefined) for an empty list."""
    if not xs:
        return None
    try:
        return math.fsum(xs) / len(xs)
    except OverflowError:  # the exact sum leaves float range although the mean cannot
        count = len(xs)
        return math.fsum(x / count for x in xs)


def percentile(values: Iterable[float], p: int) -> float | None:
    """Upper nearest-rank percentile without interpolation (§5.7); ``None`` when empty."""
    finite = sorted(
        float(v)
        for v in values
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    )
    if not finite:
        return None
    n = len(finite)
    return finite[min(n - 1, (p * n) // 100)]


_Q = Decimal("0.0001")
# Enough digits for any finite float quantized to 4 decimals (up to 309 integer digits): the
# default 28-digit context raised InvalidOperation from 1e25 up.
_ROUNDING = Context(prec=400, rounding=ROUND_HALF_UP)


def round_metric(x: float) -> float:
    """Four decimals, halves away from zero, on the shortest repr of ``x`` (§5.8)."""
    return float(Decimal(repr(float(x))).quantize(_Q, rounding=ROUND_HALF_UP, context=_ROUNDING))


def _plain(d: Decimal) -> str:
    text = format(d.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text


def display_value(value: object, kind: str) -> str:
    """Human display of a (rounded) metric value (§5.8)."""
    if value is None:
        return "unmeasured"
    if kind == "count":
        return str(int(value)) if isinstance(value, int | float) else str(value)
    if not isinstance(value, int | float):
        return str(value)
    d = Decimal(repr(value))
    if kind == "rate":
        return format((d * 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), "f") + "%"
    return _plain(d)


def delta(current: float, baseline: float) -> Decimal:
    """Exact difference of the rounded values."""
    return Decimal(repr(current)) - Decimal(repr(baseline))


def display_delta(d: Decimal, kind: str) -> str:
    """Signed delta display: ``+2.50pp`` for rates, ``-126`` for counts, ``-3.5`` otherwise."""
    sign = "-" if d < 0 else "+"
    mag = abs(d)
    if kind == "rate":
        return (
            sign + format((mag * 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), "f") + "pp"
        )
    if kind == "count":
        return sign + str(int(mag))
    return sign + _plain(mag)
