"""Dataset loading and validation (§2), the digest, and our own gold set (§2.8)."""

from __future__ import annotations

import filecmp
import json
import pathlib

import pytest

from citelens.errors import GoldError
from citelens.gold import VERDICT_SCALE, bundled_dataset_dir, check_dataset, load_dataset

from ._helpers import SAMPLES, qa_case, write_case

OPENGATE_DIGEST = "sha256:0213da563467e65778af81882a44281dc94cafc305b40d6ffd3aa2c000202e98"


def _problems(root: pathlib.Path) -> list[str]:
    check = check_dataset(root)
    assert check.dataset is None
    return list(check.problems)


def test_opengate_validates_with_digest(opengate: pathlib.Path) -> None:
    check = check_dataset(opengate)
    assert check.problems == ()
    ds = check.dataset
    assert ds is not None
    assert ds.digest == OPENGATE_DIGEST
    assert (len(ds.qa), len(ds.grounding)) == (27, 3)
    # issue 13: the three kinds are loaded now, nothing is ignored
    assert (len(ds.redaction), len(ds.simplification), len(ds.retrieval)) == (5, 3, 1)
    assert ds.ignored == {}
    assert sum(len(c.gold_claims) for c in ds.qa) == 68
    assert sum(len(c.gold_non_claims) for c in ds.qa) == 8
    assert sum(len(c.references) for c in ds.qa) == 48
    assert sum(len(c.gold_verdicts) for c in ds.qa) == 63
    assert ds.fixture is not None and len(ds.fixture) == 17
    assert sum(1 for c in ds.grounding if not c.answerable) == 1


def test_sorted_and_underscore_files_ignored(tmp_path: pathlib.Path) -> None:
    write_case(tmp_path, "b.json", qa_case("b"))
    write_case(tmp_path, "a.json", qa_case("a"))
    write_case(tmp_path, "_template.json", "not json at all")
    write_case(tmp_path, "notes.txt", "ignored")
    (tmp_path / "cases" / "sub.json").mkdir()
    ds = load_dataset(tmp_path)
    assert [c.id for c in ds.qa] == ["a", "b"]


def test_no_cases(tmp_path: pathlib.Path) -> None:
    check = check_dataset(tmp_path)
    assert check.no_cases
    with pytest.raises(GoldError) as info:
        load_dataset(tmp_path)
    assert str(info.value) == "gold dataset has no cases"
    assert info.value.category == "input"
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_every_validation_problem_is_listed(tmp_path: pathlib.Path) -> None:
    write_case(tmp_path, "01-bad-json.json", "{not json")
    write_case(tmp_path, "02-array.json", [1, 2])
    write_case(tmp_path, "03-no-id.json", {"kind": "qa"})
    write_case(tmp_path, "04-a.json", qa_case("dup"))
    write_case(tmp_path, "05-b.json", qa_case("dup"))
    bad = qa_case("bad")
    bad["goldClaims"] = [{"originalText": "x", "text": 3, "citations": [0, "", True, "Smith 2020"]}]
    bad["goldVerdicts"] = [
        {"claimText": "x", "citation": 9, "verdict": "Strong_Support"},
    ]
    bad["references"] = {"1": {"name": "A", "text": "t"}, "01": {"name": "B", "text": "u"}}
    write_case(tmp_path, "06-bad.json", bad)
    write_case(tmp_path, "07-ground.json", {"id": "g", "kind": "grounding"})
    write_case(tmp_path, "08-bytes.json", "")
    (tmp_path / "cases" / "08-bytes.json").write_bytes(b"\xff\xfe{}")
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "citation-styles.json").write_text(
        json.dumps({"items": [{"style": "s", "text": "t", "expected": []}, {"style": "s"}]})
    )
    problems = _problems(tmp_path)
    assert problems[0].startswith("cases/01-bad-json.json: invalid JSON:")
    assert "cases/02-array.json: must be a JSON object" in problems
    assert "cases/03-no-id.json: id: is required" in problems
    assert 'cases/05-b.json: id: duplicate id "dup" (also in cases/04-a.json)' in problems
    assert "cases/06-bad.json: goldClaims[0].text: must be a string" in problems
    for j in (0, 1, 2):
        assert (
            f"cases/06-bad.json: goldClaims[0].citations[{j}]: must be a positive integer or "
            "a non-empty string"
        ) in problems
    assert "cases/06-bad.json: goldClaims[0].citations[3]: must be" not in " ".join(problems)
    assert any(
        p.startswith('cases/06-bad.json: references["01"]: key has the same') for p in problems
    )
    assert (
        "cases/06-bad.json: goldVerdicts[0].citation: no reference with this key in references"
        in problems
    )
    assert (
        "cases/06-bad.json: goldVerdicts[0].verdict: must be one of " + ", ".join(VERDICT_SCALE)
        in problems
    )
    assert "cases/07-ground.json: question: is required" in problems
    assert "cases/07-ground.json: context: is required" in problems
    assert "cases/08-bytes.json: file is not valid UTF-8" in problems
    assert 'fixtures/citation-styles.json: items[1].style: duplicate style "s"' in problems
    assert "fixtures/citation-styles.json: items[1].text: must be a string" in problems
    assert "fixtures/citation-styles.json: items[1].expected: is required" in problems
    with pytest.raises(GoldError) as info:
        load_dataset(tmp_path)
    assert (str(info.value), info.value.category) == ("gold dataset is invalid", "input")
    assert info.value.__context__ is None


def test_wrong_types_named_by_json_path(tmp_path: pathlib.Path) -> None:
    case = qa_case(
        "t",
        manuscript=5,
        goldNonClaims=["ok", 7],
        references={"1": {"name": "", "text": None}},
    )
    case["goldVerdicts"] = []
    write_case(tmp_path, "t.json", case)
    write_case(
        tmp_path,
        "g.json",
        {
            "id": "g",
            "kind": "grounding",
            "question": "q",
            "context": ["a", 1],
            "answerAnchors": [{"value": ""}, {"value": "x", "aliases": "y"}],
            "allowedNewNumbers": [True],
            "answerable": "no",
            "abstainMarkers": "none",
        },
    )
    problems = _problems(tmp_path)
    assert problems == [
        "cases/g.json: context: must be a string or an array of strings",
        "cases/g.json: answerAnchors[0].value: must be a non-empty string",
        "cases/g.json: answerAnchors[1].aliases: must be an array of strings",
        "cases/g.json: allowedNewNumbers[0]: must be a string or a number",
        "cases/g.json: answerable: must be a boolean",
        "cases/g.json: abstainMarkers: must be an array of strings",
        "cases/t.json: manuscript: must be a string",
        "cases/t.json: goldNonClaims[1]: must be a string",
        'cases/t.json: references["1"].name: must be a non-empty string',
        'cases/t.json: references["1"].text: must be a string',
    ]


def test_ignored_kinds_only_validate_id(tmp_path: pathlib.Path) -> None:
    write_case(tmp_path, "r.json", {"id": "r", "kind": "other-kind", "whatever": 1})
    write_case(tmp_path, "u.json", {"id": "u", "kind": "future-kind"})
    write_case(tmp_path, "q.json", qa_case("q"))
    ds = load_dataset(tmp_path)
    assert ds.ignored == {"future-kind": 1, "other-kind": 1}
    assert ds.case_count == 3


def test_bom_and_canonical_reference_keys(tmp_path: pathlib.Path) -> None:
    case = qa_case("k")
    case["goldVerdicts"][0]["citation"] = "1"
    write_case(tmp_path, "k.json", "")
    (tmp_path / "cases" / "k.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(case).encode())
    ds = load_dataset(tmp_path)
    assert ds.qa[0].gold_verdicts[0].citation == 1
    assert ds.qa[0].reference(1) is not None


def test_our_gold_set_is_bundled_unchanged() -> None:
    bundled = bundled_dataset_dir()
    for sub in ("cases", "fixtures"):
        names = sorted(p.name for p in (SAMPLES / sub).iterdir())
        assert names == sorted(p.name for p in (bundled / sub).iterdir())
        _match, mismatch, errors = filecmp.cmpfiles(SAMPLES / sub, bundled / sub, names, False)
        assert mismatch == [] and errors == []
    assert load_dataset(SAMPLES).digest == load_dataset(None).digest


def test_our_gold_set_meets_the_minimums() -> None:
    ds = load_dataset(SAMPLES)
    assert len(ds.qa) >= 12 and len(ds.grounding) >= 4
    domains = {c.id.split("-")[0] for c in ds.qa}
    assert {"clinical", "legal", "finance", "software"} <= domains
    labels = [v.verdict for c in ds.qa for v in c.gold_verdicts]
    assert all(labels.count(label) >= 2 for label in VERDICT_SCALE)
    assert sum(len(c.gold_non_claims) for c in ds.qa) >= 4
    assert any(len(c.references) >= 2 for c in ds.qa)
    texts = " ".join(g.original_text for c in ds.qa for g in c.gold_claims)
    for marker in (".1 ", "[1]", "(1)", "et al., 20", "(2022)"):
        assert marker in texts
    assert any(not c.answerable for c in ds.grounding)
    assert any(a.aliases for c in ds.grounding for a in c.anchors)
    assert any(c.allowed_new_numbers for c in ds.grounding)
    assert ds.fixture is not None and len(ds.fixture) >= 12
    assert any(item.known_gap for item in ds.fixture)
