"""Reading and validating one gold case file (gold-harness.md §2.2–§2.7): JSON decoding and
the QA, grounding and citation-style fixture schemas. Every problem is collected as one line
naming the file and the JSON path; nothing here raises for bad data."""

from __future__ import annotations

import json
from typing import Any

from citelens.gold._cases import (
    VERDICT_SCALE,
    Anchor,
    CitationKey,
    GoldClaim,
    GoldVerdict,
    GroundingCase,
    QACase,
    Reference,
    StyleItem,
    canonical_key,
)

__all__ = ["Problems", "nonempty_str", "parse_fixture", "parse_grounding", "parse_json", "parse_qa"]


def _gold_key(value: object) -> CitationKey | None:
    """Canonical key of a gold-data citation key, or ``None`` when it is invalid."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 1 else None
    if isinstance(value, str):
        key = canonical_key(value)
        if key == "" or key == 0:
            return None
        return key
    return None


def _reject_constant(_value: str) -> Any:
    raise ValueError("non-finite number")


def parse_json(raw: bytes) -> tuple[Any, str | None]:
    """Decode UTF-8 JSON (BOM tolerated); returns (value, problem)."""
    failed: str | None = None
    value: Any = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "file is not valid UTF-8"
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        failed = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except (ValueError, RecursionError):
        failed = "invalid JSON: unsupported value"
    return value, failed


class Problems:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.items: list[str] = []

    def add(self, text: str) -> None:
        self.items.append(f"{self.prefix}: {text}")


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def nonempty_str(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _opt(obj: dict[str, Any], name: str) -> Any:
    value = obj.get(name)
    return value


def parse_qa(data: dict[str, Any], case_id: str, fname: str, pr: Problems) -> QACase:
    manuscript = _opt(data, "manuscript")
    if manuscript is not None and not _is_str(manuscript):
        pr.add("manuscript: must be a string")
        manuscript = None
    claims: list[GoldClaim] = []
    raw_claims = _opt(data, "goldClaims")
    if raw_claims is not None and not isinstance(raw_claims, list):
        pr.add("goldClaims: must be an array")
    elif isinstance(raw_claims, list):
        for i, item in enumerate(raw_claims):
            path = f"goldClaims[{i}]"
            if not isinstance(item, dict):
                pr.add(f"{path}: must be an object")
                continue
            ok = True
            for fld in ("originalText", "text"):
                if fld not in item or item[fld] is None:
                    pr.add(f"{path}.{fld}: is required")
                    ok = False
                elif not _is_str(item[fld]):
                    pr.add(f"{path}.{fld}: must be a string")
                    ok = False
            cites = item.get("citations")
            keys: list[CitationKey] = []
            if cites is None:
                pr.add(f"{path}.citations: is required")
                ok = False
            elif not isinstance(cites, list):
                pr.add(f"{path}.citations: must be an array")
                ok = False
            else:
                for j, raw in enumerate(cites):
                    key = _gold_key(raw)
                    if key is None:
                        pr.add(
                            f"{path}.citations[{j}]: must be a positive integer or a "
                            "non-empty string"
                        )
                        ok = False
                    else:
                        keys.append(key)
            if ok:
                claims.append(GoldClaim(item["originalText"], item["text"], tuple(keys)))
    non_claims: list[str] = []
    raw_nc = _opt(data, "goldNonClaims")
    if raw_nc is not None and not isinstance(raw_nc, list):
        pr.add("goldNonClaims: must be an array")
    elif isinstance(raw_nc, list):
        for i, item in enumerate(raw_nc):
            if not _is_str(item):
                pr.add(f"goldNonClaims[{i}]: must be a string")
            else:
                non_claims.append(item)
    references: dict[str, Reference] = {}
    raw_refs = _opt(data, "references")
    if raw_refs is not None and not isinstance(raw_refs, dict):
        pr.add("references: must be an object")
    elif isinstance(raw_refs, dict):
        seen: dict[str, str] = {}
        for raw_key, ref in raw_refs.items():
            path = f"references[{json.dumps(raw_key, ensure_ascii=False)}]"
            key = _gold_key(raw_key)
            if key is None:
                pr.add(f"{path}: key must be a positive integer or a non-empty string")
                continue
            skey = str(key)
            if skey in seen:
                pr.add(
                    f"{path}: key has the same canonical form as "
                    f"{json.dumps(seen[skey], ensure_ascii=False)}"
                )
                continue
            seen[skey] = raw_key
            if not isinstance(ref, dict):
                pr.add(f"{path}: must be an object with name and text")
                continue
            ok = True
            if not nonempty_str(ref.get("name")):
                pr.add(f"{path}.name: must be a non-empty string")
                ok = False
            if not _is_str(ref.get("text")):
                pr.add(f"{path}.text: must be a string")
                ok = False
            if ok:
                references[skey] = Reference(ref["name"], ref["text"])
    verdicts: list[GoldVerdict] = []
    raw_v = _opt(data, "goldVerdicts")
    if raw_v is not None and not isinstance(raw_v, list):
        pr.add("goldVerdicts: must be an array")
    elif isinstance(raw_v, list):
        ref_keys = {str(_gold_key(k)) for k in raw_refs} if isinstance(raw_refs, dict) else set()
        for i, item in enumerate(raw_v):
            path = f"goldVerdicts[{i}]"
            if not isinstance(item, dict):
                pr.add(f"{path}: must be an object")
                continue
            ok = True
            if not nonempty_str(item.get("claimText")):
                pr.add(f"{path}.claimText: must be a non-empty string")
                ok = False
            key = _gold_key(item.get("citation"))
            if key is None:
                pr.add(f"{path}.citation: must be a positive integer or a non-empty string")
                ok = False
            elif str(key) not in ref_keys:
                pr.add(f"{path}.citation: no reference with this key in references")
                ok = False
            label = item.get("verdict")
            if not isinstance(label, str) or label not in VERDICT_SCALE:
                pr.add(f"{path}.verdict: must be one of " + ", ".join(VERDICT_SCALE))
                ok = False
            rationale = item.get("rationale")
            if rationale is not None and not _is_str(rationale):
                pr.add(f"{path}.rationale: must be a string")
                ok = False
            if ok and key is not None and isinstance(label, str):
                verdicts.append(GoldVerdict(item["claimText"], key, label))
    return QACase(
        id=case_id,
        file=fname,
        manuscript=manuscript,
        gold_claims=tuple(claims),
        gold_non_claims=tuple(non_claims),
        references=references,
        gold_verdicts=tuple(verdicts),
    )


def parse_grounding(data: dict[str, Any], case_id: str, fname: str, pr: Problems) -> GroundingCase:
    question = data.get("question")
    if question is None:
        pr.add("question: is required")
        question = ""
    elif not nonempty_str(question):
        pr.add("question: must be a non-empty string")
        question = ""
    raw_ctx = data.get("context")
    context = ""
    if raw_ctx is None:
        pr.add("context: is required")
    elif isinstance(raw_ctx, str):
        context = raw_ctx
    elif isinstance(raw_ctx, list) and all(_is_str(x) for x in raw_ctx):
        context = "\n".join(raw_ctx)
    else:
        pr.add("context: must be a string or an array of strings")
    anchors: list[Anchor] = []
    raw_anchors = data.get("answerAnchors")
    if raw_anchors is not None and not isinstance(raw_anchors, list):
        pr.add("answerAnchors: must be an array")
    elif isinstance(raw_anchors, list):
        for i, item in enumerate(raw_anchors):
            path = f"answerAnchors[{i}]"
            if not isinstance(item, dict):
                pr.add(f"{path}: must be an object")
                continue
            ok = True
            if not nonempty_str(item.get("value")):
                pr.add(f"{path}.value: must be a non-empty string")
                ok = False
            aliases = item.get("aliases")
            if aliases is None:
                aliases = []
            elif not isinstance(aliases, list) or not all(_is_str(a) for a in aliases):
                pr.add(f"{path}.aliases: must be an array of strings")
                ok = False
            if ok:
                anchors.append(Anchor(item["value"], tuple(aliases)))
    allowed: list[str | int | float] = []
    raw_allowed = data.get("allowedNewNumbers")
    if raw_allowed is not None and not isinstance(raw_allowed, list):
        pr.add("allowedNewNumbers: must be an array")
    elif isinstance(raw_allowed, list):
        for i, item in enumerate(raw_allowed):
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                pr.add(f"allowedNewNumbers[{i}]: must be a string or a number")
            else:
                allowed.append(item)
    answerable = data.get("answerable", True)
    if answerable is None:
        answerable = True
    if not isinstance(answerable, bool):
        pr.add("answerable: must be a boolean")
        answerable = True
    markers: tuple[str, ...] | None = None
    raw_markers = data.get("abstainMarkers")
    if raw_markers is not None:
        if not isinstance(raw_markers, list) or not all(_is_str(m) for m in raw_markers):
            pr.add("abstainMarkers: must be an array of strings")
        else:
            markers = tuple(raw_markers)
    return GroundingCase(
        id=case_id,
        file=fname,
        question=question,
        context=context,
        anchors=tuple(anchors),
        allowed_new_numbers=tuple(allowed),
        answerable=answerable,
        abstain_markers=markers,
    )


def parse_fixture(raw: bytes, problems: list[str]) -> tuple[StyleItem, ...] | None:
    pr = Problems("fixtures/citation-styles.json")
    data, failed = parse_json(raw)
    if failed is not None:
        pr.add(failed)
        problems.extend(pr.items)
        return None
    if not isinstance(data, dict):
        pr.add("must be a JSON object")
        problems.extend(pr.items)
        return None
    items = data.get("items")
    if not isinstance(items, list):
        pr.add("items: must be an array")
        problems.extend(pr.items)
        return None
    out: list[StyleItem] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        path = f"items[{i}]"
        if not isinstance(item, dict):
            pr.add(f"{path}: must be an object")
            continue
        ok = True
        style = item.get("style")
        if not nonempty_str(style):
            pr.add(f"{path}.style: must be a non-empty string")
            ok = False
        elif style in seen:
            pr.add(f"{path}.style: duplicate style {json.dumps(style, ensure_ascii=False)}")
            ok = False
        else:
            seen.add(str(style))
        if not _is_str(item.get("text")):
            pr.add(f"{path}.text: must be a string")
            ok = False
        keys: dict[str, tuple[CitationKey, ...] | None] = {}
        for fld in ("expected", "targetExpected"):
            value = item.get(fld)
            if value is None:
                if fld == "expected":
                    pr.add(f"{path}.expected: is required")
                    ok = False
                keys[fld] = None
                continue
            if not isinstance(value, list):
                pr.add(f"{path}.{fld}: must be an array")
                ok = False
                continue
            parsed: list[CitationKey] = []
            for j, raw_key in enumerate(value):
                key = _gold_key(raw_key)
                if key is None:
                    pr.add(f"{path}.{fld}[{j}]: must be a positive integer or a non-empty string")
                    ok = False
                else:
                    parsed.append(key)
            keys[fld] = tuple(parsed)
        gap = item.get("knownGap", False)
        if gap is None:
            gap = False
        if not isinstance(gap, bool):
            pr.add(f"{path}.knownGap: must be a boolean")
            ok = False
        if ok:
            expected = keys["expected"]
            out.append(
                StyleItem(
                    style=str(style),
                    text=item["text"],
                    expected=expected if expected is not None else (),
                    known_gap=bool(gap),
                    target_expected=keys.get("targetExpected"),
                )
            )
    problems.extend(pr.items)
    return tuple(out)
