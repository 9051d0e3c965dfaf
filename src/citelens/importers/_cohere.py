"""The ``cohere`` format: Cohere v2 chat responses with citations, and their requests.

One line is one exchange: ``{"request": …, "response": …}`` or a bare response object. The
response's ``message`` holds ``content[]`` (items of type ``text`` with ``text``, and
``thinking`` items) and ``citations[]``, each with ``start``, ``end``, ``text``,
``content_index``, ``type`` and ``sources[]`` (``{type: "document", id, document: {…}}`` or
``{type: "tool", id, tool_output: {…}}``). The request's ``documents[]`` are each a string or
an object ``{id, data: {text | snippet, …}}``: both shapes are read, also mixed in one list.

What the tables hold:

* The **answer** is the text of the message's ``text`` items joined in order without
  separator.
* A **claim** is one citation: ``[start, end)`` in the text item ``content_index`` (0 when
  absent), shifted by the code points of the text items before it. Cohere counts characters
  (its own example: "world" in "Hello, world!" starts at 7); the unit is read as code points
  (``offset_unit`` ``code_point``). Citations of the thinking text (a citation ``type`` other
  than ``TEXT_CONTENT``, or a ``content_index`` naming a ``thinking`` item) are not claims of
  the answer and are skipped. A citation's ``text`` is the claim's own text, not a quote.
* An **evidence** row is one of a citation's ``sources``: Cohere gives no offsets in the
  source and no quoted text (``start``, ``end``, ``quote`` null, ``offset_unit`` ``none``);
  ``location_type`` is the source ``type`` (``document`` or ``tool``), ``source_length`` the
  code points of the source's text when known.
* A **source** is first each request document in order (``s0``, ``s1``, …; a document without
  ``id`` is matched under the id ``doc:<i>`` Cohere gives it), then each cited source id that
  the request does not list, in the order of first citation. Its text is the request
  document's (the string itself, else ``data.text``, else ``data.snippet``), else the
  ``document.text`` (or ``snippet``) the response echoes; tool outputs have no text.
"""

from __future__ import annotations

import duckdb
import polars as pl

from citelens.importers._decode import LINE, RAW, decode
from citelens.importers._frames import answer_claims, exploded, raise_first
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "convert"]

FORMAT = "cohere"

_TEXT = pl.Struct({"id": pl.String, "text": pl.String, "snippet": pl.String})
_SOURCE = pl.Struct({"type": pl.String, "id": pl.String, "document": _TEXT})
_CITATION = pl.Struct(
    {
        "start": pl.Int64,
        "end": pl.Int64,
        "content_index": pl.Int64,
        "type": pl.String,
        "sources": pl.List(_SOURCE),
    }
)
_MESSAGE = pl.Struct(
    {
        "content": pl.List(pl.Struct({"type": pl.String, "text": pl.String})),
        "citations": pl.List(_CITATION),
    }
)
DTYPE = pl.Struct({"response": pl.Struct({"message": _MESSAGE}), "message": _MESSAGE})
# One request document of the object form, wrapped so that a misfit names its full path.
_DOCUMENT = pl.Struct(
    {
        "request": pl.Struct(
            {
                "documents": pl.List(
                    pl.Struct(
                        {
                            "id": pl.String,
                            "data": pl.Struct({"text": pl.String, "snippet": pl.String}),
                        }
                    )
                )
            }
        )
    }
)

_CITATIONS = "message.citations[]"


def _documents(raw: pl.DataFrame) -> pl.DataFrame:
    """One row per request document: ``_line``, ``_doc`` (its position), ``_key`` (its id)
    and ``_text``. DuckDB splits each ``documents`` list into its items' JSON texts (any JSON
    type), so strings and objects are told apart and decoded each with its own dtype."""
    with duckdb.connect() as connection:
        connection.register("exchanges", raw.select(LINE, RAW).to_arrow())
        listed = connection.sql(
            f"SELECT {LINE}, json_extract({RAW}, '$.request.documents[*]')::VARCHAR[] AS d "
            f"FROM exchanges"
        ).pl()
    items = exploded(listed, "d", "_doc")
    first = pl.col("d").str.slice(0, 1)
    raise_first(
        FORMAT,
        items,
        [(~first.is_in(['"', "{"]), "request.documents[]", "must be text or an object")],
    )
    strings = items.filter(first == '"')
    texts = pl.format('{{"s":{}}}', "d").str.json_decode(pl.Struct({"s": pl.String}))
    strings = strings.select(LINE, "_doc", texts.struct.field("s").alias("_text"))
    objects = items.filter(first == "{")
    wrapped = objects.select(LINE, pl.format('{{"request":{{"documents":[{}]}}}}', "d").alias(RAW))
    document = decode(wrapped, _DOCUMENT, FORMAT).select(
        pl.col("request").struct.field("documents").list.first().alias("o")
    )
    data = pl.col("o").struct.field("data")
    objects = (
        objects.select(LINE, "_doc")
        .hstack(document)
        .select(
            LINE,
            "_doc",
            pl.coalesce(data.struct.field("text"), data.struct.field("snippet")).alias("_text"),
            pl.col("o").struct.field("id").alias("_id"),
        )
    )
    strings = strings.with_columns(pl.lit(None, dtype=pl.String).alias("_id"))
    documents = pl.concat([strings, objects.select(strings.columns)]).sort(LINE, "_doc")
    return documents.select(
        LINE,
        "_doc",
        pl.coalesce("_id", pl.format("doc:{}", "_doc")).alias("_key"),
        "_text",
    ).unique([LINE, "_key"], keep="first", maintain_order=True)


def _citations(decoded: pl.DataFrame) -> pl.DataFrame:
    """One row per citation of the answer (claim ``_k``) with code-point offsets in it."""
    message = pl.coalesce(pl.col("response").struct.field("message"), pl.col("message"))
    messages = decoded.select(LINE, message.alias("m"))
    content = exploded(
        messages.select(LINE, pl.col("m").struct.field("content").alias("c")), "c", "_item"
    ).unnest("c")
    is_text = pl.col("type").is_null() | (pl.col("type") == "text")
    length = pl.when(is_text).then(pl.col("text").fill_null("").str.len_chars()).otherwise(0)
    content = content.with_columns(length.cast(pl.Int64).alias("_length")).select(
        LINE,
        "_item",
        is_text.alias("_is_text"),
        (pl.col("_length").cum_sum().over(LINE) - pl.col("_length")).alias("_shift"),
        pl.col("_length").sum().over(LINE).alias("_answer_length"),
    )
    cited = exploded(
        messages.select(LINE, pl.col("m").struct.field("citations").alias("c")), "c", "_c"
    ).unnest("c")
    cited = cited.with_columns(pl.col("content_index").fill_null(0).alias("_item")).filter(
        pl.col("type").is_null() | (pl.col("type").str.to_uppercase() == "TEXT_CONTENT")
    )
    raise_first(
        FORMAT,
        cited,
        [
            (pl.col("start").is_null(), f"{_CITATIONS}.start", "must be given"),
            (pl.col("end").is_null(), f"{_CITATIONS}.end", "must be given"),
            (pl.col("start") < 0, f"{_CITATIONS}.start", "must not be negative"),
            (pl.col("end") < pl.col("start"), f"{_CITATIONS}.end", "must not be less than start"),
        ],
    )
    cited = cited.join(content, on=[LINE, "_item"], how="left", maintain_order="left")
    raise_first(
        FORMAT,
        cited,
        [
            (
                pl.col("_is_text").is_null(),
                f"{_CITATIONS}.content_index",
                "must name a content item",
            )
        ],
    )
    return cited.filter(pl.col("_is_text")).with_columns(
        pl.int_range(pl.len()).over(LINE).alias("_k")
    )


def convert(raw: pl.DataFrame) -> ImportTables:
    """The tables of the ``cohere`` exchanges in ``raw`` (columns ``_line``, ``raw``)."""
    decoded = decode(raw, DTYPE, FORMAT)
    cited = _citations(decoded).with_columns(
        document_refs(pl.col(LINE)).alias("document_ref"),
        pl.format("c{}", "_k").alias("claim_id"),
    )
    claims = answer_claims(
        cited,
        start=pl.col("start") + pl.col("_shift"),
        end=pl.col("end") + pl.col("_shift"),
        source_length="_answer_length",
        offset_unit="code_point",
        original=("start", "end"),
    )
    edges = exploded(
        cited.select(LINE, "_k", "document_ref", "claim_id", "sources"), "sources", "_j"
    )
    source = pl.col("sources")
    echoed = source.struct.field("document")
    edges = edges.select(
        LINE,
        "_k",
        "_j",
        "document_ref",
        "claim_id",
        source.struct.field("type").alias("_type"),
        source.struct.field("id").alias("_key"),
        pl.coalesce(echoed.struct.field("text"), echoed.struct.field("snippet")).alias("_echo"),
    ).with_row_index("_seq")
    raise_first(
        FORMAT, edges, [(pl.col("_key").is_null(), f"{_CITATIONS}.sources[].id", "must be given")]
    )
    documents = _documents(raw)
    # the sources: request documents first, then cited ids the request does not list
    listed = documents.select(LINE, "_key", "_text", pl.col("_doc").alias("_order"))
    unlisted = (
        edges.join(documents, on=[LINE, "_key"], how="anti")
        .unique([LINE, "_key"], keep="first", maintain_order=True)
        .select(LINE, "_key", pl.lit(None, dtype=pl.String).alias("_text"), "_seq")
    )
    count = documents.group_by(LINE).agg(pl.len().cast(pl.Int64).alias("_count"))
    unlisted = unlisted.join(count, on=LINE, how="left").select(
        LINE,
        "_key",
        "_text",
        (pl.col("_count").fill_null(0) + pl.int_range(pl.len()).over(LINE)).alias("_order"),
    )
    echoes = (
        edges.drop_nulls("_echo")
        .unique([LINE, "_key"], keep="first", maintain_order=True)
        .select(LINE, "_key", "_echo")
    )
    sources = (
        pl.concat([listed, unlisted.select(listed.columns)])
        .join(echoes, on=[LINE, "_key"], how="left")
        .with_columns(
            pl.coalesce("_text", "_echo").alias("_text"),
            pl.format("s{}", "_order").alias("source_id"),
            document_refs(pl.col(LINE)).alias("document_ref"),
        )
    )
    edges = edges.join(
        sources.select(LINE, "_key", "source_id", "_text"), on=[LINE, "_key"], how="left"
    ).sort("_seq")
    null = pl.lit(None, dtype=pl.Int64)
    evidence = edges.with_columns(pl.format("e{}.{}", "_k", "_j").alias("evidence_id"))
    citations = evidence.select("document_ref", "claim_id", "evidence_id")
    evidence = evidence.select(
        "document_ref",
        "evidence_id",
        "source_id",
        null.alias("start"),
        null.alias("end"),
        pl.col("_text").str.len_chars().cast(pl.Int64).alias("source_length"),
        pl.lit(None, dtype=pl.String).alias("quote"),
        pl.col("_type").alias("location_type"),
        pl.lit("none").alias("offset_unit"),
        null.alias("original_start"),
        null.alias("original_end"),
    )
    texts = sources.filter(pl.col("_text").is_not_null()).select(
        "document_ref", "source_id", pl.col("_text").alias("text")
    )
    return ImportTables.of(claims, evidence, citations, texts)
