"""Amazon Bedrock ``RetrieveAndGenerate`` responses (knowledge bases) as import tables.

One JSON Lines line per response, as the API returns it (``boto3``'s
``bedrock-agent-runtime`` ``retrieve_and_generate`` result, ``ResponseMetadata`` and all):
``output.text`` is the answer, and each item of ``citations[]`` pairs one stretch of it,
``generatedResponsePart.textResponsePart`` (``text`` and ``span: {start, end}``), with the
passages the knowledge base retrieved for it, ``retrievedReferences[]`` (``content.text``,
``location`` with its ``type`` and the location of that kind, ``metadata``).

* Claims: citation ``k`` is claim ``c<k>``. Bedrock's ``span.end`` is the position of the
  stretch's **last** character (inclusive): in AWS's responses ``end - start + 1`` is the
  length of ``textResponsePart.text`` and the next stretch starts at ``end + 2`` after a
  space. The claim is therefore ``[start, end + 1)`` in code points of ``output.text``;
  ``original_start``/``original_end`` keep Bedrock's two numbers as they are.
* Sources: the distinct retrieved references of the response (same passage text and
  location), ``s0``, ``s1``, … in order of first appearance; the text is ``content.text``
  (a reference with no text, an image or a table row, is a source without text).
* Evidence: reference ``j`` of citation ``k`` is ``e<k>.<j>``. Bedrock names the whole
  retrieved passage, no offsets within it and no quoted text: ``start``/``end`` and ``quote``
  are null, ``offset_unit`` ``none``, ``source_length`` the passage's length in code points,
  ``location_type`` the reference's ``location.type`` (``S3``, ``WEB``, …, else
  ``retrieved_reference``).
"""

from __future__ import annotations

import polars as pl

from citelens.importers._decode import LINE, decode, malformed
from citelens.importers._frames import answer_claims, exploded, first_line
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "convert"]

FORMAT = "bedrock"

_SPAN = pl.Struct({"start": pl.Int64, "end": pl.Int64})
_PART = pl.Struct({"text": pl.String, "span": _SPAN})
_LOCATION = pl.Struct(
    {
        "type": pl.String,
        "s3Location": pl.Struct({"uri": pl.String}),
        "webLocation": pl.Struct({"url": pl.String}),
    }
)
_REFERENCE = pl.Struct({"content": pl.Struct({"text": pl.String}), "location": _LOCATION})
_CITATION = pl.Struct(
    {
        "generatedResponsePart": pl.Struct({"textResponsePart": _PART}),
        "retrievedReferences": pl.List(_REFERENCE),
    }
)
# the part of the RetrieveAndGenerate response this importer reads
DTYPE = pl.Struct({"output": pl.Struct({"text": pl.String}), "citations": pl.List(_CITATION)})

_SPAN_PATH = "citations[].generatedResponsePart.textResponsePart.span"


def convert(raw: pl.DataFrame) -> ImportTables:
    """The import tables of the RetrieveAndGenerate responses in ``raw`` (``_line``, ``raw``)."""
    decoded = decode(raw, DTYPE, FORMAT).with_columns(
        document_refs(pl.col(LINE)).alias("document_ref"),
        pl.col("output").struct.field("text").alias("answer"),
    )
    line = first_line(decoded, pl.col("answer").is_null())
    if line is not None:
        raise malformed(FORMAT, "output.text", "is missing", line)

    cited = exploded(decoded, "citations", "k")
    part = (
        pl.col("citations").struct.field("generatedResponsePart").struct.field("textResponsePart")
    )
    span = part.struct.field("span")
    spans = cited.with_columns(
        span.struct.field("start").alias("original_start"),
        span.struct.field("end").alias("original_end"),
    )
    line = first_line(spans, pl.col("original_end") < pl.col("original_start"))
    if line is not None:
        raise malformed(FORMAT, f"{_SPAN_PATH}.end", "must not be before start", line)
    claims = answer_claims(
        spans,
        claim_id=pl.lit("c") + pl.col("k").cast(pl.String),
        start="original_start",
        end=pl.col("original_end") + 1,  # inclusive last character -> half-open
        source_length=pl.col("answer").str.len_chars().cast(pl.Int64),
        offset_unit="code_point",
        original=("original_start", "original_end"),
    )

    refs = exploded(
        cited.select(
            LINE, "document_ref", "k", pl.col("citations").struct.field("retrievedReferences")
        ),
        "retrievedReferences",
        "j",
    ).with_columns(
        pl.col("retrievedReferences").struct.field("content").struct.field("text").alias("text"),
        pl.col("retrievedReferences").struct.field("location").alias("location"),
    )
    # the distinct references of each response, numbered in order of first appearance
    refs = refs.with_row_index("_order")
    distinct = (
        refs.group_by([LINE, "text", "location"], maintain_order=True)
        .agg(pl.col("_order").min())
        .sort("_order")
        .with_columns(pl.int_range(pl.len()).over(LINE).alias("_source"))
    )
    refs = refs.join(
        distinct.select(LINE, "text", "location", "_source"),
        on=[LINE, "text", "location"],
        how="left",
        nulls_equal=True,
    ).sort("_order")
    source_id = pl.lit("s") + pl.col("_source").cast(pl.String)
    location_type = pl.col("location").struct.field("type").fill_null("retrieved_reference")
    evidence = refs.select(
        "document_ref",
        (pl.lit("e") + pl.col("k").cast(pl.String) + "." + pl.col("j").cast(pl.String)).alias(
            "evidence_id"
        ),
        source_id.alias("source_id"),
        pl.lit(None, pl.Int64).alias("start"),
        pl.lit(None, pl.Int64).alias("end"),
        pl.col("text").str.len_chars().cast(pl.Int64).alias("source_length"),
        pl.lit(None, pl.String).alias("quote"),
        location_type.alias("location_type"),
        pl.lit("none").alias("offset_unit"),
        pl.lit(None, pl.Int64).alias("original_start"),
        pl.lit(None, pl.Int64).alias("original_end"),
    )
    citations = refs.select(
        "document_ref",
        (pl.lit("c") + pl.col("k").cast(pl.String)).alias("claim_id"),
        (pl.lit("e") + pl.col("k").cast(pl.String) + "." + pl.col("j").cast(pl.String)).alias(
            "evidence_id"
        ),
    )
    sources = (
        refs.filter(pl.col("text").is_not_null())
        .unique([LINE, "_source"], keep="first", maintain_order=True)
        .select("document_ref", source_id.alias("source_id"), "text")
    )
    return ImportTables.of(claims, evidence, citations, sources)
