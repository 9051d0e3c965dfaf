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
import sys
from collections.abc import Callable, Sequence
from typing import cast

from citelens import __version__
from citelens.cli._common import COMMAND_HELP, EXIT_INPUT, EXIT_INTERNAL, fail
from citelens.errors import CitelensError, InternalError

__all__ = ["build_parser", "main"]

Run = Callable[[argparse.Namespace], int]

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
}


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
    parser = argparse.ArgumentParser(
        prog="citelens",
        description=(
            "Deterministic checks of citations attached to claims: citation support metrics, "
            "summary citation consistency, citation minimality, blinded review and gold-set "
            "evaluation. Reports hold counts, fixed labels, offsets and SHA-256 digests only."
        ),
        epilog=(
            "Exit codes: 0 success, 1 a check or gate did not pass, 2 bad input or usage, "
            "3 internal error (a bug or a broken environment, never bad input)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"citelens {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
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
    """Run the CLI and return its exit code."""
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
