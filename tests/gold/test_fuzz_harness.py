"""Fuzzing the dataset, adapter, history, gate and run entry points of ``citelens.gold``.

Two kinds of input: hostile arguments (``_fuzz.HOSTILE``: wrong types, raising objects, huge
ints, surrogates, deep and shared nesting) for every public function that takes paths, specs,
mappings or options, and hostile case files (a valid bundled case with fields replaced by hostile
JSON, or raw hostile bytes) for the loader and the scorers. ``check_dataset`` must never raise;
everything else returns or raises a fixed, canary-free citelens error that is not an
``InternalError`` (``_fuzz.check_call``). Examples per test: ``CITELENS_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import pathlib
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citelens.gold as gold
from citelens.errors import GoldError
from citelens.gold import DatasetCheck

from ._fuzz import CANARY, EXAMPLES, FUZZ, HOSTILE, TEXT, Hostile, check_call

pytestmark = pytest.mark.fuzz  # `make fuzz` runs these with 100,000 examples

_CASES = gold.bundled_dataset_dir() / "cases"
_QA = json.loads((_CASES / "clinical-asthma.json").read_text(encoding="utf-8"))
_GROUNDING = json.loads((_CASES / "grounding-clinical-dose.json").read_text(encoding="utf-8"))

# Where a hostile value may be put in each base case (list indices exist in the bundled cases).
_QA_PATHS: tuple[tuple[str | int, ...], ...] = (
    ("id",),
    ("kind",),
    ("manuscript",),
    ("goldClaims",),
    ("goldClaims", 0),
    ("goldClaims", 0, "originalText"),
    ("goldClaims", 0, "text"),
    ("goldClaims", 0, "citations"),
    ("goldClaims", 0, "citations", 0),
    ("goldNonClaims",),
    ("references",),
    ("goldVerdicts",),
    ("goldVerdicts", 0, "citation"),
    ("goldVerdicts", 0, "verdict"),
    ("goldVerdicts", 0, "claimText"),
)
_GROUNDING_PATHS: tuple[tuple[str | int, ...], ...] = (
    ("question",),
    ("context",),
    ("context", 0),
    ("answerAnchors",),
    ("answerAnchors", 0, "value"),
    ("answerAnchors", 0, "aliases"),
    ("allowedNewNumbers",),
    ("answerable",),
    ("abstainMarkers",),
)

# JSON values only (a case file is JSON): hostile texts, huge and odd numbers, nesting.
_JSON: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([63, 64, 200]).map(lambda bits: 2**bits),
        st.floats(allow_nan=False, allow_infinity=False),
        TEXT,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)
    ),
    max_leaves=10,
)
# Raw file contents JSON cannot produce from a value: deep nesting, non-JSON constants, digit
# runs beyond the int limit, bad UTF-8, a BOM, a top level that is not an object.
_RAW = st.sampled_from(
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"id": "CANARY-7f3a", "manuscript": NaN}',
        b'{"id": "CANARY-7f3a", "goldClaims": [{"citations": [' + b"9" * 5000 + b"]}]}",
        b'{"id": "CANARY-7f3a", "manuscript": "\xff\xfe"}',
        b'\xef\xbb\xbf{"id": "CANARY-7f3a"}',
        b"null",
        b"",
        b'{"id": "CANARY-7f3a", "id": "x"}',
        b'"\\ud800CANARY-7f3a"',
    ]
)


def _put(doc: Any, path: tuple[str | int, ...], value: object) -> None:
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


@st.composite
def _case_file(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return draw(_RAW)
    qa = draw(st.booleans())
    doc = copy.deepcopy(_QA if qa else _GROUNDING)
    paths = _QA_PATHS if qa else _GROUNDING_PATHS
    for path in draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3)):
        value = draw(_JSON)
        # an earlier replacement may have removed the container: then there is nothing to put
        with contextlib.suppress(KeyError, IndexError, TypeError):
            _put(doc, path, value)
    return json.dumps(doc).encode("utf-8")


@pytest.fixture(scope="module")
def workdir() -> Iterator[pathlib.Path]:
    """A scratch directory shared by the examples of this module."""
    with tempfile.TemporaryDirectory() as name:
        yield pathlib.Path(name)


@FUZZ
@given(_case_file())
def test_hostile_case_files(workdir: pathlib.Path, raw: bytes) -> None:
    """``check_dataset`` never raises on a hostile case file; a dataset it accepts goes through
    the four scorers (offline and with the ``lexical`` adapter online) without a bug."""
    with tempfile.TemporaryDirectory(dir=workdir) as name:
        root = pathlib.Path(name)
        (root / "cases").mkdir()
        (root / "cases" / "case.json").write_bytes(raw)
        check = gold.check_dataset(root)
        assert isinstance(check, DatasetCheck)
        assert check.ok or check.problems
        dataset = check.dataset
        if dataset is not None:
            adapter = gold.load_adapter("lexical")
            result = check_call(lambda: gold.run_scorers(dataset, adapter, online=True))
            assert isinstance(result, list) and len(result) == 7


# A spec is never arbitrary text: the harness would import whatever module it names.
_SPECS = st.one_of(HOSTILE.filter(lambda v: not isinstance(v, str)), TEXT.map(lambda t: CANARY + t))


@FUZZ
@given(_SPECS)
def test_adapter_specs(spec: Any) -> None:
    """A hostile spec is a load problem or ``gold input is invalid``, never a foreign error."""
    check_call(lambda: gold.check_adapter(spec))
    check_call(lambda: gold.load_adapter(spec))


_PATHS = st.one_of(HOSTILE, TEXT.map(lambda t: "missing-" + CANARY + t))


@FUZZ
@given(_PATHS, st.one_of(st.none(), TEXT, HOSTILE))
def test_path_functions(workdir: pathlib.Path, path: Any, adapter: Any) -> None:
    """Datasets, history and the history view: a hostile path is no file or an input error."""
    check = gold.check_dataset(path)  # documented never to raise
    assert isinstance(check, DatasetCheck)
    assert check.ok is (path is None)  # None is the bundled sample; nothing else is a dataset
    check_call(lambda: gold.load_dataset(path))
    check_call(lambda: gold.read_history(path, adapter))
    check_call(lambda: gold.history_view_sql(path))


@FUZZ
@given(
    st.one_of(st.none(), HOSTILE),
    st.one_of(
        HOSTILE,
        st.dictionaries(st.sampled_from(["CITELENS_EVAL_SHA", CANARY]), st.one_of(TEXT, HOSTILE)),
    ),
)
def test_evaluated_commit(repo: Any, env: Any) -> None:
    """The repository path and the environment mapping, hostile."""
    check_call(lambda: gold.evaluated_commit(repo, env if env is not None else {}))


_METRIC_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.sampled_from([1024, 1400]).map(lambda bits: 2**bits),
    HOSTILE,
)
_ENTRY = st.one_of(
    HOSTILE,
    st.fixed_dictionaries(
        {},
        optional={
            "id": st.one_of(st.sampled_from(list(gold.SCORERS)), HOSTILE),
            "status": st.one_of(st.sampled_from(["passed", "failed", "skipped"]), HOSTILE),
            "skip_code": st.one_of(st.sampled_from(["unavailable", "no_capability"]), HOSTILE),
            "metrics": st.one_of(
                HOSTILE,
                st.dictionaries(
                    st.one_of(st.sampled_from([m.name for m in gold.METRICS]), HOSTILE),
                    _METRIC_VALUES,
                    max_size=4,
                ),
            ),
        },
    ),
)


@FUZZ
@given(
    st.one_of(HOSTILE, st.lists(_ENTRY, max_size=3)),
    st.one_of(
        st.none(),
        HOSTILE,
        st.fixed_dictionaries(
            {},
            optional={
                "results": st.one_of(HOSTILE, st.lists(_ENTRY, max_size=3)),
                "dataset_digest": st.one_of(TEXT, HOSTILE),
            },
        ),
    ),
    st.one_of(st.none(), TEXT, HOSTILE),
    st.one_of(st.sampled_from([["0.01"], [], ["f1=off"]]), HOSTILE),
    st.one_of(st.booleans(), HOSTILE),
)
def test_compute_gate(results: Any, baseline: Any, name: Any, specs: Any, flag: Any) -> None:
    """Scorecard entries and baseline documents of any shape (a baseline is a file: it can)."""
    parsed = gold.parse_tolerances(["0.01"])
    assert isinstance(parsed, gold.Tolerances)
    tolerances: Any = check_call(lambda: gold.parse_tolerances(specs))
    if not isinstance(tolerances, gold.Tolerances):
        tolerances = parsed
    check_call(
        lambda: gold.compute_gate(
            results, baseline, name, tolerances, enforced=flag, dataset_digest="sha256:x"
        )
    )
    error = check_call(
        lambda: gold.compute_gate(
            results, baseline, name, _NOT_TOLERANCES, enforced=True, dataset_digest=CANARY
        )
    )
    assert isinstance(error, GoldError)  # tolerances must be a Tolerances


_NOT_TOLERANCES: Any = object()
_RUNS = settings(parent=FUZZ, max_examples=max(10, EXAMPLES // 4))  # a run takes ~0.3 s
_NOT_TEXT = HOSTILE.filter(lambda v: not isinstance(v, str))
# Paths are names inside the scratch directory (resolved in the test) or hostile non-text: a
# fuzzed text path would read or write anywhere.
_PLACE = st.one_of(
    st.sampled_from(["a", "b/c", CANARY, "out.json"]).map(lambda n: ("path", n)), _NOT_TEXT
)
_STREAM = st.one_of(st.builds(io.StringIO), HOSTILE)
_ENV = st.one_of(
    HOSTILE,
    st.dictionaries(
        st.sampled_from(
            ["CITELENS_EVAL_SHA", "CITELENS_EVAL_REPEATS", "CITELENS_EVAL_MODEL", CANARY]
        ),
        st.one_of(TEXT, HOSTILE),
        max_size=3,
    ),
)
_RUN_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "online": st.one_of(st.booleans(), HOSTILE),
        "adapter": st.one_of(st.just("lexical"), _NOT_TEXT, TEXT.map(lambda t: CANARY + t)),
        "datasets": _PLACE,
        "results": _PLACE,
        "repeats": st.one_of(st.integers(-2, 200), TEXT, HOSTILE),
        "model": st.one_of(TEXT, HOSTILE),
        "baseline": st.one_of(st.booleans(), HOSTILE),
        "ci": st.one_of(st.booleans(), HOSTILE),
        "tolerance": st.one_of(st.lists(TEXT, max_size=2), HOSTILE),
        "format": st.one_of(
            st.sampled_from(["console", "json", "markdown", "html", CANARY]), HOSTILE
        ),
        "out": _PLACE,
        "repo": _PLACE,
        "env": _ENV,
        "stdout": _STREAM,
        "stderr": _STREAM,
    },
)


def _resolve(options: dict[str, Any], workdir: pathlib.Path) -> dict[str, Any]:
    resolved = {"results": workdir / "results", "stdout": io.StringIO(), "stderr": io.StringIO()}
    for key, value in options.items():
        is_place = type(value) is tuple and len(value) == 2 and type(value[0]) is str
        is_place = is_place and value[0] == "path"  # a hostile tuple may hold a Hostile
        resolved[key] = workdir / value[1] if is_place else value
    return resolved


@_RUNS
@given(_RUN_OPTIONS)
def test_run_options(workdir: pathlib.Path, options: dict[str, Any]) -> None:
    """``run`` with hostile options: an exit code, or a fixed citelens error."""
    outcome = check_call(lambda: gold.run(**_resolve(options, workdir)))
    assert isinstance(outcome, gold.GoldRun | GoldError)


@_RUNS
@given(
    _PLACE,
    st.fixed_dictionaries(
        {},
        optional={
            "results": _PLACE,
            "format": st.one_of(st.sampled_from(["json", "markdown", "html", CANARY]), HOSTILE),
            "out": _PLACE,
            "stdout": _STREAM,
            "env": _ENV,
        },
    ),
)
def test_report_options(workdir: pathlib.Path, scorecard: Any, options: dict[str, Any]) -> None:
    """``report`` with hostile options: an exit code, or a fixed citelens error."""
    resolved = _resolve({"scorecard": scorecard, **options}, workdir)
    resolved.pop("stderr")
    card = resolved.pop("scorecard")
    outcome = check_call(lambda: gold.report(card, **resolved))
    assert isinstance(outcome, int | GoldError)


def test_run_stream_that_raises_is_an_output_error(workdir: pathlib.Path) -> None:
    """A console stream whose ``write`` raises: ``gold results could not be written`` (io)."""
    hostile: Any = Hostile()
    error = check_call(lambda: gold.run(results=workdir / "streams", stdout=hostile))
    assert isinstance(error, GoldError)
    assert str(error) == "gold input is invalid"  # its write attribute already raises

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(CANARY)

    error = check_call(lambda: gold.run(results=workdir / "streams", stdout=Broken()))
    assert isinstance(error, GoldError)
    assert (str(error), error.category) == ("gold results could not be written", "io")
