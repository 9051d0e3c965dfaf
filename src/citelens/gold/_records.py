"""Revalidating gold records at the scorers' boundary (issue 10, items 2 and 9).

:class:`~citelens.gold.GoldDataset` and its case records are plain frozen dataclasses: a caller
can build one by hand, or with ``object.__setattr__`` change one after loading, with fields of any
type. The scorers read those fields as the loader leaves them, so a wrong one raised a foreign
``AttributeError``/``TypeError`` (or, a ``str`` subclass whose methods raise, the caller's own
exception). :func:`checked_dataset` rebuilds the dataset from exact types under the loader's rules
(gold-harness.md §2) and raises ``GoldError("gold input is invalid")`` for anything else;
:func:`checked_adapter`, :func:`checked_online` and :func:`checked_repeats` do the same for the
other scorer arguments. A dataset the loader produced comes back equal to itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import (
    VERDICT_SCALE,
    Anchor,
    CitationKey,
    GoldClaim,
    GoldDataset,
    GoldVerdict,
    GroundingCase,
    QACase,
    RedactionCase,
    RedactionEntity,
    Reference,
    RetrievalAnchor,
    RetrievalCase,
    SimplificationCase,
    StyleItem,
)
from citelens.gold._guard import as_flag, as_items, as_text, caller, invalid

__all__ = ["checked_adapter", "checked_dataset", "checked_online", "checked_repeats"]

R = TypeVar("R")

# str() of a larger int exceeds Python's 4,300-digit limit (a failure line shows every key), and
# JSON, the loader's only source, cannot hold one: such a key cannot come from a case file.
_MAX_INT_BITS = 14000


def _record(value: object, kind: type[R]) -> R:
    # exactly the record class: a subclass could compute its fields in the caller's code
    if type(value) is not kind:
        raise invalid()
    return value


def _int(value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid()
    number = int.__index__(value)  # a plain int: a subclass's methods never run later
    if number < minimum or int.bit_length(number) > _MAX_INT_BITS:
        raise invalid()
    return number


def _optional_text(value: object) -> str | None:
    return None if value is None else as_text(value)


def _texts(value: object) -> tuple[str, ...]:
    return tuple(as_text(item) for item in as_items(value))


def _key(value: object) -> CitationKey:
    # the loader's rule for a gold key (§2.5): a positive int, or a non-empty text
    if isinstance(value, str):
        text = as_text(value)
        if not text:
            raise invalid()
        return text
    return _int(value, 1)


def _keys(value: object) -> tuple[CitationKey, ...]:
    return tuple(_key(item) for item in as_items(value))


def _pairs(value: object) -> list[tuple[str, object]]:
    if not isinstance(value, Mapping):
        raise invalid()
    pairs = caller(lambda: list(value.items()))
    out: list[tuple[str, object]] = []
    for pair in pairs:
        if type(pair) is not tuple or len(pair) != 2:
            raise invalid()
        out.append((as_text(pair[0]), pair[1]))
    return out


def _claim(value: object) -> GoldClaim:
    claim = _record(value, GoldClaim)
    return GoldClaim(as_text(claim.original_text), as_text(claim.text), _keys(claim.citations))


def _reference(value: object) -> Reference:
    reference = _record(value, Reference)
    return Reference(as_text(reference.name), as_text(reference.text))


def _verdict(value: object) -> GoldVerdict:
    verdict = _record(value, GoldVerdict)
    label = as_text(verdict.verdict)
    if label not in VERDICT_SCALE:  # gold labels are the six exact strings (§3.4)
        raise invalid()
    return GoldVerdict(as_text(verdict.claim_text), _key(verdict.citation), label)


def _qa(value: object) -> QACase:
    case = _record(value, QACase)
    return QACase(
        id=as_text(case.id),
        file=as_text(case.file),
        manuscript=_optional_text(case.manuscript),
        gold_claims=tuple(_claim(item) for item in as_items(case.gold_claims)),
        gold_non_claims=_texts(case.gold_non_claims),
        references={key: _reference(item) for key, item in _pairs(case.references)},
        gold_verdicts=tuple(_verdict(item) for item in as_items(case.gold_verdicts)),
    )


def _number(value: object) -> str | int | float:
    if isinstance(value, str):
        return as_text(value)
    if isinstance(value, float):
        return float.__float__(value)  # the loader keeps any JSON number, 1e999 (inf) too
    return _int(value, -(2**_MAX_INT_BITS) + 1)


def _anchor(value: object) -> Anchor:
    anchor = _record(value, Anchor)
    return Anchor(as_text(anchor.value), _texts(anchor.aliases))


def _grounding(value: object) -> GroundingCase:
    case = _record(value, GroundingCase)
    markers = case.abstain_markers
    return GroundingCase(
        id=as_text(case.id),
        file=as_text(case.file),
        question=as_text(case.question),
        context=as_text(case.context),
        anchors=tuple(_anchor(item) for item in as_items(case.anchors)),
        allowed_new_numbers=tuple(_number(item) for item in as_items(case.allowed_new_numbers)),
        answerable=as_flag(case.answerable),
        abstain_markers=None if markers is None else _texts(markers),
    )


def _entity(value: object) -> RedactionEntity:
    entity = _record(value, RedactionEntity)
    return RedactionEntity(as_text(entity.type), as_text(entity.value))


def _redaction(value: object) -> RedactionCase:
    case = _record(value, RedactionCase)
    return RedactionCase(
        id=as_text(case.id),
        file=as_text(case.file),
        text=as_text(case.text),
        entities=tuple(_entity(item) for item in as_items(case.entities)),
        known_gaps=tuple(_entity(item) for item in as_items(case.known_gaps)),
    )


def _optional_count(value: object) -> int | None:
    return None if value is None else _int(value, 1)


def _option(value: object) -> tuple[str, str]:
    if type(value) is not tuple or len(value) != 2:
        raise invalid()
    return as_text(value[0]), as_text(value[1])


def _simplification(value: object) -> SimplificationCase:
    case = _record(value, SimplificationCase)
    return SimplificationCase(
        id=as_text(case.id),
        file=as_text(case.file),
        text=as_text(case.text),
        options=tuple(_option(item) for item in as_items(case.options)),
        anchors=tuple(_anchor(item) for item in as_items(case.anchors)),
        allowed_new_numbers=tuple(_number(item) for item in as_items(case.allowed_new_numbers)),
        max_bullets=_optional_count(case.max_bullets),
        max_words_per_bullet=_optional_count(case.max_words_per_bullet),
    )


def _retrieval_anchor(value: object) -> RetrievalAnchor:
    anchor = _record(value, RetrievalAnchor)
    kind = as_text(anchor.kind)
    if kind == "minCount":
        expected: str | int = _int(anchor.expected, 0)
    elif kind in ("equals", "contains"):
        expected = as_text(anchor.expected)
    else:
        raise invalid()
    return RetrievalAnchor(as_text(anchor.field), kind, expected)


def _retrieval(value: object) -> RetrievalCase:
    case = _record(value, RetrievalCase)
    return RetrievalCase(
        id=as_text(case.id),
        file=as_text(case.file),
        record_id=as_text(case.record_id),
        record_type=as_text(case.record_type),
        require_fields=_texts(case.require_fields),
        anchors=tuple(_retrieval_anchor(item) for item in as_items(case.anchors)),
    )


def _style(value: object) -> StyleItem:
    item = _record(value, StyleItem)
    target = item.target_expected
    return StyleItem(
        style=as_text(item.style),
        text=as_text(item.text),
        expected=_keys(item.expected),
        known_gap=as_flag(item.known_gap),
        target_expected=None if target is None else _keys(target),
    )


def checked_dataset(value: object) -> GoldDataset:
    """``value`` rebuilt from exact types when it is a :class:`GoldDataset` the loader could
    have produced; otherwise ``GoldError("gold input is invalid")``."""
    dataset = _record(value, GoldDataset)
    fixture = dataset.fixture
    return GoldDataset(
        root=as_text(dataset.root),
        qa=tuple(_qa(item) for item in as_items(dataset.qa)),
        grounding=tuple(_grounding(item) for item in as_items(dataset.grounding)),
        ignored={kind: _int(count, 0) for kind, count in _pairs(dataset.ignored)},
        fixture=None if fixture is None else tuple(_style(item) for item in as_items(fixture)),
        digest=as_text(dataset.digest),
        order=_texts(dataset.order),
        redaction=tuple(_redaction(item) for item in as_items(dataset.redaction)),
        simplification=tuple(_simplification(item) for item in as_items(dataset.simplification)),
        retrieval=tuple(_retrieval(item) for item in as_items(dataset.retrieval)),
    )


def checked_adapter(value: object) -> LoadedAdapter:
    """A :class:`LoadedAdapter` whose name and capabilities are exact texts (its object's code
    is the adapter's: every call to it is guarded where it is made)."""
    adapter = _record(value, LoadedAdapter)
    capabilities = adapter.capabilities
    if type(adapter.name) is not str or type(capabilities) is not tuple:
        raise invalid()
    if not all(type(item) is str for item in capabilities):
        raise invalid()  # `in` would run a str subclass's __eq__
    return adapter


def checked_online(value: object) -> bool:
    """The ``online`` flag: exactly ``True`` or ``False``."""
    return as_flag(value)


def checked_repeats(value: object) -> int:
    """``repeats``: an int from 1 to 100 (the ``--repeats`` range, gold-harness.md §9.2)."""
    repeats = _int(value, 1)
    if repeats > 100:
        raise invalid()
    return repeats
