"""Bundled adapters (gold-harness.md §8): ``lexical`` (deterministic reference system),
``http`` (JSON-configured endpoints) and ``openai`` (OpenAI-compatible chat completions)."""

from __future__ import annotations

from citelens.gold.adapters._http import HttpAdapter
from citelens.gold.adapters._openai import OpenAIAdapter
from citelens.gold.adapters._text import content, sentences, strip_markers, tokens

__all__ = ["HttpAdapter", "OpenAIAdapter", "content", "sentences", "strip_markers", "tokens"]
