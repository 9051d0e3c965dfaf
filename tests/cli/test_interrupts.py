"""Kills and interrupts during a multi-file corpus run (issue 10 item 4).

An output directory holds the complete set of an "old" run; a "new" run over different input
is killed (SIGKILL) or interrupted (SIGINT, SIGTERM) at random moments. Afterwards, once the
directory is recovered (what the next run and every reader do first), it must hold exactly the
old set or exactly the new one, byte for byte, and the next run leaves no staging file.
Interrupts exit 130 / 143 with one line on stderr.
"""

from __future__ import annotations

import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import time

import polars as pl
import pytest

from citelens._atomic import recover

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data-samples" / "corpus"
OUTPUTS = ("documents.parquet", "edges.parquet", "summary.json", "summary.md")


def _command(source: pathlib.Path, out: pathlib.Path) -> list[str]:
    # --no-progress: stderr holds only the interrupt line (the phase lines are tested in
    # tests/cli/test_progress.py, with an interrupt too)
    return [
        *[sys.executable, "-m", "citelens", "corpus", "support", str(source)],
        *["--out", str(out), "--no-progress"],
    ]


def _environment(base: pathlib.Path) -> dict[str, str]:
    # one pseudonym key for every run: reruns are byte-identical (without a key each run
    # pseudonymises with its own random key)
    key = base / "pseudonym.key"
    key.write_bytes(bytes(range(32)))
    return {**os.environ, "CITELENS_PSEUDONYM_KEY_FILE": str(key)}


def _files(directory: pathlib.Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("interrupts")
    new_input = base / "new-input"
    shutil.copytree(SAMPLE, new_input)
    claims = pl.read_parquet(new_input / "claims.parquet")
    refs = sorted(claims["document_ref"].unique().to_list())
    # the new input lacks the claims of every third document: different outputs
    claims.filter(~pl.col("document_ref").is_in(refs[::3])).write_parquet(
        new_input / "claims.parquet"
    )
    old, new = base / "old", base / "new"
    env = _environment(base)
    started = time.perf_counter()
    subprocess.run([*_command(SAMPLE, old), "--edges"], check=True, capture_output=True, env=env)
    duration = time.perf_counter() - started
    # without --edges: the new set has no edges.parquet, so the old one must go with its set
    subprocess.run(_command(new_input, new), check=True, capture_output=True, env=env)
    old_set, new_set = _files(old), _files(new)
    assert sorted(old_set) == sorted(OUTPUTS)
    assert sorted(new_set) == ["documents.parquet", "summary.json", "summary.md"]
    assert old_set["summary.json"] != new_set["summary.json"]
    return {
        "base": base,
        "input": new_input,
        "old": old_set,
        "new": new_set,
        "time": duration,
        "env": env,
    }


def _staging_started(out: pathlib.Path, pid: int, timeout: float = 60.0) -> bool:
    """Wait until the run has opened its first staging file (it is then inside ``main``,
    with its signal handlers installed); False when it ended first."""
    deadline = time.monotonic() + timeout
    prefix = f".citelens-{pid}-"
    while time.monotonic() < deadline:
        if any(name.startswith(prefix) for name in os.listdir(out)):
            return True
        time.sleep(0.005)
    return False


def _trial(
    runs: dict[str, object], name: str, signum: int, delay: float, *, staged: bool = False
) -> tuple[int, str]:
    out = pathlib.Path(str(runs["base"])) / name
    out.mkdir()
    for file_name, data in runs["old"].items():  # type: ignore[attr-defined]
        (out / file_name).write_bytes(data)
    process = subprocess.Popen(
        _command(pathlib.Path(str(runs["input"])), out),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=runs["env"],  # type: ignore[arg-type]
    )
    if staged:
        # a loaded machine may take longer than any fixed delay to start the interpreter
        _staging_started(out, process.pid)
    time.sleep(delay)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    recover(out)
    outcome = _files(out)
    assert outcome in (runs["old"], runs["new"]), sorted(outcome)
    return process.returncode, err


def test_sigkill_at_random_moments_leaves_the_old_or_the_new_set(
    runs: dict[str, object],
) -> None:
    rng = random.Random(20261201)
    duration = float(str(runs["time"]))
    outcomes = []
    for trial in range(20):
        # weighted towards the end of the run, where the set is written and published
        delay = duration * rng.uniform(0.3, 1.1)
        code, _ = _trial(runs, f"kill-{trial}", signal.SIGKILL, delay)
        outcomes.append(code)
    # the next run over a killed directory completes and leaves no staging behind
    out = pathlib.Path(str(runs["base"])) / "kill-0"
    subprocess.run(
        _command(pathlib.Path(str(runs["input"])), out),
        check=True,
        env=runs["env"],  # type: ignore[arg-type]
    )
    assert _files(out) == runs["new"]
    assert len(outcomes) == 20


@pytest.mark.parametrize(
    ("signum", "code", "line"),
    [
        (signal.SIGINT, 130, "citelens: interrupted"),
        (signal.SIGTERM, 143, "citelens: terminated"),
    ],
)
def test_interrupts_clean_up_and_say_one_line(
    runs: dict[str, object], signum: int, code: int, line: str
) -> None:
    rng = random.Random(int(signum))
    finished = 0
    for trial in range(5):
        # once the run is writing its outputs: somewhere in its streamed write or publication
        delay = rng.uniform(0.0, 0.3)
        returncode, err = _trial(runs, f"sig{int(signum)}-{trial}", signum, delay, staged=True)
        if returncode == 0:  # the run finished before the signal arrived
            finished += 1
            continue
        assert returncode == code
        assert err.strip().splitlines() == [line]
        out = pathlib.Path(str(runs["base"])) / f"sig{int(signum)}-{trial}"
        assert not [p for p in os.listdir(out) if p.startswith(".citelens-")]
    assert finished < 5  # at least one trial was really interrupted
