"""Regenerate ``src/citelens/_sql_views.py`` from ``sql/views.sql`` (run from anywhere)."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = ROOT / "src" / "citelens" / "_sql_views.py"


def module_text() -> str:
    """The expected content of ``_sql_views.py``."""
    text = (ROOT / "sql" / "views.sql").read_text(encoding="utf-8")
    if '"""' in text or "\\" in text:
        raise SystemExit("views.sql must not contain triple quotes or backslashes")
    return (
        '"""The text of ``sql/views.sql``, embedded so that an installed package has it.\n\n'
        "Generated: keep it byte-identical to ``sql/views.sql`` (``tests/sql/test_views.py`` "
        "checks;\nregenerate with ``python tests/sql/sync_views.py``).\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        '__all__ = ["VIEWS_SQL"]\n\n'
        f'VIEWS_SQL = r"""{text}"""\n'
    )


if __name__ == "__main__":
    TARGET.write_text(module_text(), encoding="utf-8")
