"""Default bounds of summary citations (summary-citations.md §3, conventions.md §2)."""

from __future__ import annotations

__all__ = ["DEFAULT_CITATIONS", "DEFAULT_CLAIMS", "DEFAULT_EVIDENCE"]

DEFAULT_CLAIMS = 100_000
DEFAULT_EVIDENCE = 200_000
DEFAULT_CITATIONS = 500_000
