"""End to end on the bundled samples: import → corpus support → provenance → ``citelens sql``,
as ``make demo`` runs it (data-samples/importers/demo.sh)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from citelens.cli import main

SAMPLES = Path(__file__).parents[2] / "data-samples" / "importers"
FORMATS = ("anthropic", "openai", "gemini", "cohere", "bedrock", "alce", "longbench-cite")


def test_every_format_has_a_sample_that_imports_and_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sorted(p.stem for p in SAMPLES.glob("*.jsonl")) == sorted(FORMATS)
    for fmt in FORMATS:
        imported, out = tmp_path / fmt, tmp_path / f"{fmt}-out"
        quiet = "--no-progress"
        assert (
            main(["import", fmt, str(SAMPLES / f"{fmt}.jsonl"), "--out", str(imported), quiet]) == 0
        )
        assert main(["corpus", "support", str(imported), "--out", str(out), quiet]) == 0
        prov = out / "provenance"
        assert main(["provenance", str(imported), "--out", str(prov), quiet]) == 0
        assert (pq.read_metadata(imported / "sources.parquet").metadata or {}).get(
            b"citelens.privacy"
        ) == b"PRIVATE"
        assert (imported / "sources.parquet").stat().st_mode & 0o777 == 0o600
        # every citation edge of the import has exactly one provenance row
        edges = pq.read_table(imported / "citations.parquet").num_rows
        assert pq.read_table(prov / "provenance.parquet").num_rows == edges
    capsys.readouterr()


def test_the_anthropic_sample_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # data-samples/importers/anthropic.jsonl, checked by hand:
    # line 1: doc0 "The grass is green. The sky is blue.", doc1 "Café prices in Zürich rose. Tea
    #   fell."; cited doc0 [0, 20) "The grass is green. ", doc1 [0, 28) ("Café"4 + 1 +
    #   "prices"6 + 1 + "in"2 + 1 + "Zürich"6 + 1 + "rose."5 + 1 = 28), doc0 [20, 36) "The sky
    #   is blue.": three exact quotes;
    # line 2: content blocks "Ünïcode first. " (15) "Second block. " (14) "Third." (6): blocks
    #   1..3 are [15, 35) = "Second block. Third." (exact); a PDF page citation (no text: not
    #   checkable); "One string block." block 0 (exact);
    # line 3: search result 1's block "Beta two." (exact); two web citations (no text: not
    #   checkable). So 9 edges: 6 exact, 3 not checkable.
    imported, out = tmp_path / "imported", tmp_path / "out"
    sample = str(SAMPLES / "anthropic.jsonl")
    assert main(["import", "anthropic", sample, "--out", str(imported), "--no-progress"]) == 0
    assert capsys.readouterr().err == (
        "citelens: imported 3 exchanges: 6 claims, 9 citations, 6 sources with text\n"
    )
    assert main(["corpus", "support", str(imported), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    prov = out / "provenance"
    assert main(["provenance", str(imported), "--out", str(prov), "--no-progress"]) == 0
    summary = json.loads((prov / "summary.json").read_text(encoding="utf-8"))
    counts = summary["totals"]["counts"]
    assert (counts["exact"], counts["not_checkable"], summary["totals"]["edges"]) == (6, 3, 9)
    capsys.readouterr()
    query = "SELECT status, count(*) AS n FROM provenance GROUP BY status ORDER BY status"
    assert main(["sql", str(out), "--format", "csv", query]) == 0
    assert capsys.readouterr().out == "status,n\nexact,6\nnot_checkable,3\n"
