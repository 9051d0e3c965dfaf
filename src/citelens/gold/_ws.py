"""The contract's whitespace set WS (gold-harness.md §4.1) and the one trim that uses it.

Python's ``str.strip()``, ``str.split()`` and the regex class ``\\s`` use a wider set: they also
take U+001C-U+001F and U+0085, which the contract keeps ("Not U+001C-U+001F, not U+0085"). Every
trim of a label, key or model reply in :mod:`citelens.gold` goes through :func:`trim_ws` (and every
whitespace class through ``WS``), so the two sets cannot drift apart.
"""

from __future__ import annotations

import re

__all__ = ["WS", "WS_CHARS", "WS_STRIP", "normalise_label", "trim_ws"]

WS_CHARS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""The WS set written as the inside of a regex character class."""

WS = "[" + WS_CHARS + "]"
"""A regex class matching one WS character."""

WS_STRIP = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The WS set as the argument of ``str.strip``."""

_LABEL_SEP = re.compile("[" + WS_CHARS + "\\-]+")


def trim_ws(text: str) -> str:
    """``text`` without WS at either end (``str.strip`` of the base class: a ``str`` subclass's
    own methods never run)."""
    return str.strip(text, WS_STRIP)


def normalise_label(value: object) -> str | None:
    """A predicted verdict label (§3.4): trimmed of WS, lowercased, each run of WS and/or
    hyphens replaced by ``_``; ``None`` (no verdict) for a non-string or an empty result."""
    if not isinstance(value, str):
        return None
    label = _LABEL_SEP.sub("_", str.lower(trim_ws(value)))
    return label or None
