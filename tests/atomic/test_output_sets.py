"""Output sets are atomic as a set (issue 10 item 4): the journal is the commit point.

Each test writes a "new" set over an "old" one and stops the publication at a chosen moment,
as a kill would; after :func:`recover` (what the next run and every reader do) the directory
must hold exactly the old set or exactly the new one, and no staging file.
"""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from citelens import _atomic
from citelens._atomic import JOURNAL, StagedFiles, WriteFailure, recover, write_many_atomic

NAMES = ("documents.parquet", "edges.parquet", "summary.json", "summary.md")


def _write_set(directory: pathlib.Path, tag: str, names: tuple[str, ...] = NAMES) -> None:
    write_many_atomic([(directory / name, f"{tag}:{name}".encode()) for name in names])


def _state(directory: pathlib.Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(directory.iterdir())}


def _expected(tag: str, names: tuple[str, ...] = NAMES) -> dict[str, str]:
    return {name: f"{tag}:{name}" for name in sorted(names)}


class _Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs (not even cleanup, see ``_kill_after``)."""


def _kill_after(monkeypatch: pytest.MonkeyPatch, calls: int) -> None:
    """Let ``os.replace`` in the publisher succeed ``calls`` times, then die; the abort path
    is disabled too, because a killed process runs no cleanup."""
    real = os.replace
    seen = {"n": 0}

    def replace(src: str, dst: str) -> None:
        if seen["n"] == calls:
            raise _Killed()
        seen["n"] += 1
        real(src, dst)

    monkeypatch.setattr(_atomic.os, "replace", replace)
    monkeypatch.setattr(StagedFiles, "abort", lambda self: None)


@pytest.mark.parametrize("renames_done", range(len(NAMES) + 1))
def test_a_kill_at_any_rename_gives_the_old_or_the_new_set(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, renames_done: int
) -> None:
    _write_set(tmp_path, "old")
    _kill_after(monkeypatch, renames_done)
    # replace #0 publishes the journal (the commit point); #1..#4 are the four files
    with pytest.raises(_Killed):
        _write_set(tmp_path, "new")
    monkeypatch.undo()
    # the killed run is this process, which lives on: tell recovery its staging files are dead
    monkeypatch.setattr(_atomic, "_alive", lambda pid: False)
    recover(tmp_path)
    expected = "old" if renames_done == 0 else "new"
    assert _state(tmp_path) == _expected(expected)


def test_files_of_the_old_set_that_the_new_one_lacks_are_removed(tmp_path: pathlib.Path) -> None:
    _write_set(tmp_path, "old")
    with StagedFiles() as staged:
        for name in ("documents.parquet", "summary.json"):
            staged.open(tmp_path / name).write(f"new:{name}".encode())
        staged.remove(tmp_path / "edges.parquet")
        staged.commit()
    # summary.md was not part of either run's plan, so it stays; edges.parquet goes
    assert _state(tmp_path) == {
        "documents.parquet": "new:documents.parquet",
        "summary.json": "new:summary.json",
        "summary.md": "old:summary.md",
    }


def test_an_interrupt_after_the_commit_point_finishes_the_set(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_set(tmp_path, "old")
    real = os.replace
    seen = {"n": 0}

    def replace(src: str, dst: str) -> None:
        seen["n"] += 1
        if seen["n"] == 3:  # the journal and one file are in place: Ctrl-C now
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(_atomic.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        _write_set(tmp_path, "new")
    # no recover() here: the interrupted run itself rolled the set forward on its way out
    assert _state(tmp_path) == _expected("new")


def test_an_interrupt_before_the_commit_point_keeps_the_old_set(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_set(tmp_path, "old")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_atomic, "_write_journal", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _write_set(tmp_path, "new")
    assert _state(tmp_path) == _expected("old")  # and no .citelens-*.tmp left


def test_staging_files_of_dead_runs_are_removed_by_the_next_run(tmp_path: pathlib.Path) -> None:
    # pid 2**22 + 1 is above Linux's pid_max limit, so no process has it
    stale = tmp_path / f".citelens-{2**22 + 1}-abc.tmp"
    stale.write_bytes(b"partial")
    legacy = tmp_path / ".citelens-abc.tmp"  # an unnamed staging file of an earlier version
    legacy.write_bytes(b"partial")
    live = tmp_path / f".citelens-{os.getpid()}-live.tmp"  # this process: not stale
    live.write_bytes(b"in use")
    _write_set(tmp_path, "new", ("summary.json",))
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "summary.json"]


def test_a_journal_citelens_did_not_write_is_left_alone(tmp_path: pathlib.Path) -> None:
    (tmp_path / JOURNAL).write_text(json.dumps({"rename": [["/etc/passwd", "x"]]}))
    with pytest.raises(WriteFailure):
        recover(tmp_path)
    with pytest.raises(WriteFailure):
        _write_set(tmp_path, "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == [JOURNAL]


def test_the_journal_holds_absolute_paths(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a later run from another working directory must find the files it names
    monkeypatch.chdir(tmp_path)
    _kill_after(monkeypatch, 1)
    with pytest.raises(_Killed):
        write_many_atomic([(pathlib.Path("out") / n, b"x") for n in ("a", "b")])
    monkeypatch.undo()
    plan = json.loads((tmp_path / "out" / JOURNAL).read_text())
    assert all(os.path.isabs(p) for pair in plan["rename"] for p in pair)
    recover(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a", "b"]


def test_private_files_are_owner_only(tmp_path: pathlib.Path) -> None:
    path = _atomic.write_text_atomic(tmp_path / "private.json", "{}", private=True)
    assert path.stat().st_mode & 0o777 == 0o600


def test_recover_of_a_missing_directory_does_nothing(tmp_path: pathlib.Path) -> None:
    recover(tmp_path / "absent")
    assert not (tmp_path / "absent").exists()
