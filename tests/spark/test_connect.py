"""evaluate_support_spark over Spark Connect (``SparkSession.builder.remote("local[2]")``).

The local Connect server starts its own Spark context, so the check runs in a fresh process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pandas")
pytest.importorskip("grpc")  # the pyspark[connect] client

pytestmark = pytest.mark.spark


def test_connect_equals_local_engine() -> None:
    script = Path(__file__).with_name("_connect_check.py")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "connect-equal 36" in done.stdout  # 30 random + 6 special documents
