"""``citelens mcp``: the parser of the MCP server (light: the server and the ``mcp`` SDK are
imported when the command runs, by ``citelens.cli._run_mcp``)."""

from __future__ import annotations

from typing import Any

from citelens.cli import command_help
from citelens.cli._common import COMMAND_HELP

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``mcp`` subcommand."""
    parser = subparsers.add_parser(
        "mcp",
        help=COMMAND_HELP["mcp"],
        **command_help(
            "MCP server: citelens's deterministic checks as tools for an agent, over stdio.",
            "Serves the Model Context Protocol on stdin/stdout with four tools: "
            "check_citations (support metrics), check_provenance (verbatim provenance), "
            "check_grounding (the gold grounding check) and check_summary_citations. Inputs "
            "are inline JSON; results are the value-free report dicts; a refused input is a "
            "tool error with the fixed category and message. Needs the mcp extra: "
            "pip install 'citelens[mcp]'.",
            reads="MCP requests (JSON-RPC) on stdin; no file.",
            writes="MCP responses on stdout; no file.",
            ok="the client closed the connection",
            bad_input="bad usage, or the mcp extra is not installed: one fixed-category line "
            "on stderr",
            example="citelens mcp",
        ),
    )
    parser.set_defaults(func="citelens.cli._run_mcp:run")
