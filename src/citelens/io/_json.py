"""Text and JSON decoding shared by every reader (conventions §3).

Text formats are UTF-8 with an optional leading BOM; invalid UTF-8 raises ``ValueError``
(``UnicodeDecodeError``). JSON integers stay ``int``, other numbers ``float``; ``NaN``,
``Infinity`` and ``-Infinity`` are rejected; for a repeated key the last one wins.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["decode_utf8", "loads_json", "reject_constant"]


def decode_utf8(data: bytes) -> str:
    """``data`` as UTF-8 text without its leading BOM; invalid UTF-8 raises ``ValueError``."""
    return data.decode("utf-8").removeprefix("\ufeff")


def reject_constant(_: str) -> Any:
    """``parse_constant`` hook of :func:`json.loads`: ``NaN`` and the infinities are not
    JSON values of any contract, so they make the document unreadable (``ValueError``)."""
    raise ValueError()


def loads_json(text: str) -> Any:
    """One JSON document as Python values (nulls kept); malformed text raises ``ValueError``
    (and ``RecursionError`` for nesting deeper than the interpreter allows)."""
    return json.loads(text, parse_constant=reject_constant)
