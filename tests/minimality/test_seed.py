"""The seed example (shared/seeds/004_…) runs as written with the import path changed."""

from __future__ import annotations

import contextlib
import io
import json
import re

from conftest import shared_dir


def test_seed_example_runs() -> None:
    seed = shared_dir("seeds", "004_4f9310235358f511.txt").read_text(encoding="utf-8")
    match = re.search(r"^import hashlib$.*?^print\(report\.to_json\(\)\)$", seed, re.S | re.M)
    assert match is not None
    code = match.group(0).replace("openmed.clinical.citation_minimality", "citelens.minimality")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "seed_004", "exec"), {})
    report = json.loads(out.getvalue())
    (record,) = report["records"]
    # "the citation contains two tokens, while the required span contains one"
    assert record["status"] == "excess_context"
    assert record["citation_token_count"] == 2 and record["required_token_count"] == 1
    assert record["excess_token_count"] == 1 and record["review_required"] is True
    assert record["excess_context_offsets"] == [{"end": 16, "start": 10}]
    assert "beta" not in out.getvalue()
