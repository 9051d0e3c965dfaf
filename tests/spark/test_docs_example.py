"""docs/spark.md's first example works as written (issue 11, item 8).

The first Python block of the page is run in a fresh interpreter whose environment has no
``PYSPARK_PYTHON``/``PYSPARK_DRIVER_PYTHON`` and whose ``PATH`` does not lead to this venv's
``python3``, as for a new user: Spark would then start its workers with a Python that lacks
citelens, so the run passes only because the example itself points them at ``sys.executable``.
Its output must be the table the page shows.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pandas")  # mapInArrow needs it (pyspark[sql])

pytestmark = [pytest.mark.spark]

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "spark.md"


def _first_example() -> tuple[str, str]:
    """The page's first Python block and the output block that follows it ("prints")."""
    text = DOC.read_text()
    match = re.search(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", text, flags=re.DOTALL)
    assert match is not None
    assert text.index("```python") == match.start()  # it is the first example of the page
    return match.group(1), match.group(2)


def test_first_example_runs_as_written(tmp_path: pathlib.Path) -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Java is not installed")
    code, printed = _first_example()
    script = tmp_path / "example.py"
    script.write_text(code)
    venv_bin = str(pathlib.Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_")}
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep) if part and part != venv_bin
    )
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    # only the exception's last line: the full stderr is Spark's log
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1:]
    assert result.stdout.strip() == printed.strip()
