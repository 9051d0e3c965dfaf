"""Provenance digests (§8): SHA-256 over a binary encoding assembled from Arrow buffers.

Rows are encoded in runs: every run of fixed-width fields (integers, labels, string length
prefixes and, when all values of a string column have one length, the strings themselves) is
one packed NumPy record array viewed as bytes; the other strings are Arrow binary columns, and
Arrow joins the pieces element-wise, so the data buffer of the result is the concatenation of
the rows (rows of fixed-width fields only need no join at all). The identifiers of edges and
adjudications are gathers, by the kernel's identifier ranks, of the names of every rank
(``claim_names``/``evidence_names``, known and unknown identifiers alike), converted once.
Other string columns are converted to Arrow chunk by chunk.

Tables are sorted by document first, so each document's rows are one contiguous byte range.
One document is hashed by streaming its rows chunk by chunk (bounded memory); many
documents' messages (tag, counts, rows) are joined element-wise per document and hashed with
one call each (no per-row Python).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import struct
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.support._kernel import RANK, KernelResult, identifier_ranks
from citelens.support._schema import LABEL_CODES

__all__ = ["support_digests"]

DOC = "_d"
_CHUNK = 16_384  # rows per streamed chunk: smaller chunks lower the peak of two threads
_BLOCK_BYTES = 1 << 24
_LABEL_ENUM = pl.Enum(list(LABEL_CODES))
_CLAIM_TAG = "citelens.support.claim_digest.v1"
_EVIDENCE_TAG = "citelens.support.evidence_digest.v1"
_ADJUDICATION_TAG = "citelens.support.adjudication_digest.v1"
_INPUT_TAG = "citelens.support.input_digest.v1"


@functools.cache
def _empty() -> pa.Scalar[Any]:
    """``b""`` as a large-binary Arrow scalar, built from buffers: ``pa.scalar`` of a Python
    value imports pandas (about 0.5 s and 40 MiB once per process)."""
    offsets = pa.py_buffer(np.zeros(2, dtype=np.int64).tobytes())
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(b"")])[0]


def _tag(text: str) -> bytes:
    data = text.encode("ascii")
    return struct.pack("<I", len(data)) + data


def _offsets(column: pa.Array) -> np.ndarray:
    return np.frombuffer(column.buffers()[1], dtype=np.int64)[
        column.offset : column.offset + len(column) + 1
    ]


def _indices(rows: np.ndarray) -> pa.Array:
    """Row positions as an Arrow int64 array, from the NumPy buffer (``pa.array`` of NumPy
    values may import pandas)."""
    data = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


class _Strings:
    """Identifiers by position (the claims' or evidence's own, by row, or the names of every
    rank): each value with its length prefix as one fixed-width NumPy item when all values
    have the same length (so a row's field is one gathered item of a packed record), else the
    Arrow large_binary values and their lengths."""

    __slots__ = ("items", "lengths", "values")

    def __init__(self, series: pl.Series) -> None:
        values = _arrow(series)
        offsets = _offsets(values)
        self.lengths: np.ndarray = np.diff(offsets).astype("<u4")
        self.values: pa.Array | None = values
        self.items: np.ndarray | None = None
        count = len(values)
        if count and int(self.lengths.min()) == int(self.lengths.max()):
            width = int(self.lengths[0])
            items = np.empty((count, 4 + width), dtype=np.uint8)
            items[:, :4] = self.lengths[:1].view(np.uint8)
            if width:
                data = np.frombuffer(
                    values.buffers()[2], dtype=np.uint8, count=count * width, offset=int(offsets[0])
                )
                items[:, 4:] = data.reshape(count, width)
            self.items = items.view(np.dtype(f"V{4 + width}")).reshape(count)
            self.values = None  # the items hold the values: no second copy is kept


def _arrow(series: pl.Series) -> pa.Array:
    return series.to_arrow().cast(pa.large_binary())


def _width(series: pl.Series) -> int | None:
    """The byte length shared by every value of a string column (None if they differ)."""
    if series.dtype != pl.String or series.null_count() or len(series) == 0:
        return None
    lengths = series.str.len_bytes()
    low, high = lengths.min(), lengths.max()
    return int(low) if low == high else None  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Own:
    """A string field from the rows' own column, converted to Arrow chunk by chunk;
    ``width`` is the length shared by all values (None if they differ)."""

    series: pl.Series
    width: int | None


@dataclass(frozen=True)
class _Coded:
    """An identifier field: row ``k`` is value ``rows[k]`` of ``known`` (value ``k`` if
    None)."""

    known: _Strings
    rows: np.ndarray | None = None


@dataclass(frozen=True)
class _Int:
    """A nullable int64 field: presence marker and value (0 where null)."""

    present: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class _Byte:
    """A one-byte field (label code)."""

    values: np.ndarray


_Field = _Own | _Coded | _Int | _Byte


@dataclass(frozen=True)
class _Table:
    """One section's rows in digest order: the fields of the row encoding and each row's
    document code (non-decreasing)."""

    fields: tuple[_Field, ...]
    documents: np.ndarray

    @property
    def height(self) -> int:
        return len(self.documents)


def _int(series: pl.Series) -> _Int:
    if series.null_count() == 0 and series.dtype == pl.Int64:
        return _Int(np.ones(len(series), dtype=np.uint8), series.to_numpy())
    present = series.is_not_null().to_numpy().view(np.uint8)
    return _Int(present, series.fill_null(0).cast(pl.Int64).to_numpy())


def _fixed(data: np.ndarray) -> pa.Array:
    """An ``n x width`` byte matrix as a large_binary array (zero-copy buffers)."""
    count, width = data.shape
    offsets = np.arange(0, (count + 1) * width, width, dtype=np.int64)
    return pa.Array.from_buffers(
        pa.large_binary(),
        count,
        [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))],
    )


_Run = list[tuple[Any, np.ndarray | int]]
"""Fixed-width fields: NumPy dtype and the values of the rows (or one value for all)."""


def _record(fields: _Run, count: int) -> pa.Array:
    """A run of fixed-width fields as one packed record per row (little-endian, no padding)."""
    dtype = np.dtype([(f"f{k}", code) for k, (code, _) in enumerate(fields)])
    records = np.empty(count, dtype=dtype)
    for k, (_, values) in enumerate(fields):
        records[f"f{k}"] = values
    return _fixed(records.view(np.uint8).reshape(count, dtype.itemsize))


def _coded(field: _Coded, first: int, stop: int, run: _Run) -> pa.Array | None:
    """Rows ``first:stop`` of an identifier field: appended to ``run`` when fixed-width, else
    (length prefixes appended) returned as binary values."""
    known, rows = field.known, field.rows
    if known.items is not None:
        if rows is None:
            run.append((known.items.dtype, known.items[first:stop]))
            return None
        run.append((known.items.dtype, known.items.take(rows[first:stop])))
        return None
    assert known.values is not None  # kept whenever there are no items
    if rows is None:
        run.append(("<u4", known.lengths[first:stop]))
        return known.values.slice(first, stop - first)
    run.append(("<u4", known.lengths.take(rows[first:stop])))
    return known.values.take(_indices(rows[first:stop]))


def _own(field: _Own, first: int, stop: int, run: _Run) -> pa.Array | None:
    """Rows ``first:stop`` of an own string field, as :func:`_coded`."""
    if field.width == 0:
        run.append(("<u4", 0))
        return None
    part = field.series.slice(first, stop - first)
    values = _arrow(part)
    offsets = _offsets(values)
    if field.width is not None:
        run.append(("<u4", field.width))
        data = values.buffers()[2]
        item = np.dtype(f"V{field.width}")
        run.append((item, np.frombuffer(data, dtype=item, count=len(part), offset=int(offsets[0]))))
        return None
    run.append(("<u4", np.diff(offsets)))
    return values


def _encode(table: _Table, first: int, stop: int) -> pa.Array:
    """Rows ``first:stop`` of ``table`` encoded, one binary element per row."""
    count = stop - first
    pieces: list[pa.Array] = []
    run: _Run = []
    for field in table.fields:
        if isinstance(field, _Int):
            run.append(("u1", field.present[first:stop]))
            run.append(("<i8", field.values[first:stop]))
            continue
        if isinstance(field, _Byte):
            run.append(("u1", field.values[first:stop]))
            continue
        strings = _coded(field, first, stop, run) if isinstance(field, _Coded) else None
        if isinstance(field, _Own):
            strings = _own(field, first, stop, run)
        if strings is not None:
            pieces += [_record(run, count), strings]
            run = []
    if run:
        pieces.append(_record(run, count))
    if len(pieces) == 1:
        return pieces[0]
    return pc.binary_join_element_wise(*pieces, _empty())


def _chunks(table: _Table) -> Iterator[pa.Array]:
    for first in range(0, table.height, _CHUNK):
        yield _encode(table, first, min(first + _CHUNK, table.height))


def _update(hasher: Any, rows: pa.Array) -> None:
    """Feed the concatenated encoded ``rows`` to ``hasher``."""
    if len(rows):
        offsets = _offsets(rows)
        hasher.update(memoryview(rows.buffers()[2])[int(offsets[0]) : int(offsets[-1])])


# --- tables ---------------------------------------------------------------------------------


def _documents(frame: pl.DataFrame, order: np.ndarray | None = None) -> np.ndarray:
    documents = frame[DOC].to_numpy()
    return documents if order is None else documents[order]


def _adjudication_order(adjudications: pl.DataFrame, labels: np.ndarray) -> np.ndarray:
    """The digest order of adjudication rows: by rank key (which orders documents and
    identifiers), then label code. Rows equal in both encode the same bytes, so the order
    among them does not matter (no stable sort needed)."""
    ranks = adjudications[RANK].to_numpy()
    if len(ranks) == 0:
        return np.zeros(0, dtype=np.int64)
    if int(ranks.max()) < (1 << 62):
        return np.argsort(ranks * np.uint64(4) + labels.astype(np.uint64))
    return np.lexsort((labels, ranks))


class _Tables:
    """The four sections of the digests, each built when first needed (so that the string
    columns of one section are not held while another is hashed)."""

    def __init__(self, kernel: KernelResult) -> None:
        claims, evidence, edges = kernel.claims, kernel.evidence, kernel.coded_edges
        self.frames = (claims, evidence, edges, kernel.coded_adjudications)
        self.claim_ids = _Strings(claims["claim_id"])
        self.evidence_ids = _Strings(evidence["evidence_id"])
        # Without unknown identifiers the names are the claims' (evidence's) own identifiers,
        # in the same order: one conversion serves both.
        self.claim_names = (
            self.claim_ids
            if len(kernel.claim_names) == claims.height
            else _Strings(kernel.claim_names)
        )
        self.evidence_names = (
            self.evidence_ids
            if len(kernel.evidence_names) == evidence.height
            else _Strings(kernel.evidence_names)
        )
        self.attached: np.ndarray | None = None
        """Rows of ``edges`` whose claim is known (None: all of them)."""
        if edges["_c"].null_count():
            self.attached = edges["_c"].is_not_null().to_numpy()

    def claims(self) -> _Table:
        claims = self.frames[0]
        fields = (
            _Coded(self.claim_ids),
            _int(claims["start"]),
            _int(claims["end"]),
            _Own(claims["source_id"], _width(claims["source_id"])),
            _int(claims["source_length"]),
            _Own(claims["claim_type"], _width(claims["claim_type"])),
        )
        return _Table(fields, _documents(claims))

    def evidence(self) -> _Table:
        evidence = self.frames[1]
        fields = (
            _Coded(self.evidence_ids),
            _int(evidence["start"]),
            _int(evidence["end"]),
            _Own(evidence["source_id"], _width(evidence["source_id"])),
            _int(evidence["source_length"]),
        )
        return _Table(fields, _documents(evidence))

    def edges(self) -> _Table:
        edges = self.frames[2]
        claim, evidence = (ranks.to_numpy() for ranks in identifier_ranks(edges))
        fields = (
            _Coded(self.claim_names, claim),
            _Coded(self.evidence_names, evidence),
            _int(edges["start"]),
            _int(edges["end"]),
            _Own(edges["source_id"], _width(edges["source_id"])),
        )
        return _Table(fields, _documents(edges))

    def adjudications(self) -> _Table:
        adjudications = self.frames[3]
        labels = adjudications["label"].cast(_LABEL_ENUM).to_physical().to_numpy()
        order = _adjudication_order(adjudications, labels)
        claim, evidence = (ranks.to_numpy()[order] for ranks in identifier_ranks(adjudications))
        fields = (
            _Coded(self.claim_names, claim),
            _Coded(self.evidence_names, evidence),
            _Byte(labels.astype(np.uint8)[order]),
        )
        return _Table(fields, _documents(adjudications, order))


# --- one document ---------------------------------------------------------------------------


def _count(count: int) -> bytes:
    return struct.pack("<Q", count)


def _streamed(tag: str, table: _Table) -> bytes:
    hasher = hashlib.sha256(_tag(tag))
    hasher.update(_count(table.height))
    for rows in _chunks(table):
        _update(hasher, rows)
    return hasher.digest()


def _ahead(pool: ThreadPoolExecutor, chunks: Iterator[pa.Array]) -> Iterator[pa.Array]:
    """``chunks``, each one encoded by ``pool`` while the previous one is hashed (at most two
    chunks exist at once)."""
    future = pool.submit(next, chunks, None)
    while (rows := future.result()) is not None:
        future = pool.submit(next, chunks, None)
        yield rows


def _claim_digest(tables: _Tables, claims: _Table, edges: _Table) -> bytes:
    attached = tables.attached
    claim = hashlib.sha256(_tag(_CLAIM_TAG))
    claim.update(_count(claims.height))
    for rows in _chunks(claims):
        _update(claim, rows)
    claim.update(_count(edges.height if attached is None else int(attached.sum())))
    for first, rows in zip(range(0, edges.height, _CHUNK), _chunks(edges)):
        if attached is not None:
            rows = rows.take(_indices(np.flatnonzero(attached[first : first + _CHUNK])))
        _update(claim, rows)
    return claim.digest()


def _evidence_and_adjudication_digests(tables: _Tables) -> bytes:
    evidence = _streamed(_EVIDENCE_TAG, tables.evidence())
    return evidence + _streamed(_ADJUDICATION_TAG, tables.adjudications())


def _single_digests(tables: _Tables) -> list[bytes]:
    """One document's four digests, streamed chunk by chunk (encoded rows never accumulate).

    The claim digest and the two others are computed at once, in two threads (encoding and
    hashing release the GIL; a single document leaves the second core idle otherwise). The
    edges are encoded twice, for the claim digest and for the input digest, which needs the
    three other digests before its rows: keeping the first encoding instead would hold
    every encoded edge row at once; the second encoding runs ahead of its hashing."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="citelens-digest") as pool:
        others = pool.submit(_evidence_and_adjudication_digests, tables)
        edges = tables.edges()
        raw = _claim_digest(tables, tables.claims(), edges)
        raw += others.result()
        inputs = hashlib.sha256(_tag(_INPUT_TAG))
        inputs.update(raw)
        inputs.update(_count(edges.height))
        for rows in _ahead(pool, _chunks(edges)):
            _update(inputs, rows)
    return [raw[0:32], raw[32:64], raw[64:96], inputs.digest()]


# --- many documents -------------------------------------------------------------------------

_Section = tuple[pa.Array, np.ndarray]
"""One section encoded: each document's rows as one binary element, and its row counts."""


def _section(rows: pa.Array | None, row_documents: np.ndarray, documents: np.ndarray) -> _Section:
    """Encoded ``rows`` (document codes ``row_documents``, sorted) grouped by document."""
    if rows is None or len(rows) == 0:
        data, offsets = pa.py_buffer(b""), np.zeros(1, dtype=np.int64)
        bounds = np.zeros(len(documents) + 1, dtype=np.int64)
    else:
        data, offsets = rows.buffers()[2], _offsets(rows)
        bounds = np.append(np.searchsorted(row_documents, documents, side="left"), len(rows))
    per_document = pa.Array.from_buffers(
        pa.large_binary(), len(documents), [None, pa.py_buffer(offsets[bounds]), data]
    )
    return per_document, np.diff(bounds)


def _encoded_section(table: _Table, documents: np.ndarray) -> _Section:
    rows = _encode(table, 0, table.height) if table.height else None
    return _section(rows, table.documents, documents)


def _section_digests(
    tag: str,
    documents: np.ndarray,
    parts: Sequence[_Section],
    raw: np.ndarray | None = None,
) -> list[bytes]:
    """The digest of every document: each document's message (tag, raw digests, then each
    section's count and rows) is one element of a binary array joined from the sections,
    block by block, and hashed by one call."""
    prefix = np.frombuffer(_tag(tag), dtype=np.uint8)
    heads = [np.broadcast_to(prefix, (len(documents), len(prefix)))]
    if raw is not None:
        heads.append(raw)
    columns: list[pa.Array] = []
    for rows, counts in parts:
        heads.append(counts.astype("<u8").view(np.uint8).reshape(-1, 8))
        columns.append(_fixed(np.hstack(heads)))
        columns.append(rows)
        heads = []
    sizes = np.cumsum(sum(np.diff(_offsets(column)) for column in columns))
    out: list[bytes] = []
    first = 0
    while first < len(documents):
        # Documents in blocks of about _BLOCK_BYTES of messages (at least one document).
        stop = int(np.searchsorted(sizes, (sizes[first - 1] if first else 0) + _BLOCK_BYTES))
        stop = min(max(stop, first + 1), len(documents))
        block = [column.slice(first, stop - first) for column in columns]
        joined = pc.binary_join_element_wise(*block, _empty())
        data = memoryview(joined.buffers()[2]) if joined.buffers()[2] else memoryview(b"")
        bounds = _offsets(joined).tolist()
        out.extend(
            hashlib.sha256(data[low:high]).digest() for low, high in itertools.pairwise(bounds)
        )
        first = stop
    return out


def _many_digests(tables: _Tables, documents: np.ndarray) -> list[list[bytes]]:
    """Every document's four digests; each section is encoded once, for the whole batch of
    documents (memory bounded by the batch), and the edges' encoding serves both the claim
    digest (attached rows) and the input digest (all rows)."""
    edges = tables.edges()
    rows = _encode(edges, 0, edges.height) if edges.height else None
    all_edges = _section(rows, edges.documents, documents)
    attached_edges = all_edges
    if tables.attached is not None and rows is not None:
        kept = np.flatnonzero(tables.attached)
        attached_edges = _section(rows.take(_indices(kept)), edges.documents[kept], documents)
    del edges, rows
    claim = _section_digests(
        _CLAIM_TAG, documents, [_encoded_section(tables.claims(), documents), attached_edges]
    )
    evidence = _section_digests(
        _EVIDENCE_TAG, documents, [_encoded_section(tables.evidence(), documents)]
    )
    adjudication = _section_digests(
        _ADJUDICATION_TAG, documents, [_encoded_section(tables.adjudications(), documents)]
    )
    raw = np.frombuffer(
        b"".join(b"".join(triple) for triple in zip(claim, evidence, adjudication)),
        dtype=np.uint8,
    ).reshape(len(documents), 96)
    return [
        claim,
        evidence,
        adjudication,
        _section_digests(_INPUT_TAG, documents, [all_edges], raw),
    ]


def support_digests(documents: np.ndarray, kernel: KernelResult) -> pl.DataFrame:
    """The four digests of every document in ``documents`` (sorted ``_d`` codes).

    The kernel's claims/evidence are sorted by ``(_d, identifier)``; its coded edges sorted
    by (document, claim, evidence, start, end, source id) in identifier byte order, nulls
    first, with the claim code (null when unknown) and the rank key
    (:data:`~citelens.support._kernel.RANK`) that names both identifiers; its coded
    adjudications carry the rank key and sort by it, then by label.
    """
    tables = _Tables(kernel)
    if len(documents) == 1:
        digests = [[digest] for digest in _single_digests(tables)]
    else:
        digests = _many_digests(tables, documents)
    return pl.DataFrame(
        {
            DOC: documents,
            "claim_digest": _hex(digests[0]),
            "evidence_digest": _hex(digests[1]),
            "adjudication_digest": _hex(digests[2]),
            "input_digest": _hex(digests[3]),
        },
        schema_overrides={DOC: kernel.claims.schema[DOC]},
    )


def _hex(digests: list[bytes]) -> list[str]:
    return ["sha256:" + digest.hex() for digest in digests]
