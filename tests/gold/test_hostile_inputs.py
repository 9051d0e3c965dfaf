"""Hand-checked hostile inputs the gold fuzzing found (issue 10): each crashed with a foreign
exception (exit 3) before; each is now a result or a fixed ``GoldError``."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pathlib
import shutil

import pytest

import citelens.gold as gold
from citelens.errors import GoldError

from ._fuzz import CANARY


def _quiet_run(results: pathlib.Path, **kwargs: object) -> gold.GoldRun:
    return gold.run(results=results, stdout=io.StringIO(), stderr=io.StringIO(), **kwargs)  # type: ignore[arg-type]


def _assert_gold_error(error: BaseException, message: str, category: str) -> None:
    assert isinstance(error, GoldError)
    assert (str(error), error.category) == (message, category)
    assert error.__cause__ is None and error.__context__ is None
    assert CANARY not in repr(error)


@pytest.mark.parametrize(
    "baseline",
    [
        {"results": 5},  # "for entry in 5" raised TypeError
        {"results": [{"id": "citation-detection", "status": "passed", "metrics": [1]}]},
        {
            "results": [
                {
                    "id": "citation-detection",
                    "status": "passed",
                    "metrics": {"perClaim_exactSetRate": 2**2000},
                }
            ]
        },  # float() overflowed
        {"results": [{"id": ["x"], "status": {"a": 1}}], "dataset_digest": 7},
    ],
)
def test_malformed_baseline_is_read_as_absent_parts(
    tmp_path: pathlib.Path, baseline: dict[str, object]
) -> None:
    """A baseline whose parts have the wrong shape: those parts count as absent, the run ends."""
    (tmp_path / "baseline.lexical.json").write_text(json.dumps(baseline), encoding="utf-8")
    outcome = _quiet_run(tmp_path)
    # The bundled sample passes offline; a baseline without a usable entry compares nothing.
    assert outcome.exit_code == 0


def test_non_finite_baseline_is_unreadable(tmp_path: pathlib.Path) -> None:
    """NaN is not JSON (conventions.md §3): the baseline cannot be read (io)."""
    (tmp_path / "baseline.lexical.json").write_text('{"results": NaN}', encoding="utf-8")
    with pytest.raises(GoldError) as info:
        _quiet_run(tmp_path)
    _assert_gold_error(info.value, "gold baseline could not be read", "io")


@pytest.mark.parametrize(
    ("options", "env"),
    [
        ({"tolerance": ["9" * 5000]}, {}),  # an infinite tolerance could not be written as JSON
        ({}, {"CITELENS_EVAL_REPEATS": "9" * 5000}),  # int() raised past its digit limit
    ],
)
def test_out_of_range_options_are_usage_errors(
    tmp_path: pathlib.Path, options: dict[str, object], env: dict[str, str]
) -> None:
    """Beyond their grammar's range: ``gold run options are invalid`` (policy)."""
    with pytest.raises(GoldError) as info:
        _quiet_run(tmp_path, env=env, **options)
    _assert_gold_error(info.value, "gold run options are invalid", "policy")


def test_huge_int_repeats_is_an_input_error(tmp_path: pathlib.Path) -> None:
    """An integer outside int64 is an input error (str() of it raised ValueError)."""
    with pytest.raises(GoldError) as info:
        _quiet_run(tmp_path, repeats=10**5000)
    _assert_gold_error(info.value, "gold input is invalid", "input")


def test_model_label_with_escaped_bytes_is_written_as_utf8(tmp_path: pathlib.Path) -> None:
    """A label that was not UTF-8 on the command line (escaped byte U+DCFF) is written with
    U+FFFD for the undecodable byte instead of failing the scorecard write."""
    outcome = _quiet_run(tmp_path, model="m\udcff")
    assert outcome.exit_code == 0
    card = json.loads(outcome.scorecard_path.read_text(encoding="utf-8"))
    assert card["run_model"] == "m\ufffd"


def test_model_label_that_is_no_text_for_the_os_is_an_input_error(tmp_path: pathlib.Path) -> None:
    """NUL or a lone high surrogate cannot be set as CITELENS_EVAL_MODEL."""
    for model in ("a\x00" + CANARY, "\ud800" + CANARY):
        with pytest.raises(GoldError) as info:
            _quiet_run(tmp_path, model=model)
        _assert_gold_error(info.value, "gold input is invalid", "input")


def test_over_long_dataset_root_has_no_cases() -> None:
    """A root name longer than the OS allows (ENAMETOOLONG from Path.is_dir) has no cases."""
    check = gold.check_dataset("9" * 5000)
    assert check.no_cases and check.dataset is None
    with pytest.raises(GoldError) as info:
        gold.load_dataset("9" * 5000)
    _assert_gold_error(info.value, "gold dataset has no cases", "input")


def test_case_file_name_that_is_not_utf8(tmp_path: pathlib.Path) -> None:
    """A case file whose name is not UTF-8 on disk is hashed by its raw bytes (§2.9)."""
    source = gold.bundled_dataset_dir() / "cases" / "clinical-asthma.json"
    (tmp_path / "cases").mkdir()
    raw = source.read_bytes()
    name = os.path.join(os.fsencode(tmp_path), b"cases", b"\xff.json")
    with open(name, "wb") as handle:
        handle.write(raw)
    check = gold.check_dataset(tmp_path)
    assert check.dataset is not None, check.problems
    # §2.9 by hand: one line "<relative path>\t<sha256 of the bytes>\n", the path's raw bytes
    line = b"cases/\xff.json\t" + hashlib.sha256(raw).hexdigest().encode() + b"\n"
    assert check.dataset.digest == "sha256:" + hashlib.sha256(line).hexdigest()


def test_evaluated_commit_of_a_path_git_cannot_decode(tmp_path: pathlib.Path) -> None:
    """git's messages about a non-UTF-8 path are decoded with replacement: no commit found."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    commit = gold.evaluated_commit(os.fsdecode(os.fsencode(tmp_path) + b"/\xff"), {})
    assert commit == {"sha": None, "dirty": None, "source": "none"}
