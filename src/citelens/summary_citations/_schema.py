"""Schema classification of claims and evidence tables (summary-citations.md §13).

A table is *flat* when its schema alone shows that column-wise normalisation is exact: id
columns of scalar type, offset columns of integer type, no container columns where a span
could hide. Other tables become Python rows for the record walker.
"""

from __future__ import annotations

import pyarrow as pa

from citelens.summary_citations._keys import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    CONTAINER_KEYS,
    DIRECT_SPAN_KEYS,
    EVIDENCE_ID_KEYS,
)

__all__ = ["OFFSET_KINDS", "SCALAR_KINDS", "flat_claims_ok", "flat_evidence_ok", "type_kind"]

SCALAR_KINDS = frozenset({"null", "str", "int", "u64", "bool", "float"})
OFFSET_KINDS = frozenset({"null", "int"})
_CLAIM_CONTAINER_ONLY = tuple(k for k in CONTAINER_KEYS if k not in CITATION_COLLECTION_KEYS)


# --------------------------------------------------------------------------------------------
# Schema classification


def type_kind(t: pa.DataType) -> str:
    """The value class of an Arrow type, as far as the rules of §5–§7 distinguish them."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "str"
    if pa.types.is_uint64(t):
        return "u64"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "list"
    if pa.types.is_struct(t):
        return "struct"
    return "other"


def _unique_names(names: list[str]) -> bool:
    return len(set(names)) == len(names)


def _flat_struct(t: pa.StructType) -> bool:
    names = [t.field(i).name for i in range(t.num_fields)]
    if not _unique_names(names):
        return False
    for i in range(t.num_fields):
        field = t.field(i)
        kind = type_kind(field.type)
        if field.name in DIRECT_SPAN_KEYS:
            if kind not in OFFSET_KINDS:
                return False
        elif field.name in CITATION_ID_KEYS:
            if kind not in SCALAR_KINDS:
                return False
        elif (field.name in CONTAINER_KEYS or field.name in CITATION_COLLECTION_KEYS) and (
            kind != "null"
        ):
            return False
    return True


def _collection_ok(t: pa.DataType, *, container: bool) -> bool:
    kind = type_kind(t)
    if kind in SCALAR_KINDS:
        return True
    if kind == "struct":
        return not container and _flat_struct(t)
    if kind == "list":
        inner = t.value_type
        inner_kind = type_kind(inner)
        if inner_kind in ("int", "u64"):
            # An int list under a container key could be a span of the direct item.
            return not container
        if inner_kind in SCALAR_KINDS:
            return True
        if inner_kind == "struct":
            return _flat_struct(inner)
    return False


def flat_evidence_ok(schema: pa.Schema) -> bool:
    """True when an evidence table can be normalised column-wise exactly."""
    if not _unique_names(list(schema.names)):
        return False
    for field in schema:
        kind = type_kind(field.type)
        if field.name in EVIDENCE_ID_KEYS:
            if kind not in SCALAR_KINDS:
                return False
        elif field.name in DIRECT_SPAN_KEYS:
            if kind not in OFFSET_KINDS:
                return False
        elif field.name in CONTAINER_KEYS and kind != "null":
            return False
    return True


def flat_claims_ok(schema: pa.Schema) -> bool:
    """True when a claims table can be normalised column-wise exactly."""
    if not _unique_names(list(schema.names)):
        return False
    for field in schema:
        name = field.name
        kind = type_kind(field.type)
        if name in DIRECT_SPAN_KEYS:
            if kind not in OFFSET_KINDS:
                return False
        elif name in _CLAIM_CONTAINER_ONLY:
            if kind != "null":
                return False
        elif name in CLAIM_ID_KEYS or name in CITATION_COLLECTION_KEYS:
            container = name in CONTAINER_KEYS
            if not _collection_ok(field.type, container=container):
                return False
    return True
