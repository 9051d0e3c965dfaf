"""The redaction scorer (issue 13, rule 1): literal, hand-checked cases per rule."""

from __future__ import annotations

from typing import Any

import pytest

from citelens.gold import GoldDataset, LoadedAdapter, RedactionCase, RedactionEntity
from citelens.gold.scorers import score_redaction
from citelens.gold.scorers.redaction import check_redaction, leak_kind, name_words, present

E = RedactionEntity


def _case(
    entities: list[tuple[str, str]], gaps: list[tuple[str, str]] | None = None, case_id: str = "r1"
) -> RedactionCase:
    return RedactionCase(
        case_id,
        f"{case_id}.json",
        "source",
        tuple(E(*e) for e in entities),
        tuple(E(*g) for g in gaps or []),
    )


def _dataset(*cases: RedactionCase) -> GoldDataset:
    return GoldDataset("mem", (), (), {}, None, "sha256:0", tuple(c.id for c in cases), cases)


class _Redactor:
    def __init__(self, replies: dict[str, Any]) -> None:
        self.replies = replies

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def redact(self, text: str) -> Any:
        reply = self.replies[text]
        if isinstance(reply, Exception):
            raise reply
        return reply


def _adapter(replies: dict[str, Any]) -> LoadedAdapter:
    return LoadedAdapter(_Redactor(replies), "t", "t", ("redaction",))


def test_verbatim_is_case_insensitive_and_needs_no_letter_or_digit_beside_it() -> None:
    assert present("LS8 2QT", "postcode ls8 2qt, with")  # case folded, comma beside it
    assert not present("Ann", "Annabel came")  # 'a' follows: flanked by a letter
    assert not present("0018", "99900018")  # '0' precedes: flanked by a digit
    assert present("0018", "x-0018.")  # '-' and '.' are not ASCII letters or digits
    assert present("Ann", "éAnn")  # 'é' is not an ASCII letter


def test_name_words_split_keep_apostrophes_and_hyphens_drop_titles_and_short_words() -> None:
    assert name_words("Mr Tomasz Kowalski-Nowak") == ["Tomasz", "Kowalski-Nowak"]
    assert name_words("Mrs Eileen O'Brien") == ["Eileen", "O'Brien"]
    # "Jo" has 2 letters (< 3), "Dr" and "Prof" are titles
    assert name_words("Prof Dr Jo Li-Wu") == ["Li-Wu"]


def test_partial_name_leaks_only_for_name_types_and_not_when_a_known_gap_covers_it() -> None:
    out = "Mr Tomasz [SURNAME] was seen"
    assert leak_kind(E("PATIENT_NAME", "Mr Tomasz Kowalski-Nowak"), out) == "partial"
    # the same words under a type without NAME: only the whole value would leak
    assert leak_kind(E("CLINIC", "Mr Tomasz Kowalski-Nowak"), out) is None
    # 'Mr' survives too but is a title, so a name whose only surviving word is a title is safe
    assert leak_kind(E("PATIENT_NAME", "Mr Smith"), out) is None
    gap = (E("NICKNAME", "Tomasz"),)
    assert leak_kind(E("PATIENT_NAME", "Mr Tomasz Kowalski-Nowak"), out, gap) is None
    assert leak_kind(E("PATIENT_NAME", "Tomasz"), out, gap) == "verbatim"  # verbatim first


def test_over_redaction_is_excused_by_substring_either_way() -> None:
    case = _case([("PATIENT_NAME", "Mrs Priya Sharma")], [("PHONE", "07700 900456")])
    returned = ["Priya Sharma", "call 07700 900456 now", "enoxaparin", "PRIYA"]
    check = check_redaction(case, "[NAME] [PHONE]", returned)
    # 0: substring of the gold value; 1: contains the known gap; 3: substring (case-folded);
    # only 2 ("enoxaparin") is neither
    assert check.over == (2,)
    assert check.leaks == ()


def test_scorer_metrics_failures_gaps_and_detail() -> None:
    a = _case(
        [("PATIENT_NAME", "Mr John Smith"), ("PHONE", "07700 900123"), ("DOB", "12/03/1958")],
        [("STREET", "42 Maple Road"), ("POSTCODE", "OX2 6JX")],
        "a",
    )
    a = RedactionCase("a", "a.json", "text a", a.entities, a.known_gaps)
    b = RedactionCase("b", "b.json", "text b", (E("RELATIVE_NAME", "Anita"),), ())
    replies = {
        # a: John survives (partial), the phone is gone, the DOB survives (verbatim);
        # gap 0 (street) still there, gap 1 (postcode) closed; 'clinic' is an over-redaction
        "text a": {
            "text": "[NAME] John, DOB 12/03/1958, 42 Maple Road [PC] [PHONE]",
            "entities": [{"value": "07700 900123", "type": "PHONE"}, {"value": "clinic"}],
        },
        "text b": {"text": "nothing left", "entities": []},
    }
    r = score_redaction(_dataset(a, b), _adapter(replies), True)
    assert r.status == "failed"
    # entities 3 + 1 = 4, leaks 2: recall 1 - 2/4 = 0.5; case recalls 1/3 and 1: mean 2/3
    m = r.metrics
    assert (m["n_cases"], m["n_entities"], m["leaks"], m["over_redactions"]) == (2, 4, 2, 1)
    assert (m["knownGap_open"], m["knownGap_closed"]) == (1, 1)
    assert m["recall"] == pytest.approx(0.5)
    assert m["mean_case_recall"] == pytest.approx((1 / 3 + 1) / 2)
    assert r.failures == [
        "LEAK a: goldEntities[0] PATIENT_NAME survived redaction (partial)",
        "LEAK a: goldEntities[2] DOB survived redaction (verbatim)",
    ]
    first = r.detail["per_case"][0]
    assert first["leaked"] == [
        {"entity": 0, "type": "PATIENT_NAME", "match": "partial"},
        {"entity": 2, "type": "DOB", "match": "verbatim"},
    ]
    assert first["recall"] == 0.3333 and first["known_gaps_open"] == [0]
    # value-free: no gold value appears in failures or detail
    shown = repr(r.failures) + repr(r.detail)
    for value in ("John", "12/03/1958", "Maple", "Anita", "clinic"):
        assert value not in shown


def test_adapter_error_is_a_failure_and_rates_go_null_not_zero() -> None:
    a = RedactionCase("a", "a.json", "text a", (E("PHONE", "1"),), ())
    r = score_redaction(_dataset(a), _adapter({"text a": {"entities": []}}), True)
    assert r.failures == [
        "case a: redact failed: InvalidResponse: redact did not return {text, entities}"
    ]
    # 1 entity in the dataset, none evaluated: the rates are unmeasured (None), counts 0
    assert r.metrics["recall"] is None and r.metrics["mean_case_recall"] is None
    assert r.metrics["leaks"] == 0 and r.metrics["n_entities"] == 1


def test_rates_absent_without_gold_entities_and_skips() -> None:
    a = RedactionCase("a", "a.json", "text a", (), ())
    r = score_redaction(_dataset(a), _adapter({"text a": {"text": "x"}}), True)
    assert r.status == "passed"
    assert "recall" not in r.metrics and "mean_case_recall" not in r.metrics
    assert score_redaction(_dataset(a), _adapter({}), False).skip_code == "offline"
    bare = LoadedAdapter(object(), "t", "bare", ())
    skipped = score_redaction(_dataset(a), bare, True)
    assert skipped.skip_code == "no_capability"
    assert skipped.reason == 'adapter "bare" has no redaction capability (needs redact())'
    assert score_redaction(_dataset(), _adapter({}), True).skip_code == "no_cases"
