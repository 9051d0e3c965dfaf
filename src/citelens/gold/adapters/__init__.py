"""Bundled adapters (gold-harness.md §8): ``lexical`` (deterministic reference system),
``http`` (JSON-configured endpoints) and ``openai`` (OpenAI-compatible chat completions)."""

from __future__ import annotations

from ._http import HttpAdapter
from ._openai import OpenAIAdapter
from ._text import content, sentences, strip_markers, tokens

__all__ = ["HttpAdapter", "OpenAIAdapter", "content", "sentences", "strip_markers", "tokens"]
