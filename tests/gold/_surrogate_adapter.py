"""A test adapter whose verdict calls fail with a lone surrogate in the error text and whose
answers hold one (what a system's error message or reply can carry)."""

from __future__ import annotations

from typing import Any


class Surrogates:
    """Online, verdicts and grounding; every text it gives back has U+D800 in it."""

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def analyze_batch(self, payload: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("bad \ud800 reply")

    def answer(self, question: str, context: str) -> str:
        return "\ud800 answer"


adapter = Surrogates()
