"""Corpus outputs: result objects, Markdown helpers and the staged multi-file write."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from citelens._atomic import WriteFailure, parquet_bytes, write_many_atomic
from citelens._jsonout import canonical_json
from citelens.corpus._scan import _fail


def _write_outputs(
    out_dir: object,
    documents: pa.Table,
    summary_json: str,
    summary_markdown: str,
    extra: tuple[tuple[str, pa.Table | None], ...] = (),
) -> list[Path]:
    """Write a corpus run's files into ``out_dir`` as one unit (staged, then renamed)."""
    failed = False
    written: list[Path] = []
    try:
        root = Path(os.fspath(out_dir))  # type: ignore[call-overload]
        files: list[tuple[object, bytes]] = [
            (root / "documents.parquet", parquet_bytes(documents)),
            (root / "summary.json", summary_json.encode("utf-8")),
            (root / "summary.md", summary_markdown.encode("utf-8")),
        ]
        files.extend(
            (root / name, parquet_bytes(table)) for name, table in extra if table is not None
        )
        written = write_many_atomic(files)
    except (WriteFailure, TypeError, OSError):
        failed = True
    if failed:
        raise _fail("corpus report could not be written", "io")
    return written


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


@dataclass(frozen=True)
class CorpusResult:
    """Corpus outputs of a mode: per-document rows, totals and a per-record table."""

    documents: pa.Table
    summary: dict[str, Any]
    records: pa.Table | None = field(default=None, repr=False)
    records_name: str = "records.parquet"

    def summary_json(self) -> str:
        """Canonical JSON of the corpus totals."""
        return canonical_json(self.summary)

    def summary_markdown(self) -> str:
        """A Markdown view of the corpus totals."""
        lines = [f"# {self.summary['title']}", "", "| Metric | Value |", "| --- | ---: |"]
        for key, value in self.summary["totals"].items():
            lines.append(f"| {key} | {_score(value) if isinstance(value, float) else value} |")
        lines += ["", "## Documents with the most flagged records", ""]
        lines += ["| Document reference | Flagged |", "| --- | ---: |"]
        lines += [
            f"| `{r['document_ref']}` | {r['flagged_count']} |"
            for r in self.summary["worst_documents"]
        ]
        lines += ["", "## Failed documents", "", "| Category | Message | Documents |"]
        lines += ["| --- | --- | ---: |"]
        lines += [
            f"| `{e['category']}` | {e['message']} | {e['documents']} |"
            for e in self.summary["errors"]
        ]
        lines.append("")
        return "\n".join(lines)

    def write(self, out_dir: object) -> list[Path]:
        """Write documents.parquet, summary.json, summary.md and the record table as a unit."""
        return _write_outputs(
            out_dir,
            self.documents,
            self.summary_json(),
            self.summary_markdown(),
            ((self.records_name, self.records),),
        )

    def __repr__(self) -> str:
        return f"CorpusResult(document_count={self.documents.num_rows})"


def _totals_errors(frame: pl.DataFrame) -> list[dict[str, Any]]:
    errors = frame.filter(pl.col("status") == "error")
    counts = errors.group_by("error_category", "error_message").len()
    return [
        {"category": r["error_category"], "message": r["error_message"], "documents": r["len"]}
        for r in counts.sort("error_category", "error_message").to_dicts()
    ]


def _concat_tables(parts: list[pa.Table]) -> pa.Table | None:
    parts = [p for p in parts if p.num_rows]
    if not parts:
        return None
    return pa.concat_tables(parts, promote_options="permissive")


def _concat_frames(parts: list[pa.Table]) -> pl.DataFrame:
    frames = []
    for part in parts:
        if part.num_rows:
            frame = pl.from_arrow(part)
            assert isinstance(frame, pl.DataFrame)
            frames.append(frame)
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()
