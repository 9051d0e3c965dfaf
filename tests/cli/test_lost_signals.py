"""A signal whose exception a finaliser dropped still ends the run (citelens._signals).

Python runs a signal handler at the next bytecode of the main thread; inside a ``__del__``
(or a compiled extension's callback: Polars 1.43's data-type classes in the floors CI run) the
exception is "unraisable": printed as ``Exception ignored in: …`` and dropped. The run must
still stop with one line and its exit code, and must not commit an output set after it.
"""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys

import pytest

from citelens._atomic import StagedFiles
from citelens._signals import RECEIVED, Terminated

# A command whose run drops a SIGTERM inside a finaliser, then returns 0 as if nothing came.
_DROPPED_IN_FINALISER = """
import os, signal, sys, time
import citelens.cli as cli

class Finaliser:
    def __del__(self):
        os.kill(os.getpid(), signal.{name})
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # the handler runs here, inside __del__
            pass

def run(argv):
    Finaliser()  # finalised at once: the handler's exception is unraisable
    sys.stdout.write("returned\\n")
    return 0

cli._main = run
raise SystemExit(cli.main([]))
"""


@pytest.mark.parametrize(
    ("name", "code", "line"),
    [("SIGTERM", 143, "citelens: terminated"), ("SIGINT", 130, "citelens: interrupted")],
)
def test_a_signal_dropped_by_a_finaliser_ends_the_run(name: str, code: int, line: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _DROPPED_IN_FINALISER.format(name=name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # the run went on after the dropped exception (it printed), then stopped at the return
    assert done.stdout == "returned\n"
    assert done.returncode == code
    # no "Exception ignored in: …" traceback: one line only
    assert done.stderr.strip().splitlines() == [line]


def test_a_noted_signal_stops_the_commit_and_keeps_the_old_file(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "summary.json"
    target.write_bytes(b"old")
    RECEIVED.append(signal.SIGTERM)
    try:
        with pytest.raises(Terminated), StagedFiles() as staged:
            staged.open(target).write(b"new")
            staged.commit()
    finally:
        RECEIVED.clear()
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]  # no staging left


def test_without_a_signal_the_commit_publishes(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "summary.json"
    with StagedFiles() as staged:
        staged.open(target).write(b"new")
        staged.commit()
    assert target.read_bytes() == b"new"
