"""Adapter loading and validation (§8.1–§8.3), spec forms, async functions, lexical helpers."""

from __future__ import annotations

import pathlib

import pytest

from citelens.errors import GoldError
from citelens.gold import check_adapter, load_adapter
from citelens.gold._text import sentences, strip_markers
from citelens.gold.adapters import lexical

FILE_ADAPTER = """
meta = {"name": "file-system"}
state = {"calls": 0}

def online_available():
    return True

def online_config_hint():
    return ""

async def answer(question, context):
    state["calls"] += 1
    return {"text": "async " + question}
"""


def test_bundled_lexical() -> None:
    adapter = load_adapter("lexical")
    assert adapter.name == "lexical"
    assert adapter.capabilities == (
        "claims",
        "verdicts",
        "grounding",
        "redaction",
        "simplification",
        "retrieval",
    )
    assert adapter.call("run_model").value == "lexical-1"


def test_file_path_is_fresh_module_each_load(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "my_adapter.py"
    path.write_text(FILE_ADAPTER, encoding="utf-8")
    first = load_adapter(str(path))
    second = load_adapter(str(path))
    assert first.name == "file-system" and first.capabilities == ("grounding",)
    assert first.obj is not second.obj
    call = first.call("answer", "q?", "ctx")
    assert call.ok and call.value == {"text": "async q?"}  # coroutine awaited
    assert first.obj.state["calls"] == 1 and second.obj.state["calls"] == 0
    first.close()


def test_file_name_is_default_name(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "plain.py"
    path.write_text(FILE_ADAPTER.replace('meta = {"name": "file-system"}', ""), encoding="utf-8")
    assert load_adapter(str(path)).name == "plain"


def test_module_attr_class_and_dotted_module() -> None:
    scripted = load_adapter("gold._test_adapters:Scripted")
    assert scripted.name == "scripted"  # from meta
    instance = load_adapter("gold._test_adapters:scripted")
    assert instance.obj is load_adapter("gold._test_adapters:scripted").obj
    dotted = load_adapter("citelens.gold.adapters.lexical")
    assert dotted.name == "lexical" and dotted.obj is lexical


def test_load_errors() -> None:
    for spec in ("no_such_module_xyz", "missing/adapter.py", "gold._test_adapters:Nope", "%%"):
        check = check_adapter(spec)
        assert check.adapter is None and check.load_error is not None
    assert check_adapter("missing/adapter.py").load_error.startswith("FileNotFoundError: ")  # type: ignore[union-attr]
    with pytest.raises(GoldError) as info:
        load_adapter("no_such_module_xyz")
    assert (str(info.value), info.value.category) == ("gold adapter could not be loaded", "input")
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_every_validation_problem_in_order() -> None:
    check = check_adapter("gold._test_adapters:Broken")
    assert check.load_error is None
    assert list(check.problems) == [
        "missing required export: online_available()",
        "export online_config_hint is not callable",
        "no capability implemented — provide split_claims() (claims), analyze_batch() "
        "(verdicts), answer() (grounding), redact() (redaction), simplify() (simplification) "
        "or fetch_record() (retrieval)",
        "export analyze_batch is not callable",
        "optional export reset_timing is not callable",
        'meta must be a mapping with a non-empty string "name"',
    ]
    with pytest.raises(GoldError) as info:
        load_adapter("gold._test_adapters:Broken")
    assert str(info.value) == "gold adapter is invalid"


def test_lexical_sentence_splitter_examples() -> None:
    assert sentences("…versus placebo.1 Stroke risk fell.") == [
        "…versus placebo.1",
        "Stroke risk fell.",
    ]
    assert sentences("It was 2.82 mm wide.") == ["It was 2.82 mm wide."]
    assert sentences("Smith et al. (2021) said so. Next") == [
        "Smith et al. (2021) said so.",
        "Next",
    ]
    assert sentences("(p<0.001).3 These rose") == ["(p<0.001).3", "These rose"]
    assert sentences("See Fig. 2 here. Also e.g. This") == ["See Fig. 2 here.", "Also e.g. This"]
    assert sentences("one\n\ntwo") == ["one", "two"]
    assert strip_markers("versus placebo.1,2") == "versus placebo."
    assert strip_markers("the rate fell [1, 2] , then") == "the rate fell, then"


def test_lexical_rules() -> None:
    assert lexical.judge("", "anything")[:2] == ("not_supported", "R0")
    ref = "Drug Z lowered systolic blood pressure by 12 mmHg compared with placebo."
    assert lexical.judge("Drug Z lowered systolic blood pressure", ref)[:2] == (
        "strong_support",
        "R7",
    )
    assert lexical.judge("Drug Z significantly lowered systolic blood pressure", ref)[1] == "R4"
    assert lexical.judge("Drug Z lowered systolic blood pressure by 20 mmHg", ref)[1] == "R5"
    assert lexical.judge("Drug Z did lower pressure", "Drug Z did not lower pressure.")[1] == "R3"
    assert lexical.answer("What colour is it?", "Nothing relevant.") == {
        "text": "The answer is not in the provided context."
    }
