"""Lone surrogates in Python text, made storable in Arrow (UTF-8) columns.

A Python ``str`` may hold a lone surrogate (U+D800–U+DFFF), which UTF-8 cannot encode, so Arrow
refuses the column. The adapters write each one as a private-use character of plane 16
(U+10F800 + (cp − U+D800)) and keep, per value, whether it held one: distinct texts stay
distinct (barring texts that already use those private-use characters), and the rules that
reject surrogates read the flags.
"""

from __future__ import annotations

import functools
import re
from typing import Final

__all__ = ["storable_texts"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_PRIVATE: Final = 0x10F800 - 0xD800


def _private(match: re.Match[str]) -> str:
    return chr(ord(match.group()) + _PRIVATE)


def storable_texts(values: list[str]) -> tuple[list[str], list[bool]]:
    """``values`` with lone surrogates written as private-use characters, and per value
    whether it held one. Called only once encoding the values as they are has failed."""
    flags = list(map(bool, map(_SURROGATE.search, values)))
    return list(map(functools.partial(_SURROGATE.sub, _private), values)), flags
