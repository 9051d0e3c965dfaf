"""Fuzzing the public gold records and what consumes them (issue 10, item 2).

Every dataclass of ``citelens.gold.__all__`` is built with hostile field values
(``_fuzz.HOSTILE``); building must not raise a foreign exception, and each record's public
methods and properties, and the public functions that take it (the four scorers and
``run_scorers`` for a dataset and an adapter record, ``compute_gate`` for ``Tolerances``), must
return or raise a fixed, canary-free citelens error that is not an ``InternalError``
(``_fuzz.check_call``). A dataset is fuzzed the way a caller can break one: a small loaded dataset
with one or more fields, at any depth, replaced by a hostile value. Examples per test:
``CITELENS_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citelens.gold as gold
from citelens.errors import GoldError
from citelens.gold import scorers
from citelens.gold._adapters import LoadedAdapter

from ._fuzz import CANARY, EXAMPLES, FUZZ, HOSTILE, TEXT, HostileText, check_call

pytestmark = pytest.mark.fuzz  # `make fuzz` runs these with 100,000 examples

_RECORDS = sorted(
    name for name in gold.__all__ if dataclasses.is_dataclass(getattr(gold, name, None))
)
_PLAUSIBLE = st.one_of(TEXT, st.integers(), st.booleans(), st.none(), st.tuples(TEXT), HOSTILE)


# The public methods of the records that take an argument, with hostile ones (``resolve`` is
# fuzzed with hand-built ``Tolerances`` below; ``LoadedAdapter.call`` runs the adapter's code).
_METHODS: dict[str, tuple[str, ...]] = {
    "QACase": ("reference",),
    "GroundingResult": ("__getitem__",),
    "Tolerances": ("resolve",),
}
_ARGUMENTS = st.one_of(HOSTILE, TEXT.map(HostileText), st.sampled_from(["grounded", "1", 1]))


def _probe(record: object, arguments: list[object]) -> None:
    """Every public property of a built record, and its methods with hostile arguments."""
    for name in dir(type(record)):
        if name.startswith("_"):
            continue
        attribute = getattr(type(record), name)
        if isinstance(attribute, property):
            check_call(functools.partial(getattr, record, name))
    for name in _METHODS.get(type(record).__name__, ()):
        for argument in arguments:
            check_call(functools.partial(getattr(record, name), argument))


@pytest.mark.parametrize("name", _RECORDS)
def test_record_constructors(name: str) -> None:
    """Any field values: built (a dataclass stores them), and its properties read safely."""
    kind: Any = getattr(gold, name)
    fields = [f.name for f in dataclasses.fields(kind) if f.init and not f.name.startswith("_")]

    @FUZZ
    @given(
        st.fixed_dictionaries({field: _PLAUSIBLE for field in fields}),
        st.lists(_ARGUMENTS, max_size=3),
    )
    def fuzz(values: dict[str, Any], arguments: list[object]) -> None:
        record = check_call(lambda: kind(**values))
        if isinstance(record, kind):
            _probe(record, arguments)

    fuzz()


# One QA case, one grounding case and three fixture items of the bundled sample: small enough
# that a scorer run takes milliseconds.
_BUNDLED = gold.load_dataset(None)
_BASE = dataclasses.replace(
    _BUNDLED,
    qa=_BUNDLED.qa[:1],
    grounding=_BUNDLED.grounding[:1],
    fixture=(_BUNDLED.fixture or ())[:3],
    order=(_BUNDLED.qa[0].id, _BUNDLED.grounding[0].id),
)
_LEXICAL = gold.load_adapter("lexical")

# Where a replacement can go: (field of the dataset, index, field of that record, index, field).
_PATHS: tuple[tuple[str | int, ...], ...] = (
    *((f.name,) for f in dataclasses.fields(gold.GoldDataset)),
    *(("qa", 0, f.name) for f in dataclasses.fields(gold.QACase)),
    *(("qa", 0, "gold_claims", 0, f.name) for f in dataclasses.fields(gold.GoldClaim)),
    *(("qa", 0, "gold_verdicts", 0, f.name) for f in dataclasses.fields(gold.GoldVerdict)),
    *(("grounding", 0, f.name) for f in dataclasses.fields(gold.GroundingCase)),
    *(("grounding", 0, "anchors", 0, f.name) for f in dataclasses.fields(gold.Anchor)),
    *(("fixture", 0, f.name) for f in dataclasses.fields(gold.StyleItem)),
    ("qa", 0, "gold_claims", 0),
    ("qa", 0, "gold_verdicts", 0),
    ("grounding", 0),
    ("fixture", 0),
)
# Values a field may be given: hostile ones, and typed but wrong ones the loader never makes.
_VALUES = st.one_of(
    HOSTILE,
    TEXT.map(HostileText),
    st.sampled_from(
        [
            "maybe",  # a verdict outside the six
            2**20000,  # str() beyond the digit limit
            -1,
            0,
            (),
            (2**20000,),
            ("\ud800" + CANARY,),
            {CANARY: gold.Reference(CANARY, CANARY)},
            {1: "x"},
        ]
    ),
)


def _replace(value: Any, path: tuple[str | int, ...], new: object) -> Any:
    """``value`` with the item at ``path`` replaced (records rebuilt, tuples copied); a path
    through something that is no longer a record or tuple leaves it as it is."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        if type(value) is not tuple or len(value) <= step:
            return value
        return (*value[:step], _replace(value[step], rest, new), *value[step + 1 :])
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    changed: dict[str, Any] = {step: _replace(getattr(value, step), rest, new)}
    return dataclasses.replace(value, **changed)


@st.composite
def _datasets(draw: st.DrawFn) -> Any:
    dataset: Any = _BASE
    for path in draw(st.lists(st.sampled_from(_PATHS), min_size=1, max_size=3)):
        dataset = _replace(dataset, path, draw(_VALUES))
    return dataset


_SCORER_RUNS = settings(parent=FUZZ, max_examples=max(10, EXAMPLES // 2))


@_SCORER_RUNS
@given(_datasets())
def test_scorers_on_changed_datasets(dataset: Any) -> None:
    """A dataset with hostile fields: each scorer (offline and online with ``lexical``) returns a
    result or raises ``gold input is invalid``, never a foreign error or an internal one."""
    calls: list[Callable[[], object]] = [
        lambda: scorers.score_citation_detection(dataset),
        lambda: scorers.score_claim_extraction(dataset, _LEXICAL, True),
        lambda: scorers.score_verdict_accuracy(dataset, _LEXICAL, True, 2),
        lambda: scorers.score_grounding(dataset, _LEXICAL, True),
        lambda: gold.run_scorers(dataset, _LEXICAL, online=True),
    ]
    outcomes = [check_call(call) for call in calls]
    failed = [o for o in outcomes if isinstance(o, GoldError)]
    # the dataset is checked the same way at every entry point: all fail or none does
    assert len(failed) in (0, len(outcomes))


_ADAPTER_FIELDS = st.fixed_dictionaries(
    {
        "obj": st.one_of(st.just(_LEXICAL.obj), HOSTILE),
        "spec": _PLAUSIBLE,
        "name": st.one_of(st.just("lexical"), _PLAUSIBLE),
        "capabilities": st.one_of(
            st.just(_LEXICAL.capabilities),
            st.lists(st.one_of(st.sampled_from(["claims", "verdicts", "grounding"]), TEXT))
            .map(tuple)
            .map(lambda caps: tuple(HostileText(c) for c in caps)),
            _PLAUSIBLE,
        ),
    }
)


@_SCORER_RUNS
@given(
    _ADAPTER_FIELDS,
    st.one_of(st.booleans(), HOSTILE),
    st.one_of(st.integers(-3, 120), HOSTILE),
)
def test_scorers_with_hostile_adapter_records(
    fields: dict[str, Any], online: Any, repeats: Any
) -> None:
    """A hand-built ``LoadedAdapter`` (hostile object, name or capabilities), a hostile
    ``online`` flag or repeat count."""
    adapter = LoadedAdapter(**fields)
    try:
        check_call(lambda: scorers.score_claim_extraction(_BASE, adapter, online))
        check_call(lambda: scorers.score_verdict_accuracy(_BASE, adapter, online, repeats))
        check_call(lambda: scorers.score_grounding(_BASE, adapter, online))
        check_call(lambda: gold.run_scorers(_BASE, adapter, online, repeats))
    finally:
        adapter.close()


# names a dict can hold (a HostileText's __hash__ raises), registry names among them
_TOLERANCE_NAMES = st.one_of(
    TEXT, st.sampled_from([m.name for m in gold.METRICS] + [m.qualified for m in gold.METRICS])
)
_DECIMALS = st.one_of(st.none(), st.sampled_from(["0", "0.5", "1e-3"]).map(Decimal), HOSTILE)


@FUZZ
@given(
    st.one_of(HOSTILE, st.dictionaries(_TOLERANCE_NAMES, _DECIMALS, max_size=3)),
    st.one_of(HOSTILE, st.dictionaries(_TOLERANCE_NAMES, _DECIMALS, max_size=3)),
    _DECIMALS,
    st.one_of(st.booleans(), HOSTILE),
)
def test_hand_built_tolerances(qualified: Any, bare: Any, default: Any, has_default: Any) -> None:
    """A ``Tolerances`` built by hand: ``compute_gate`` and ``resolve`` read it safely."""
    tolerances: Any = check_call(lambda: gold.Tolerances(qualified, bare, default, has_default))
    assert isinstance(tolerances, gold.Tolerances)
    entries = [{"id": "citation-detection", "status": "passed", "metrics": {"n_claims": 3}}]
    check_call(
        lambda: gold.compute_gate(
            entries, None, None, tolerances, enforced=True, dataset_digest="sha256:x"
        )
    )
    for spec in gold.METRICS[:5]:
        check_call(functools.partial(tolerances.resolve, spec))
