"""LongBench-Cite (THUDM/LongCite) prediction files as import tables.

LongBench-Cite's prediction scripts write one record per benchmark item, and its
``eval_cite.py`` / ``auto_scorer.py`` read ``query``, ``prediction`` (the model's answer with
``<statement>…<cite>[s-e]…</cite></statement>`` markup) and ``statements``: the answer's
statements, each ``{"statement", "citation": [...]}``. A citation names a range of sentences of
the context and carries the text of that range, ``cite``, in one of two spellings: the LongCite
models' ``query_longcite`` (``pred_sft.py``) writes ``start_sentence_idx``,
``end_sentence_idx``, ``start_char_idx``, ``end_char_idx``; ``pred_one_shot.py`` writes
``st_sent``, ``ed_sent``, ``start_char``, ``end_char``. Both are read. The prediction files
hold no ``context``; a line that has one (joined from ``LongBench-Cite.json`` by ``idx``) gets
it as its source. The importer reads JSON Lines, one record per line (``preds/tmp/*.jsonl`` as
written, or ``jq -c '.[]' preds/model.json``).

* Claims: every statement, ``c0``, ``c1``, … in order (one that cites nothing is an orphan
  claim, as the benchmark's citation recall counts it). The span is the
  statement's first occurrence, in code points, in the answer as ``auto_scorer.py`` reads it:
  ``prediction`` with every ``<cite>…</cite>`` and the ``<statement>`` tags removed
  (``source_length`` that text's length); a statement not found in it has a null span. The
  benchmark gives no offsets of its own for statements: ``offset_unit`` ``none``.
* Evidence: citation ``j`` of claim ``k`` is ``e<k>.<j>`` in source ``s0`` (the context),
  ``quote`` the ``cite`` text. The character offsets are Python string positions into the
  context, half-open (``end_char_idx`` is where the sentence after the range starts), so they
  are the span as they are: ``offset_unit`` ``code_point``, ``original_start``/``original_end``
  the same numbers. A citation with sentence indices only has a null span, ``offset_unit``
  ``sentence`` and the two sentence indices (both inclusive, as the benchmark counts them).
  ``location_type`` is ``sentence_range``; ``source_length`` the context's length when known.
* Sources: the ``context`` when the line has it, as ``s0``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from citelens._offsets import to_code_points
from citelens.importers._decode import LINE, decode, malformed
from citelens.importers._frames import answer_claims, exploded, first_line
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "convert"]

FORMAT = "longbench-cite"

# (new spelling, old spelling) of each citation field
_START_CHAR = ("start_char_idx", "start_char")
_END_CHAR = ("end_char_idx", "end_char")
_START_SENT = ("start_sentence_idx", "st_sent")
_END_SENT = ("end_sentence_idx", "ed_sent")

_CITE = pl.Struct(
    {name: pl.Int64 for pair in (_START_CHAR, _END_CHAR, _START_SENT, _END_SENT) for name in pair}
    | {"cite": pl.String}
)
_STATEMENT = pl.Struct({"statement": pl.String, "citation": pl.List(_CITE)})
DTYPE = pl.Struct(
    {"prediction": pl.String, "statements": pl.List(_STATEMENT), "context": pl.String}
)

_MARKUP = r"(?s)<cite>.*?</cite>|</?statement>"  # what auto_scorer.py removes from the answer
_CITATION_PATH = "statements[].citation[]"


def _either(pair: tuple[str, str]) -> pl.Expr:
    """A citation field in whichever spelling the record uses."""
    cite = pl.col("_cite")
    return pl.coalesce(cite.struct.field(pair[0]), cite.struct.field(pair[1]))


def _check_ranges(citations: pl.DataFrame) -> None:
    """Refuse the first citation whose range ends before it starts (in either spelling)."""
    for start, end in zip(_START_CHAR + _START_SENT, _END_CHAR + _END_SENT, strict=True):
        cite = pl.col("_cite")
        line = first_line(citations, cite.struct.field(end) < cite.struct.field(start))
        if line is not None:
            raise malformed(FORMAT, f"{_CITATION_PATH}.{end}", f"must not be before {start}", line)


def _statement_spans(claims: pl.DataFrame, answers: pl.DataFrame) -> pl.DataFrame:
    """``claims`` with the code-point ``start``/``end`` of each statement's first occurrence
    in its line's cleaned answer (``answers``: :data:`LINE`, ``_answer``; null: not found)."""
    position = answers.with_row_index("_text")
    found = claims.join(position, on=LINE, how="left").with_columns(
        pl.col("_answer").str.find(pl.col("_statement"), literal=True).alias("_byte")
    )
    # str.find counts UTF-8 bytes: convert to code points within the answer
    known = found.get_column("_byte").is_not_null().to_numpy()
    offsets = found.get_column("_byte").fill_null(0).to_numpy().astype(np.int64)
    points = to_code_points(
        answers.get_column("_answer").to_arrow(),
        found.get_column("_text").cast(pl.Int64).to_numpy(),
        offsets,
        "utf8",
    )
    start = pl.Series("start", np.where(known, points, -1)).replace(-1, None)
    return found.with_columns(start).with_columns(
        (pl.col("start") + pl.col("_statement").str.len_chars().cast(pl.Int64)).alias("end")
    )


def convert(raw: pl.DataFrame) -> ImportTables:
    """The import tables of the LongBench-Cite predictions in ``raw`` (``_line``, ``raw``)."""
    decoded = decode(raw, DTYPE, FORMAT).with_columns(
        document_refs(pl.col(LINE)).alias("document_ref"),
        pl.col("prediction").str.replace_all(_MARKUP, "").alias("_answer"),
        pl.col("context").str.len_chars().cast(pl.Int64).alias("_context_length"),
    )
    for field in ("prediction", "statements"):
        line = first_line(decoded, pl.col(field).is_null())
        if line is not None:
            raise malformed(FORMAT, field, "is missing", line)

    statements = exploded(decoded.select(LINE, "statements"), "statements", "_s").with_columns(
        pl.col("statements").struct.field("statement").alias("_statement"),
        pl.col("statements").struct.field("citation").alias("_cites"),
    )
    line = first_line(statements, pl.col("_statement").is_null())
    if line is not None:
        raise malformed(FORMAT, "statements[].statement", "is missing", line)
    # every statement is a claim (one without citations is an orphan, as the benchmark's
    # citation recall counts it); k is its position among the item's statements
    cited = statements.with_columns(pl.col("_s").alias("k")).join(
        decoded.select(LINE, "document_ref", "_context_length"), on=LINE
    )
    claim_id = pl.lit("c") + pl.col("k").cast(pl.String)
    spans = _statement_spans(cited.select(LINE, "k", "_statement"), decoded.select(LINE, "_answer"))
    claims = answer_claims(
        spans.join(decoded.select(LINE, "document_ref"), on=LINE),
        claim_id=claim_id,
        start="start",
        end="end",
        source_length=pl.col("_answer").str.len_chars().cast(pl.Int64),
        offset_unit="none",
    )

    cites = exploded(cited.rename({"_cites": "_cite"}), "_cite", "j")
    _check_ranges(cites)
    start, end = _either(_START_CHAR), _either(_END_CHAR)
    by_chars = start.is_not_null() & end.is_not_null()
    evidence_id = pl.lit("e") + pl.col("k").cast(pl.String) + "." + pl.col("j").cast(pl.String)
    evidence = cites.select(
        "document_ref",
        evidence_id.alias("evidence_id"),
        pl.lit("s0").alias("source_id"),
        pl.when(by_chars).then(start).alias("start"),
        pl.when(by_chars).then(end).alias("end"),
        pl.col("_context_length").alias("source_length"),
        pl.col("_cite").struct.field("cite").alias("quote"),
        pl.lit("sentence_range").alias("location_type"),
        pl.when(by_chars)
        .then(pl.lit("code_point"))
        .otherwise(pl.lit("sentence"))
        .alias("offset_unit"),
        pl.when(by_chars).then(start).otherwise(_either(_START_SENT)).alias("original_start"),
        pl.when(by_chars).then(end).otherwise(_either(_END_SENT)).alias("original_end"),
    )
    citations = cites.select(
        "document_ref", claim_id.alias("claim_id"), evidence_id.alias("evidence_id")
    )
    sources = decoded.filter(pl.col("context").is_not_null()).select(
        "document_ref", pl.lit("s0").alias("source_id"), pl.col("context").alias("text")
    )
    return ImportTables.of(claims, evidence, citations, sources)
