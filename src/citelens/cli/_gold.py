"""``citelens gold …``: run the gold-set evaluation harness (gold-harness.md §9).

Exit codes: 0 done (with ``--ci``: the gate passed), 1 ``--ci`` and the gate failed, 2 a usage or
input error (the diagnostics of §9.9 on stderr), 3 an internal error (a bug or a broken
environment; the message names the exception type only, never its text).

Importing this module loads no engine (pyarrow, polars, duckdb): the gold modules are imported by
the functions that run a command, and only there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import IO, Any

from citelens import __version__
from citelens.cli import command_help
from citelens.errors import GoldError

__all__ = ["register"]

# The ``--format`` choices of ``citelens gold run`` (gold-harness.md §9.2); the runner checks the
# same tuple for the library form (``citelens.gold._run.FORMATS``).
FORMATS = ("console", "json", "markdown", "html")
_BAD_INPUT = (
    "usage or input error: the diagnostics of gold-harness.md §9.9 on stderr (gold case ids "
    "and the paths you gave may appear)"
)
_GATE_FAILED = (
    "--ci and the gate failed (a scorer failure, a regression or an unmeasured metric): one "
    "line on stderr, citelens: gold gate failed: <counts>"
)


class _Parser(argparse.ArgumentParser):
    """Usage errors print one line naming the problem and exit 2."""

    def error(self, message: str) -> Any:
        self.exit(2, f"citelens gold: {message}\n")


def _diagnose(stderr: IO[str], lines: list[str], error: GoldError) -> int:
    """Print a stopped run's diagnostics (or its error line when it has none); exit 2."""
    if lines:
        for line in lines:
            stderr.write(line + "\n")
    else:
        stderr.write(f"citelens: error [{error.category}]: {error.args[0]}\n")
    stderr.flush()
    return 2


def run_cli(env: dict[str, str], stdout: IO[str], stderr: IO[str], **kwargs: Any) -> int:
    """``citelens gold run``: prints diagnostics and returns the exit code (0, 1 or 2).

    An unexpected exception is not caught here: the CLI entry point reports it as an internal
    error (exit 3).
    """
    from citelens.gold._outputs import Abort
    from citelens.gold._run import execute

    lines: list[str] = []
    error: GoldError | None = None
    code = 2
    gate: Mapping[str, Any] = {}
    try:
        outcome = execute(env, stdout, stderr, **kwargs)
        code, gate = outcome.exit_code, outcome.scorecard.get("gate") or {}
    except Abort as abort:
        lines, error = abort.lines, abort.error
    if error is not None:
        return _diagnose(stderr, lines, error)
    if code == 1:  # --ci and the gate failed: the one line every failing check prints
        stderr.write(f"citelens: gold gate failed: {gate_failures(gate)}\n")
        stderr.flush()
    return code


def gate_failures(gate: Mapping[str, Any]) -> str:
    """The counts of a failed gold gate, in the words of the console's gate line (§9.4)."""
    return (
        f"{gate.get('scorer_failures', 0)} scorer failure(s), "
        f"{gate.get('regressions', 0)} regression(s), {gate.get('unmeasured', 0)} unmeasured"
    )


def report_cli(
    scorecard: str | None,
    results: str | None,
    fmt: str,
    out: str | None,
    env: Mapping[str, str],
    stdout: IO[str],
    stderr: IO[str],
) -> int:
    """``citelens gold report``: render a saved scorecard; returns the exit code (0 or 2)."""
    from citelens.gold._run import render_report

    res = results or env.get("CITELENS_RESULTS") or "results"
    code, lines, error = render_report(scorecard, res, fmt, out, stdout)
    if error is not None:
        return _diagnose(stderr, lines, error)
    return code


def _run(args: argparse.Namespace) -> int:
    return run_cli(
        dict(os.environ),
        sys.stdout,
        sys.stderr,
        online=args.online,
        adapter=args.adapter,
        datasets=args.datasets,
        results=args.results,
        repeats=args.repeats,
        model=args.model,
        baseline=args.baseline,
        ci=args.ci,
        tolerance=args.tolerance or [],
        format=args.format,
        out=args.out,
        repo=args.repo,
    )


def _report(args: argparse.Namespace) -> int:
    return report_cli(
        args.scorecard,
        args.results,
        args.format,
        args.out,
        os.environ,
        sys.stdout,
        sys.stderr,
    )


def _validate(args: argparse.Namespace) -> int:
    from citelens.gold import check_adapter, check_dataset

    check = check_dataset(args.datasets or os.environ.get("CITELENS_DATASETS") or None)
    if check.no_cases:
        sys.stderr.write(
            f"No gold cases found in {os.path.join(check.root, 'cases')} (add a case file; "
            'files starting with "_" are ignored).\n'
        )
        return 2
    if check.dataset is None:
        sys.stderr.write(f"Invalid dataset ({check.root}):\n")
        for problem in check.problems:
            sys.stderr.write(f"  - {problem}\n")
        return 2
    spec = args.adapter or os.environ.get("CITELENS_ADAPTER")
    if spec:
        adapter = check_adapter(spec)
        if adapter.load_error is not None:
            sys.stderr.write(f"Could not load adapter from {spec}: {adapter.load_error}\n")
            return 2
        if adapter.adapter is None:
            sys.stderr.write(f"Invalid adapter ({spec}):\n")
            for problem in adapter.problems:
                sys.stderr.write(f"  - {problem}\n")
            sys.stderr.write("See the adapter section of the citelens gold contract.\n")
            return 2
        adapter.adapter.close()
    ds = check.dataset
    sys.stdout.write(
        f"ok: {ds.case_count} case(s) ({len(ds.qa)} qa, {len(ds.grounding)} grounding, "
        f"{len(ds.redaction)} redaction, {len(ds.simplification)} simplification, "
        f"{len(ds.retrieval)} retrieval, {sum(ds.ignored.values())} ignored)\n"
    )
    return 0


def _detect(args: argparse.Namespace) -> int:
    from citelens.gold import detect_citations

    texts: list[str] = list(args.text or [])
    if not texts or texts == ["-"]:
        texts = []
        for raw in sys.stdin.read().split("\n"):
            line = raw[:-1] if raw.endswith("\r") else raw
            if line.startswith('"'):
                value: Any = None
                try:
                    value = json.loads(line)
                except ValueError:
                    value = None
                line = value if isinstance(value, str) else line
            texts.append(line)
        if texts and texts[-1] == "":
            texts.pop()
    for text in texts:
        sys.stdout.write(
            json.dumps(detect_citations(text), ensure_ascii=False, separators=(",", ":")) + "\n"
        )
    return 0


def register(subparsers: Any) -> None:
    """Add ``citelens gold`` and its subcommands."""
    gold = subparsers.add_parser(
        "gold",
        help="gold-set evaluation harness: adapters, scorers, scorecards, regression gate",
        **command_help(
            "Evaluate an evidence-grounded AI system against a hand-labelled gold set.",
            "COMMAND is run, report, validate or detect; `citelens gold COMMAND --help` "
            "explains each (gold-harness.md).",
            reads="the gold dataset (--datasets or CITELENS_DATASETS), the adapter "
            "(--adapter or CITELENS_ADAPTER) and the results directory (--results or "
            "CITELENS_RESULTS).",
            writes="scorecards, history and baselines under the results directory, and "
            "console, JSON, Markdown or HTML reports.",
            ok="done (with --ci: the gate passed)",
            failed=_GATE_FAILED,
            bad_input=_BAD_INPUT,
            example="citelens gold run --ci",
        ),
    )
    gold.add_argument("--version", action="version", version=f"citelens {__version__}")
    sub = gold.add_subparsers(
        dest="gold_command", metavar="COMMAND", parser_class=_Parser, help="the step to run"
    )
    gold.set_defaults(func=lambda _args: (gold.print_help(sys.stderr), 2)[1])

    run = sub.add_parser(
        "run",
        help="run the scorers, write a scorecard, apply the gate",
        **command_help(
            "Run the scorers over the gold set, write a scorecard and apply the gate.",
            "Without --ci a run with failures still exits 0 (report mode) and its last "
            "console line says what would have failed.",
            reads="the gold dataset (--datasets), the adapter (--adapter; default: the "
            "lexical reference system), the baseline under --results.",
            writes="<results>/<run_id>.json (scorecard), the history Parquet, with --baseline "
            "the baseline; the console report on stdout, or --format json/markdown/html to "
            "--out (json/markdown without --out: stdout, console text on stderr).",
            ok="the run completed (with --ci: the gate passed)",
            failed=_GATE_FAILED,
            bad_input=_BAD_INPUT,
            example="citelens gold run --online --ci",
        ),
    )
    run.add_argument("--online", action="store_true", help="also run the online scorers")
    run.add_argument(
        "--adapter",
        metavar="SPEC",
        help="lexical, http, openai, a .py file, module:attr or a module (env CITELENS_ADAPTER)",
    )
    run.add_argument("--datasets", metavar="DIR", help="dataset directory (env CITELENS_DATASETS)")
    run.add_argument("--results", metavar="DIR", help="results directory (env CITELENS_RESULTS)")
    run.add_argument("--repeats", metavar="N", help="calls per gold verdict, 1-100")
    run.add_argument("--model", metavar="LABEL", help="run-model label (env CITELENS_EVAL_MODEL)")
    run.add_argument("--baseline", action="store_true", help="save this run as the baseline")
    run.add_argument("--ci", action="store_true", help="exit 1 when the gate fails")
    run.add_argument(
        "--tolerance",
        metavar="SPEC",
        action="append",
        help="VALUE or NAME=VALUE (NAME = metric or scorer.metric; VALUE or off)",
    )
    run.add_argument(
        "--format", choices=FORMATS, default="console", help="report format (default: console)"
    )
    run.add_argument("--out", metavar="FILE", help="where a json/markdown/html rendering goes")
    run.add_argument("--repo", metavar="DIR", help="git repository whose HEAD stamps the run")
    run.add_argument("--version", action="version", version=f"citelens {__version__}")
    run.set_defaults(func=_run)

    rep = sub.add_parser(
        "report",
        help="render an existing scorecard",
        **command_help(
            "Render a saved scorecard with its gate against the current baseline.",
            reads="SCORECARD (default: the latest under --results) and the adapter's baseline.",
            writes="the report in --format (default html) to --out; html without --out goes "
            "to <results>/report-<run_id>.html, json/markdown to stdout.",
            ok="report written",
            bad_input=_BAD_INPUT,
            example="citelens gold report --format markdown --out report.md",
        ),
    )
    rep.add_argument(
        "scorecard", nargs="?", metavar="SCORECARD", help="scorecard JSON (default: the latest)"
    )
    rep.add_argument("--results", metavar="DIR", help="results directory (env CITELENS_RESULTS)")
    rep.add_argument(
        "--format",
        choices=("html", "markdown", "json"),
        default="html",
        help="report format (default: html)",
    )
    rep.add_argument("--out", metavar="FILE", help="where the report goes")
    rep.set_defaults(func=_report)

    val = sub.add_parser(
        "validate",
        help="validate a dataset (and an adapter)",
        **command_help(
            "Validate a gold dataset and, when one is named, an adapter.",
            reads="the dataset (--datasets or CITELENS_DATASETS) and the adapter (--adapter or "
            "CITELENS_ADAPTER).",
            writes="one ok line with the case counts on stdout; the problems on stderr.",
            ok="the dataset (and adapter) are valid",
            bad_input="usage error, no cases, an invalid dataset or an adapter that cannot be "
            "loaded or is invalid: the problems on stderr",
            example="citelens gold validate --datasets datasets/",
        ),
    )
    val.add_argument("--datasets", metavar="DIR", help="dataset directory (env CITELENS_DATASETS)")
    val.add_argument("--adapter", metavar="SPEC", help="adapter to load (env CITELENS_ADAPTER)")
    val.set_defaults(func=_validate)

    det = sub.add_parser(
        "detect",
        help="print detect_citations(TEXT) as JSON, one per line",
        **command_help(
            "Print the citations detect_citations finds in each TEXT, one JSON line each.",
            reads="each TEXT argument, or standard input (one text per line, a JSON string "
            "line is decoded) when there is none or TEXT is -.",
            writes="one JSON array per text on stdout.",
            ok="done",
            example='citelens gold detect "Aspirin lowers risk [1]."',
        ),
    )
    det.add_argument(
        "text", nargs="*", metavar="TEXT", help="texts to scan (default: standard input)"
    )
    det.set_defaults(func=_detect)
