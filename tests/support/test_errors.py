"""Every message of the error catalogue (support-metrics.md §11) triggered, with its category,
no chaining, and no planted canary value in the message, the args, the repr or the traceback."""

from __future__ import annotations

import dataclasses
import pathlib
import traceback
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from ._helpers import CANARY_ID, CANARY_TEXT, compute

C = CANARY_ID
# Numeric canaries: values that must not appear in any message or traceback.
NUM_OFFSET = 123456.5
NUM_LENGTH = "987654"
NUM_LABEL = 918273


def L(**fields: int) -> Any:
    import citelens

    return citelens.Limits(**fields)


class KeysExplode(Mapping[str, Any]):
    """A mapping that is not a record (no record keys) and whose iteration raises."""

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("secret " + C)

    def __len__(self) -> int:
        return 1


class GetitemExplodes(Mapping[str, Any]):
    """A record mapping (it has ``claim_id``) whose values cannot be read."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("secret " + C)

    def __iter__(self) -> Iterator[str]:
        return iter(["claim_id", "evidence_id", "label", "start"])

    def __len__(self) -> int:
        return 4

    def __contains__(self, key: object) -> bool:
        return key in ("claim_id", "evidence_id", "label", "start")


class ToDictExplodes:
    def to_dict(self) -> Any:
        raise RuntimeError("secret " + C)


class ToDictCitelensError:
    def to_dict(self) -> Any:
        import citelens

        raise citelens.CitationSupportError("claim identifier is required", "record")


class EvilInt(int):
    def __str__(self) -> str:
        raise RuntimeError("secret " + C)


class RaisingIterator:
    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        import citelens

        raise citelens.CitationSupportError("secret " + C, "record")


def boom_generator() -> Iterator[Any]:
    yield {"claim_id": C}
    raise RuntimeError("upstream secret value " + C)


def not_iterable() -> Any:
    class NoIter:
        def __iter__(self) -> Iterator[Any]:
            raise RuntimeError("secret " + C)

    return NoIter()


def report_for_errors() -> Any:
    return compute([{"claim_id": C, "citations": [C]}], [{"evidence_id": C, "start": 0, "end": 1}])


def _replace(attr: str | None, **changes: Any) -> Callable[[], Any]:
    def run() -> Any:
        report = report_for_errors()
        target = report if attr is None else getattr(report, attr)
        return dataclasses.replace(target, **changes)

    return run


def _typed(name: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    def run() -> Any:
        import citelens.support as support

        return getattr(support, name)(*args, **kwargs)

    return run


def _from_mapping(name: str, value: Any) -> Any:
    import citelens.support as support

    return getattr(support, name).from_mapping(value)


def _write(tmp: pathlib.Path) -> Any:
    blocker = tmp / f"{C}.txt"
    blocker.write_text("x", encoding="utf-8")
    return report_for_errors().write_json(blocker / f"{C}.json")


ADJ = {"claim_id": C, "evidence_id": C}

# (message, category, callable(tmp_path))
CATALOGUE: list[tuple[str, str, Callable[[pathlib.Path], Any]]] = [
    (
        "claim collection must be an iterable of records",
        "collection",
        lambda t: compute(CANARY_TEXT),
    ),
    (
        "claim collection must be an iterable of records",
        "collection",
        lambda t: compute(boom_generator()),
    ),
    (
        "claim collection must be an iterable of records",
        "collection",
        lambda t: compute(not_iterable()),
    ),
    (
        "claim collection must be an iterable of records",
        "collection",
        lambda t: compute(RaisingIterator()),
    ),
    (
        "claim collection must be an iterable of records",
        "collection",
        lambda t: compute(t / f"{C}.parquet"),
    ),
    ("evidence collection must be an iterable of records", "collection", lambda t: compute([], 5)),
    (
        "citation collection must be an iterable of records",
        "collection",
        lambda t: compute([], [], C),
    ),
    (
        "adjudication collection must be an iterable of records",
        "collection",
        lambda t: compute([], [], None, 3.5),
    ),
    (
        "record collection must be an iterable of records",
        "collection",
        lambda t: compute(KeysExplode()),
    ),
    (
        "source collection must be an iterable of records",
        "collection",
        lambda t: compute([], source_lengths=KeysExplode()),
    ),
    (
        "source_lengths must be a mapping",
        "collection",
        lambda t: compute([], source_lengths=[(C, 1)]),
    ),
    (
        "claim collection exceeds the record limit",
        "limit",
        lambda t: compute([{"claim_id": C}] * 2, limits=L(claims=1)),
    ),
    (
        "evidence collection exceeds the record limit",
        "limit",
        lambda t: compute([], [{}, {}], limits=L(evidence=1)),
    ),
    (
        "citation collection exceeds the record limit",
        "limit",
        lambda t: compute([], [], [(C, C)] * 2, limits=L(citations=1)),
    ),
    (
        "adjudication collection exceeds the record limit",
        "limit",
        lambda t: compute([], [], None, [ADJ] * 2, limits=L(adjudications=1)),
    ),
    (
        "record collection exceeds the record limit",
        "limit",
        lambda t: compute({C: [], "b": []}, limits=L(claims=1)),
    ),
    (
        "source collection exceeds the record limit",
        "limit",
        lambda t: compute([], source_lengths={C: 1, "b": 2}, limits=L(evidence=1)),
    ),
    ("limits must be a Limits instance", "policy", lambda t: compute([], limits={"claims": C})),
    (
        "evidence mapping values must be records or spans",
        "record",
        lambda t: compute([], {C: CANARY_TEXT}),
    ),
    (
        "citation values must be identifiers or records",
        "record",
        lambda t: compute([{"claim_id": C, "citations": 1.5}]),
    ),
    (
        "citation values must be identifiers or records",
        "record",
        lambda t: compute([], [], {C: {C}}),
    ),
    (
        "citation identifiers must be a sequence",
        "record",
        lambda t: _typed("AtomicClaim", C, citations=2.5)(),
    ),
    (
        "citation tuple must contain two identifiers",
        "record",
        lambda t: compute([], [], [(C, C, C)]),
    ),
    ("citation records must be mappings or pairs", "record", lambda t: compute([], [], [C])),
    ("claim record cannot be normalized", "record", lambda t: compute([ToDictExplodes()])),
    ("claim record cannot be normalized", "record", lambda t: compute([ToDictCitelensError()])),
    ("evidence record cannot be normalized", "record", lambda t: compute([], [ToDictExplodes()])),
    (
        "citation record cannot be normalized",
        "record",
        lambda t: _from_mapping("Citation", ToDictExplodes()),
    ),
    (
        "adjudication record cannot be normalized",
        "record",
        lambda t: compute([], [], None, [ToDictExplodes()]),
    ),
    ("claim record must be a mapping", "record", lambda t: compute([None])),
    ("claim record must be a mapping", "record", lambda t: compute([[C, C]])),
    ("evidence record must be a mapping", "record", lambda t: compute([], [C])),
    ("citation record must be a mapping", "record", lambda t: _from_mapping("Citation", [C, C])),
    (
        "adjudication record must be a mapping",
        "record",
        lambda t: compute([], [], None, [[C, C, "supports"]]),
    ),
    (
        "adjudication record must be a mapping",
        "record",
        lambda t: compute([], [], None, {"verdict": "supports"}),
    ),
    (
        "claim identifier is required",
        "record",
        lambda t: compute([{"start": 1, "text": CANARY_TEXT}]),
    ),
    (
        "evidence identifier is required",
        "record",
        lambda t: compute([], [{"start": 1, "text": CANARY_TEXT}]),
    ),
    (
        "citation requires claim and evidence identifiers",
        "record",
        lambda t: compute([], [], [{"claim_id": C, "source_id": C}]),
    ),
    (
        "adjudication requires claim, evidence, and label",
        "record",
        lambda t: compute([], [], None, [ADJ]),
    ),
    (
        "citation record requires an evidence identifier",
        "record",
        lambda t: compute([{"claim_id": C, "citations": [{"start": 1}]}]),
    ),
    ("conflicting field aliases", "record", lambda t: compute([{"claim_id": C, "id": C + "x"}])),
    (
        "span tuple must contain two offsets",
        "span",
        lambda t: compute([{"claim_id": C, "span": [1, 2, 3]}]),
    ),
    (
        "conflicting span offsets",
        "span",
        lambda t: compute([{"claim_id": C, "start": 1, "span": [7, 9]}]),
    ),
    (
        "span offsets must be integers",
        "span",
        lambda t: compute([{"claim_id": C, "start": NUM_OFFSET, "end": 2}]),
    ),
    ("identifier must be a string", "identifier", lambda t: compute([{"claim_id": [C]}])),
    (
        "identifier is empty, bounded, and control-free",
        "identifier",
        lambda t: compute([{"claim_id": C + "\n" + CANARY_TEXT}]),
    ),
    (
        "source lengths must be integers",
        "value",
        lambda t: compute([{"claim_id": C, "source_length": NUM_LENGTH}]),
    ),
    (
        "claim type must be a bounded label",
        "value",
        lambda t: compute([{"claim_id": C, "claim_type": "_" + C}]),
    ),
    (
        "adjudication flags must be boolean",
        "value",
        lambda t: compute([], [], None, [{**ADJ, "supports": C}]),
    ),
    (
        "conflicting adjudication labels",
        "value",
        lambda t: compute([], [], None, [{**ADJ, "label": "supports", "verdict": "refuted"}]),
    ),
    (
        "adjudication label must be a string",
        "value",
        lambda t: compute([], [], None, [{**ADJ, "label": NUM_LABEL}]),
    ),
    (
        "adjudication label is unsupported",
        "value",
        lambda t: compute([], [], None, [{**ADJ, "label": CANARY_TEXT}]),
    ),
    (
        "duplicate claim identifiers",
        "reference",
        lambda t: compute([{"claim_id": C}, {"claim_id": C}]),
    ),
    (
        "duplicate evidence identifiers",
        "reference",
        lambda t: compute([], [{"evidence_id": C}, {"evidence_id": C}]),
    ),
    (
        "report counts must be nonnegative integers",
        "report",
        lambda t: _replace(None, claim_count=-7)(),
    ),
    (
        "invalid citation reason",
        "report",
        lambda t: _replace("deterministic", invalid_citation_reasons={C: 0})(),
    ),
    (
        "inconsistent span counts",
        "report",
        lambda t: _replace("deterministic", claim_span_count=99)(),
    ),
    (
        "inconsistent adjudication counts",
        "report",
        lambda t: _replace("adjudication", available=1)(),
    ),
    (
        "inconsistent adjudication rates",
        "report",
        lambda t: _replace("adjudication", adjudication_coverage=0.25)(),
    ),
    ("invalid provenance digest", "report", lambda t: _replace(None, claim_digest=C)()),
    ("unsupported report schema", "report", lambda t: _replace(None, schema_version=2)()),
    ("invalid report sections", "report", lambda t: _replace(None, deterministic=C)()),
    ("inconsistent report counts", "report", lambda t: _replace(None, orphan_claim_count=5)()),
    ("citation-support report could not be written", "io", _write),
    (
        "citation-support input cannot be normalized",
        "input",
        lambda t: compute([GetitemExplodes()]),
    ),
    (
        "citation-support input cannot be normalized",
        "input",
        lambda t: compute([{"claim_id": EvilInt(5)}]),
    ),
]


@pytest.mark.parametrize(
    ("message", "category", "trigger"),
    [pytest.param(m, c, f, id=f"{i:02d}-{m}") for i, (m, c, f) in enumerate(CATALOGUE)],
)
def test_catalogue(
    message: str, category: str, trigger: Callable[[pathlib.Path], Any], tmp_path: pathlib.Path
) -> None:
    import citelens

    with pytest.raises(citelens.CitelensError) as info:
        trigger(tmp_path)
    exc = info.value
    assert type(exc) is citelens.CitationSupportError
    assert str(exc) == message
    assert exc.args == (message,)
    assert exc.category == category
    assert exc.__cause__ is None
    assert exc.__context__ is None
    rendered = "".join(traceback.format_exception(exc)) + repr(exc) + repr(exc.args)
    for canary in (CANARY_ID, CANARY_TEXT, "secret", "918273", "987654", "123456", str(tmp_path)):
        assert canary not in rendered


def test_catalogue_covers_every_message() -> None:
    kinds = ("claim", "evidence", "citation", "adjudication")
    expected = {
        f"{x} collection must be an iterable of records" for x in (*kinds, "record", "source")
    }
    expected |= {f"{x} collection exceeds the record limit" for x in (*kinds, "record", "source")}
    expected |= {f"{x} record cannot be normalized" for x in kinds}
    expected |= {f"{x} record must be a mapping" for x in kinds}
    expected |= {
        "source_lengths must be a mapping",
        "limits must be a Limits instance",
        "evidence mapping values must be records or spans",
        "citation values must be identifiers or records",
        "citation identifiers must be a sequence",
        "citation tuple must contain two identifiers",
        "citation records must be mappings or pairs",
        "claim identifier is required",
        "evidence identifier is required",
        "citation requires claim and evidence identifiers",
        "adjudication requires claim, evidence, and label",
        "citation record requires an evidence identifier",
        "conflicting field aliases",
        "span tuple must contain two offsets",
        "conflicting span offsets",
        "span offsets must be integers",
        "identifier must be a string",
        "identifier is empty, bounded, and control-free",
        "source lengths must be integers",
        "claim type must be a bounded label",
        "adjudication flags must be boolean",
        "conflicting adjudication labels",
        "adjudication label must be a string",
        "adjudication label is unsupported",
        "duplicate claim identifiers",
        "duplicate evidence identifiers",
        "report counts must be nonnegative integers",
        "invalid citation reason",
        "inconsistent span counts",
        "inconsistent adjudication counts",
        "inconsistent adjudication rates",
        "invalid provenance digest",
        "unsupported report schema",
        "invalid report sections",
        "inconsistent report counts",
        "citation-support report could not be written",
        "citation-support input cannot be normalized",
    }
    assert {message for message, _, _ in CATALOGUE} == expected


def test_limits_error() -> None:
    import citelens

    with pytest.raises(citelens.LimitsError) as info:
        citelens.Limits(claims=0)
    assert (str(info.value), info.value.args, info.value.category) == (
        "record limits must be positive integers",
        ("record limits must be positive integers",),
        "limit",
    )
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_generator_then_raise() -> None:
    import citelens

    def items() -> Iterator[Any]:
        yield {"claim_id": "a"}
        raise RuntimeError("upstream secret value")

    with pytest.raises(citelens.CitationSupportError) as info:
        compute(items())
    assert str(info.value) == "claim collection must be an iterable of records"
    for text in (str(info.value), repr(info.value), repr(info.value.args)):
        assert "secret" not in text
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_stage_order() -> None:
    import citelens

    def error(*args: Any, **kwargs: Any) -> str:
        with pytest.raises(citelens.CitationSupportError) as info:
            compute(*args, **kwargs)
        return str(info.value)

    bad_claim = [{"claim_id": "a\tb"}]
    bad_evidence = [{"evidence_id": "e\tf"}]
    # limits (0) before source_lengths (1) before claims (2) before evidence (3).
    assert error(bad_claim, limits=5, source_lengths=3) == "limits must be a Limits instance"
    assert error(bad_claim, source_lengths=3) == "source_lengths must be a mapping"
    assert error(bad_claim, bad_evidence) == "identifier is empty, bounded, and control-free"
    assert (
        error([{"claim_id": "a"}], [{"evidence_id": "e", "start": 1.5}])
        == "span offsets must be integers"
    )
    # Duplicate claims (4) before duplicate evidence (5) before explicit citations (6).
    dup_claims = [{"claim_id": "a"}, {"claim_id": "a"}]
    dup_evidence = [{"evidence_id": "e"}, {"evidence_id": "e"}]
    assert error(dup_claims, dup_evidence, [5]) == "duplicate claim identifiers"
    assert error([], dup_evidence, [5]) == "duplicate evidence identifiers"
    # Citations (6) before adjudications (9).
    assert error([], [], [5], [[1]]) == "citation records must be mappings or pairs"
    # Embedded adjudication errors belong to evidence (3), before duplicate claims (4).
    embedded = [{"evidence_id": "e", "claim_id": "a", "label": "n/a"}]
    assert error(dup_claims, embedded) == "adjudication label is unsupported"
    # Within a record: identifier (step 2) before span (step 3).
    assert error([{"start": 1.5}]) == "claim identifier is required"
    # Compact claim keys are all validated before any value is normalised.
    assert (
        error({"a": {"start": 1.5}, "b\tc": []}) == "identifier is empty, bounded, and control-free"
    )
