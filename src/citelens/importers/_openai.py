"""The ``openai`` format: OpenAI Responses API and Chat Completions responses with annotations.

One line is one exchange: ``{"request": …, "response": …}`` or a bare response object. The
response is either a Responses API response (``output[]`` items of type ``message``, their
``content[]`` parts of type ``output_text`` with ``text`` and ``annotations[]``) or a Chat
Completions response (``choices[].message.content`` and ``choices[].message.annotations[]``,
each ``{"type": "url_citation", "url_citation": {url, title, start_index, end_index}}``).

What the tables hold:

* The **answer** is the texts of the exchange's output text parts (Responses) and choice
  messages (Chat Completions), joined in their order without separator; a part's offsets are
  shifted by the code points of the texts before it.
* A **claim** is one distinct annotated span of one text part: the annotations of a part that
  share ``start_index`` and ``end_index`` are one claim with one evidence row each. The span
  is ``[start_index, end_index)`` in the answer. ``file_citation`` gives only ``index``, the
  position at which the citation is inserted: its claim is the empty span ``[index, index)``.
  The claims are numbered in the order their first annotation appears.
* An **evidence** row is one annotation (``location_type`` its ``type``). OpenAI gives no
  offsets in the cited source and no quoted text, so ``start``, ``end``, ``quote`` and
  ``source_length`` are null and ``offset_unit`` is ``none``.
* A **source** is one cited URL (``url_citation``), file (``file_citation``, by ``file_id``) or
  container file (``container_file_citation``, by ``container_id`` and ``file_id``), numbered
  ``s0``, ``s1``, … in the order the exchange first cites it. Their texts are not part of an
  exchange, so the ``sources`` table is empty.
* ``file_path`` annotations (links to generated files) cite nothing and are skipped, as are
  annotation types this module does not know.

Offsets: OpenAI documents ``start_index``/``end_index`` as the index of "the first/last
character" of the citation in the message, without naming the unit; they are read as
half-open code-point offsets (``offset_unit`` ``code_point``), so a provider that counted in
UTF-16 code units shows up in the provenance check's ``offset_unit`` status.
"""

from __future__ import annotations

import polars as pl

from citelens.importers._decode import LINE, decode, malformed
from citelens.importers._frames import answer_claims, exploded
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "convert"]

FORMAT = "openai"

_SPAN = {"start_index": pl.Int64, "end_index": pl.Int64}
_ANNOTATION = pl.Struct(
    {
        "type": pl.String,
        **_SPAN,
        "index": pl.Int64,
        "url": pl.String,
        "file_id": pl.String,
        "container_id": pl.String,
        "url_citation": pl.Struct({"url": pl.String, **_SPAN}),
    }
)
_OUTPUT = pl.List(
    pl.Struct(
        {
            "type": pl.String,
            "content": pl.List(
                pl.Struct(
                    {"type": pl.String, "text": pl.String, "annotations": pl.List(_ANNOTATION)}
                )
            ),
        }
    )
)
_CHOICES = pl.List(
    pl.Struct({"message": pl.Struct({"content": pl.String, "annotations": pl.List(_ANNOTATION)})})
)
_RESPONSE = {"output": _OUTPUT, "choices": _CHOICES}
DTYPE = pl.Struct({"response": pl.Struct(_RESPONSE), **_RESPONSE})

_RESPONSES_PATH = "output[].content[].annotations[]"
_CHAT_PATH = "choices[].message.annotations[]"
_CITING = ("url_citation", "file_citation", "container_file_citation")


def _blocks(decoded: pl.DataFrame) -> pl.DataFrame:
    """One row per answer text (``_line``, ``kind``, ``text``, ``annotations``) in answer
    order: the Responses output text parts, then the Chat Completions choices."""
    output = decoded.select(
        LINE, pl.coalesce(pl.col("response").struct.field("output"), pl.col("output")).alias("o")
    )
    items = exploded(output, "o", "_item").unnest("o").filter(pl.col("type") == "message")
    parts = exploded(items.select(LINE, "_item", "content"), "content", "_part")
    parts = parts.unnest("content").filter(pl.col("type") == "output_text")
    responses = parts.select(LINE, pl.lit(0).alias("_kind"), "text", "annotations")
    choices = decoded.select(
        LINE,
        pl.coalesce(pl.col("response").struct.field("choices"), pl.col("choices")).alias("c"),
    )
    messages = exploded(choices, "c", "_choice").select(
        LINE,
        pl.lit(1).alias("_kind"),
        pl.col("c").struct.field("message").struct.field("content").alias("text"),
        pl.col("c").struct.field("message").struct.field("annotations"),
    )
    blocks = pl.concat([responses, messages]).with_row_index("_seq")
    blocks = blocks.sort(LINE, "_kind", "_seq")  # stable: keeps each kind's own order
    length = pl.col("text").fill_null("").str.len_chars().cast(pl.Int64)
    return blocks.with_columns(
        pl.int_range(pl.len()).alias("_block"),
        (length.cum_sum().over(LINE) - length).alias("_shift"),
        length.sum().over(LINE).alias("_answer_length"),
    ).drop("_seq")


def _annotations(blocks: pl.DataFrame) -> pl.DataFrame:
    """One row per citing annotation, in answer order, with its provider offsets checked."""
    rows = exploded(blocks, "annotations", "_annotation").unnest("annotations")
    nested = pl.col("url_citation")
    rows = rows.filter(pl.col("type").is_in(_CITING)).with_columns(
        pl.coalesce(pl.col("start_index"), nested.struct.field("start_index")).alias("_start"),
        pl.coalesce(pl.col("end_index"), nested.struct.field("end_index")).alias("_end"),
        pl.coalesce(pl.col("url"), nested.struct.field("url")).alias("_url"),
    )
    filed = pl.col("type") == "file_citation"
    rows = rows.with_columns(
        pl.when(filed).then(pl.col("index")).otherwise(pl.col("_start")).alias("_start"),
        pl.when(filed).then(pl.col("index")).otherwise(pl.col("_end")).alias("_end"),
        pl.when(pl.col("type") == "url_citation")
        .then(pl.lit("url:") + pl.col("_url"))
        .when(filed)
        .then(pl.lit("file:") + pl.col("file_id"))
        .otherwise(pl.lit("container:") + pl.col("container_id") + pl.lit("/") + pl.col("file_id"))
        .alias("_key"),
    )
    _check(rows)
    return rows


# (condition, field, problem) of a malformed annotation, in precedence order
_CHECKS: tuple[tuple[pl.Expr, str, str], ...] = (
    ((pl.col("type") == "file_citation") & pl.col("_start").is_null(), "index", "must be given"),
    (pl.col("_start").is_null(), "start_index", "must be given"),
    (pl.col("_end").is_null(), "end_index", "must be given"),
    (pl.col("_start") < 0, "start_index", "must not be negative"),
    (pl.col("_end") < pl.col("_start"), "end_index", "must not be less than start_index"),
    ((pl.col("type") == "url_citation") & pl.col("_url").is_null(), "url", "must be given"),
    ((pl.col("type") != "url_citation") & pl.col("file_id").is_null(), "file_id", "must be given"),
    (
        (pl.col("type") == "container_file_citation") & pl.col("container_id").is_null(),
        "container_id",
        "must be given",
    ),
)


def _check(rows: pl.DataFrame) -> None:
    """Raise :func:`malformed` for the first annotation (in file order) without its offsets
    or source, or whose offsets are negative or reversed."""
    problem: pl.Expr = pl.lit(None, dtype=pl.Int64)
    for position, (bad, _, _) in reversed(list(enumerate(_CHECKS))):
        problem = pl.when(bad.fill_null(False)).then(position).otherwise(problem)
    found = rows.select(LINE, "_kind", problem.alias("_problem")).drop_nulls("_problem")
    if found.height == 0:
        return
    first = found.sort(LINE, maintain_order=True).row(0, named=True)
    _, field, text = _CHECKS[first["_problem"]]
    path = f"{_CHAT_PATH}.url_citation" if first["_kind"] == 1 else _RESPONSES_PATH
    raise malformed(FORMAT, f"{path}.{field}", text, int(first[LINE]))


def convert(raw: pl.DataFrame) -> ImportTables:
    """The tables of the ``openai`` exchanges in ``raw`` (columns ``_line``, ``raw``)."""
    decoded = decode(raw, DTYPE, FORMAT)
    blocks = _blocks(decoded)
    rows = _annotations(blocks).with_row_index("_seq")
    line = pl.col(LINE)
    first_claim = pl.col("_seq").min().over(LINE, "_block", "_start", "_end")
    first_source = pl.col("_seq").min().over(LINE, "_key")
    rows = rows.with_columns(
        (first_claim.rank("dense").over(LINE) - 1).alias("_k"),
        (first_source.rank("dense").over(LINE) - 1).alias("_i"),
    ).with_columns(
        pl.int_range(pl.len()).over(LINE, "_k").alias("_j"),
        document_refs(line).alias("document_ref"),
        (pl.lit("c") + pl.col("_k").cast(pl.String)).alias("claim_id"),
    )
    rows = rows.with_columns(pl.format("e{}.{}", "_k", "_j").alias("evidence_id"))
    claims = answer_claims(
        rows.unique(["document_ref", "claim_id"], keep="first", maintain_order=True),
        start=pl.col("_start") + pl.col("_shift"),
        end=pl.col("_end") + pl.col("_shift"),
        source_length="_answer_length",
        offset_unit="code_point",
        original=("_start", "_end"),
    )
    null = pl.lit(None, dtype=pl.Int64)
    evidence = rows.select(
        "document_ref",
        "evidence_id",
        (pl.lit("s") + pl.col("_i").cast(pl.String)).alias("source_id"),
        null.alias("start"),
        null.alias("end"),
        null.alias("source_length"),
        pl.lit(None, dtype=pl.String).alias("quote"),
        pl.col("type").alias("location_type"),
        pl.lit("none").alias("offset_unit"),
        null.alias("original_start"),
        null.alias("original_end"),
    )
    citations = rows.select("document_ref", "claim_id", "evidence_id")
    sources = pl.DataFrame(
        schema={"document_ref": pl.String, "source_id": pl.String, "text": pl.String}
    )
    return ImportTables.of(claims, evidence, citations, sources)
