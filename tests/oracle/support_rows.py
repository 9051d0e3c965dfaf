"""Reference oracle for support: the contract's record rules (§3), record by record.

This was the per-record path of ``citelens.support`` before the one columnar engine (issue 9).
It lives under ``tests/`` only, as the oracle of differential tests: it turns every input form
(Python records, typed records, compact mappings, and tables read as their rows) into the four
canonical tables with the scalar rules of ``tests/oracle/support_scalar.py``, one record
at a time, then hands them to the same kernel and report derivation as the engine
(:func:`citelens.support._api.report_of_frames`). The engine in ``src/`` must give the same
report or the same first error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pyarrow as pa

from citelens.support._adapter import (
    ADJUDICATION_RECORD_KEYS,
    CITATION_RECORD_KEYS,
    CLAIM_RECORD_KEYS,
    EVIDENCE_RECORD_KEYS,
)
from citelens.support._aliases import EDGE_CLAIM_ALIASES
from citelens.support._pyvalues import bounded_items
from citelens.support._records import (
    AtomicClaim,
    Citation,
    ClinicianAdjudication,
    EvidenceSpan,
)
from citelens.support._rules import fail, identifier, int64_or_fail, is_int, is_pair_sequence
from citelens.support._schema import (
    ADJUDICATION_SCHEMA,
    CLAIM_SCHEMA,
    EDGE_SCHEMA,
    EVIDENCE_SCHEMA,
)
from oracle.support_scalar import (
    MISSING,
    adjudication_record_fields,
    citation_items,
    citation_record_fields,
    claim_record_fields,
    evidence_record_fields,
    first_value,
    label_rule,
    record_conversion,
)

__all__ = [
    "CLAIM_RECORD_KEYS",
    "EVIDENCE_RECORD_KEYS",
    "adjudication_rows",
    "citation_rows",
    "claim_rows",
    "evidence_rows",
    "oracle_outcome",
    "source_length_rows",
]


def revalidate(value: Any, cls: type[Any]) -> Any:
    """A re-validated copy of a typed record (the constructor's rules)."""
    copy = object.__new__(cls)
    for name in cls.FIELDS:
        object.__setattr__(copy, name, getattr(value, name))
    copy._normalise()
    return copy


def has_any_key(mapping: Mapping[str, Any], keys: frozenset[str]) -> bool:
    """True when ``mapping`` holds at least one of ``keys``."""
    return any(key in mapping for key in keys)


def mapping_entries(value: Mapping[Any, Any], name: str, limit: int) -> list[tuple[Any, Any]]:
    """Pull the entries of a compact mapping under a collection name and bound."""
    entries: list[tuple[Any, Any]] = bounded_items(value.items(), name, limit)
    return entries


def _is_offset_pair(value: object) -> bool:
    return (
        is_pair_sequence(value)
        and len(value) == 2  # type: ignore[arg-type]
        and is_int(value[0])  # type: ignore[index]
        and is_int(value[1])  # type: ignore[index]
    )


def source_length_rows(value: Any, limit: int) -> dict[str, int]:
    """``source_lengths``: identifier → int64 length (the later duplicate key wins)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise fail("source_lengths must be a mapping", "collection")
    out: dict[str, int] = {}
    for key, length in mapping_entries(value, "source collection", limit):
        norm = identifier(key)
        out[norm] = int64_or_fail(length, "source lengths must be integers", "value")
    return out


class _Columns:
    """Column lists for one canonical table."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.columns: list[list[Any]] = [[] for _ in names]

    def append(self, row: tuple[Any, ...]) -> None:
        for column, value in zip(self.columns, row):
            column.append(value)

    def __len__(self) -> int:
        return len(self.columns[0])

    def table(self, schema: pa.Schema) -> pa.Table:
        return pa.Table.from_arrays(
            [pa.array(col, type=field.type) for col, field in zip(self.columns, schema)],
            schema=schema,
        )


def _record_items(
    value: Any,
    record_keys: frozenset[str],
    id_field: str,
    typed: type,
    limit: int,
    other: Callable[[Any, Any], dict[str, Any]],
) -> list[tuple[Any, Any]]:
    """``(default id, item)`` pairs of a claim or evidence collection (§3.3, §3.4).

    A mapping holding a record key is one record; another mapping is compact: every key is
    checked by the identifier rule and its value becomes a record (a mapping or typed record
    with the key as default id), an offset pair, or whatever ``other`` makes of it.
    """
    if not isinstance(value, Mapping):
        return [(MISSING, item) for item in value]
    if has_any_key(value, record_keys):
        return [(MISSING, value)]
    items: list[tuple[Any, Any]] = []
    for key, entry in mapping_entries(value, "record collection", limit):
        identifier(key)
        if isinstance(entry, Mapping | typed):
            items.append((key, entry))
        elif _is_offset_pair(entry):
            items.append((MISSING, {id_field: key, "start": entry[0], "end": entry[1]}))
        else:
            items.append((MISSING, other(key, entry)))
    return items


def _fill(length: int | None, source_id: str, source_lengths: dict[str, int]) -> int | None:
    if length is None and source_id:
        return source_lengths.get(source_id)
    return length


def claim_rows(
    value: Any,
    *,
    claim_limit: int,
    citation_limit: int,
    source_lengths: dict[str, int],
) -> tuple[pa.Table, pa.Table]:
    """Claims stage (§5 stage 2): canonical claims and claim-embedded edges (claim order)."""
    items = _record_items(
        value,
        CLAIM_RECORD_KEYS,
        "claim_id",
        AtomicClaim,
        claim_limit,
        lambda key, entry: {"claim_id": key, "citations": entry},
    )
    claims = _Columns(CLAIM_SCHEMA.names)
    edges = _Columns(EDGE_SCHEMA.names)
    for default_id, item in items:
        if isinstance(item, AtomicClaim):
            claim = revalidate(item, AtomicClaim)
            source = claim.source_id
            claims.append(
                (
                    claim.claim_id,
                    claim.start,
                    claim.end,
                    source,
                    _fill(claim.source_length, source, source_lengths),
                    claim.claim_type,
                )
            )
            for evidence_id in claim.citations:
                edges.append((claim.claim_id, evidence_id, None, None, ""))
        else:
            record = record_conversion(item, "claim")
            (claim_id, start, end, source, length, claim_type, citation_value, _own) = (
                claim_record_fields(record, default_id, citation_limit)
            )
            claims.append(
                (claim_id, start, end, source, _fill(length, source, source_lengths), claim_type)
            )
            for entry in citation_items(citation_value, citation_limit):
                if isinstance(entry, Mapping):
                    if "claim_id" not in entry:
                        entry = {**entry, "claim_id": claim_id}
                    edges.append(citation_record_fields(entry))
                else:
                    edges.append((claim_id, identifier(entry), None, None, ""))
        if len(edges) > citation_limit:
            raise fail("citation collection exceeds the record limit", "limit")
    return claims.table(CLAIM_SCHEMA), edges.table(EDGE_SCHEMA)


def evidence_rows(
    value: Any,
    *,
    evidence_limit: int,
    adjudication_limit: int,
    source_lengths: dict[str, int],
) -> tuple[pa.Table, pa.Table]:
    """Evidence stage (§5 stage 3): canonical evidence and embedded adjudications."""

    def not_a_span(key: Any, entry: Any) -> dict[str, Any]:
        raise fail("evidence mapping values must be records or spans", "record")

    items = _record_items(
        value, EVIDENCE_RECORD_KEYS, "evidence_id", EvidenceSpan, evidence_limit, not_a_span
    )
    evidence = _Columns(EVIDENCE_SCHEMA.names)
    embedded = _Columns(ADJUDICATION_SCHEMA.names)
    for default_id, item in items:
        if isinstance(item, EvidenceSpan):
            span = revalidate(item, EvidenceSpan)
            source = span.source_id
            evidence.append(
                (
                    span.evidence_id,
                    span.start,
                    span.end,
                    source,
                    _fill(span.source_length, source, source_lengths),
                )
            )
            continue
        record = record_conversion(item, "evidence")
        evidence_id, start, end, source, length = evidence_record_fields(record, default_id)
        evidence.append((evidence_id, start, end, source, _fill(length, source, source_lengths)))
        if isinstance(record, Mapping):
            claim = first_value(record, EDGE_CLAIM_ALIASES)
            if claim is not MISSING:
                label = label_rule(record)
                if label is not None:
                    embedded.append((identifier(claim), evidence_id, label, "evidence"))
                    if len(embedded) > adjudication_limit:
                        raise fail("adjudication collection exceeds the record limit", "limit")
    return evidence.table(EVIDENCE_SCHEMA), embedded.table(ADJUDICATION_SCHEMA)


def _citation_item(item: Any) -> tuple[str, str, int | None, int | None, str]:
    if isinstance(item, Citation):
        edge = revalidate(item, Citation)
        return edge.claim_id, edge.evidence_id, edge.start, edge.end, edge.source_id
    if isinstance(item, Mapping):
        return citation_record_fields(item)
    if is_pair_sequence(item):
        if len(item) != 2:
            raise fail("citation tuple must contain two identifiers", "record")
        return identifier(item[0]), identifier(item[1]), None, None, ""
    raise fail("citation records must be mappings or pairs", "record")


def citation_rows(value: Any, *, citation_limit: int) -> pa.Table:
    """Explicit citations stage (§5 stage 6)."""
    edges = _Columns(EDGE_SCHEMA.names)
    if isinstance(value, Mapping):
        if has_any_key(value, CITATION_RECORD_KEYS):
            edges.append(_citation_item(value))
            return edges.table(EDGE_SCHEMA)
        entries = mapping_entries(value, "citation collection", citation_limit)
        for key, entry in entries:
            for item in citation_items(entry, citation_limit):
                if isinstance(item, Citation):
                    edge = revalidate(item, Citation)
                    edges.append(
                        (identifier(key), edge.evidence_id, edge.start, edge.end, edge.source_id)
                    )
                elif isinstance(item, Mapping):
                    if "claim_id" not in item:
                        item = {**item, "claim_id": key}
                    edges.append(citation_record_fields(item))
                else:
                    edges.append((identifier(key), identifier(item), None, None, ""))
                if len(edges) > citation_limit:
                    raise fail("citation collection exceeds the record limit", "limit")
        return edges.table(EDGE_SCHEMA)
    for item in value:
        edges.append(_citation_item(item))
    return edges.table(EDGE_SCHEMA)


def _adjudication_item(item: Any) -> tuple[str, str, str, str]:
    if isinstance(item, ClinicianAdjudication):
        adjudication = revalidate(item, ClinicianAdjudication)
        return adjudication.claim_id, adjudication.evidence_id, adjudication.label, "explicit"
    record = record_conversion(item, "adjudication")
    return (*adjudication_record_fields(record), "explicit")


def adjudication_rows(value: Any, *, adjudication_limit: int) -> pa.Table:
    """Explicit adjudications stage (§5 stage 9)."""
    rows = _Columns(ADJUDICATION_SCHEMA.names)
    if isinstance(value, Mapping):
        if has_any_key(value, ADJUDICATION_RECORD_KEYS):
            rows.append(_adjudication_item(value))
            return rows.table(ADJUDICATION_SCHEMA)
        entries = mapping_entries(value, "record collection", adjudication_limit)
        for key, _ in entries:
            identifier(key)
        for key, entry in entries:
            if isinstance(entry, ClinicianAdjudication):
                rows.append(_adjudication_item(entry))
                continue
            record = record_conversion(entry, "adjudication")
            if first_value(record, EDGE_CLAIM_ALIASES) is MISSING:
                record = {**record, "claim_id": key}
            rows.append((*adjudication_record_fields(record), "explicit"))
        return rows.table(ADJUDICATION_SCHEMA)
    for item in value:
        rows.append(_adjudication_item(item))
    return rows.table(ADJUDICATION_SCHEMA)


# -- the whole call ------------------------------------------------------------------------


def _rows_of(value: Any, name: str, limit: int, record_keys: frozenset[str]) -> Any:
    """Classify a collection as the entry point does (shared ``_classify``), then give the
    oracle Python objects: a table becomes the list of its rows (CSV cells typed as §4.2 types
    them), a ``.json`` object the equivalent mapping."""
    from citelens.io import table_rows
    from citelens.support import _api

    kind, payload = _api._classify(value, name, limit)
    if kind == "empty":
        return []
    if kind == "table":
        rows = table_rows(payload)
        if _api._io.data_file_suffix(value) == ".csv":
            rows = [typed_csv_row(row) for row in rows]
        return rows
    if kind == "json_object":
        return _api._json_object(payload, record_keys)
    return payload


_CSV_INT = re.compile(r"[+-]?[0-9]+")


def typed_csv_row(row: dict[str, Any]) -> dict[str, Any]:
    """The contract's CSV typing of one row, written out (§4.2)."""
    from citelens.support._fields import CSV_BOOLEAN_COLUMNS, CSV_INTEGER_COLUMNS

    out: dict[str, Any] = {}
    for name, value in row.items():
        if name in CSV_INTEGER_COLUMNS and _CSV_INT.fullmatch(value):
            number = int(value)
            out[name] = number if -(2**63) <= number < 2**63 else value
        elif name in CSV_BOOLEAN_COLUMNS and value.lower() in ("true", "false"):
            out[name] = value.lower() == "true"
        else:
            out[name] = value
    return out


def _frame(table: pa.Table) -> Any:
    import polars as pl

    return pl.from_arrow(table)


def _oracle_report(
    claims: Any,
    evidence: Any,
    citations: Any,
    adjudications: Any,
    source_lengths: Any,
    limits: Any,
) -> Any:
    import polars as pl

    from citelens.support import _api

    bounds = _api._Bounds(limits)
    lengths = source_length_rows(source_lengths, bounds.evidence)
    claim_table, embedded_edges = claim_rows(
        _rows_of(claims, "claim collection", bounds.claims, CLAIM_RECORD_KEYS),
        claim_limit=bounds.claims,
        citation_limit=bounds.citations,
        source_lengths=lengths,
    )
    evidence_table, embedded_adj = evidence_rows(
        _rows_of(evidence, "evidence collection", bounds.evidence, EVIDENCE_RECORD_KEYS),
        evidence_limit=bounds.evidence,
        adjudication_limit=bounds.adjudications,
        source_lengths=lengths,
    )
    claim_frame = _api._with_doc(_frame(claim_table), 0)
    evidence_frame = _api._with_doc(_frame(evidence_table), 0)
    if claim_frame.height != claim_frame["claim_id"].n_unique():
        raise fail("duplicate claim identifiers", "reference")
    if evidence_frame.height != evidence_frame["evidence_id"].n_unique():
        raise fail("duplicate evidence identifiers", "reference")
    explicit_edges = _frame(EDGE_SCHEMA.empty_table())
    if citations is not None:
        explicit_edges = _frame(
            citation_rows(
                _rows_of(citations, "citation collection", bounds.citations, CITATION_RECORD_KEYS),
                citation_limit=bounds.citations,
            )
        )
    if len(embedded_edges) + explicit_edges.height > bounds.citations:
        raise fail("citation collection exceeds the record limit", "limit")
    explicit_adj = _frame(ADJUDICATION_SCHEMA.empty_table())
    if adjudications is not None:
        explicit_adj = _frame(
            adjudication_rows(
                _rows_of(
                    adjudications,
                    "adjudication collection",
                    bounds.adjudications,
                    ADJUDICATION_RECORD_KEYS,
                ),
                adjudication_limit=bounds.adjudications,
            )
        )
    if len(embedded_adj) + explicit_adj.height > bounds.adjudications:
        raise fail("adjudication collection exceeds the record limit", "limit")
    edge_frame = _api._with_doc(
        pl.concat(
            [
                _api._canonical(_frame(embedded_edges), EDGE_SCHEMA),
                _api._canonical(explicit_edges, EDGE_SCHEMA),
            ]
        ),
        0,
    )
    adjudication_frame = _api._with_doc(
        pl.concat(
            [
                _api._canonical(_frame(embedded_adj), ADJUDICATION_SCHEMA),
                _api._canonical(explicit_adj, ADJUDICATION_SCHEMA),
            ]
        ),
        0,
    )
    return _api.report_of_frames(
        [
            _api._canonical(claim_frame, CLAIM_SCHEMA, doc=True),
            _api._canonical(evidence_frame, EVIDENCE_SCHEMA, doc=True),
            edge_frame,
            adjudication_frame,
        ]
    )


def oracle_outcome(
    claims: Any,
    evidence: Any = (),
    citations: Any = None,
    adjudications: Any = None,
    *,
    source_lengths: Any = None,
    limits: Any = None,
) -> tuple[str, str, str]:
    """``("ok", to_json(), to_markdown())`` or ``("error", message, category)`` of the
    record-by-record rules (caller exceptions become the contract's input error, §11)."""
    from citelens.errors import CitationSupportError
    from citelens.limits import Limits
    from citelens.support._report import _guard, caller_objects

    if limits is not None and not isinstance(limits, Limits):
        return ("error", "limits must be a Limits instance", "policy")
    bounded = limits or Limits()
    try:
        report = _guard(
            lambda: caller_objects(
                lambda: _oracle_report(
                    claims, evidence, citations, adjudications, source_lengths, bounded
                )
            )
        )
    except CitationSupportError as exc:
        return ("error", str(exc), exc.category)
    return ("ok", report.to_json(), report.to_markdown())
