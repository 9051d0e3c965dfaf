"""Gold case records (gold-harness.md §2, §3; issue 13): the verdict scale, citation keys, the
QA, grounding, redaction, simplification and retrieval cases, the citation-style fixture and the
loaded dataset."""

from __future__ import annotations

from dataclasses import dataclass, field

from citelens.gold._guard import caller, invalid, key_text
from citelens.gold._ws import trim_ws

__all__ = [
    "ADJACENT",
    "UNREADABLE_KEY",
    "VERDICT_SCALE",
    "Anchor",
    "CitationKey",
    "DatasetCheck",
    "GoldClaim",
    "GoldDataset",
    "GoldVerdict",
    "GroundingCase",
    "QACase",
    "RedactionCase",
    "RedactionEntity",
    "Reference",
    "RetrievalAnchor",
    "RetrievalCase",
    "SimplificationCase",
    "StyleItem",
    "canonical_key",
    "verdict_index",
]

VERDICT_SCALE: tuple[str, ...] = (
    "strong_support",
    "partial_support",
    "implied_by_data",
    "overclaim",
    "not_supported",
    "contradicted",
)
"""The six verdict labels in ordinal order (index 0 = best borne out)."""

_INDEX = {label: i for i, label in enumerate(VERDICT_SCALE)}

ADJACENT: frozenset[tuple[str, str]] = frozenset(
    (VERDICT_SCALE[i], VERDICT_SCALE[j]) for i in range(6) for j in range(6) if abs(i - j) == 1
)
"""Pairs of labels whose scale indices differ by exactly one."""

CitationKey = int | str


def verdict_index(label: str) -> int | None:
    """The scale index of ``label`` (``None`` when it is not one of the six labels)."""
    return _INDEX.get(label)


def canonical_key(value: object) -> CitationKey:
    """Canonical citation key (§2.5): digit strings become ints, other strings are trimmed of
    the contract's WS (not ``str.strip``'s: U+001C-U+001F and U+0085 stay).

    Booleans and other types are converted with ``str()`` (the adapter-side rule); a value with no
    bounded text form (nested more than 32 deep, more than 10,000 items along all paths, or a
    ``__str__`` that raises) is the key ``UNREADABLE_KEY``, which no gold key equals once
    validated. A digit string longer than Python's integer-conversion limit (4,300 significant
    digits) stays a string.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value
    else:
        converted = key_text(value)
        text = UNREADABLE_KEY if converted is None else converted
    text = trim_ws(text)
    if text and text.isascii() and text.isdigit():
        significant = text.lstrip("0")
        if len(significant) <= _MAX_KEY_DIGITS:
            return int(significant) if significant else 0
    return text


UNREADABLE_KEY = "\ufffd"
"""The key of an adapter value without a bounded text form (U+FFFD, the replacement character)."""

_MAX_KEY_DIGITS = 4300
"""Python's default ``int``/``str`` digit limit, fixed so keys do not depend on its setting."""


@dataclass(frozen=True)
class GoldClaim:
    """A gold claim: the marked-up sentence, its clean text and its citation keys."""

    original_text: str
    text: str
    citations: tuple[CitationKey, ...]


@dataclass(frozen=True)
class Reference:
    """A reference snippet a gold verdict is judged against."""

    name: str
    text: str


@dataclass(frozen=True)
class GoldVerdict:
    """One labelled (claim, reference) pair."""

    claim_text: str
    citation: CitationKey
    verdict: str


@dataclass(frozen=True)
class QACase:
    """A QA gold case (§2.3)."""

    id: str
    file: str
    manuscript: str | None
    gold_claims: tuple[GoldClaim, ...]
    gold_non_claims: tuple[str, ...]
    references: dict[str, Reference]
    gold_verdicts: tuple[GoldVerdict, ...]

    def reference(self, key: CitationKey) -> Reference | None:
        """The reference stored under the canonical ``key`` (``None`` when there is none);
        ``GoldError`` for a key without a bounded text form or a hand-built ``references`` that
        is not a mapping."""
        text = str.__getitem__(key, slice(None)) if isinstance(key, str) else key_text(key)
        if text is None or not isinstance(self.references, dict):
            raise invalid()
        return dict.get(self.references, text)


@dataclass(frozen=True)
class Anchor:
    """A fact a correct grounded answer must contain."""

    value: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroundingCase:
    """A grounding gold case (§2.4)."""

    id: str
    file: str
    question: str
    context: str
    anchors: tuple[Anchor, ...]
    allowed_new_numbers: tuple[str | int | float, ...]
    answerable: bool
    abstain_markers: tuple[str, ...] | None


@dataclass(frozen=True)
class RedactionEntity:
    """An identifier a redaction must remove (``goldEntities``) or a tracked gap."""

    type: str
    value: str


@dataclass(frozen=True)
class RedactionCase:
    """A redaction gold case (issue 13, ``kind: "redaction"``)."""

    id: str
    file: str
    text: str
    entities: tuple[RedactionEntity, ...]
    known_gaps: tuple[RedactionEntity, ...]


@dataclass(frozen=True)
class SimplificationCase:
    """A simplification gold case (issue 13, ``kind: "simplification"``).

    ``options`` holds the optional ``audience``/``tone``/``length``/``language`` texts the case
    declares, in that order; they are passed to the adapter's ``simplify`` as given.
    """

    id: str
    file: str
    text: str
    options: tuple[tuple[str, str], ...]
    anchors: tuple[Anchor, ...]
    allowed_new_numbers: tuple[str | int | float, ...]
    max_bullets: int | None
    max_words_per_bullet: int | None


@dataclass(frozen=True)
class RetrievalAnchor:
    """A ground-truth check on one record field: ``kind`` is ``equals``, ``contains`` or
    ``minCount`` and ``expected`` its text (``equals``/``contains``) or count (``minCount``)."""

    field: str
    kind: str
    expected: str | int


@dataclass(frozen=True)
class RetrievalCase:
    """A retrieval gold case (issue 13, ``kind: "retrieval"``)."""

    id: str
    file: str
    record_id: str
    record_type: str
    require_fields: tuple[str, ...]
    anchors: tuple[RetrievalAnchor, ...]


@dataclass(frozen=True)
class StyleItem:
    """One item of the citation-style fixture (§2.6)."""

    style: str
    text: str
    expected: tuple[CitationKey, ...]
    known_gap: bool
    target_expected: tuple[CitationKey, ...] | None


@dataclass(frozen=True)
class GoldDataset:
    """A loaded, validated gold dataset."""

    root: str
    qa: tuple[QACase, ...]
    grounding: tuple[GroundingCase, ...]
    ignored: dict[str, int]
    fixture: tuple[StyleItem, ...] | None
    digest: str
    order: tuple[str, ...] = field(default=())
    redaction: tuple[RedactionCase, ...] = field(default=())
    simplification: tuple[SimplificationCase, ...] = field(default=())
    retrieval: tuple[RetrievalCase, ...] = field(default=())

    @property
    def case_count(self) -> int:
        """Every loaded case, ignored ones included (``GoldError`` for a hand-built dataset
        whose fields are not collections of cases and a mapping of counts)."""
        # the fields may be the caller's objects (their __len__, values() and __add__ run)
        count = caller(
            lambda: (
                len(self.qa)
                + len(self.grounding)
                + len(self.redaction)
                + len(self.simplification)
                + len(self.retrieval)
                + sum(self.ignored.values())
            )
        )
        if isinstance(count, bool) or not isinstance(count, int):
            raise invalid()
        return int.__index__(count)

    def __repr__(self) -> str:
        return (
            f"GoldDataset(qa={len(self.qa)}, grounding={len(self.grounding)}, "
            f"redaction={len(self.redaction)}, simplification={len(self.simplification)}, "
            f"retrieval={len(self.retrieval)}, ignored={sum(self.ignored.values())})"
        )


@dataclass(frozen=True)
class DatasetCheck:
    """Structured result of validating a dataset directory (never raises)."""

    root: str
    problems: tuple[str, ...]
    dataset: GoldDataset | None
    no_cases: bool = False

    @property
    def ok(self) -> bool:
        """True when the dataset loaded without problems."""
        return self.dataset is not None
