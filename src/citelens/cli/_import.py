"""``citelens import``: the parser of importing provider or benchmark exchanges into a corpus
directory (light: the importers are loaded when the command runs, by
``citelens.cli._run_import``)."""

from __future__ import annotations

import argparse

from citelens.cli import command_help
from citelens.cli._common import COMMAND_HELP, add_io_flags
from citelens.cli._progress import add_progress_argument

__all__ = ["FORMAT_NAMES", "register"]

# The format names the command accepts (citelens.importers.FORMATS, spelled out here so that
# parsing loads no engine); one whose module is not present is refused when the command runs.
FORMAT_NAMES = ("anthropic", "openai", "gemini", "cohere", "bedrock", "alce", "longbench-cite")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``import`` subcommand."""
    parser = subparsers.add_parser(
        "import",
        help=COMMAND_HELP["import"],
        **command_help(
            "Import one JSON Lines file of exchanges into a corpus directory.",
            "Each line is one exchange (a provider's request and response, or one benchmark "
            "item) in FORMAT: " + ", ".join(FORMAT_NAMES) + ". The tables are keyed by "
            "document_ref (line-000000017 for line 17) and read as they are by `citelens "
            "corpus support DIR`. One summary line of counts goes to stderr.",
            reads="INPUT, a JSON Lines file (.jsonl/.ndjson, optionally .gz or .zst), or - "
            "for stdin.",
            writes="DIR/claims.parquet, evidence.parquet, citations.parquet and "
            "sources.parquet, published as one atomic set; sources.parquet holds the cited "
            "texts: it is PRIVATE (mode 0600). A missing parent of DIR is an error unless "
            "--mkdir.",
            ok="the exchanges were imported and the tables written",
            example="citelens import anthropic exchanges.jsonl --out corpus/",
        ),
    )
    parser.add_argument("format", metavar="FORMAT", help="the input format")
    parser.add_argument("input", metavar="INPUT", help="the JSON Lines file (- for stdin)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the output directory")
    add_io_flags(parser, stdin=False)
    add_progress_argument(parser)
    parser.set_defaults(func="citelens.cli._run_import:run", stdin_format="jsonl")
