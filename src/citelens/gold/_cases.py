"""Gold datasets: case schemas, loading, validation and the dataset digest (§2, §3)."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citelens.errors import GoldError

__all__ = [
    "ADJACENT",
    "VERDICT_SCALE",
    "Anchor",
    "DatasetCheck",
    "GoldClaim",
    "GoldDataset",
    "GoldVerdict",
    "GroundingCase",
    "QACase",
    "Reference",
    "StyleItem",
    "bundled_dataset_dir",
    "canonical_key",
    "check_dataset",
    "dataset_digest",
    "load_dataset",
    "verdict_index",
]

VERDICT_SCALE: tuple[str, ...] = (
    "strong_support",
    "partial_support",
    "implied_by_data",
    "overclaim",
    "not_supported",
    "contradicted",
)
"""The six verdict labels in ordinal order (index 0 = best borne out)."""

_INDEX = {label: i for i, label in enumerate(VERDICT_SCALE)}

ADJACENT: frozenset[tuple[str, str]] = frozenset(
    (VERDICT_SCALE[i], VERDICT_SCALE[j]) for i in range(6) for j in range(6) if abs(i - j) == 1
)
"""Pairs of labels whose scale indices differ by exactly one."""

_UNSUPPORTED_KINDS = ("redaction", "simplification", "retrieval")

CitationKey = int | str


def verdict_index(label: str) -> int | None:
    """The scale index of ``label`` (``None`` when it is not one of the six labels)."""
    return _INDEX.get(label)


def canonical_key(value: object) -> CitationKey:
    """Canonical citation key (§2.5): digit strings become ints, other strings are trimmed.

    Booleans and other types are converted with ``str()`` (the adapter-side rule).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = value if isinstance(value, str) else str(value)
    text = text.strip()
    if text and text.isascii() and text.isdigit():
        return int(text)
    return text


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


@dataclass(frozen=True)
class GoldClaim:
    """A gold claim: the marked-up sentence, its clean text and its citation keys."""

    original_text: str
    text: str
    citations: tuple[CitationKey, ...]


@dataclass(frozen=True)
class Reference:
    """A reference snippet a gold verdict is judged against."""

    name: str
    text: str


@dataclass(frozen=True)
class GoldVerdict:
    """One labelled (claim, reference) pair."""

    claim_text: str
    citation: CitationKey
    verdict: str


@dataclass(frozen=True)
class QACase:
    """A QA gold case (§2.3)."""

    id: str
    file: str
    manuscript: str | None
    gold_claims: tuple[GoldClaim, ...]
    gold_non_claims: tuple[str, ...]
    references: dict[str, Reference]
    gold_verdicts: tuple[GoldVerdict, ...]

    def reference(self, key: CitationKey) -> Reference | None:
        """The reference stored under the canonical ``key``."""
        return self.references.get(str(key))


@dataclass(frozen=True)
class Anchor:
    """A fact a correct grounded answer must contain."""

    value: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroundingCase:
    """A grounding gold case (§2.4)."""

    id: str
    file: str
    question: str
    context: str
    anchors: tuple[Anchor, ...]
    allowed_new_numbers: tuple[str | int | float, ...]
    answerable: bool
    abstain_markers: tuple[str, ...] | None


@dataclass(frozen=True)
class StyleItem:
    """One item of the citation-style fixture (§2.6)."""

    style: str
    text: str
    expected: tuple[CitationKey, ...]
    known_gap: bool
    target_expected: tuple[CitationKey, ...] | None


@dataclass(frozen=True)
class GoldDataset:
    """A loaded, validated gold dataset."""

    root: str
    qa: tuple[QACase, ...]
    grounding: tuple[GroundingCase, ...]
    ignored: dict[str, int]
    fixture: tuple[StyleItem, ...] | None
    digest: str
    order: tuple[str, ...] = field(default=())

    @property
    def case_count(self) -> int:
        """Every loaded case, ignored ones included."""
        return len(self.qa) + len(self.grounding) + sum(self.ignored.values())

    def __repr__(self) -> str:
        return (
            f"GoldDataset(qa={len(self.qa)}, grounding={len(self.grounding)}, "
            f"ignored={sum(self.ignored.values())})"
        )


@dataclass(frozen=True)
class DatasetCheck:
    """Structured result of validating a dataset directory (never raises)."""

    root: str
    problems: tuple[str, ...]
    dataset: GoldDataset | None
    no_cases: bool = False

    @property
    def ok(self) -> bool:
        """True when the dataset loaded without problems."""
        return self.dataset is not None


def bundled_dataset_dir() -> Path:
    """Directory of the sample dataset shipped inside the package (§2.8)."""
    return Path(__file__).resolve().parent / "data"


def _reject_constant(_value: str) -> Any:
    raise ValueError("non-finite number")


def _parse_json(raw: bytes) -> tuple[Any, str | None]:
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


class _Problems:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.items: list[str] = []

    def add(self, text: str) -> None:
        self.items.append(f"{self.prefix}: {text}")


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _nonempty_str(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _opt(obj: dict[str, Any], name: str) -> Any:
    value = obj.get(name)
    return value


def _parse_qa(data: dict[str, Any], case_id: str, fname: str, pr: _Problems) -> QACase:
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
            if not _nonempty_str(ref.get("name")):
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
            if not _nonempty_str(item.get("claimText")):
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
            if not isinstance(label, str) or label not in _INDEX:
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


def _parse_grounding(
    data: dict[str, Any], case_id: str, fname: str, pr: _Problems
) -> GroundingCase:
    question = data.get("question")
    if question is None:
        pr.add("question: is required")
        question = ""
    elif not _nonempty_str(question):
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
            if not _nonempty_str(item.get("value")):
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


def _parse_fixture(raw: bytes, problems: list[str]) -> tuple[StyleItem, ...] | None:
    pr = _Problems("fixtures/citation-styles.json")
    data, failed = _parse_json(raw)
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
        if not _nonempty_str(style):
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


def dataset_digest(files: list[tuple[str, bytes]]) -> str:
    """``sha256:`` digest over ``(relative path, raw bytes)`` pairs (§2.9)."""
    lines = sorted(f"{rel}\t{hashlib.sha256(raw).hexdigest()}\n" for rel, raw in files)
    return "sha256:" + hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def check_dataset(root: str | os.PathLike[str] | None = None) -> DatasetCheck:
    """Load and validate a dataset directory, collecting every problem (§2.7); never raises.

    ``root`` defaults to the bundled sample dataset.
    """
    shown = str(bundled_dataset_dir()) if root is None else os.fspath(root)
    base = Path(shown)
    cases_dir = base / "cases"
    names: list[str] = []
    if cases_dir.is_dir():
        try:
            names = sorted(
                entry.name
                for entry in os.scandir(cases_dir)
                if entry.name.endswith(".json")
                and not entry.name.startswith("_")
                and entry.is_file()
            )
        except OSError:
            names = []
    if not names:
        return DatasetCheck(shown, (), None, no_cases=True)
    problems: list[str] = []
    files: list[tuple[str, bytes]] = []
    qa: list[QACase] = []
    grounding: list[GroundingCase] = []
    ignored: dict[str, int] = {}
    order: list[str] = []
    id_files: dict[str, str] = {}
    for name in names:
        rel = f"cases/{name}"
        pr = _Problems(rel)
        raw: bytes | None = None
        try:
            raw = (cases_dir / name).read_bytes()
        except OSError:
            raw = None
        if raw is None:
            pr.add("file could not be read")
            problems.extend(pr.items)
            continue
        files.append((rel, raw))
        data, failed = _parse_json(raw)
        if failed is not None:
            pr.add(failed)
            problems.extend(pr.items)
            continue
        if not isinstance(data, dict):
            pr.add("must be a JSON object")
            problems.extend(pr.items)
            continue
        case_id = data.get("id")
        if case_id is None:
            pr.add("id: is required")
        elif not _nonempty_str(case_id):
            pr.add("id: must be a non-empty string")
        elif case_id in id_files:
            pr.add(
                f"id: duplicate id {json.dumps(case_id, ensure_ascii=False)} "
                f"(also in {id_files[case_id]})"
            )
        else:
            id_files[case_id] = rel
        cid = case_id if isinstance(case_id, str) else ""
        kind = data.get("kind")
        if kind is not None and not isinstance(kind, str):
            pr.add("kind: must be a string")
            problems.extend(pr.items)
            continue
        if kind is None or kind == "qa":
            qa.append(_parse_qa(data, cid, name, pr))
            order.append(cid)
        elif kind == "grounding":
            grounding.append(_parse_grounding(data, cid, name, pr))
            order.append(cid)
        else:
            ignored[kind] = ignored.get(kind, 0) + 1
        problems.extend(pr.items)
    fixture: tuple[StyleItem, ...] | None = None
    fixture_path = base / "fixtures" / "citation-styles.json"
    if fixture_path.is_file():
        fraw: bytes | None
        try:
            fraw = fixture_path.read_bytes()
        except OSError:
            fraw = None
        if fraw is None:
            problems.append("fixtures/citation-styles.json: file could not be read")
        else:
            files.append(("fixtures/citation-styles.json", fraw))
            fixture = _parse_fixture(fraw, problems)
    if problems:
        return DatasetCheck(shown, tuple(problems), None)
    dataset = GoldDataset(
        root=shown,
        qa=tuple(qa),
        grounding=tuple(grounding),
        ignored=dict(sorted(ignored.items())),
        fixture=fixture,
        digest=dataset_digest(files),
        order=tuple(order),
    )
    return DatasetCheck(shown, (), dataset)


def load_dataset(root: str | os.PathLike[str] | None = None) -> GoldDataset:
    """Load a dataset directory; raises :class:`GoldError` when it has no cases or is invalid."""
    check = check_dataset(root)
    if check.no_cases:
        raise GoldError("gold dataset has no cases", "input")
    if check.dataset is None:
        raise GoldError("gold dataset is invalid", "input")
    return check.dataset
