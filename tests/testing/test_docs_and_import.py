"""docs/ci.md's pytest example runs as written, and ``import citelens.testing`` is light."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ci.md"
ENGINES = ("polars", "pyarrow", "numpy", "duckdb")


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_documented_pytest_example_passes() -> None:
    block = next(b for b in _python_blocks() if b.startswith("# tests/test_citations.py"))
    namespace: dict[str, Any] = {}
    exec(compile(block, str(DOC), "exec"), namespace)
    tests = sorted(name for name in namespace if name.startswith("test_"))
    assert tests == ["test_claims_cite_valid_evidence", "test_summary_citations_are_consistent"]
    for name in tests:
        namespace[name]()  # raises AssertionError if the documented example fails


def test_import_loads_no_engine() -> None:
    code = (
        "import json, sys\n"
        "import citelens.testing\n"
        f"print(json.dumps(sorted(m for m in {ENGINES!r} if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(result.stdout) == []
