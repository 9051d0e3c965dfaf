"""The exact row path of the support contract (§3): Python records → canonical Arrow tables.

Used for Python objects the columnar path does not take (compact mappings, typed records,
nested citation records, mixed-type values) and, on a defective columnar collection, to name the
first defective row exactly. Everything it produces is a canonical Arrow table; the metrics are
computed by the columnar kernel either way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pyarrow as pa

from citelens.support._records import (
    EDGE_CLAIM_ALIASES,
    AtomicClaim,
    Citation,
    ClinicianAdjudication,
    EvidenceSpan,
    adjudication_record_fields,
    bounded_items,
    citation_items,
    citation_record_fields,
    claim_record_fields,
    evidence_record_fields,
    label_rule,
    record_conversion,
    revalidate,
)
from citelens.support._rules import (
    MISSING,
    fail,
    first_value,
    identifier,
    int64_or_fail,
    is_int,
    is_pair_sequence,
)
from citelens.support._schema import (
    ADJUDICATION_SCHEMA,
    CLAIM_SCHEMA,
    EDGE_SCHEMA,
    EVIDENCE_SCHEMA,
)

__all__ = [
    "CLAIM_RECORD_KEYS",
    "EVIDENCE_RECORD_KEYS",
    "adjudication_rows",
    "citation_rows",
    "claim_rows",
    "evidence_rows",
    "source_length_rows",
]

CLAIM_RECORD_KEYS = frozenset(
    (
        "claim_id",
        "id",
        "fact_id",
        "claim_key",
        "start",
        "end",
        "span",
        "citations",
        "citation_ids",
        "evidence_ids",
        "claim_type",
    )
)
EVIDENCE_RECORD_KEYS = frozenset(
    (
        "evidence_id",
        "id",
        "citation_id",
        "span_id",
        "start",
        "end",
        "span",
        "source_length",
        "document_length",
        "source_id",
        "document_id",
    )
)
CITATION_RECORD_KEYS = frozenset(("claim_id", "claim", "fact_id", "evidence_id", "evidence"))
ADJUDICATION_RECORD_KEYS = frozenset(
    (
        "claim_id",
        "claim",
        "fact_id",
        "evidence_id",
        "evidence",
        "label",
        "adjudication",
        "judgment",
        "clinician_label",
    )
)


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
