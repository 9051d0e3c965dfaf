"""The sources of an Anthropic Messages API request, gathered in one SQL pass (DuckDB).

A request holds its sources inside fields of two JSON shapes: a message's ``content`` is a
string or a list of content blocks, a ``tool_result`` block's ``content`` a string or a list,
and a ``content`` document source's ``content`` a string or a list of text blocks. A Polars
dtype holds one shape only, so the lines are first rewritten, all at once, by DuckDB's JSON
functions into one shape each:

``{"request": {"document": [...], "search_result": [...]}, "response": {...}, "bare": b}``

* ``document``: every ``document`` block of ``request.messages[].content[]`` in order (the
  order of ``document_index``), a string ``source.content`` made the one text block it
  stands for (``[{"type": "text", "text": ...}]``);
* ``search_result``: every ``search_result`` block, in the messages and inside ``tool_result``
  contents, in the order they appear (the order of ``search_result_index``);
* ``response``: the line's ``response``, or the line itself when it has no ``request`` (a bare
  Messages API response); ``bare`` says which.

Then :func:`citelens.importers._decode.decode` types them with the published schema, and a
misfit is named by these field paths (``request.document[].source.data must be text``).
"""

from __future__ import annotations

import duckdb
import polars as pl
import pyarrow as pa

from citelens.importers._decode import LINE, RAW

__all__ = ["normalized"]

# One content block of a message, and the tool_result contents taken out of their block.
_ITEMS = """
CASE WHEN json_extract_string(block, '$.type') = 'tool_result'
      AND json_type(block, '$.content') = 'ARRAY'
     THEN json_extract(block, '$.content[*]') ELSE [block] END
"""
_BLOCKS = "coalesce(json_extract(raw, '$.request.messages[*].content[*]'), [])"

_QUERY = f"""
WITH blocks AS (
  SELECT {LINE}, unnest({_BLOCKS}) AS block, generate_subscripts({_BLOCKS}, 1) AS i
  FROM lines
), items AS (
  SELECT {LINE}, i, unnest({_ITEMS}) AS item, generate_subscripts({_ITEMS}, 1) AS k
  FROM blocks
), kinds AS (
  SELECT {LINE}, i, k, json_extract_string(item, '$.type') AS kind,
    CASE WHEN json_extract_string(item, '$.type') = 'document'
          AND json_type(item, '$.source.content') = 'VARCHAR'
      THEN json_merge_patch(item, json_object('source', json_object('content',
             json_array(json_object('type', 'text', 'text',
                        json_extract_string(item, '$.source.content'))))))
      ELSE item END AS item
  FROM items
), grouped AS (
  SELECT {LINE},
    list(item ORDER BY i, k) FILTER (WHERE kind = 'document') AS documents,
    list(item ORDER BY i, k) FILTER (WHERE kind = 'search_result') AS results
  FROM kinds GROUP BY {LINE}
)
SELECT l.{LINE},
  json_object(
    'request', json_object('document', to_json(coalesce(g.documents, [])),
                           'search_result', to_json(coalesce(g.results, []))),
    'response', coalesce(json_extract(l.raw, '$.response'),
                         CASE WHEN json_extract(l.raw, '$.request') IS NULL
                         THEN json(l.raw) END),
    'bare', json_extract(l.raw, '$.request') IS NULL
  )::VARCHAR AS {RAW}
FROM lines l LEFT JOIN grouped g ON l.{LINE} = g.{LINE}
ORDER BY l.{LINE}
"""


def _arrow(result: duckdb.DuckDBPyRelation) -> pa.Table:
    # DuckDB 2 names it to_arrow_table; the floor (1.2) fetch_arrow_table
    fetch = getattr(result, "to_arrow_table", None) or result.fetch_arrow_table
    table: pa.Table = fetch()
    return table


def normalized(raw: pl.DataFrame) -> pl.DataFrame:
    """The lines of ``raw`` (valid JSON objects) rewritten into one shape (module docstring),
    in line order."""
    con = duckdb.connect()
    try:
        con.register("lines", raw.select(LINE, RAW).to_arrow())
        table = _arrow(con.sql(_QUERY))
    finally:
        con.close()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame.select(pl.col(LINE).cast(pl.Int64), pl.col(RAW).cast(pl.String))
