"""Helpers importable by the gold test modules."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

SHARED = pathlib.Path(__file__).resolve().parents[2].parent / "shared"
VECTORS = SHARED / "vectors" / "gold" / "citation-detection.jsonl"


def vector_lines() -> list[Any]:
    """Every line of the citation-detection vectors; ``[]`` when ../shared is absent."""
    if not VECTORS.exists():
        return []
    out: list[Any] = []
    for raw in VECTORS.read_text(encoding="utf-8").split("\n"):
        if raw.strip():
            out.append(json.loads(raw))
    return out


ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data-samples" / "gold"

Handler = Callable[[BaseHTTPRequestHandler, "dict[str, Any] | None", bytes], None]


def reply(
    h: BaseHTTPRequestHandler,
    status: int,
    payload: Any,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> None:
    """Send ``payload`` as JSON (or ``raw`` bytes) with ``status``."""
    data = raw if raw is not None else json.dumps(payload).encode("utf-8")
    try:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def write_case(root: pathlib.Path, name: str, case: Any) -> pathlib.Path:
    """Write one case file under ``root/cases``."""
    path = root / "cases" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(case) if not isinstance(case, str) else case, encoding="utf-8")
    return path


def qa_case(case_id: str = "c1", **extra: Any) -> dict[str, Any]:
    """A minimal valid QA case."""
    case: dict[str, Any] = {
        "id": case_id,
        "manuscript": "Drug A lowered blood pressure in adults.1 This was a pilot study.",
        "goldClaims": [
            {
                "originalText": "Drug A lowered blood pressure in adults.1",
                "text": "Drug A lowered blood pressure in adults",
                "citations": [1],
            }
        ],
        "goldNonClaims": ["This was a pilot study."],
        "references": {"1": {"name": "Trial A", "text": "Drug A lowered blood pressure."}},
        "goldVerdicts": [
            {
                "claimText": "Drug A lowered blood pressure in adults",
                "citation": 1,
                "verdict": "strong_support",
            }
        ],
    }
    case.update(extra)
    return case
