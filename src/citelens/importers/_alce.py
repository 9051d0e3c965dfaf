"""ALCE (princeton-nlp/ALCE) result files as import tables.

ALCE's ``run.py`` writes one JSON document ``{"args": …, "data": [item, …]}``; its ``eval.py``
reads, per item, ``question``, ``output`` (the generated answer, with bracketed markers such as
``[1][2]``) and ``docs`` (the retrieved passages the markers count: ``title``, ``text``, and
``sent`` for QA-extracted passages). The importer reads JSON Lines of the items, one per line
(``jq -c '.data[]' result.json > result.jsonl``).

* Claims: every sentence of ``output``, ``c0``, ``c1``, … in order (a sentence without a
  marker is a claim without citations: an orphan, as ALCE's citation recall counts it).
  ``eval.py`` splits with NLTK's ``sent_tokenize``; citelens uses a fixed regular
  expression instead (:data:`SENTENCE`): a sentence runs from a non-space character to a run of
  ``.``, ``!`` or ``?`` (with any closing quotes or brackets) that is followed by white space
  or the end of the text. It does not know abbreviations (``Dr. Smith`` is two sentences to
  it, one to NLTK) and never splits at a line break alone. The claim span is the sentence's
  code-point offsets in ``output``, white space around it excluded. ALCE gives no offsets of
  its own: ``offset_unit`` ``none``.
* Markers: ``[k`` as ``eval.py`` finds them (``\\[\\d+``: ``[1][2]`` and ``[1, 2]``'s first
  number), 1-based indices into ``docs``. Marker ``j`` of claim ``k`` is evidence ``e<k>.<j>``
  in source ``s<index - 1>``. A marker naming no document (``[0]``, or beyond ``docs``) keeps
  its citation edge but has no evidence row: the support check counts it as a citation of
  missing evidence (``eval.py`` scores that sentence as unsupported; one bad model marker does
  not stop the import of a result file).
* Sources: every document of ``docs``, ``s0``, ``s1``, … in order. The text is the passage
  ALCE's verifier reads, ``sent`` when the document has it, else ``text``; the ``title`` is
  not part of it. Evidence cites the whole passage: ``start`` 0, ``end`` and ``source_length``
  the passage's length in code points (null when the document has no text), ``quote`` null,
  ``location_type`` ``marker``.
"""

from __future__ import annotations

import polars as pl

from citelens.importers._decode import LINE, decode, malformed
from citelens.importers._frames import answer_claims, exploded, first_line
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "SENTENCE", "convert", "sentences"]

FORMAT = "alce"

_END = r"[.!?]+[\"'\u2019\u201d)\]]*"  # a run of sentence ends with its closing marks
_GO_ON = r"[^.!?\s\"'\u2019\u201d)\]]"  # what makes an end run part of the sentence
# One sentence with the white space before it. Matches tile the text: each starts where the
# previous one ended, so cumulative lengths give the offsets (white space at the very end of
# the text is the only part left out, or it ends the last sentence and is stripped).
SENTENCE = rf"\s*\S(?:[^.!?]|{_END}{_GO_ON})*(?:{_END})?"
_MARKER = r"\[\d+"  # eval.py's ``re.findall(r"\[\d+", sent)``

_DOC = pl.Struct({"title": pl.String, "text": pl.String, "sent": pl.String})
DTYPE = pl.Struct({"output": pl.String, "docs": pl.List(_DOC)})


def sentences(frame: pl.DataFrame, text: str) -> pl.DataFrame:
    """One row per sentence of the column ``text``: :data:`LINE`, its position ``i`` and its
    code-point ``start``/``end`` in the text, and the sentence itself in ``sentence``."""
    pieces = exploded(
        frame.select(LINE, pl.col(text).str.extract_all(SENTENCE).alias("_piece")), "_piece", "i"
    )
    length = pl.col("_piece").str.len_chars().cast(pl.Int64)
    before = length.cum_sum().over(LINE) - length  # code points of the pieces before
    lead = length - pl.col("_piece").str.strip_chars_start().str.len_chars().cast(pl.Int64)
    kept = pl.col("_piece").str.strip_chars_end().str.len_chars().cast(pl.Int64)
    return pieces.select(
        LINE,
        "i",
        (before + lead).alias("start"),
        (before + kept).alias("end"),
        pl.col("_piece").str.strip_chars().alias("sentence"),
    )


def convert(raw: pl.DataFrame) -> ImportTables:
    """The import tables of the ALCE result items in ``raw`` (``_line``, ``raw``)."""
    decoded = decode(raw, DTYPE, FORMAT).with_columns(
        document_refs(pl.col(LINE)).alias("document_ref"),
        pl.col("docs").list.len().fill_null(0).alias("_docs"),
        pl.col("output").str.len_chars().cast(pl.Int64).alias("_answer_length"),
    )
    line = first_line(decoded, pl.col("output").is_null())
    if line is not None:
        raise malformed(FORMAT, "output", "is missing", line)

    cited = (
        sentences(decoded, "output")
        .with_columns(pl.col("sentence").str.extract_all(_MARKER).alias("_markers"))
        .with_columns(pl.col("i").alias("k"))
        .join(decoded.select(LINE, "document_ref", "_docs", "_answer_length"), on=LINE)
    )
    claim_id = pl.lit("c") + pl.col("k").cast(pl.String)
    claims = answer_claims(
        cited,
        claim_id=claim_id,
        start="start",
        end="end",
        source_length="_answer_length",
        offset_unit="none",
    )

    markers = exploded(cited, "_markers", "j").with_columns(
        (pl.col("_markers").str.slice(1).cast(pl.Int64, strict=False) - 1).alias("_doc")
    )
    # a marker naming no document: its edge stays, its evidence row does not exist
    beyond = pl.col("_doc").is_null() | (pl.col("_doc") < 0) | (pl.col("_doc") >= pl.col("_docs"))

    docs = exploded(decoded.select(LINE, "document_ref", "docs"), "docs", "_doc").with_columns(
        pl.coalesce(pl.col("docs").struct.field("sent"), pl.col("docs").struct.field("text")).alias(
            "text"
        ),
    )
    source_id = pl.lit("s") + pl.col("_doc").cast(pl.String)
    evidence_id = pl.lit("e") + pl.col("k").cast(pl.String) + "." + pl.col("j").cast(pl.String)
    markers = markers.join(docs.select(LINE, "_doc", "text"), on=[LINE, "_doc"], how="left")
    length = pl.col("text").str.len_chars().cast(pl.Int64)
    evidence = markers.filter(~beyond).select(
        "document_ref",
        evidence_id.alias("evidence_id"),
        source_id.alias("source_id"),
        pl.when(length.is_not_null()).then(pl.lit(0, pl.Int64)).alias("start"),
        length.alias("end"),
        length.alias("source_length"),
        pl.lit(None, pl.String).alias("quote"),
        pl.lit("marker").alias("location_type"),
        pl.lit("none").alias("offset_unit"),
        pl.lit(None, pl.Int64).alias("original_start"),
        pl.lit(None, pl.Int64).alias("original_end"),
    )
    citations = markers.select(
        "document_ref", claim_id.alias("claim_id"), evidence_id.alias("evidence_id")
    )
    sources = docs.filter(pl.col("text").is_not_null()).select(
        "document_ref", source_id.alias("source_id"), "text"
    )
    return ImportTables.of(claims, evidence, citations, sources)
