"""Citation detection: every vector line (§4.8), the building blocks, and `citelens gold detect`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from citelens.gold import (
    detect_author_year,
    detect_citations,
    normalise_citations,
    parse_numeric_citations,
)
from citelens.gold.citations import detect_citations as public_detect

from ._helpers import vector_lines

LINES = vector_lines()
LINE_PARAMS = LINES or [
    pytest.param(None, marks=pytest.mark.skip(reason="../shared/vectors absent"))
]


@pytest.mark.parametrize("line", LINE_PARAMS)
def test_vector_line(line: dict[str, object]) -> None:
    got = detect_citations(str(line["text"]))
    assert got == line["expected"]
    assert [type(x) for x in got] == [type(x) for x in line["expected"]]  # type: ignore[union-attr]


def test_vector_file_is_complete() -> None:
    if not LINES:
        pytest.skip("../shared absent")
    assert len(LINES) == 139
    assert sum(1 for line in LINES if line.get("differs_from_opengate")) == 10


def test_public_module_is_the_same_function() -> None:
    assert public_detect is detect_citations


def test_normalise_passes() -> None:
    assert normalise_citations("placebo.1,2 next") == "placebo.[1,2] next"
    assert normalise_citations("consistent1,2 across") == "consistent[1,2] across"
    assert normalise_citations("mortality,12 and") == "mortality,[12] and"
    assert normalise_citations("(1,2)") == "[1,2]"
    assert normalise_citations("(2020)") == "(2020)"
    # F1: a letter-glued lone range or number is left alone
    assert normalise_citations("aged18-65 years") == "aged18-65 years"
    # a newline consumed by P1 is written back as a plain space
    assert normalise_citations("trial.3\nNext") == "trial.[3] Next"


def test_bracket_parser_fixes() -> None:
    assert parse_numeric_citations("[1-250]") == []  # F4
    assert parse_numeric_citations("[0]") == []  # F3
    assert parse_numeric_citations("[3, 1-2, 2]") == [1, 2, 3]
    assert parse_numeric_citations("[6-4]") == []
    assert parse_numeric_citations("[2019]") == [2019]  # no cap inside brackets


def test_author_year_forms() -> None:
    assert detect_author_year("Smith et al. (2020) said") == ["Smith 2020"]
    assert detect_author_year("(Brown 2018; Lee et al., 2022)") == ["Brown 2018", "Lee 2022"]
    assert detect_author_year("Jones and colleagues in 2019, x") == ["Jones 2019"]
    assert detect_author_year("Meyer (2020a) and Meyer (2020b)") == ["Meyer 2020a", "Meyer 2020b"]
    assert detect_author_year("Müller (2020)") == []


def test_false_positive_fixes() -> None:
    assert detect_citations("aged18-65 years") == []
    assert detect_citations("mortality,150-250 later") == []
    assert detect_citations("mortality.0 and") == []
    assert detect_citations("improved (3)") == [3]


def test_cli_detect_sample() -> None:
    sample = LINES[:12]
    if not sample:
        pytest.skip("../shared absent")
    stdin = "\n".join(json.dumps(line["text"]) for line in sample) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "citelens", "gold", "detect"],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(x) for x in proc.stdout.splitlines()]
    assert got == [line["expected"] for line in sample]


def test_cli_detect_arguments() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "citelens", "gold", "detect", "placebo.1,2", "Kim (2023)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout == '[1,2]\n["Kim 2023"]\n'
