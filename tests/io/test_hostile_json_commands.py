"""The hostile-input corpus through the CLI commands that read JSON documents and output sets
(issue 10, "run through every reader and every CLI command in a subprocess").

``test_hostile_files.py`` covers the commands that read claim/evidence tables. This module
covers the rest: each ``review`` step (its setup, bindings, claims, returned and thresholds
documents), ``gold validate`` (a case file of the dataset) and ``citelens sql`` (a corpus output
file replaced by a hostile one). One subprocess per command, under the same 4 GiB address-space
bound: the process survives every case, each case ends within 10 s with exit 2 and one
``citelens: error [category]: message`` line, and the canary appears nowhere.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_hostile_files import _RUNNER, CANARY, _bounded, _deep

from citelens.cli import main

C = CANARY.encode()
ROOT = pathlib.Path(__file__).resolve().parents[2]
REVIEW = ROOT / "data-samples" / "review"
GOLD = ROOT / "data-samples" / "gold"

# JSON documents no command may accept (a JSON document is read whole, unlike a JSONL table)
HOSTILE_JSON: dict[str, bytes] = {
    "null.json": b"null",
    "empty.json": b"",
    "garbage.json": bytes(range(256)) * 4,
    "deep700.json": b"[" + _deep(700) + b"]",
    "deep100k.json": b"[" * 100_000 + b"]" * 100_000,
    "badutf8.json": b'{"id":"\xff' + C + b'"}',
    "truncated.json": b'{"' + C,
    "surrogate.json": b'{"' + C + b'":"\\ud800"}',
    "repeated_key.json": b'{"a":1,"a":"' + C + b'"}',
    "int400.json": b'{"' + C + b'":1' + b"0" * 400 + b"}",
    "float_overflow.json": b'{"' + C + b'":1e999}',
    "nan.json": b'{"' + C + b'":NaN}',
    "string.json": b'"' + C + b'"',
    "nul.json": b'{"' + C + b'\x00":1}',
}


def _parquet(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())


def _twice() -> pa.Table:
    return pa.Table.from_arrays(
        [pa.array([CANARY]), pa.array([CANARY])], names=["document_ref", "document_ref"]
    )


# output files the sql views read, replaced by hostile bytes
HOSTILE_OUTPUTS: dict[str, bytes] = {
    "garbage": bytes(range(256)) * 4,
    "empty": b"",
    "json": b'{"document_ref":"' + C + b'"}',
    "twice": _parquet(_twice()),
    "wrong_columns": _parquet(pa.table({CANARY: [1, 2, 3]})),
}


def _quiet_main(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


@pytest.fixture(scope="module")
def review_work(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The review samples and their rendered packets, mapping and sealed review."""
    work = tmp_path_factory.mktemp("review")
    for path in REVIEW.iterdir():
        if path.is_file():
            shutil.copy(path, work / path.name)
    key = str(work / "demo-key.txt")
    assert (
        _quiet_main(
            [
                "review",
                "render",
                str(work / "setup.json"),
                "--key-file",
                key,
                "--packets-out",
                str(work / "packets.json"),
                "--mapping-out",
                str(work / "mapping.json"),
            ]
        )
        == 0
    )
    assert (
        _quiet_main(
            [
                "review",
                "export",
                "--packets",
                str(work / "packets.json"),
                "--mapping",
                str(work / "mapping.json"),
                "--key-file",
                key,
                "--bindings",
                str(work / "bindings.json"),
                *_artifacts(work),
                "--request-out",
                str(work / "request.json"),
                "--sealed-out",
                str(work / "sealed.json"),
            ]
        )
        == 0
    )
    return work


def _artifacts(work: pathlib.Path, **replaced: str) -> list[str]:
    files = {
        "claims": str(work / "claims.json"),
        "evidence": str(work / "evidence.json"),
        "summary": str(work / "summary.txt"),
        "source": str(work / "source.txt"),
    }
    files.update(replaced)
    return [arg for name, path in files.items() for arg in (f"--{name}", path)]


def _review_commands(work: pathlib.Path) -> dict[str, Callable[[str], list[str]]]:
    key = str(work / "demo-key.txt")
    sealed = ["--sealed", str(work / "sealed.json"), "--key-file", key]
    gate = [
        "--thresholds",
        str(work / "thresholds.json"),
        "--protected-surfaces",
        str(work / "protected_surfaces.json"),
    ]
    returned = str(work / "returned-complete.json")

    def export(f: str, **replaced: str) -> list[str]:
        packets = replaced.pop("packets", str(work / "packets.json"))
        bindings = replaced.pop("bindings", str(work / "bindings.json"))
        return [
            "review",
            "export",
            "--packets",
            packets,
            "--mapping",
            str(work / "mapping.json"),
            "--key-file",
            key,
            "--bindings",
            bindings,
            *_artifacts(work, **replaced),
            "--request-out",
            "{out}/request.json",
            "--sealed-out",
            "{out}/sealed.json",
        ]

    return {
        "review render setup": lambda f: (
            [
                "review",
                "render",
                f,
                "--key-file",
                key,
                "--packets-out",
                "{out}/p.json",
                "--mapping-out",
                "{out}/m.json",
            ]
        ),
        "review export bindings": lambda f: export(f, bindings=f),
        "review export packets": lambda f: export(f, packets=f),
        "review export claims": lambda f: export(f, claims=f),
        "review import returned": lambda f: (
            ["review", "import", f, *sealed, *_artifacts(work), "--out", "{out}/i.json"]
        ),
        "review import sealed": lambda f: (
            [
                "review",
                "import",
                returned,
                "--sealed",
                f,
                "--key-file",
                key,
                *_artifacts(work),
                "--out",
                "{out}/i.json",
            ]
        ),
        "review import evidence": lambda f: (
            [
                "review",
                "import",
                returned,
                *sealed,
                *_artifacts(work, evidence=f),
                "--out",
                "{out}/i.json",
            ]
        ),
        "review gate thresholds": lambda f: (
            [
                "review",
                "gate",
                "--returned",
                returned,
                *sealed,
                *_artifacts(work),
                "--thresholds",
                f,
                "--protected-surfaces",
                gate[3],
                "--out",
                "{out}/g.json",
            ]
        ),
        "review gate protected-surfaces": lambda f: (
            [
                "review",
                "gate",
                "--returned",
                returned,
                *sealed,
                *_artifacts(work),
                "--thresholds",
                gate[1],
                "--protected-surfaces",
                f,
                "--out",
                "{out}/g.json",
            ]
        ),
    }


def _run_matrix(cases: dict[str, list[str]]) -> dict[str, list[object]]:
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=10 * len(cases) + 30,
        preexec_fn=_bounded,
        check=False,
    )
    # the process itself survives every case (no signal, no Rust panic message)
    assert done.returncode == 0, done.stderr[-2000:]
    assert CANARY not in done.stdout + done.stderr
    results: dict[str, list[object]] = json.loads(done.stdout)
    return results


def _assert_refused(results: dict[str, list[object]], *, report: str | None = None) -> None:
    """Exit 2 within 10 s, nothing on stdout; stderr is the one fixed error line or, given
    ``report``, the contract's multi-line report starting with it."""
    for name, (code, out, err, seconds) in results.items():
        assert code == 2, (name, code, err)
        assert isinstance(err, str), name
        if report is None:
            assert err.count("\n") == 1, (name, err)
            assert err.startswith("citelens: error ["), (name, err)
        else:
            assert err.startswith(report), (name, err)
        assert out == "", name
        assert isinstance(seconds, float) and seconds < 10, name


@pytest.fixture(scope="module")
def hostile_json(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("hostile_json")
    for name, content in HOSTILE_JSON.items():
        (folder / name).write_bytes(content)
    return folder


def test_review_commands(review_work: pathlib.Path, hostile_json: pathlib.Path) -> None:
    commands = _review_commands(review_work)
    cases = {
        f"{command} {name}": build(str(hostile_json / name))
        for command, build in commands.items()
        for name in HOSTILE_JSON
    }
    # a directory and a missing file in place of each document, too
    for command, build in commands.items():
        cases[f"{command} directory"] = build(str(hostile_json))
        cases[f"{command} missing"] = build(str(hostile_json / f"{CANARY}.json"))
    results = _run_matrix(cases)
    assert len(results) == len(commands) * (len(HOSTILE_JSON) + 2)
    _assert_refused(results)


def test_gold_validate(hostile_json: pathlib.Path, tmp_path: pathlib.Path) -> None:
    cases = {}
    for name in HOSTILE_JSON:
        datasets = tmp_path / name
        shutil.copytree(GOLD, datasets)
        # one case file of the bundled sample replaced by the hostile document
        shutil.copy(hostile_json / name, datasets / "cases" / "clinical-asthma.json")
        cases[name] = ["gold", "validate", "--datasets", str(datasets)]
    results = _run_matrix(cases)
    assert len(results) == len(HOSTILE_JSON)
    # gold-harness.md §2.7: `Invalid dataset (<datasets>):` then one `  - cases/<file>: <reason>`
    # per problem; the reason is fixed text (the canary inside the file never shows)
    _assert_refused(results, report="Invalid dataset (")
    for name, (_, _, err, _) in results.items():
        assert isinstance(err, str) and "  - cases/clinical-asthma.json: " in err, name


@pytest.fixture(scope="module")
def corpus_out(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A real `corpus support` output set (with edges) of the bundled sample."""
    out = tmp_path_factory.mktemp("corpus") / "out"
    sample = ROOT / "data-samples" / "corpus"
    code = _quiet_main(
        [
            "corpus",
            "support",
            "--out",
            str(out),
            "--edges",
            "--claims",
            str(sample / "claims.parquet"),
            "--evidence",
            str(sample / "evidence.parquet"),
            "--citations",
            str(sample / "citations.parquet"),
        ]
    )
    assert code in (0, 1)
    assert (out / "documents.parquet").is_file() and (out / "edges.parquet").is_file()
    return out


# the views over each output file (sql.md: `reasons` unnests documents.parquet)
@pytest.mark.parametrize(
    ("output", "view"),
    [
        ("documents.parquet", "documents"),
        ("documents.parquet", "reasons"),
        ("edges.parquet", "edges"),
    ],
)
def test_sql_over_hostile_outputs(
    corpus_out: pathlib.Path, tmp_path: pathlib.Path, output: str, view: str
) -> None:
    cases = {}
    for name, content in HOSTILE_OUTPUTS.items():
        folder = tmp_path / name
        shutil.copytree(corpus_out, folder)
        (folder / output).write_bytes(content)
        cases[name] = ["sql", str(folder), f"SELECT count(*) FROM {view}", "--format", "csv"]
    results = _run_matrix(cases)
    assert len(results) == len(HOSTILE_OUTPUTS)
    _assert_refused(results)
