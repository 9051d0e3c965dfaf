"""Re-export of the reference-adapter text helpers for adapter authors."""

from __future__ import annotations

from citelens.gold._public_values import content, sentences, strip_markers, tokens

__all__ = ["content", "sentences", "strip_markers", "tokens"]
