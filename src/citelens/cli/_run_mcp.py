"""``citelens mcp``: run the server (imported only when the command runs)."""

from __future__ import annotations

import argparse
import importlib

from citelens.cli._common import EXIT_OK, fail
from citelens.errors import CitelensError

__all__ = ["MISSING_EXTRA", "run"]

MISSING_EXTRA = "citelens mcp needs the mcp extra: pip install 'citelens[mcp]'"
"""The fixed message (category ``input``, exit 2) when the ``mcp`` SDK is not installed."""


def _sdk_missing(error: ModuleNotFoundError) -> bool:
    # only the SDK itself (or a module of it) missing is the extra; any other missing
    # module is a broken environment, an internal error
    name = error.name or ""
    return name in ("mcp", "mcp_types") or name.startswith(("mcp.", "mcp_types."))


def run(args: argparse.Namespace) -> int:
    """Run ``citelens mcp``: serve stdio until the client closes the connection."""
    del args  # no options
    missing = False
    try:
        # the optional extra: its absence is a fixed input error, not a crash
        server = importlib.import_module("citelens.mcp._server")
    except ModuleNotFoundError as error:
        if not _sdk_missing(error):
            raise
        missing = True
    if missing:
        return fail(CitelensError(MISSING_EXTRA, "input"))
    server.serve_stdio()
    return EXIT_OK
