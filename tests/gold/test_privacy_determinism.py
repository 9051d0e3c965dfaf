"""Fixed library errors without input values, redacted reprs, and order-independent results."""

from __future__ import annotations

import io
import json
import pathlib
import shutil
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from citelens.errors import GoldError
from citelens.gold import check_dataset, load_adapter, load_dataset, run

from ._helpers import SAMPLES, qa_case, write_case

CANARY = "CANARY-7f3a-secret-claim"


def test_errors_and_reprs_hold_no_input(tmp_path: pathlib.Path) -> None:
    bad = qa_case(CANARY)
    bad["goldVerdicts"][0]["verdict"] = CANARY
    write_case(tmp_path / CANARY, f"{CANARY}.json", bad)
    try:
        load_dataset(tmp_path / CANARY)
    except GoldError as err:
        assert CANARY not in str(err) and CANARY not in repr(err)
        assert err.__context__ is None
    else:
        raise AssertionError("expected GoldError")
    good = tmp_path / "good"
    write_case(good, "a.json", qa_case(CANARY))
    ds = load_dataset(good)
    assert CANARY not in repr(ds)
    assert CANARY not in repr(load_adapter("lexical"))
    outcome = run(datasets=good, results=tmp_path / "r", stdout=io.StringIO())
    assert CANARY not in repr(outcome)


def _card_without_time(card: dict[str, object]) -> str:
    card = dict(card)
    for key in ("run_id", "timestamp", "duration_s"):
        card.pop(key)
    return json.dumps(card, sort_keys=True)


@settings(max_examples=5, deadline=None)
@given(st.permutations(sorted(p.name for p in (SAMPLES / "cases").glob("*.json"))))
def test_file_creation_order_does_not_matter(order: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "ds"
        (root / "cases").mkdir(parents=True)
        shutil.copytree(SAMPLES / "fixtures", root / "fixtures")
        for name in order:
            shutil.copyfile(SAMPLES / "cases" / name, root / "cases" / name)
        check = check_dataset(root)
        assert check.dataset is not None
        assert check.dataset.digest == load_dataset(SAMPLES).digest
        outcome = run(
            datasets=root,
            results=pathlib.Path(tmp) / "r",
            env={"CITELENS_EVAL_SHA": "abcdef1"},
            stdout=io.StringIO(),
        )
        reference = run(
            datasets=SAMPLES,
            results=pathlib.Path(tmp) / "r2",
            env={"CITELENS_EVAL_SHA": "abcdef1"},
            stdout=io.StringIO(),
        )
        assert _card_without_time(outcome.scorecard) == _card_without_time(reference.scorecard)
