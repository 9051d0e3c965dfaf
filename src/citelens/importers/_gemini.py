"""The ``gemini`` format: Gemini ``generateContent`` responses with grounding metadata.

One line is one exchange: ``{"request": …, "response": …}`` or a bare response object. Each of
the response's ``candidates[]`` holds ``content.parts[].text`` and ``groundingMetadata`` with
``groundingChunks[]`` (``web: {uri, title}``, ``retrievedContext: {uri, title, text}``, ``maps``,
``image``) and ``groundingSupports[]`` (``segment: {partIndex, startIndex, endIndex, text}``,
``groundingChunkIndices[]``, ``confidenceScores[]``). The REST API spells the fields in
camelCase, the Python SDK's dumps in snake_case (``grounding_metadata``, ``start_index``):
both are read, field by field.

What the tables hold:

* The **answer** is the text of every part of every candidate, joined in order without
  separator (usually one candidate).
* A **claim** is one grounding support: its segment. Google measures ``startIndex`` and
  ``endIndex`` in UTF-8 bytes from the start of the part ``partIndex`` (half-open); they are
  converted to code points and shifted by the code points of the parts (and candidates)
  before it. ``offset_unit`` is ``utf8_byte``, ``original_start``/``original_end`` the bytes.
  The JSON form of the API leaves out fields that are zero, so an absent ``partIndex`` or
  ``startIndex`` is 0. ``segment.text`` is the claim's own text (the answer's), not a quote.
* An **evidence** row is one entry of ``groundingChunkIndices``: the whole chunk is cited,
  with no offsets in it and no quoted text (``start``, ``end``, ``quote`` null,
  ``offset_unit`` ``none``); ``location_type`` is the chunk's kind (``web``,
  ``retrieved_context``, ``maps``, ``image``) and ``source_length`` the code points of the
  chunk's text when it has one.
* A **source** is one grounding chunk: ``s<i>`` numbers the chunks of all candidates in order.
  Only ``retrievedContext.text`` is a source text (web chunks carry a URI and a title only),
  so only those chunks have a row in ``sources``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from citelens._offsets import to_code_points
from citelens.importers._decode import LINE, decode
from citelens.importers._frames import answer_claims, exploded, raise_first
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "convert"]

FORMAT = "gemini"

_URI = pl.Struct({"uri": pl.String})
_CONTEXT = pl.Struct({"uri": pl.String, "text": pl.String})
_CHUNK = pl.Struct(
    {
        "web": _URI,
        "retrievedContext": _CONTEXT,
        "retrieved_context": _CONTEXT,
        "maps": _URI,
        "image": _URI,
    }
)
_SEGMENT = pl.Struct(
    {
        name: pl.Int64
        for name in (
            "partIndex",
            "part_index",
            "startIndex",
            "start_index",
            "endIndex",
            "end_index",
        )
    }
)
_SUPPORT = pl.Struct(
    {
        "segment": _SEGMENT,
        "groundingChunkIndices": pl.List(pl.Int64),
        "grounding_chunk_indices": pl.List(pl.Int64),
    }
)
_METADATA = pl.Struct(
    {
        "groundingChunks": pl.List(_CHUNK),
        "grounding_chunks": pl.List(_CHUNK),
        "groundingSupports": pl.List(_SUPPORT),
        "grounding_supports": pl.List(_SUPPORT),
    }
)
_CANDIDATES = pl.List(
    pl.Struct(
        {
            "content": pl.Struct({"parts": pl.List(pl.Struct({"text": pl.String}))}),
            "groundingMetadata": _METADATA,
            "grounding_metadata": _METADATA,
        }
    )
)
DTYPE = pl.Struct({"response": pl.Struct({"candidates": _CANDIDATES}), "candidates": _CANDIDATES})

_SUPPORTS = "candidates[].groundingMetadata.groundingSupports[]"
_KINDS = ("web", "retrieved_context", "maps", "image")


def _either(struct: pl.Expr, camel: str, snake: str) -> pl.Expr:
    """The field ``camel`` of ``struct``, else its snake_case spelling ``snake``."""
    return pl.coalesce(struct.struct.field(camel), struct.struct.field(snake))


def _candidates(decoded: pl.DataFrame) -> pl.DataFrame:
    """One row per candidate: ``_line``, ``_cand``, ``parts``, ``chunks``, ``supports``."""
    listed = decoded.select(
        LINE,
        pl.coalesce(pl.col("response").struct.field("candidates"), pl.col("candidates")).alias("c"),
    )
    rows = exploded(listed, "c", "_cand")
    metadata = _either(pl.col("c"), "groundingMetadata", "grounding_metadata")
    return rows.select(
        LINE,
        "_cand",
        pl.col("c").struct.field("content").struct.field("parts").alias("parts"),
        _either(metadata, "groundingChunks", "grounding_chunks").alias("chunks"),
        _either(metadata, "groundingSupports", "grounding_supports").alias("supports"),
    )


def _parts(candidates: pl.DataFrame) -> pl.DataFrame:
    """One row per part in answer order, with its text, global row number ``_row`` (the
    text's index for the offset conversion) and code-point shift in the answer."""
    parts = exploded(candidates.select(LINE, "_cand", "parts"), "parts", "_part")
    text = pl.col("parts").struct.field("text").fill_null("")
    length = text.str.len_chars().cast(pl.Int64)
    return parts.select(
        LINE,
        "_cand",
        "_part",
        text.alias("_text"),
        pl.int_range(pl.len()).alias("_row"),
        (length.cum_sum().over(LINE) - length).alias("_shift"),
        length.sum().over(LINE).alias("_answer_length"),
    )


def _chunks(candidates: pl.DataFrame) -> pl.DataFrame:
    """One row per grounding chunk with its source number ``_i``, kind and text."""
    chunks = exploded(candidates.select(LINE, "_cand", "chunks"), "chunks", "_chunk")
    chunk = pl.col("chunks")
    kind = pl.lit(None, dtype=pl.String)
    for name in reversed(_KINDS):
        field = "retrievedContext" if name == "retrieved_context" else name
        present = (
            _either(chunk, field, name) if field != name else chunk.struct.field(name)
        ).is_not_null()
        kind = pl.when(present).then(pl.lit(name)).otherwise(kind)
    context = _either(chunk, "retrievedContext", "retrieved_context")
    return chunks.select(
        LINE,
        "_cand",
        "_chunk",
        pl.int_range(pl.len()).over(LINE).alias("_i"),
        kind.alias("_kind"),
        context.struct.field("text").alias("_source_text"),
    )


def _supports(candidates: pl.DataFrame, parts: pl.DataFrame) -> pl.DataFrame:
    """One row per grounding support (claim ``_k``) with code-point offsets in the answer."""
    supports = exploded(candidates.select(LINE, "_cand", "supports"), "supports", "_support")
    segment = pl.col("supports").struct.field("segment")
    supports = supports.select(
        LINE,
        "_cand",
        pl.int_range(pl.len()).over(LINE).alias("_k"),
        _either(segment, "partIndex", "part_index").fill_null(0).alias("_part"),
        _either(segment, "startIndex", "start_index").fill_null(0).alias("_ostart"),
        _either(segment, "endIndex", "end_index").alias("_oend"),
        _either(pl.col("supports"), "groundingChunkIndices", "grounding_chunk_indices").alias(
            "_indices"
        ),
    )
    raise_first(
        FORMAT,
        supports,
        [
            (pl.col("_oend").is_null(), f"{_SUPPORTS}.segment.endIndex", "must be given"),
            (pl.col("_ostart") < 0, f"{_SUPPORTS}.segment.startIndex", "must not be negative"),
            (
                pl.col("_oend") < pl.col("_ostart"),
                f"{_SUPPORTS}.segment.endIndex",
                "must not be less than startIndex",
            ),
        ],
    )
    joined = supports.join(parts, on=[LINE, "_cand", "_part"], how="left", maintain_order="left")
    raise_first(
        FORMAT,
        joined,
        [(pl.col("_row").is_null(), f"{_SUPPORTS}.segment.partIndex", "must name a part")],
    )
    texts = parts.get_column("_text").to_arrow()
    rows = joined.get_column("_row").to_numpy().astype(np.int64)
    start = to_code_points(texts, rows, joined.get_column("_ostart").to_numpy(), "utf8")
    end = to_code_points(texts, rows, joined.get_column("_oend").to_numpy(), "utf8")
    joined = joined.with_columns(pl.Series("_start", start), pl.Series("_end", end))
    boundary = "must be a UTF-8 character boundary within its part"
    raise_first(
        FORMAT,
        joined,
        [
            (pl.col("_start") < 0, f"{_SUPPORTS}.segment.startIndex", boundary),
            (pl.col("_end") < 0, f"{_SUPPORTS}.segment.endIndex", boundary),
        ],
    )
    return joined


def convert(raw: pl.DataFrame) -> ImportTables:
    """The tables of the ``gemini`` exchanges in ``raw`` (columns ``_line``, ``raw``)."""
    decoded = decode(raw, DTYPE, FORMAT)
    candidates = _candidates(decoded)
    parts = _parts(candidates)
    chunks = _chunks(candidates)
    supports = _supports(candidates, parts).with_columns(
        document_refs(pl.col(LINE)).alias("document_ref"),
        pl.format("c{}", "_k").alias("claim_id"),
    )
    claims = answer_claims(
        supports,
        start=pl.col("_start") + pl.col("_shift"),
        end=pl.col("_end") + pl.col("_shift"),
        source_length="_answer_length",
        offset_unit="utf8_byte",
        original=("_ostart", "_oend"),
    )
    cited = exploded(
        supports.select(LINE, "_cand", "_k", "document_ref", "claim_id", "_indices"),
        "_indices",
        "_j",
    ).rename({"_indices": "_chunk"})
    cited = cited.join(chunks, on=[LINE, "_cand", "_chunk"], how="left", maintain_order="left")
    raise_first(
        FORMAT,
        cited,
        [
            (
                pl.col("_i").is_null(),
                f"{_SUPPORTS}.groundingChunkIndices[]",
                "must name a grounding chunk",
            )
        ],
    )
    null = pl.lit(None, dtype=pl.Int64)
    cited = cited.with_columns(pl.format("e{}.{}", "_k", "_j").alias("evidence_id"))
    evidence = cited.select(
        "document_ref",
        "evidence_id",
        pl.format("s{}", "_i").alias("source_id"),
        null.alias("start"),
        null.alias("end"),
        pl.col("_source_text").str.len_chars().cast(pl.Int64).alias("source_length"),
        pl.lit(None, dtype=pl.String).alias("quote"),
        pl.col("_kind").alias("location_type"),
        pl.lit("none").alias("offset_unit"),
        null.alias("original_start"),
        null.alias("original_end"),
    )
    citations = cited.select("document_ref", "claim_id", "evidence_id")
    sources = chunks.filter(pl.col("_source_text").is_not_null()).select(
        document_refs(pl.col(LINE)).alias("document_ref"),
        pl.format("s{}", "_i").alias("source_id"),
        pl.col("_source_text").alias("text"),
    )
    return ImportTables.of(claims, evidence, citations, sources)
