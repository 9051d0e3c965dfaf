"""The ``citelens`` command line: one program, one subcommand per capability.

Exit codes: 0 success, 1 a check or gate did not pass, 2 bad input or usage (a fixed-category
message on stderr that never echoes input values), 3 an internal error (a bug or a broken
environment; the message names the exception type only).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from citelens.errors import CitelensError, InternalError

__all__ = ["main"]

# Each module ``citelens.cli._<name>`` provides ``register(subparsers)``; the parser it adds
# sets ``func`` to a callable ``(argparse.Namespace) -> int``.
_COMMAND_MODULES: tuple[str, ...] = (
    "_support",
    "_review",
    "_gold",
    "_minimality",
    "_summary_citations",
    "_corpus",
    "_sql",
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
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
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        module = importlib.import_module(f"citelens.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code) if isinstance(exc.code, int) else 2
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    internal: InternalError | None = None
    try:
        result: int = func(args)
    except CitelensError as exc:
        if not isinstance(exc, InternalError):
            raise
        internal = exc
    except Exception as exc:  # a bug or a broken environment, never bad input
        internal = InternalError.of(exc)
    if internal is not None:
        sys.stderr.write(f"citelens: error [{internal.category}]: {internal.args[0]}\n")
        return 3
    return result


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
