"""Identifier leakage check of a summary against protected surfaces (review.md §10)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citelens.review._common import entry_point, error, is_row_collection

__all__ = ["LeakageCheck", "check_identifier_leakage"]

_SURFACE_LIMIT = 10_000
_RUN = re.compile(r"\w+")  # a maximal run of word characters (the \w of the leak pattern)
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))


@dataclass(frozen=True)
class LeakageCheck:
    """Whether any protected surface occurs in the text; surfaces appear only as digests."""

    passed: bool
    checked_token_count: int
    leaked_token_count: int
    leaked_token_hashes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{passed, checked_token_count, leaked_token_count, leaked_token_hashes}``."""
        return {
            "passed": self.passed,
            "checked_token_count": self.checked_token_count,
            "leaked_token_count": self.leaked_token_count,
            "leaked_token_hashes": list(self.leaked_token_hashes),
        }


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8", "strict")
    except UnicodeError:
        return False
    return True


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFC", text.translate(_INVISIBLE)).casefold()


@entry_point
def check_identifier_leakage(text: str, protected_surfaces: Sequence[str]) -> LeakageCheck:
    """Find protected surfaces in ``text``: whole surfaces, case-insensitive, word-bounded.

    Raises ``SummaryReviewError("invalid_leakage_input")`` for a non-``str`` text or a
    ``protected_surfaces`` that is not a list or tuple of at most 100,000 strings of at most
    10,000 characters each.
    """
    if type(text) is not str or not is_row_collection(protected_surfaces):
        raise error("invalid_leakage_input")
    for surface in protected_surfaces:
        if type(surface) is not str or len(surface) > _SURFACE_LIMIT or not _encodable(surface):
            raise error("invalid_leakage_input")
    surfaces: dict[str, None] = {}
    for surface in protected_surfaces:
        normalised = " ".join(_normalise(surface).split())
        if normalised:
            surfaces[normalised] = None
    haystack = _normalise(text)
    # Every maximal run of word characters of a leaking surface is also a maximal run of the
    # text: inside the match it is bounded by literal non-word characters, by whitespace
    # (\s+) or by the (?<!\w) / (?!\w) ends of the pattern. A surface with a run the text
    # lacks cannot leak, so it is decided by a set lookup instead of a scan of the whole text
    # (only surfaces that may leak are searched: S surfaces over a long text are not S scans).
    runs = frozenset(_RUN.findall(haystack))
    leaked: list[str] = []
    for surface in surfaces:
        if not runs.issuperset(_RUN.findall(surface)):
            continue
        pattern = r"(?<!\w)" + r"\s+".join(re.escape(word) for word in surface.split()) + r"(?!\w)"
        if re.search(pattern, haystack) is not None:
            leaked.append("sha256:" + hashlib.sha256(surface.encode("utf-8")).hexdigest())
    leaked.sort()
    return LeakageCheck(
        passed=not leaked,
        checked_token_count=len(surfaces),
        leaked_token_count=len(leaked),
        leaked_token_hashes=tuple(leaked),
    )
