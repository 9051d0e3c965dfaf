"""Run evaluate_support_spark over Spark Connect (a local Connect server) and compare it with
the local engine. Run as a script in a fresh process by test_connect.py: a process cannot hold
a classic session and a local Connect server at the same time."""

from __future__ import annotations

import os
import sys
import warnings

warnings.simplefilter("ignore")
os.environ["PYSPARK_PYTHON"] = sys.executable
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _corpus import random_corpus  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from citelens.corpus import evaluate_support_tables  # noqa: E402
from citelens.spark import evaluate_support_spark  # noqa: E402


def main() -> int:
    builder = SparkSession.builder.remote("local[2]")
    for key, value in {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.driver.memory": "1g",
        "spark.sql.shuffle.partitions": "3",
    }.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if type(spark).__module__ != "pyspark.sql.connect.session":
        print("not a Spark Connect session")
        return 1
    corpus = random_corpus(11, documents=30)
    roles = ("claims", "evidence", "citations", "adjudications")
    frames = [spark.createDataFrame(corpus[role]) for role in roles]
    result = evaluate_support_spark(*frames, num_partitions=3)
    got = sorted(result.toArrow().to_pylist(), key=lambda row: row["document_ref"])
    expected = evaluate_support_tables(*(corpus[role] for role in roles)).to_pylist()
    spark.stop()
    if got != expected:
        print("connect result differs from the local engine")
        return 1
    print(f"connect-equal {len(got)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
