"""Fixtures shared by the gold-harness tests: the OpenGATE data, local HTTP servers, adapters."""

from __future__ import annotations

import json
import pathlib
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from conftest import shared_dir

from ._helpers import Handler


@pytest.fixture
def opengate() -> pathlib.Path:
    """``../shared/data/opengate/datasets`` (skips when ../shared is absent)."""
    return shared_dir("data", "opengate", "datasets")


class LocalServer:
    """A real HTTP server on 127.0.0.1 (ephemeral port) driven by a per-test handler."""

    def __init__(self, handler: Handler) -> None:
        self.requests: list[dict[str, Any]] = []
        server_self = self

        class _H(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body: dict[str, Any] | None
                try:
                    body = json.loads(raw.decode("utf-8"))
                except ValueError:
                    body = None
                server_self.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                handler(self, body, raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def local_server() -> Iterator[Callable[[Handler], LocalServer]]:
    """Factory: start a :class:`LocalServer` with a handler; all are shut down afterwards."""
    servers: list[LocalServer] = []

    def start(handler: Handler) -> LocalServer:
        server = LocalServer(handler)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()
