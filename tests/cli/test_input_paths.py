"""From the command line an input is always a path (issue 11, item 2).

A name no reader knows, with or without a suffix, is ``<input> file type is not supported``
for every input of ``support``, ``summary-citations`` and ``minimality``: for support it is the
detail of the contract's ``<name> collection must be an iterable of records`` (category
``collection``), the others' contracts have it as their message (category ``input``).
"""

from __future__ import annotations

import pathlib

import pytest

from citelens.cli import main

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data-samples"
CANARY = "CANARY-paths-5c1d"

SUPPORT = {
    "claims": SAMPLES / "support" / "claims.jsonl",
    "evidence": SAMPLES / "support" / "evidence.csv",
    "citations": SAMPLES / "support" / "citations.csv",
    "adjudications": SAMPLES / "support" / "adjudications.jsonl",
}
SUMMARY = {
    "claims": SAMPLES / "summary_citations" / "claims.jsonl",
    "evidence": SAMPLES / "summary_citations" / "evidence.csv",
}
MINIMALITY = {
    "source": SAMPLES / "minimality" / "source.txt",
    "claims": SAMPLES / "minimality" / "claims.json",
    "citations": SAMPLES / "minimality" / "citations.jsonl",
}
CASES = [
    *(("support", SUPPORT, name, "collection") for name in SUPPORT),
    *(("summary-citations", SUMMARY, name, "input") for name in SUMMARY),
    *(("minimality", MINIMALITY, name, "input") for name in ("claims", "citations")),
]


def _argv(command: str, inputs: dict[str, pathlib.Path], name: str, path: str) -> list[str]:
    argv = [command]
    for option, default in inputs.items():
        argv += [f"--{option}", path if option == name else str(default)]
    return argv


def test_the_samples_pass(capsys: pytest.CaptureFixture[str]) -> None:
    # the baseline of the cases below: each command runs on its samples
    for command, inputs in (("support", SUPPORT), ("summary-citations", SUMMARY)):
        assert main(_argv(command, inputs, "", "")) == 0
    assert main(_argv("minimality", MINIMALITY, "", "")) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("command", "inputs", "name", "category"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES]
)
def test_a_path_without_a_known_suffix(
    command: str,
    inputs: dict[str, pathlib.Path],
    name: str,
    category: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected = f"citelens: error [{category}]: {name} file type is not supported\n"
    existing = tmp_path / CANARY  # a file, no suffix
    existing.write_text("[]")
    for path in (str(tmp_path / "nope"), str(existing), str(tmp_path / f"{CANARY}.txt")):
        assert main(_argv(command, inputs, name, path)) == 2
        out, err = capsys.readouterr()
        assert (out, err) == ("", expected)
