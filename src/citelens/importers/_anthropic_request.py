"""The sources of Anthropic Messages API requests: their document and search result blocks.

A request holds its sources in the content blocks of its messages: ``document`` blocks (in
order: the citations' ``document_index``) and ``search_result`` blocks, at the top of a
message's content or inside a ``tool_result`` block's content (in order:
``search_result_index``). One Arrow parse of ``request.messages[].content[]`` reads them all,
but a ``content`` member has three JSON shapes there: a list (of blocks, of text blocks), a
string (a message's, a ``tool_result``'s, a ``content`` document source's), or an object (a
server tool's result, such as ``code_execution_tool_result``), and a search result's
``source`` is a string where a document's is an object. An Arrow type holds one shape only, so
before the parse one regex replacement per shape, over all lines at once, makes them one:

* a string ``content`` becomes the one text block it stands for, as the API reference reads
  it, marked as made from a string: ``"content": "x"`` →
  ``"content": [{"type": "text", "text": "x", "(string)": true}]`` (a response's content
  must be a list: :mod:`._anthropic` refuses a marked block there);
* an object ``content`` and a string ``source`` are renamed (``"content (object)"``,
  ``"source (text)"``): nothing reads them, but where a list or an object is required
  (``response.content``, a document's ``source``) their presence is refused by name.

The patterns match a member name and the first character of its value only: an unescaped
``"`` always delimits a string in JSON, so ``"content"`` followed by ``:`` is a member name
(or the end of one whose name ends in an escaped ``\\"content``, which nothing here reads
either), and the rewritten line is valid JSON again. Measured: the three replacements take
0.2 s for 110 MB of exchanges, the parse 0.3 s; the DuckDB rewrite they replace took 2.1 s.

The one parse of the rewritten lines (:func:`~citelens.importers._decode.decode`, by
:mod:`._anthropic`) reads the request (:data:`REQUEST`) and the response together; a misfit
in the request is named by these field paths (``request.messages[].content[].source.data
must be text``).
"""

from __future__ import annotations

import polars as pl

from citelens.importers._decode import LINE, RAW, malformed
from citelens.importers._frames import exploded, first_line

__all__ = ["REQUEST", "SOURCE_KINDS", "STRING_MARK", "one_shape", "request_sources"]

# The blocks that are sources, in the order of their source numbers (documents first).
SOURCE_KINDS = ("document", "search_result")

_TEXT_BLOCK = pl.Struct({"type": pl.String, "text": pl.String})
_SOURCE = pl.Struct({"type": pl.String, "data": pl.String, "content": pl.List(_TEXT_BLOCK)})
STRING_MARK = "(string)"  # the field marking a text block made from a string content
_SOURCE_TEXT = "source (text)"  # a string source, renamed
# A block inside a tool_result's content (a document, a search result, a text block, …)
_ITEM = pl.Struct(
    {
        "type": pl.String,
        "text": pl.String,
        "source": _SOURCE,
        _SOURCE_TEXT: pl.String,
        "content": pl.List(_TEXT_BLOCK),
    }
)
# A block of a message's content: its own content a list of items (a tool_result's, a
# search result's text blocks)
_BLOCK = pl.Struct(
    {"type": pl.String, "source": _SOURCE, _SOURCE_TEXT: pl.String, "content": pl.List(_ITEM)}
)
REQUEST = pl.Struct({"messages": pl.List(pl.Struct({"content": pl.List(_BLOCK)}))})
"""The part of a request read, as a field of the line's decode dtype."""

_STRING = r'"(?:[^"\\]|\\.)*"'  # a JSON string token (lines hold no newline)
# (pattern, replacement) per shape, in this order: a string content is a list once rewritten
_REWRITES = (
    (
        rf'"content"\s*:\s*({_STRING})',
        rf'"content":[{{"type":"text","text":$1,"{STRING_MARK}":true}}]',
    ),
    (r'"content"\s*:\s*\{', r'"content (object)":{'),
    (r'"source"\s*:\s*"', r'"source (text)":"'),
)


def one_shape(raw: pl.DataFrame) -> pl.DataFrame:
    """The lines with every ``content`` a list and every read ``source`` an object."""
    line = pl.col(RAW)
    for pattern, replacement in _REWRITES:
        line = line.str.replace_all(pattern, replacement)
    return raw.select(LINE, line)


def _text_blocks(content: pl.Expr) -> pl.Expr:
    """A list of items as the text blocks it holds (a search result's content)."""
    return content.list.eval(pl.struct(pl.element().struct.field("type", "text")))


def request_sources(decoded: pl.DataFrame, fmt: str) -> pl.DataFrame:
    """One row per source block of the requests in ``decoded`` (``_line``, ``request``: of
    dtype :data:`REQUEST`), in request order: ``_line``, ``kind`` (``document`` or
    ``search_result``), ``index`` (its position among the line's blocks of that kind),
    ``source`` (a document's source object) and ``content`` (a search result's text
    blocks). A document whose ``source`` is a string raises :func:`malformed`."""
    messages = decoded.select(LINE, messages=pl.col("request").struct.field("messages"))
    messages = exploded(messages, "messages", "m")
    blocks = messages.select(LINE, "m", block=pl.col("messages").struct.field("content"))
    blocks = exploded(blocks, "block", "b").unnest("block")
    tool_result = pl.col("type") == "tool_result"
    columns = [LINE, "m", "b", "t", "kind", "source", "content", _SOURCE_TEXT]
    top = blocks.filter(~tool_result & pl.col("type").is_in(SOURCE_KINDS)).with_columns(
        t=pl.lit(0, pl.Int64), kind="type", content=_text_blocks(pl.col("content"))
    )
    inner = exploded(blocks.filter(tool_result).select(LINE, "m", "b", "content"), "content", "t")
    inner = inner.unnest("content").filter(pl.col("type").is_in(SOURCE_KINDS))
    inner = inner.with_columns(pl.col("t").cast(pl.Int64), kind="type")
    found = pl.concat([top.select(columns), inner.select(columns)])
    found = found.sort(LINE, "m", "b", "t", maintain_order=True)
    misnamed = (pl.col("kind") == "document") & pl.col(_SOURCE_TEXT).is_not_null()
    line = first_line(found, misnamed)
    if line is not None:
        field = "request.messages[].content[].source"
        raise malformed(fmt, field, "must be an object", line)
    return found.select(
        LINE,
        "kind",
        index=pl.int_range(pl.len(), dtype=pl.Int64).over(LINE, "kind"),
        source="source",
        content="content",
    )
