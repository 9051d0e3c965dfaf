"""The four tables every importer produces (issue 12), keyed by ``document_ref``.

An importer turns one JSON Lines file of exchanges (one request/response or benchmark item per
line) into these tables; written to a directory they are a corpus input that
``citelens corpus support DIR`` and ``citelens provenance DIR`` read as they are.

* ``claims``: one row per claim, a stretch of the answer that cites something. ``start``,
  ``end`` are half-open code-point offsets in the answer text (``source_id`` ``"answer"``,
  ``source_length`` the answer's length in code points); ``offset_unit`` is the unit the
  provider measured them in and ``original_start``/``original_end`` its values.
* ``evidence``: one row per cited location. ``source_id`` names the cited source within the
  exchange (``s0``, ``s1``, … in the order the exchange lists them); ``start``/``end`` are
  code-point offsets in that source's text when the provider gives character-level offsets
  (null otherwise: page, block or URL citations), ``source_length`` the source text's length
  when known; ``quote`` the text the provider says it cited (null when it gives none);
  ``location_type`` the provider's own name of the citation kind (``char_location``,
  ``url_citation``, ``grounding_chunk``, …).
* ``citations``: the edges, claim to evidence.
* ``sources``: the text of every source whose text the exchange holds. **PRIVATE**: it is the
  cited documents themselves; written with mode 0600 and the Parquet metadata
  ``citelens.privacy = PRIVATE``.

Identifiers are derived, never taken from the input: ``document_ref`` is ``line-000000017``
for the exchange on line 17 of its file (zero-padded so that the file order is the sort
order), ``claim_id`` ``c<k>`` for the k-th claim of the exchange (0-based), ``evidence_id``
``e<k>.<j>`` for its j-th citation. So the same file always gives the same tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

__all__ = [
    "CITATIONS_SCHEMA",
    "CLAIMS_SCHEMA",
    "EVIDENCE_SCHEMA",
    "OFFSET_UNITS",
    "SOURCES_SCHEMA",
    "ImportTables",
    "document_refs",
]

# The units a provider measures offsets in (``offset_unit``); ``none`` where it gives none.
OFFSET_UNITS: tuple[str, ...] = (
    "code_point",  # Python/Anthropic/Cohere characters
    "utf8_byte",  # Gemini
    "utf16_code_unit",  # JavaScript-based tools
    "page",  # page_location: start/end pages, no character offsets
    "content_block",  # content_block_location, search_result_location
    "sentence",  # benchmark formats citing whole sentences or passages
    "none",
)

CLAIMS_SCHEMA = pl.Schema(
    {
        "document_ref": pl.String,
        "claim_id": pl.String,
        "start": pl.Int64,
        "end": pl.Int64,
        "source_id": pl.String,
        "source_length": pl.Int64,
        "offset_unit": pl.String,
        "original_start": pl.Int64,
        "original_end": pl.Int64,
    }
)
EVIDENCE_SCHEMA = pl.Schema(
    {
        "document_ref": pl.String,
        "evidence_id": pl.String,
        "source_id": pl.String,
        "start": pl.Int64,
        "end": pl.Int64,
        "source_length": pl.Int64,
        "quote": pl.String,
        "location_type": pl.String,
        "offset_unit": pl.String,
        "original_start": pl.Int64,
        "original_end": pl.Int64,
    }
)
CITATIONS_SCHEMA = pl.Schema(
    {"document_ref": pl.String, "claim_id": pl.String, "evidence_id": pl.String}
)
SOURCES_SCHEMA = pl.Schema({"document_ref": pl.String, "source_id": pl.String, "text": pl.String})

_SCHEMAS = {
    "claims": CLAIMS_SCHEMA,
    "evidence": EVIDENCE_SCHEMA,
    "citations": CITATIONS_SCHEMA,
    "sources": SOURCES_SCHEMA,
}


def document_refs(lines: pl.Expr) -> pl.Expr:
    """``line-000000017`` for line 17: the ``document_ref`` of the exchange on each line."""
    return pl.lit("line-") + lines.cast(pl.String).str.zfill(9)


@dataclass(frozen=True)
class ImportTables:
    """An importer's result: the four tables, each with exactly its schema and sorted by
    ``document_ref`` then its identifier columns (so equal input gives equal bytes)."""

    claims: pl.DataFrame
    evidence: pl.DataFrame
    citations: pl.DataFrame
    sources: pl.DataFrame

    @staticmethod
    def of(
        claims: pl.DataFrame,
        evidence: pl.DataFrame,
        citations: pl.DataFrame,
        sources: pl.DataFrame,
    ) -> ImportTables:
        """The tables with their columns selected and cast to the schemas, rows sorted."""
        given = {"claims": claims, "evidence": evidence, "citations": citations, "sources": sources}
        shaped = {}
        for role, schema in _SCHEMAS.items():
            frame = given[role].select([pl.col(name).cast(dtype) for name, dtype in schema.items()])
            keys = [name for name in schema if name.endswith(("_ref", "_id"))]
            shaped[role] = frame.sort(keys, maintain_order=True)
        return ImportTables(**shaped)

    @staticmethod
    def concat(parts: list[ImportTables]) -> ImportTables:
        """The tables of ``parts`` (of consecutive lines, in order) one after the other: still
        sorted, as ``document_ref`` follows the line order."""
        if len(parts) == 1:
            return parts[0]
        roles = ("claims", "evidence", "citations", "sources")
        joined = {role: pl.concat([part.tables()[role] for part in parts]) for role in roles}
        return ImportTables(**joined)

    @staticmethod
    def empty() -> ImportTables:
        """Four tables without rows."""
        return ImportTables(**{role: pl.DataFrame(schema=s) for role, s in _SCHEMAS.items()})

    def tables(self) -> dict[str, pl.DataFrame]:
        """The tables by role name (``claims``, ``evidence``, ``citations``, ``sources``)."""
        return {
            "claims": self.claims,
            "evidence": self.evidence,
            "citations": self.citations,
            "sources": self.sources,
        }

    def __repr__(self) -> str:  # counts only: never an identifier or a text
        counts = ", ".join(f"{role}={frame.height}" for role, frame in self.tables().items())
        return f"ImportTables({counts})"
