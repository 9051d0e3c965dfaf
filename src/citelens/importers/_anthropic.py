"""The ``anthropic`` format: Anthropic Messages API exchanges with citations.

One line is one exchange, ``{"request": <Messages API request>, "response": <Messages API
response>}``; a line that is a bare response (no ``request``) is read too, its sources then
have no text. Field names follow Anthropic's API reference and the ``anthropic`` SDK types.

* **Sources** (``s0``, ``s1``, …): the request's ``document`` blocks in order (their position
  is the citations' ``document_index``), then its ``search_result`` blocks (in the messages
  and inside ``tool_result`` contents, in order: ``search_result_index``), then the distinct
  ``url`` of the ``web_search_result_location`` citations in order of first citation. A
  ``text`` source's text is its ``data``; a ``content`` source's and a search result's is the
  concatenation of their text blocks (a string content is one block); a PDF (``base64``,
  ``url``, ``file``) has no text here. For a bare response the number of documents is one more
  than the highest ``document_index`` it cites (likewise search results).
* **Claims** (``c<k>``): the response's text blocks with a non-empty ``citations`` list; their
  offsets are the block's place in the concatenation of all response text blocks (the
  answer), in code points.
* **Evidence** (``e<k>.<j>``): the j-th citation of claim k, ``quote`` its ``cited_text``:

  ========================== =============================================== ===============
  ``type``                   ``start``/``end``                               ``offset_unit``
  ========================== =============================================== ===============
  ``char_location``          ``start_char_index``/``end_char_index``         ``code_point``
  ``page_location``          null (pages in ``original_*``)                  ``page``
  ``content_block_location`` the cited blocks' code points in the source's   ``content_block``
                             text (block indices in ``original_*``)
  ``search_result_location`` the same, in the search result's text           ``content_block``
  ``web_search_result_location`` null                                        ``none``
  ========================== =============================================== ===============

  Blocks are mapped to characters because a content source's text is the concatenation of its
  blocks: block ``b`` starts at the summed length of blocks ``0 … b-1``.

The response is read from the lines as they are; the request's sources by
:mod:`._anthropic_request`. Malformed lines (:func:`~citelens.importers._decode.malformed`): a
field of the wrong JSON type (``response.content[]…``, ``content[]…`` of a bare response,
``request.messages[].content[]…``; the response's fields are checked first), a missing
``response.content`` (``content``), a
citation of an unknown ``type`` or without its location fields, ``end < start``, a
``document_index``/``search_result_index`` beyond the request's list, a block index beyond the
source's blocks.
"""

from __future__ import annotations

import polars as pl

from citelens.importers._anthropic_request import REQUEST, STRING_MARK, one_shape, request_sources
from citelens.importers._decode import ANY_OBJECT, LINE, decode, malformed
from citelens.importers._frames import answer_claims
from citelens.importers._tables import ImportTables, document_refs

__all__ = ["FORMAT", "convert"]

FORMAT = "anthropic"

_CITATION = pl.Struct(
    {
        "type": pl.String,
        "cited_text": pl.String,
        "document_index": pl.Int64,
        "start_char_index": pl.Int64,
        "end_char_index": pl.Int64,
        "start_page_number": pl.Int64,
        "end_page_number": pl.Int64,
        "start_block_index": pl.Int64,
        "end_block_index": pl.Int64,
        "search_result_index": pl.Int64,
        "url": pl.String,
    }
)
_BLOCK = pl.Struct(
    {
        "type": pl.String,
        "text": pl.String,
        "citations": pl.List(_CITATION),
        STRING_MARK: pl.Boolean,  # a string content made a block: no list, as required
    }
)
_OBJECT_CONTENT = "content (object)"  # an object content, renamed (no list, as required)
_RESPONSE = {"content": pl.List(_BLOCK), _OBJECT_CONTENT: ANY_OBJECT}
# The request and response of an exchange, or the line itself a bare response (no request).
_LINE_DTYPE = pl.Struct({"request": REQUEST, "response": pl.Struct(_RESPONSE), **_RESPONSE})

_CITES = "response.content[].citations[]"
# citation type -> (its source kind, its start/end fields, offset unit)
_TYPES: dict[str, tuple[str, tuple[str, str], str]] = {
    "char_location": ("document", ("start_char_index", "end_char_index"), "code_point"),
    "page_location": ("document", ("start_page_number", "end_page_number"), "page"),
    "content_block_location": (
        "document",
        ("start_block_index", "end_block_index"),
        "content_block",
    ),
    "search_result_location": (
        "search_result",
        ("start_block_index", "end_block_index"),
        "content_block",
    ),
    "web_search_result_location": ("web", ("", ""), "none"),
}


def _refuse(frame: pl.DataFrame, bad: pl.Expr, field: str, problem: str) -> None:
    """Raise :func:`malformed` for the first row of ``frame`` where ``bad`` holds."""
    rows = frame.filter(bad.fill_null(False))
    if rows.height:
        raise malformed(FORMAT, field, problem, int(rows.get_column(LINE).min()))  # type: ignore[arg-type]


def _texts(blocks: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The concatenated text of a list of text blocks, and the block boundaries (code points:
    ``[0, end of block 0, end of block 1, …]``)."""
    texts = blocks.list.eval(pl.element().struct.field("text").fill_null(""))
    ends = texts.list.eval(pl.element().str.len_chars().cast(pl.Int64).cum_sum())
    bounds = pl.concat_list(pl.lit(0, pl.Int64), ends)
    return texts.list.join(""), bounds


def _sources(decoded: pl.DataFrame) -> pl.DataFrame:
    """One row per request source: ``_line``, ``kind``, ``index``, ``text`` (null when
    unknown) and ``bounds`` (block boundaries, null for a source without blocks)."""
    found = request_sources(decoded, FORMAT)
    source = pl.col("source")
    kind = source.struct.field("type")
    content_text, content_bounds = _texts(source.struct.field("content"))
    result_text, result_bounds = _texts(pl.col("content"))
    document = pl.col("kind") == "document"
    return found.select(
        LINE,
        "kind",
        "index",
        text=pl.when(~document)
        .then(result_text)
        .when(kind == "text")
        .then(source.struct.field("data"))
        .when(kind == "content")
        .then(content_text),
        bounds=pl.when(~document).then(result_bounds).when(kind == "content").then(content_bounds),
    )


def _source_counts(decoded: pl.DataFrame, sources: pl.DataFrame) -> pl.DataFrame:
    """Per line: how many documents and search results its request lists."""
    counted = sources.group_by(LINE).agg(
        documents=(pl.col("kind") == "document").sum().cast(pl.Int64),
        results=(pl.col("kind") == "search_result").sum().cast(pl.Int64),
    )
    listed = decoded.select(LINE).join(counted, on=LINE, how="left", maintain_order="left")
    return listed.with_columns(pl.col("documents", "results").fill_null(0))


def _claims(decoded: pl.DataFrame) -> pl.DataFrame:
    """One row per cited text block: ``_line``, ``k``, answer offsets, answer length, and
    its ``citations``."""
    blocks = (
        decoded.select(LINE, block="answer_blocks")
        .explode("block", empty_as_null=True)
        .filter(pl.col("block").is_not_null())
        .unnest("block")
    )
    length = pl.when(pl.col("type") == "text").then(pl.col("text").str.len_chars()).otherwise(0)
    blocks = blocks.with_columns(length=length.fill_null(0).cast(pl.Int64)).with_columns(
        end=pl.col("length").cum_sum().over(LINE),
        answer=pl.col("length").sum().over(LINE),
    )
    cited = blocks.filter((pl.col("type") == "text") & (pl.col("citations").list.len() > 0))
    return cited.with_columns(
        start=pl.col("end") - pl.col("length"), k=pl.int_range(pl.len()).over(LINE)
    )


def _counts(decoded: pl.DataFrame, listed: pl.DataFrame, evidence: pl.DataFrame) -> pl.DataFrame:
    """Per line: how many documents and search results there are (``listed`` by the request;
    for a bare response one more than the highest index cited)."""
    cited = evidence.group_by(LINE).agg(
        cited_documents=pl.col("document_index").max().fill_null(-1) + 1,
        cited_results=pl.col("search_result_index").max().fill_null(-1) + 1,
    )
    bare = pl.col("bare")
    return (
        decoded.select(LINE, "bare")
        .join(listed, on=LINE, how="left", maintain_order="left")
        .join(cited, on=LINE, how="left", maintain_order="left")
        .select(
            LINE,
            "bare",
            documents=pl.when(bare)
            .then(pl.col("cited_documents").fill_null(0))
            .otherwise(pl.col("documents")),
            results=pl.when(bare)
            .then(pl.col("cited_results").fill_null(0))
            .otherwise(pl.col("results")),
        )
    )


def _check(evidence: pl.DataFrame) -> None:
    """The semantic checks of the citations, each over all of them at once."""
    kind = pl.col("type")
    _refuse(evidence, kind.is_null(), f"{_CITES}.type", "is required")
    _refuse(evidence, ~kind.is_in(list(_TYPES)), f"{_CITES}.type", "is not supported")
    for name, (source, (start, end), _) in _TYPES.items():
        index = "search_result_index" if source == "search_result" else "document_index"
        needed = ["cited_text"] if source == "web" else [index, start, end]
        if source == "web":
            needed.append("url")
        for field in needed:
            _refuse(
                evidence,
                (kind == name) & pl.col(field).is_null(),
                f"{_CITES}.{field}",
                "is required",
            )
        if source != "web":
            negative = (kind == name) & (pl.col(start) < 0)
            _refuse(evidence, negative, f"{_CITES}.{start}", "must not be negative")
            reversed_ = (kind == name) & (pl.col(end) < pl.col(start))
            _refuse(evidence, reversed_, f"{_CITES}.{end}", "must not be less than the start")
    for index, count in (("document_index", "documents"), ("search_result_index", "results")):
        beyond = (pl.col(index) < 0) | (pl.col(index) >= pl.col(count))
        _refuse(evidence, beyond, f"{_CITES}.{index}", "is beyond the request's list")


def _located(evidence: pl.DataFrame, sources: pl.DataFrame) -> pl.DataFrame:
    """The evidence with its source row (kind and index) joined: text length and bounds."""
    kind = pl.col("type").replace_strict(
        {name: spec[0] for name, spec in _TYPES.items()}, return_dtype=pl.String
    )
    index = pl.when(kind == "search_result").then("search_result_index").otherwise("document_index")
    keyed = evidence.with_columns(kind=kind, index=index)
    known = sources.select(
        LINE, "kind", "index", "bounds", length=pl.col("text").str.len_chars().cast(pl.Int64)
    )
    return keyed.join(known, on=[LINE, "kind", "index"], how="left", maintain_order="left")


def _answers(decoded: pl.DataFrame) -> pl.DataFrame:
    """Per line: ``bare`` and the answer's blocks (the response's content, or the line's own
    for a bare response), refused where missing or no list."""
    bare = pl.col("request").is_null()
    response = pl.col("response")
    answers = decoded.select(
        LINE,
        bare=bare,
        answer_blocks=pl.when(bare).then("content").otherwise(response.struct.field("content")),
        object_content=pl.when(bare)
        .then(pl.col(_OBJECT_CONTENT))
        .otherwise(response.struct.field(_OBJECT_CONTENT))
        .is_not_null(),
    )
    blocks = pl.col("answer_blocks")
    from_string = blocks.list.eval(
        pl.element().struct.field(STRING_MARK).fill_null(False)
    ).list.any()
    for is_bare, field in ((False, "response.content"), (True, "content")):
        own = pl.col("bare") == is_bare
        _refuse(answers, own & (from_string | pl.col("object_content")), field, "must be a list")
        _refuse(answers, own & blocks.is_null(), field, "is required")
    return answers.drop("object_content")


def convert(raw: pl.DataFrame) -> ImportTables:
    """The four tables of the exchanges in ``raw`` (``_line``, ``raw``: one JSON object per
    row), as the module docstring describes."""
    lines = decode(one_shape(raw), _LINE_DTYPE, FORMAT)
    decoded = _answers(lines)  # the response's fields are checked before the request's
    sources = _sources(lines)
    listed = _source_counts(decoded, sources)
    claims = _claims(decoded)
    evidence = (
        claims.select(LINE, "k", citation="citations")
        .with_columns(j=pl.int_ranges(pl.col("citation").list.len()))
        .explode("citation", "j", empty_as_null=True)
        .filter(pl.col("citation").is_not_null())
        .unnest("citation")
    )
    counts = _counts(decoded, listed, evidence)
    evidence = evidence.join(counts, on=LINE, how="left", maintain_order="left")
    _check(evidence)
    evidence = _located(evidence, sources)
    blocks = ("start_block_index", "end_block_index")
    by_blocks = pl.col("type").is_in(["content_block_location", "search_result_location"])
    # a request's source without blocks (a text or PDF document) has none to cite
    no_blocks = ~pl.col("bare") & pl.col("bounds").is_null()
    beyond = by_blocks & (no_blocks | (pl.col(blocks[1]) > pl.col("bounds").list.len() - 1))
    _refuse(evidence, beyond, f"{_CITES}.end_block_index", "is beyond the source's blocks")
    return _tables(listed, sources, claims, evidence)


def _web_ids(evidence: pl.DataFrame) -> pl.DataFrame:
    """The source number of each cited URL: after the documents and search results, in the
    order of first citation."""
    web = evidence.filter(pl.col("type") == "web_search_result_location")
    return (
        web.select(LINE, "url", "documents", "results")
        .unique([LINE, "url"], maintain_order=True)
        .with_columns(
            web_number=pl.col("documents") + pl.col("results") + pl.int_range(pl.len()).over(LINE)
        )
        .select(LINE, "url", "web_number")
    )


def _tables(
    listed: pl.DataFrame, sources: pl.DataFrame, claims: pl.DataFrame, evidence: pl.DataFrame
) -> ImportTables:
    ref = document_refs(pl.col(LINE)).alias("document_ref")
    claim_id = (pl.lit("c") + pl.col("k").cast(pl.String)).alias("claim_id")
    claim_rows = answer_claims(
        claims,
        document_ref=ref,
        claim_id=claim_id,
        start="start",
        end="end",
        source_length="answer",
        offset_unit="code_point",
        original=("start", "end"),
    )
    evidence = evidence.join(
        _web_ids(evidence), on=[LINE, "url"], how="left", maintain_order="left"
    )
    kind = pl.col("type")
    number = (
        pl.when(kind == "web_search_result_location")
        .then(pl.col("web_number"))
        .when(kind == "search_result_location")
        .then(pl.col("documents") + pl.col("search_result_index"))
        .otherwise(pl.col("document_index"))
    )
    by_chars = kind == "char_location"
    by_blocks = kind.is_in(["content_block_location", "search_result_location"])
    start = (
        pl.when(by_chars)
        .then(pl.col("start_char_index"))
        .when(by_blocks)
        .then(pl.col("bounds").list.get(pl.col("start_block_index"), null_on_oob=True))
    )
    end = (
        pl.when(by_chars)
        .then(pl.col("end_char_index"))
        .when(by_blocks)
        .then(pl.col("bounds").list.get(pl.col("end_block_index"), null_on_oob=True))
    )
    original_start = pl.coalesce("start_char_index", "start_page_number", "start_block_index")
    original_end = pl.coalesce("end_char_index", "end_page_number", "end_block_index")
    unit = kind.replace_strict(
        {name: spec[2] for name, spec in _TYPES.items()}, return_dtype=pl.String
    )
    evidence_id = pl.lit("e") + pl.col("k").cast(pl.String) + "." + pl.col("j").cast(pl.String)
    evidence_rows = evidence.select(
        ref,
        evidence_id=evidence_id,
        source_id=pl.lit("s") + number.cast(pl.String),
        start=start,
        end=end,
        source_length="length",
        quote="cited_text",
        location_type="type",
        offset_unit=unit,
        original_start=pl.when(kind != "web_search_result_location").then(original_start),
        original_end=pl.when(kind != "web_search_result_location").then(original_end),
    )
    citations = evidence.select(ref, claim_id, evidence_id=evidence_id)
    numbered = sources.join(listed, on=LINE, how="left", maintain_order="left").with_columns(
        number=pl.when(pl.col("kind") == "search_result")
        .then(pl.col("documents") + pl.col("index"))
        .otherwise(pl.col("index"))
    )
    source_rows = numbered.filter(pl.col("text").is_not_null()).select(
        ref, source_id=pl.lit("s") + pl.col("number").cast(pl.String), text="text"
    )
    return ImportTables.of(claim_rows, evidence_rows, citations, source_rows)
