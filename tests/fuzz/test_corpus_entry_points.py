"""Fuzzing the corpus entry points (issue 10): hostile tables and hostile input files.

Property: every call returns its result or raises a citelens error (never
:class:`~citelens.errors.InternalError`) with a fixed message free of the canary, and the
outputs keep the privacy contract of docs/corpus.md: ``error_message`` and ``error_category``
are fixed texts; ``summary.json``/``summary.md`` name documents only by pseudonym (support and
summary citations; minimality's summary keeps its refs, so only its messages are checked);
``edges.parquet`` pseudonymises ``claim_id``, ``evidence_id`` and ``source_id``.
``documents.parquet``'s ``document_ref`` is the caller's reference, raw by design: the canary
planted there is expected in that column only.

Corpus runs are slower than value-level calls: ``max(EXAMPLES // 6, 5)`` examples by default.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citelens import corpus
from citelens.errors import ERROR_CATEGORIES, CitelensError, InternalError
from citelens.limits import Limits

from .strategies import CANARY, EXAMPLES, collections
from .test_io_entry_points import FRAGMENTS, mutated

pytestmark = pytest.mark.fuzz

KEY = b"citelens-fuzz-pseudonym-key-0001"
CORPUS_EXAMPLES = max(EXAMPLES // 6, 5)
FUZZ = settings(
    max_examples=CORPUS_EXAMPLES,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Small bounds so that "too many records" documents occur in tiny inputs too.
LIMITS = Limits(claims=3, evidence=3, citations=4)


def _fixed(error: CitelensError) -> None:
    """A citelens error of the fixed form: not internal, unchained, without the canary."""
    assert not isinstance(error, InternalError), type(error).__name__
    assert error.category in ERROR_CATEGORIES
    for shown in (str(error), repr(error), repr(error.args)):
        assert CANARY not in shown
    assert error.__cause__ is None and error.__context__ is None


def _outcome(call: Callable[[], Any]) -> Any:
    """The result of ``call``, or ``None`` when it raised a fixed citelens error."""
    try:
        return call()
    except InternalError as error:  # a bug: its type is shown, never its message
        raise AssertionError("internal error") from error
    except CitelensError as error:
        _fixed(error)
        return None


def _messages_clean(documents: pa.Table) -> None:
    """Every error text of a documents table is fixed (no input value)."""
    for name in ("status", "error_category", "error_message"):
        if name in documents.column_names:
            assert all(CANARY not in (v or "") for v in documents[name].to_pylist())
    assert set(documents["status"].to_pylist()) <= {"ok", "error"}


def _edges_clean(edges: pa.Table | None) -> None:
    if edges is None:
        return
    for name in edges.column_names:
        if name != "document_ref":  # the caller's reference, as given (docs/corpus.md)
            assert CANARY not in repr(edges[name].to_pylist())


# -- hostile tables for evaluate_support_tables --------------------------------------------------

_REFS = [CANARY + "-a", CANARY + "-b", CANARY + "\x00", "", " " + CANARY + "\u202e"]
_TEXTS = st.one_of(st.sampled_from(_REFS), st.none(), st.text(max_size=5).map(CANARY.__add__))
_INTS = st.one_of(st.none(), st.integers(-3, 12), st.sampled_from([2**63 - 1, -(2**63)]))


def _column(kind: str, rows: int, draw: st.DrawFn) -> pa.Array:
    """A column of ``rows`` values of one Arrow type, hostile values included."""

    def many(values: st.SearchStrategy[Any]) -> list[Any]:
        return draw(st.lists(values, min_size=rows, max_size=rows))

    if kind == "string":
        return pa.array(many(_TEXTS), pa.string())
    if kind == "large_string":
        return pa.array(many(_TEXTS), pa.large_string())
    if kind == "dictionary":
        return pa.array(many(_TEXTS), pa.string()).dictionary_encode()
    if kind == "binary":
        return pa.array(
            [None if t is None else t.encode("utf-8", "surrogatepass") for t in many(_TEXTS)],
            pa.binary(),
        )
    if kind == "int64":
        return pa.array(many(_INTS), pa.int64())
    if kind == "int8":
        return pa.array(many(st.one_of(st.none(), st.integers(-128, 127))), pa.int8())
    if kind == "uint64":  # values beyond int64
        return pa.array(
            many(st.one_of(st.none(), st.sampled_from([0, 5, 2**63, 2**64 - 1]))), pa.uint64()
        )
    if kind == "float":
        return pa.array(many(st.one_of(st.none(), st.floats(allow_nan=True))), pa.float64())
    if kind == "bool":
        return pa.array(many(st.one_of(st.none(), st.booleans())), pa.bool_())
    if kind == "null":
        return pa.nulls(rows)
    if kind == "list_string":
        return pa.array(
            many(st.one_of(st.none(), st.lists(_TEXTS, max_size=3))), pa.list_(pa.string())
        )
    if kind == "list_int":
        return pa.array(
            many(st.one_of(st.none(), st.lists(_INTS, max_size=3))), pa.list_(pa.int64())
        )
    if kind == "struct":
        values = many(
            st.one_of(st.none(), st.fixed_dictionaries({"evidence_id": _TEXTS, "start": _INTS}))
        )
        return pa.array(values, pa.struct([("evidence_id", pa.string()), ("start", pa.int64())]))
    return pa.array(many(st.none()), pa.timestamp("s"))


_KINDS = [
    "string", "large_string", "dictionary", "binary", "int64", "int8", "uint64", "float",
    "bool", "null", "list_string", "list_int", "struct", "timestamp",
]  # fmt: skip
# role -> the columns its contract reads (plus document_ref), each given a hostile type
_ROLE_COLUMNS = {
    "claims": ["document_ref", "claim_id", "start", "end", "citations"],
    "evidence": ["document_ref", "evidence_id", "start", "end", "source_id", "source_length"],
    "citations": ["document_ref", "claim_id", "evidence_id", "start", "end", "source_id"],
    "adjudications": ["document_ref", "claim_id", "evidence_id", "label"],
}
# the type each column has in a valid corpus: drawn often, so that rows get evaluated too
_VALID_KIND = {
    "document_ref": "string", "claim_id": "string", "evidence_id": "string", "source_id": "string",
    "label": "string", "start": "int64", "end": "int64", "source_length": "int64",
    "citations": "list_string",
}  # fmt: skip


@st.composite
def hostile_table(draw: st.DrawFn, role: str) -> pa.Table:
    rows = draw(st.integers(0, 5))
    names = [n for n in _ROLE_COLUMNS[role] if draw(st.integers(0, 9)) or n == "document_ref"]
    if draw(st.booleans()):
        names.append(CANARY)  # a column no contract reads, named by the canary
    columns = []
    for name in names:
        valid = _VALID_KIND.get(name, "string")
        kind = draw(st.one_of(st.just(valid), st.just(valid), st.sampled_from(_KINDS)))
        columns.append(_column(kind, rows, draw))
    return pa.table(columns, names=names)


@FUZZ
@given(
    hostile_table("claims"),
    st.one_of(st.none(), hostile_table("evidence")),
    st.one_of(st.none(), hostile_table("citations")),
    st.one_of(st.none(), hostile_table("adjudications")),
    st.booleans(),
)
def test_evaluate_support_tables(
    claims: pa.Table,
    evidence: pa.Table | None,
    citations: pa.Table | None,
    adjudications: pa.Table | None,
    polars: bool,
) -> None:
    documents = _outcome(
        lambda: corpus.evaluate_support_tables(
            claims, evidence, citations, adjudications, limits=LIMITS
        )
    )
    if documents is not None:
        assert documents.schema == corpus.SUPPORT_DOCUMENTS_SCHEMA
        _messages_clean(documents)
    if polars:  # the same tables as Polars frames, through run_support_corpus with edges
        frames = [
            None if t is None else _outcome(partial(pl.from_arrow, t))
            for t in (claims, evidence, citations, adjudications)
        ]
        result = _outcome(
            lambda: corpus.run_support_corpus(*frames, edges=True, limits=LIMITS, pseudonym_key=KEY)
        )
        if result is not None:
            _messages_clean(result.documents)
            _edges_clean(result.edges)
            assert CANARY not in result.summary_json() + result.summary_markdown()


# -- hostile input files ---------------------------------------------------------------------

SUPPORT_ROWS: dict[str, list[dict[str, Any]]] = {
    "claims": [
        {"document_ref": CANARY + "-1", "claim_id": CANARY + "-c", "start": 0, "end": 5,
         "citations": [CANARY + "-e", "ghost"]},
        {"document_ref": CANARY + "-2", "claim_id": CANARY + "-k", "start": None, "end": None,
         "citations": [CANARY + "-e"]},
    ],
    "evidence": [
        {"document_ref": CANARY + "-1", "evidence_id": CANARY + "-e", "start": 0, "end": 9,
         "source_id": CANARY + "-s", "source_length": 20},
        {"document_ref": CANARY + "-2", "evidence_id": CANARY + "-e", "start": 4, "end": 2,
         "source_id": None, "source_length": None},
    ],
    "citations": [
        {"document_ref": CANARY + "-1", "claim_id": CANARY + "-c", "evidence_id": CANARY + "-e",
         "start": 1, "end": 3, "source_id": CANARY + "-s"},
    ],
    "adjudications": [
        {"document_ref": CANARY + "-1", "claim_id": CANARY + "-c", "evidence_id": CANARY + "-e",
         "label": "supports"},
    ],
}  # fmt: skip
SUMMARY_ROWS: dict[str, list[dict[str, Any]]] = {
    "claims": [
        {"document_ref": CANARY + "-1", "claim": CANARY + " claim", "citations": [CANARY + "-e"]},
        {"document_ref": CANARY + "-2", "claim": CANARY, "citations": ["missing"]},
    ],
    "evidence": [
        {"document_ref": CANARY + "-1", "id": CANARY + "-e", "start": 0, "end": 4},
        {"document_ref": CANARY + "-2", "id": CANARY + "-f", "start": 2, "end": 1},
    ],
}
MINIMALITY_ROWS: dict[str, list[dict[str, Any]]] = {
    "documents": [
        {"document_ref": CANARY + "-1", "source_text": CANARY + " alpha beta gamma"},
        {"document_ref": CANARY + "-2", "source_text": "delta " + CANARY},
    ],
    "claims": [
        {"document_ref": CANARY + "-1", "claim_id": CANARY + "-c", "required_span": [0, 11]},
        {"document_ref": CANARY + "-2", "claim_id": CANARY + "-k", "required_span": [0, 5]},
    ],
    "citations": [
        {"document_ref": CANARY + "-1", "claim_id": CANARY + "-c", "citation_id": CANARY + "-x",
         "source_span": [0, 17]},
        {"document_ref": CANARY + "-2", "claim_id": CANARY + "-k", "citation_id": CANARY + "-y",
         "source_span": [0, 3]},
    ],
}  # fmt: skip


def _encode(rows: list[dict[str, Any]], suffix: str) -> bytes:
    """``rows`` as a file of one format (CSV only for flat rows)."""
    if suffix == ".jsonl":
        return b"".join(json.dumps(row).encode() + b"\n" for row in rows)
    table = pa.Table.from_pylist(rows)
    sink = io.BytesIO()
    if suffix == ".parquet":
        pq.write_table(table, sink)
    else:
        pa_csv.write_csv(table, sink)
    return sink.getvalue()


def _flat(rows: list[dict[str, Any]]) -> bool:
    return all(not isinstance(v, list | dict) for row in rows for v in row.values())


@st.composite
def input_files(
    draw: st.DrawFn, roles: dict[str, list[dict[str, Any]]]
) -> dict[str, tuple[str, bytes]]:
    """role -> (suffix, content): valid files of the tiny corpus, one or two of them mutated."""
    files: dict[str, tuple[str, bytes]] = {}
    for role, rows in roles.items():
        suffixes = [".jsonl", ".parquet"] + ([".csv"] if _flat(rows) else [])
        suffix = draw(st.sampled_from(suffixes))
        files[role] = (suffix, _encode(rows, suffix))
    for role in draw(st.lists(st.sampled_from(sorted(roles)), min_size=1, max_size=2)):
        suffix, content = files[role]
        hostile = st.one_of(
            mutated(content),
            mutated(content),
            st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=4).map(b"".join),
        )
        files[role] = (suffix, draw(hostile))
    return files


def _write(files: dict[str, tuple[str, bytes]], folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    paths = {}
    for role, (suffix, content) in files.items():
        paths[role] = folder / f"{role}{suffix}"
        paths[role].write_bytes(content)
    return paths


def _no_canary_in(path: Path) -> None:
    if path.exists():
        assert CANARY.encode() not in path.read_bytes()


@FUZZ
@given(input_files(SUPPORT_ROWS))
def test_support_corpus_files(tmp_path: Path, files: dict[str, tuple[str, bytes]]) -> None:
    paths = _write(files, tmp_path / "in")
    roles = [paths[r] for r in ("claims", "evidence", "citations", "adjudications")]
    result = _outcome(
        lambda: corpus.run_support_corpus(*roles, edges=True, limits=LIMITS, pseudonym_key=KEY)
    )
    if result is not None:
        _messages_clean(result.documents)
        _edges_clean(result.edges)
        assert CANARY not in result.summary_json() + result.summary_markdown()
    out = tmp_path / "out"
    summary = _outcome(
        lambda: corpus.write_support_corpus(*roles, out_dir=out, edges=True, limits=LIMITS)
    )
    assert (summary is None) == (result is None)  # the same inputs: the same decision
    if summary is not None:
        assert CANARY not in json.dumps(summary)
        _no_canary_in(out / "summary.json")
        _no_canary_in(out / "summary.md")
        _messages_clean(pq.read_table(out / "documents.parquet"))
        _edges_clean(pq.read_table(out / "edges.parquet"))


@FUZZ
@given(input_files(SUMMARY_ROWS))
def test_summary_citations_corpus_files(
    tmp_path: Path, files: dict[str, tuple[str, bytes]]
) -> None:
    paths = _write(files, tmp_path / "in")
    result = _outcome(
        lambda: corpus.run_summary_citations_corpus(
            paths["claims"], paths["evidence"], limits=LIMITS, pseudonym_key=KEY
        )
    )
    if result is not None:
        _messages_clean(result.documents)
        assert CANARY not in result.summary_json() + result.summary_markdown()


@FUZZ
@given(input_files(MINIMALITY_ROWS), st.integers(-1, 3))
def test_minimality_corpus_files(
    tmp_path: Path, files: dict[str, tuple[str, bytes]], excess: int
) -> None:
    paths = _write(files, tmp_path / "in")
    result = _outcome(
        lambda: corpus.run_minimality_corpus(
            paths["documents"], paths["claims"], paths["citations"],
            max_excess_tokens=excess, limits=LIMITS,
        )
    )  # fmt: skip
    if result is not None:
        _messages_clean(result.documents)
        # worst_documents keeps its refs (no pseudonym in this mode): the error texts only
        assert all(CANARY not in repr(e) for e in result.summary["errors"])


@FUZZ
@given(collections, collections, st.sampled_from(["support", "summary", "minimality"]))
def test_corpus_entry_points_on_python_values(first: Any, second: Any, mode: str) -> None:
    # no corpus input is a plain Python value: every one is refused with a fixed message
    calls: dict[str, Callable[[], Any]] = {
        "support": lambda: corpus.run_support_corpus(first, second),
        "summary": lambda: corpus.run_summary_citations_corpus(first, second),
        "minimality": lambda: corpus.run_minimality_corpus(first, second, first),
    }
    assert _outcome(calls[mode]) is None or first is None
