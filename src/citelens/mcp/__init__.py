"""The MCP server (``citelens mcp``): citelens's deterministic checks as tools an agent can
call before it answers. See ``docs/mcp.md``.

Tools: ``check_citations`` (support metrics), ``check_provenance`` (verbatim provenance),
``check_grounding`` (the gold grounding check) and ``check_summary_citations``. Each takes its
inputs inline as JSON and returns the wrapped API's value-free report dict; a refused input is
an MCP tool error (``isError``) with the API's fixed category and message.

:func:`call_tool` runs a tool without the SDK. :func:`build_server` and :func:`serve_stdio`
need the ``mcp`` extra (``pip install 'citelens[mcp]'``); they are imported on first use, so
importing this package does not import the SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from citelens.mcp._tools import TOOL_NAMES, TOOLS, ToolSpec, call_tool

if TYPE_CHECKING:  # static names for type checkers; the SDK is imported on first use only
    from citelens.mcp._server import build_server, serve_stdio

__all__ = ["TOOLS", "TOOL_NAMES", "ToolSpec", "build_server", "call_tool", "serve_stdio"]

_SERVER_NAMES = frozenset(("build_server", "serve_stdio"))


def __getattr__(name: str) -> Any:
    """``build_server`` and ``serve_stdio``, imported (with the SDK) on first use."""
    if name in _SERVER_NAMES:
        return getattr(importlib.import_module("citelens.mcp._server"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
