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

from citelens.spark._api import (
    CorpusError,
    evaluate_support_spark,
)

__all__ = [
    "CorpusError",
    "evaluate_support_spark",
]
