"""citelens.types: the named parameter types are importable without an engine and are the
annotations of the public parameters (issue 11 item 3)."""

from __future__ import annotations

import inspect
import subprocess
import sys

import citelens
from citelens.corpus import run_support_corpus
from citelens.minimality import check_citation_minimality, check_citation_minimality_batch
from citelens.summary_citations import build_summary_citation_report
from citelens.types import ArrowStreamExportable

from ._forms import CapsuleOnly


def test_types_import_no_engine() -> None:
    code = (
        "import sys\n"
        "import citelens\n"
        "from citelens.types import CollectionLike, CorpusInput, PathLike, TableLike\n"
        "from citelens import TableLike as again\n"
        "heavy = ('polars', 'pyarrow', 'duckdb', 'numpy')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_the_aliases_are_exported() -> None:
    for name in ("TableLike", "CollectionLike", "PathLike"):
        assert name in citelens.__all__
    assert "types" in citelens.__all__


def _annotation(function: object, parameter: str) -> str:
    annotation = inspect.signature(function).parameters[parameter].annotation  # type: ignore[arg-type]
    assert isinstance(annotation, str)  # postponed annotations: the alias names as written
    return annotation


def test_public_parameters_use_the_aliases() -> None:
    support = citelens.compute_citation_support_metrics
    assert _annotation(support, "claims") == "CollectionLike"
    assert _annotation(support, "adjudications") == "CollectionLike | None"
    assert _annotation(build_summary_citation_report, "evidence") == "CollectionLike | None"
    assert _annotation(check_citation_minimality, "citations") == "CollectionLike"
    assert _annotation(check_citation_minimality_batch, "documents") == "CollectionLike"
    assert _annotation(run_support_corpus, "claims") == "CorpusInput"


def test_stream_protocol_is_runtime_checkable() -> None:
    assert isinstance(CapsuleOnly(None), ArrowStreamExportable)  # type: ignore[arg-type]
    assert not isinstance([], ArrowStreamExportable)
