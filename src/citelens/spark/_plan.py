"""Private helpers of :mod:`citelens.spark`: argument checks, the union plan, the partition step.

The four role DataFrames are put into one DataFrame whose columns never collide: each role's
own columns are renamed positionally to ``_citelens_<role>_<position>`` (so two roles may use
the same column name with different types, and every role keeps exactly its own columns and
types), ``document_ref`` is shared, ``_citelens_role`` tags the role and ``_citelens_row`` keeps
each role's input order (the contract names the first defective row in input order). In a
partition the rows of each role are selected, put back in input order and renamed back, and the
local kernel evaluates them. pyspark is imported only inside these functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from citelens.corpus import evaluate_support_tables
from citelens.corpus._support import ROLES, SUPPORT_DOCUMENTS_SCHEMA
from citelens.errors import CitelensError, CorpusError, InternalError
from citelens.limits import Limits

__all__ = [
    "ROLE_COLUMN",
    "ROW_COLUMN",
    "RolePlan",
    "SparkPlan",
    "build_plan",
    "check_arguments",
    "evaluate_partition",
]

ROLE_COLUMN = "_citelens_role"
ROW_COLUMN = "_citelens_row"


@dataclass(frozen=True)
class RolePlan:
    """How one role's table is rebuilt in a partition: its original column names (in order)
    and the column of the combined DataFrame that holds each of them."""

    index: int
    names: tuple[str, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True)
class SparkPlan:
    """The combined (not yet repartitioned) DataFrame, the role plans and the output schema."""

    combined: Any
    roles: tuple[RolePlan | None, ...]
    output_schema: Any


def _fail(message: str, category: str) -> CorpusError:
    return CorpusError(message, category)


def check_arguments(
    frames: Sequence[Any], limits: object, num_partitions: object
) -> tuple[Any, ...]:
    """Validate the options and the input objects; return the four inputs (``None`` kept)."""
    if limits is not None and not isinstance(limits, Limits):
        raise _fail("limits must be a Limits instance", "policy")
    if num_partitions is not None and (type(num_partitions) is not int or num_partitions < 1):
        raise _fail("num_partitions must be a positive integer", "policy")
    missing = False
    try:
        from pyspark.sql import DataFrame
    except ImportError:
        missing = True
    if missing:
        raise _fail("pyspark is required for citelens.spark", "input")
    if frames[0] is None:
        raise _fail("claims input could not be read", "input")
    for role, frame in zip(ROLES, frames):
        if frame is not None and not isinstance(frame, DataFrame):
            raise _fail(f"{role} input must be a Spark DataFrame", "input")
    return tuple(frames)


def _arrow_schema(frame: Any, role: str) -> pa.Schema:
    """The Arrow schema the partition function will see for this DataFrame."""
    failed = False
    schema: pa.Schema | None = None
    from pyspark.errors import PySparkException  # optional dependency: imported on use
    from pyspark.sql.pandas.types import to_arrow_schema

    try:
        schema = to_arrow_schema(frame.schema)
    except (PySparkException, TypeError, ValueError):  # a schema Arrow cannot represent
        failed = True
    if failed or not isinstance(schema, pa.Schema):
        raise _fail(f"{role} input could not be read", "input")
    return schema


def _dry_run(schemas: Sequence[pa.Schema | None], limits: Limits | None) -> None:
    """Run the local kernel on empty tables of the input schemas: the schema errors of the
    local engine (missing or non-text ``document_ref``, wrong column types) are raised here,
    on the driver, before any Spark job."""
    tables = [None if s is None else s.empty_table() for s in schemas]
    failure: tuple[str, str] | None = None
    try:
        evaluate_support_tables(tables[0], tables[1], tables[2], tables[3], limits=limits)
    except InternalError:
        raise
    except CitelensError as exc:
        failure = (str(exc.args[0]), exc.category)
    if failure is not None:
        raise _fail(*failure)


def build_plan(frames: Sequence[Any], limits: Limits | None) -> SparkPlan:
    """Check the schemas with the local kernel and build the combined DataFrame."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    schemas = [
        None if frame is None else _arrow_schema(frame, role) for role, frame in zip(ROLES, frames)
    ]
    _dry_run(schemas, limits)
    parts: list[Any] = []
    roles: list[RolePlan | None] = []
    for index, (frame, schema) in enumerate(zip(frames, schemas)):
        if frame is None or schema is None:
            roles.append(None)
            continue
        names = tuple(schema.names)
        sources = tuple(
            "document_ref" if name == "document_ref" else f"_citelens_{index}_{position}"
            for position, name in enumerate(names)
        )
        renamed = frame.toDF(*sources)
        parts.append(
            renamed.select(
                F.lit(index).cast("int").alias(ROLE_COLUMN),
                F.monotonically_increasing_id().alias(ROW_COLUMN),
                F.col("document_ref").cast("string").alias("document_ref"),
                *[F.col(source) for source in sources if source != "document_ref"],
            )
        )
        roles.append(RolePlan(index=index, names=names, sources=sources))
    combined = reduce(lambda left, right: left.unionByName(right, allowMissingColumns=True), parts)
    return SparkPlan(
        combined=combined,
        roles=tuple(roles),
        output_schema=from_arrow_schema(SUPPORT_DOCUMENTS_SCHEMA),
    )


def _role_table(table: pa.Table, plan: RolePlan) -> pa.Table:
    part = table.filter(pc.equal(table.column(ROLE_COLUMN), plan.index))
    if part.num_rows > 1:
        part = part.take(pc.sort_indices(part.column(ROW_COLUMN)))
    return pa.Table.from_arrays([part.column(s) for s in plan.sources], names=list(plan.names))


def evaluate_partition(
    batches: Iterable[pa.RecordBatch],
    roles: Sequence[RolePlan | None],
    limits: Limits | None,
) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` step: evaluate every document of one partition with the local kernel.

    A partition holds all rows of its documents (the corpus is repartitioned by
    ``document_ref``), so per-document results equal the local engine's.
    """
    collected = [batch for batch in batches if batch.num_rows]
    if not collected:
        return
    table = pa.Table.from_batches(collected)
    del collected
    tables = [None if plan is None else _role_table(table, plan) for plan in roles]
    del table
    failure: tuple[str, str] | None = None
    result: pa.Table | None = None
    try:
        # the same batch engine as the local corpus mode (an unexpected exception is
        # InternalError, raised as is: never an input error)
        result = evaluate_support_tables(tables[0], tables[1], tables[2], tables[3], limits=limits)
    except InternalError:
        raise
    except CitelensError as exc:
        failure = (str(exc.args[0]), exc.category)
    if failure is not None:
        raise _fail(*failure)
    assert result is not None
    yield from result.to_batches()
