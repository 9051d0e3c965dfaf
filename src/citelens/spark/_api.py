"""Apache Spark: the corpus support evaluation on a Spark DataFrame corpus.

:func:`evaluate_support_spark` runs exactly the kernel of :mod:`citelens.corpus`
(:func:`citelens.corpus.evaluate_support_tables`) on Spark DataFrames that carry a
``document_ref`` column: the four roles are tagged and unioned into one DataFrame, repartitioned
by ``document_ref`` (so every document lives in exactly one partition), and each partition is
evaluated with ``mapInArrow``. The result is a Spark DataFrame with the schema of
``documents.parquet`` (:data:`citelens.corpus.SUPPORT_DOCUMENTS_SCHEMA`), one row per document.

Only DataFrame API calls that Spark Connect supports are used (no RDD, no SparkContext), so the
same call works with a classic session and with ``SparkSession.builder.remote(...)``.
PySpark (>= 4, with its Arrow and Spark Connect client dependencies) is the optional extra
``citelens[spark]``; it is imported only when this function is called, so ``import citelens``
never needs it.
"""

from __future__ import annotations

from typing import Any

from citelens.errors import CorpusError
from citelens.limits import Limits
from citelens.spark._plan import (
    RolePlan,
    build_plan,
    check_arguments,
    evaluate_partition,
)

__all__ = ["CorpusError", "evaluate_support_spark"]


def evaluate_support_spark(
    claims_df: Any,
    evidence_df: Any = None,
    citations_df: Any = None,
    adjudications_df: Any = None,
    *,
    limits: Limits | None = None,
    num_partitions: int | None = None,
) -> Any:
    """Evaluate citation support for every document of a Spark DataFrame corpus.

    Each DataFrame holds one role of the corpus (claims, evidence, citations, adjudications)
    with a string column ``document_ref`` plus the record columns of the support contract,
    exactly as :func:`citelens.corpus.run_support_corpus` takes them; ``None`` means the role
    is not supplied. ``limits`` bounds every document (as in the local engine).
    ``num_partitions`` sets the number of partitions the corpus is repartitioned into by
    ``document_ref`` (default: ``spark.sql.shuffle.partitions``, adaptive execution may
    coalesce them); a partition is evaluated in memory, so choose it so that a partition fits
    comfortably in an executor's Python worker.

    Returns a lazy ``pyspark.sql.DataFrame`` with the documents schema (``document_ref``,
    ``status``, ``error_category``, ``error_message`` and the flat report columns), one row per
    document; rows are sorted by ``document_ref`` within each partition only (use
    ``orderBy("document_ref")`` for a global order). Its rows equal those of
    :func:`citelens.corpus.evaluate_support_tables` on the same corpus.

    Errors the schemas reveal (a missing or non-text ``document_ref``, a wrong column type, an
    input that is not a DataFrame, invalid ``limits`` or ``num_partitions``) raise
    :class:`CorpusError` immediately. A null ``document_ref`` is found only while the result is
    computed: the Spark action then fails with the same fixed message.
    """
    inputs = check_arguments(
        (claims_df, evidence_df, citations_df, adjudications_df), limits, num_partitions
    )
    plan = build_plan(inputs, limits)
    combined = plan.combined
    if num_partitions is None:
        combined = combined.repartition("document_ref")
    else:
        combined = combined.repartition(num_partitions, "document_ref")
    roles: tuple[RolePlan | None, ...] = plan.roles
    bound = limits

    def _evaluate(batches: Any) -> Any:
        return evaluate_partition(batches, roles, bound)

    return combined.mapInArrow(_evaluate, plan.output_schema)
