"""Progress of the corpus commands (issue 11 item 5): phases on stderr, never on stdout.

Off a terminal each phase ends with one plain line; ``--no-progress`` is silent; the live
display (forced with ``--progress``) fits every line into the terminal's width. No progress
output shows an identifier, a path or a value: the inputs carry a canary that must not appear.
"""

from __future__ import annotations

import io
import json
import pathlib
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.cells import cell_len

from citelens import corpus
from citelens.cli import _progress, _run_corpus, main

CANARY = "CANARY-9b1e"
DOC_A = f"doc-{CANARY}-a"
DOC_B = f"doc-{CANARY}-b"

# The three lines a run prints off a terminal, times aside: both inputs below hold two
# documents (DOC_A and DOC_B), hence "(2 documents)".
LINES = (
    r"citelens: reading done in \d+\.\d s",
    r"citelens: evaluating done in \d+\.\d s \(2 documents\)",
    r"citelens: writing done in \d+\.\d s",
)
# ESC [ ... final byte (cursor moves, erase, colours) and ESC ] ... BEL (titles, links)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _write(folder: pathlib.Path, tables: dict[str, pa.Table]) -> pathlib.Path:
    folder.mkdir()
    for role, table in tables.items():
        pq.write_table(table, folder / f"{role}.parquet")
    return folder


@pytest.fixture
def support_input(tmp_path: pathlib.Path) -> pathlib.Path:
    return _write(
        tmp_path / f"in-{CANARY}",
        {
            "claims": pa.table(
                {
                    "document_ref": [DOC_A, DOC_B],
                    "claim_id": [f"claim-{CANARY}", f"claim-{CANARY}"],
                    "start": [0, 0],
                    "end": [10, 10],
                }
            ),
            "evidence": pa.table(
                {
                    "document_ref": [DOC_A, DOC_B],
                    "evidence_id": [f"ev-{CANARY}", f"ev-{CANARY}"],
                    "start": [0, 2],
                    "end": [5, 8],
                    "source_length": [20, 20],
                }
            ),
            "citations": pa.table(
                {
                    "document_ref": [DOC_A],
                    "claim_id": [f"claim-{CANARY}"],
                    "evidence_id": [f"ev-{CANARY}"],
                }
            ),
        },
    )


@pytest.fixture
def summary_input(tmp_path: pathlib.Path) -> pathlib.Path:
    return _write(
        tmp_path / f"summary-{CANARY}",
        {
            "claims": pa.table(
                {
                    "document_ref": [DOC_A, DOC_B],
                    "claim": [f"{CANARY} one.", f"{CANARY} two."],
                    "citations": [[f"fact-{CANARY}"], []],
                }
            ),
            "evidence": pa.table(
                {
                    "document_ref": [DOC_A],
                    "id": [f"fact-{CANARY}"],
                    "start": [0],
                    "end": [5],
                    "value": [f"{CANARY} value"],
                }
            ),
        },
    )


@pytest.fixture
def minimality_input(tmp_path: pathlib.Path) -> pathlib.Path:
    # minimality identifiers are opaque digests: the canary rides in the source text
    doc_a, doc_b, claim, citation = (f"sha256:{c * 64}" for c in "abcd")
    return _write(
        tmp_path / f"minimality-{CANARY}",
        {
            "documents": pa.table(
                {"document_ref": [doc_a, doc_b], "source_text": [f"{CANARY} alpha", "beta"]}
            ),
            "claims": pa.table(
                {
                    "document_ref": [doc_a, doc_b],
                    "claim_id": [claim, claim],
                    "required_span": [[0, 4], [0, 4]],
                }
            ),
            "citations": pa.table(
                {
                    "document_ref": [doc_a],
                    "claim_id": [claim],
                    "citation_id": [citation],
                    "source_span": [[0, 4]],
                }
            ),
        },
    )


def _argv(mode: str, folder: pathlib.Path, out: pathlib.Path, *extra: str) -> list[str]:
    return ["corpus", mode, str(folder), "--out", str(out), *extra]


@pytest.fixture(params=["support", "summary-citations", "minimality"])
def mode_input(request: pytest.FixtureRequest) -> tuple[str, pathlib.Path]:
    fixture = {
        "support": "support_input",
        "summary-citations": "summary_input",
        "minimality": "minimality_input",
    }[request.param]
    return request.param, request.getfixturevalue(fixture)


def test_off_a_terminal_each_phase_ends_with_one_line(
    mode_input: tuple[str, pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mode, folder = mode_input
    # capsys's stderr is not a terminal: the plain lines, no bar, no control sequence
    assert main(_argv(mode, folder, tmp_path / "out")) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 3, lines
    for line, pattern in zip(lines, LINES):
        assert re.fullmatch(pattern, line), line
    assert "\x1b" not in captured.err and "\r" not in captured.err
    # stdout holds the command's one summary line and no progress
    assert captured.out.startswith("documents: 2 ") and captured.out.count("\n") == 1
    assert CANARY not in captured.out + captured.err


def test_no_progress_is_silent(
    mode_input: tuple[str, pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mode, folder = mode_input
    assert main(_argv(mode, folder, tmp_path / "out", "--no-progress")) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("documents: 2 ")


def _screen_lines(text: str) -> list[str]:
    """What a terminal shows of ``text`` line by line: control sequences removed, lines
    split at newlines and carriage returns."""
    return re.split(r"[\r\n]", _CONTROL.sub("", text))


def test_forced_live_display_fits_a_40_column_terminal(
    support_input: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    assert main(_argv("support", support_input, tmp_path / "out", "--progress")) == 0
    captured = capsys.readouterr()
    assert "\x1b[" in captured.err  # the live display, although stderr is no terminal
    shown = _screen_lines(captured.err)
    assert max(cell_len(line) for line in shown) <= 40
    # its last frame: the three phases, each done, one line each
    done = [line for line in shown if line.startswith("✓ ")]
    assert [line.split()[1] for line in done[-3:]] == ["reading", "evaluating", "writing"]
    assert "2 documents" in done[-2]
    # progress goes to stderr only: stdout is the summary line, without control sequences
    assert captured.out.startswith("documents: 2 ") and "\x1b" not in captured.out
    assert CANARY not in captured.out + captured.err


class _Clock:
    """A monotonic clock the test moves by hand (rates and ETAs become exact)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _render(board: Any, width: int) -> list[str]:
    from rich.console import Console

    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=width, color_system=None)
    console.print(board)
    return stream.getvalue().rstrip("\n").split("\n")


@pytest.fixture
def live_board(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, _Clock]]:
    """A live display mid-run: reading done after 2 s, 1,000,000 of 12,345,678 documents
    evaluated 10 s into evaluating."""
    clock = _Clock()
    monkeypatch.setattr(_progress.time, "monotonic", clock)
    display = _progress.open_progress(True, size=123_456_789, stream=io.StringIO())
    assert isinstance(display, _progress._LiveProgress)
    display.phase("reading")
    clock.now += 2.0
    display.phase("evaluating", 12_345_678)
    clock.now += 10.0
    display(1_000_000, 12_345_678)
    yield display, clock
    display.close()


@pytest.mark.parametrize("width", [12, 20, 40, 60, 80, 120, 200])
def test_each_phase_is_one_line_that_fits_the_width(
    live_board: tuple[Any, _Clock], width: int
) -> None:
    display, _ = live_board
    lines = _render(_progress._Board(display), width)
    assert len(lines) == 2  # reading (done) and evaluating: never a wrapped line
    assert all(cell_len(line) <= width for line in lines), lines


def test_rate_and_eta_come_and_go_with_the_width(live_board: tuple[Any, _Clock]) -> None:
    display, _ = live_board
    # 1,000,000 documents in 10 s: 100000 docs/s; (12,345,678 - 1,000,000) / 100,000 s =
    # 113.5 s left, shown as 1m53s. The spinner ("dots", a frame every 80 ms) is at frame
    # 10 s / 80 ms = 125, 125 % 10 = 5 of "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏": "⠴".
    stats = "1000000/12345678 eta 1m53s 100000 docs/s"  # 16 + 10 + 14 = 40 columns
    wide = _render(_progress._Board(display), 120)
    assert wide[0] == "✓ reading 2.0s"
    assert wide[1].startswith("⠴ evaluating ━") and wide[1].endswith(f" {stats}")
    # "⠴ evaluating" (12) + " " + the bar at its widest (40) + " " + stats (40) = 94
    assert cell_len(wide[1]) == 94
    # 40 columns: "⠴ evaluating" (12) + " " + "1000000/12345678 eta 1m53s" (26) = 39; the rate
    # (14 more) and a bar (11 at least) no longer fit
    narrow = _render(_progress._Board(display), 40)
    assert narrow == ["✓ reading 2.0s", "⠴ evaluating 1000000/12345678 eta 1m53s"]


def test_reading_shows_the_input_size(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(_progress.time, "monotonic", clock)
    display = _progress.open_progress(True, size=123_456_789, stream=io.StringIO())
    try:
        display.phase("reading")
        clock.now += 1.5
        # 123,456,789 bytes in decimal units: 123.5 MB; the spinner is at frame
        # 1.5 s / 80 ms = 18, 18 % 10 = 8 of "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏": "⠇"
        assert _render(_progress._Board(display), 80) == ["⠇ reading 123.5 MB 1.5s"]
        # 16 columns: "⠇ reading" (9) + " 1.5s" (5); the size (9 more) no longer fits
        assert _render(_progress._Board(display), 16) == ["⠇ reading 1.5s"]
    finally:
        display.close()


def test_an_unfinished_phase_is_never_reported_done(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(_progress.time, "monotonic", clock)
    stream = io.StringIO()
    with _progress.open_progress(None, stream=stream) as display:
        display.phase("reading")
        clock.now += 1.25
        display.phase("evaluating", 7)
        clock.now += 3.0
        display(3, 7)
        # the run fails here (an error, Ctrl-C): leaving the block closes the display
    assert stream.getvalue() == "citelens: reading done in 1.2 s\n"


def test_the_live_display_drops_an_unfinished_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    clock = _Clock()
    monkeypatch.setattr(_progress.time, "monotonic", clock)
    stream = io.StringIO()
    with _progress.open_progress(True, stream=stream) as display:
        display.phase("reading")
        clock.now += 1.25
        display.phase("evaluating", 7)
        assert isinstance(display, _progress._LiveProgress) and display._live is not None
        display._live.refresh()  # a frame with the running phase, as the refresh thread draws
    text = stream.getvalue()
    assert "evaluating" in _CONTROL.sub("", text)
    # the last frame, drawn as the display stops, holds the finished phase only
    last = _screen_lines(text.rsplit("\x1b[2K", 1)[-1])  # after the last erased line
    assert [line for line in last if line] == ["✓ reading 1.2s"]
    assert text.endswith("\x1b[?25h")  # the cursor is shown again


def test_a_failed_read_prints_only_the_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "claims.parquet").write_bytes(f"not parquet {CANARY}".encode())
    code = main(["corpus", "support", str(tmp_path), "--out", str(tmp_path / "out")])
    assert code == 2
    # the reading phase did not complete: no line for it, only the fixed error line
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("citelens: error [input]: claims ")


def test_ctrl_c_while_evaluating_reports_only_the_phases_done(
    support_input: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = _run_corpus.write_support_corpus

    def interrupted(*args: Any, progress: Any, **kwargs: Any) -> Any:
        return real(*args, progress=_Interrupting(progress), **kwargs)

    monkeypatch.setattr(_run_corpus, "write_support_corpus", interrupted)
    code = main(_argv("support", support_input, tmp_path / "out", "--batch-documents", "1"))
    assert code == 130
    lines = capsys.readouterr().err.splitlines()
    # reading completed, evaluating did not: no line for it, then the interrupt's own line
    assert re.fullmatch(LINES[0], lines[0]), lines
    assert lines[1:] == ["", "citelens: interrupted"]


class _Interrupting:
    """The CLI's progress, with Ctrl-C pressed as the first batch completes."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __call__(self, done: int, total: int) -> None:
        raise KeyboardInterrupt

    def phase(self, name: str, total: int | None = None, step: str | None = None) -> None:
        self._inner.phase(name, total, step)


class _Recorder:
    """A progress object that listens to phases, as the CLI's displays do."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def __call__(self, done: int, total: int) -> None:
        self.events.append(("done", done, total))

    def phase(self, name: str, total: int | None = None, step: str | None = None) -> None:
        self.events.append((name, total, step))


def test_the_library_reports_its_phases(
    support_input: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    paths = [support_input / f"{role}.parquet" for role in ("claims", "evidence", "citations")]
    recorder = _Recorder()
    corpus.write_support_corpus(
        *paths, out_dir=tmp_path / "out", batch_documents=1, progress=recorder
    )
    # two documents in batches of one: two progress calls between evaluating and writing,
    # then the writing steps in the order the output set is finished
    assert recorder.events == [
        ("reading", None, None),
        ("evaluating", 2, None),
        ("done", 1, 2),
        ("done", 2, 2),
        ("writing", None, None),
        ("writing", None, "parquet"),
        ("writing", None, "summary"),
        ("writing", None, "publish"),
    ]
    recorder = _Recorder()
    corpus.run_support_corpus(*paths, progress=recorder)
    assert recorder.events == [
        ("reading", None, None),
        ("evaluating", 2, None),
        ("done", 2, 2),
        ("writing", None, None),
        ("writing", None, "summary"),
    ]


def test_help_imports_no_progress_library() -> None:
    # in a fresh interpreter, so nothing this test session imported leaks in
    code = (
        "import json, sys\n"
        "from citelens.cli import main\n"
        "main(['corpus', 'support', '--help'])\n"
        "print(json.dumps('rich' in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert "--no-progress" in done.stdout
    assert json.loads(done.stderr.strip().splitlines()[-1]) is False
