"""The MCP server of ``citelens mcp``, on the official ``mcp`` SDK's low-level ``Server``
(the ``mcp`` extra; this is the only module of citelens that imports the SDK).

The low-level server is used, not ``MCPServer``/``FastMCP``, because those validate the
arguments with pydantic first, and pydantic's messages quote the offending value: here every
argument reaches :func:`citelens.mcp._tools.call_tool`, which validates it as the Python API
does, with the API's fixed errors.
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

from citelens import __version__
from citelens._fixed import attempt
from citelens._jsonout import canonical_json
from citelens.errors import CitelensError
from citelens.mcp._tools import TOOLS, call_tool

__all__ = ["SERVER_NAME", "build_server", "error_payload", "serve_stdio"]

SERVER_NAME = "citelens"


def error_payload(error: CitelensError) -> dict[str, Any]:
    """The structured content of a tool error: the fixed ``category`` and ``message`` and,
    when the error has one, its fixed ``detail`` (never an input value)."""
    payload: dict[str, Any] = {"category": error.category, "message": error.args[0]}
    detail = getattr(error, "detail", None)
    if isinstance(detail, str) and detail:
        payload["detail"] = detail
    return {"error": payload}


def _result(report: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=canonical_json(report))],
        structured_content=report,
    )


def _error_result(error: CitelensError) -> types.CallToolResult:
    payload = error_payload(error)
    shown = payload["error"].get("detail", payload["error"]["message"])
    text = f"citelens: error [{error.category}]: {shown}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=payload,
        is_error=True,
    )


def _run(name: str, arguments: object) -> dict[str, Any]:
    # attempt: a citelens error passes through; anything else is an InternalError naming the
    # exception type only, so the SDK never turns a foreign message into the tool result
    return attempt(lambda: call_tool(name, arguments))


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    del ctx, params  # one page, the same for every caller
    return types.ListToolsResult(
        tools=[
            types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
            for t in TOOLS
        ]
    )


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    del ctx
    try:
        # the checks are synchronous and may take a while: a worker thread keeps the
        # connection answering (pings, cancellations) meanwhile
        report = await anyio.to_thread.run_sync(_run, params.name, params.arguments)
    except CitelensError as error:
        return _error_result(error)
    return _result(report)


def build_server() -> Server[Any]:
    """A new MCP server exposing the citelens tools (``TOOL_NAMES``)."""
    return Server(
        SERVER_NAME,
        version=__version__,
        instructions="Deterministic, local citation checks. Reports hold counts, rates, fixed "
        "labels and digests only: never an identifier, a claim text or a source text.",
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )


def serve_stdio() -> None:
    """Serve :func:`build_server` over stdin/stdout until the client closes the connection."""

    async def serve() -> None:
        server = build_server()
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)
