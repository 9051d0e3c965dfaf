"""The ``citelens`` command line: one program, one subcommand per capability.

Exit codes: 0 success, 1 a check or gate did not pass, 2 bad input or usage (a fixed-category
message on stderr that never echoes input values), 3 an internal error (a bug or a broken
environment; the message names the exception type only).

The command line is lazy. ``citelens --help`` and ``citelens --version`` import no command
module; ``citelens COMMAND …`` imports the parser module of that one command
(``citelens.cli._<name>``, which loads no engine), and the engine is imported only when the
command runs: a parser sets ``func`` to a ``"module:function"`` string that :func:`main`
imports here, the one place of the package where an import is deferred.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from citelens import __version__
from citelens.cli._common import (
    COMMAND_HELP,
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    SIGNALLED,
    Terminated,
    fail,
    on_signal,
    raise_pending,
)
from citelens.errors import CitelensError, InternalError

if TYPE_CHECKING:
    from sys import UnraisableHookArgs

__all__ = ["add_ci_flag", "build_parser", "command_help", "entry", "main", "usage_message"]

Run = Callable[[argparse.Namespace], int]

# The exit codes every command shares; a command states its own 0 and, when it has a check, 1.
_EXIT_INPUT_TEXT = "bad input or usage: one fixed-category line on stderr (never a value or path)"
_EXIT_INTERNAL_TEXT = "internal error (a bug or a broken environment, never bad input)"
_WIDTH = 78


def _block(title: str, text: str) -> str:
    # never break an option name such as --pseudonym-key-file at its hyphens
    lines = textwrap.wrap(text, _WIDTH - 2, break_on_hyphens=False) or [""]
    return title + ":\n" + "\n".join("  " + line for line in lines)


def command_help(
    summary: str,
    details: str = "",
    *,
    reads: str,
    writes: str,
    ok: str,
    failed: str | None = None,
    bad_input: str = _EXIT_INPUT_TEXT,
    example: str,
) -> dict[str, Any]:
    """The ``add_parser`` keywords of a command's ``--help``, one layout for every command: a
    one-line ``summary`` and optional ``details`` (the description), then ``Reads:``,
    ``Writes:``, ``Exit codes:`` (0 ``ok``; 1 ``failed`` for a command with a check; 2; 3)
    and ``Example:`` (the epilog). Texts are wrapped here because the raw formatter keeps
    the layout as given."""
    description = (
        summary
        if not details
        else summary + "\n\n" + textwrap.fill(details, _WIDTH, break_on_hyphens=False)
    )
    codes = [("0", ok), *([("1", failed)] if failed else []), ("2", bad_input)]
    codes.append(("3", _EXIT_INTERNAL_TEXT))
    exit_lines = []
    for code, text in codes:
        wrapped = textwrap.wrap(text, _WIDTH - 5, break_on_hyphens=False)
        exit_lines.append(f"  {code}  {wrapped[0]}")
        exit_lines.extend("     " + line for line in wrapped[1:])
    epilog = "\n".join(
        (
            _block("Reads", reads),
            _block("Writes", writes),
            "Exit codes:\n" + "\n".join(exit_lines),
            "Example:\n  " + example,
        )
    )
    return {
        "description": description,
        "epilog": epilog,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def add_ci_flag(parser: argparse.ArgumentParser, help: str, *aliases: str) -> None:
    """``--ci`` (``dest="ci"``): the one flag that makes the command's check fail the run
    (exit 1, one line on stderr). ``aliases`` are the flag's older names, still accepted but
    hidden from ``--help``."""
    parser.add_argument("--ci", action="store_true", dest="ci", help=help)
    for alias in aliases:
        parser.add_argument(alias, action="store_true", dest="ci", help=argparse.SUPPRESS)


# Each parser module ``citelens.cli._<name>`` provides ``register(subparsers)``; the parser it
# adds sets ``func`` to a ``"module:function"`` string naming the run function (or to a light
# callable, such as one printing the command's usage).
_COMMAND_MODULES: dict[str, str] = {
    "support": "citelens.cli._support",
    "review": "citelens.cli._review",
    "gold": "citelens.cli._gold",
    "minimality": "citelens.cli._minimality",
    "summary-citations": "citelens.cli._summary_citations",
    "corpus": "citelens.cli._corpus",
    "sql": "citelens.cli._sql",
    "report": "citelens.cli._report",
    "import": "citelens.cli._import",
    "provenance": "citelens.cli._provenance",
    "mcp": "citelens.cli._mcp",
}


# argparse messages that end in caller text without quoting it: keep only the fixed start
_UNQUOTED_TAILS = ("unrecognized arguments", "ambiguous option")


def usage_message(message: str) -> str:
    """An argparse error message without the values it quotes: argparse formats the caller's
    text with ``%r`` (``invalid int value: 'SECRET'``) or appends it unquoted after the
    prefixes above; option names, metavars and choices are citelens's own words."""
    for prefix in _UNQUOTED_TAILS:
        if prefix in message:
            return message[: message.index(prefix) + len(prefix)]
    cut = min((message.index(q) for q in "'\"" if q in message), default=len(message))
    return message[:cut].rstrip(" :")


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors use the fixed error form and never echo a
    value (subcommand parsers are made of the same class)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(self.format_usage())
        sys.stderr.write(
            f"citelens: error [policy]: {usage_message(message)} (see {self.prog} --help)\n"
        )
        raise SystemExit(EXIT_INPUT)


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line, if any. The top-level options (``-h``,
    ``--help``, ``--version``) take no value, so the first other word is the command."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in _COMMAND_MODULES else None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser. Subcommand ``command`` is registered in full by its parser
    module; every other subcommand is a name with its help line only, so that listing the
    commands imports none of them."""
    parser = _Parser(
        prog="citelens",
        description=textwrap.fill(
            "Deterministic checks of citations attached to claims: citation support metrics, "
            "summary citation consistency, citation minimality, blinded review and gold-set "
            "evaluation. Reports hold counts, fixed labels, offsets and SHA-256 digests only.",
            _WIDTH,
        ),
        epilog=(
            "Exit codes:\n"
            "  0    success\n"
            "  1    a check did not pass (with --ci; review import and gate always check):\n"
            "       one line on stderr names the check and why\n"
            "       (citelens: <check> gate failed: <reasons>)\n"
            f"  2    {_EXIT_INPUT_TEXT}\n"
            f"  3    {_EXIT_INTERNAL_TEXT}\n"
            "  130  interrupted (Ctrl-C); 143 terminated (SIGTERM): an interrupted run leaves\n"
            "       its previous outputs in place and no partial file\n"
            "Example:\n"
            "  citelens support --claims claims.jsonl --evidence evidence.csv --ci\n"
            "Each command's --help names the inputs it reads, the outputs it writes, its exit\n"
            "codes and an example."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"citelens {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", help="the command to run (COMMAND --help explains it)"
    )
    for name, module in _COMMAND_MODULES.items():
        if name == command:
            importlib.import_module(module).register(subparsers)
        else:
            subparsers.add_parser(name, help=COMMAND_HELP[name], add_help=False)
    return parser


def _resolve(func: Run | str) -> Run:
    """The run function: a ``"module:function"`` string is imported now (lazy loading)."""
    if not isinstance(func, str):
        return func
    module, _, name = func.partition(":")
    return cast(Run, getattr(importlib.import_module(module), name))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code. Ctrl-C and SIGTERM remove staged outputs and
    return 130 / 143 with one line on stderr."""
    handlers: list[tuple[signal.Signals, Any]] = []
    unraisable_hook = sys.unraisablehook
    if _in_main_thread():
        SIGNALLED.clear()
        for signum in (signal.SIGINT, signal.SIGTERM):
            handlers.append((signum, signal.signal(signum, on_signal)))
        sys.unraisablehook = _quiet_interrupts(unraisable_hook)
    try:
        code = _main(argv)
        # a signal whose exception a finaliser dropped (citelens._signals) ends the run here
        # when no output set was committed after it
        raise_pending()
        return code
    except (KeyboardInterrupt, Terminated):
        # the signal, or what a library made of it (DuckDB and Arrow turn an exception
        # raised in a signal handler into their own errors): SIGNALLED says which
        interrupted = not SIGNALLED or SIGNALLED[0] == signal.SIGINT
        sys.stderr.write("\ncitelens: interrupted\n" if interrupted else "\ncitelens: terminated\n")
        return EXIT_INTERRUPTED if interrupted else EXIT_TERMINATED
    finally:
        for number, handler in handlers:
            signal.signal(number, handler)
        sys.unraisablehook = unraisable_hook


def _quiet_interrupts(
    hook: Callable[[UnraisableHookArgs], object],
) -> Callable[[UnraisableHookArgs], object]:
    """``hook``, except that the interrupt a signal handler raised inside a finaliser is
    dropped without a traceback: the signal is noted, and :func:`raise_pending` raises it
    again at the next safe point (citelens._signals)."""

    def quiet(unraisable: UnraisableHookArgs) -> object:
        if SIGNALLED and isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            return None
        return hook(unraisable)

    return quiet


def entry() -> NoReturn:
    """The process entry point (the ``citelens`` script and ``python -m citelens``): exit with
    :func:`main`'s code. Once ``main`` has returned, the run is over (its outputs published or
    removed): a SIGINT or SIGTERM arriving while the interpreter shuts down is ignored, instead
    of killing a finished run with a traceback and no exit code of its own."""
    code = main()
    if _in_main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)
    raise SystemExit(code)


def _in_main_thread() -> bool:
    # signal handlers can only be installed from the main thread (tests call main() too)
    return threading.current_thread() is threading.main_thread()


def _main(argv: Sequence[str] | None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(arguments))
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help and --version
        return int(exc.code) if isinstance(exc.code, int) else EXIT_INPUT
    func: Run | str | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    error: CitelensError | None = None
    result = EXIT_INTERNAL
    try:
        result = _resolve(func)(args)
    except CitelensError as exc:  # a command let its fixed error through: report it as such
        error = exc
    except Exception as exc:  # a bug or a broken environment, never bad input
        error = InternalError.of(exc)
    if error is not None:
        return fail(error)
    return result


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
