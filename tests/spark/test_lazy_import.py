"""``citelens.spark`` imports PySpark lazily (runs in ``make test``, no Spark needed)."""

from __future__ import annotations

import subprocess
import sys

CHECK_IMPORT = """
import sys
import citelens, citelens.spark
assert "pyspark" not in sys.modules, "pyspark imported"
print("ok")
"""

CHECK_MISSING = """
import sys
sys.modules["pyspark"] = None  # as if PySpark were not installed
sys.modules["pyspark.sql"] = None
from citelens.errors import CorpusError
from citelens.spark import evaluate_support_spark
try:
    evaluate_support_spark(object())
except CorpusError as exc:
    assert exc.args == ("pyspark is required for citelens.spark",), exc.args
    assert exc.category == "input"
    assert exc.__cause__ is None and exc.__context__ is None
    print("ok")
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_import_does_not_need_pyspark() -> None:
    assert _run(CHECK_IMPORT).strip().endswith("ok")


def test_missing_pyspark_is_a_fixed_error() -> None:
    assert _run(CHECK_MISSING).strip().endswith("ok")
