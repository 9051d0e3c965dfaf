"""Fixtures of the Spark tests: one local ``local[2]`` session for the whole run (no network)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


def spark_builder_options() -> dict[str, str]:
    """Local, quiet, loopback-only settings shared by the tests and the benchmark."""
    return {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.memory": "1g",
        "spark.sql.shuffle.partitions": "4",
        "spark.default.parallelism": "2",
    }


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A classic local Spark session; the Python workers run this interpreter (the venv)."""
    pytest.importorskip("pyspark")
    pytest.importorskip("pandas")  # mapInArrow needs it (pyspark[sql])
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = SparkSession.builder.master("local[2]").appName("citelens-spark-tests")
    for key, value in spark_builder_options().items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
