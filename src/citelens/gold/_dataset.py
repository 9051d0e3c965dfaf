"""Gold datasets on disk (gold-harness.md §2.1, §2.7–§2.9): the bundled sample, loading a
dataset directory with every problem collected, the redaction, simplification and retrieval case
schemas (issue 13; the QA and grounding ones live in :mod:`citelens.gold._case_files`), and the
dataset digest."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from citelens._fixed import attempt
from citelens.errors import GoldError
from citelens.gold._case_files import (
    Problems,
    nonempty_str,
    parse_fixture,
    parse_grounding,
    parse_json,
    parse_qa,
)
from citelens.gold._cases import (
    DatasetCheck,
    GoldDataset,
    GroundingCase,
    QACase,
    RedactionCase,
    RedactionEntity,
    RetrievalAnchor,
    RetrievalCase,
    SimplificationCase,
    StyleItem,
)

__all__ = ["bundled_dataset_dir", "check_dataset", "dataset_digest", "load_dataset"]


def bundled_dataset_dir() -> Path:
    """Directory of the sample dataset shipped inside the package (§2.8)."""
    return Path(__file__).resolve().parent / "data"


def dataset_digest(files: list[tuple[str, bytes]]) -> str:
    """``sha256:`` digest over ``(relative path, raw bytes)`` pairs (§2.9)."""
    lines = sorted(f"{rel}\t{hashlib.sha256(raw).hexdigest()}\n" for rel, raw in files)
    # surrogateescape: a file name that is not UTF-8 on disk reaches here with its raw bytes
    # escaped (os.scandir), and is hashed as those bytes
    return "sha256:" + hashlib.sha256("".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def _text_field(data: dict[str, Any], name: str, pr: Problems) -> str:
    value = data.get(name)
    if value is None:
        pr.add(f"{name}: is required")
        return ""
    if not nonempty_str(value):
        pr.add(f"{name}: must be a non-empty string")
        return ""
    return str(value)


def _entities(
    data: dict[str, Any], name: str, required: bool, pr: Problems
) -> list[RedactionEntity]:
    raw = data.get(name)
    out: list[RedactionEntity] = []
    if raw is None:
        if required:
            pr.add(f"{name}: is required")
        return out
    if not isinstance(raw, list):
        pr.add(f"{name}: must be an array")
        return out
    for i, item in enumerate(raw):
        path = f"{name}[{i}]"
        if not isinstance(item, dict):
            pr.add(f"{path}: must be an object")
            continue
        ok = True
        for fld in ("type", "value"):
            if not nonempty_str(item.get(fld)):
                pr.add(f"{path}.{fld}: must be a non-empty string")
                ok = False
        comment = item.get("comment")
        if comment is not None and not isinstance(comment, str):
            pr.add(f"{path}.comment: must be a string")
            ok = False
        if ok:
            out.append(RedactionEntity(item["type"], item["value"]))
    return out


def parse_redaction(data: dict[str, Any], case_id: str, fname: str, pr: Problems) -> RedactionCase:
    """A ``kind: "redaction"`` case: ``text``, ``goldEntities`` and ``knownGapEntities``."""
    text = _text_field(data, "text", pr)
    gold = _entities(data, "goldEntities", True, pr)
    gaps = _entities(data, "knownGapEntities", False, pr)
    return RedactionCase(case_id, fname, text, tuple(gold), tuple(gaps))


def _count_field(data: dict[str, Any], name: str, pr: Problems) -> int | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        pr.add(f"{name}: must be a positive integer")
        return None
    return int(value)


_SIMPLIFY_OPTIONS = ("audience", "tone", "length", "language")


def parse_simplification(
    data: dict[str, Any], case_id: str, fname: str, pr: Problems
) -> SimplificationCase:
    """A ``kind: "simplification"`` case: ``text``, ``anchors`` (required), options, numbers
    allowed to appear and the optional length contract."""
    text = _text_field(data, "text", pr)
    options: list[tuple[str, str]] = []
    for name in _SIMPLIFY_OPTIONS:
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            pr.add(f"{name}: must be a string")
        else:
            options.append((name, value))
    # the grounding schema's anchors and allowedNewNumbers: one validation rule for both kinds
    if data.get("anchors") is None:
        pr.add("anchors: is required")
    shaped = {
        "question": "-",
        "context": "",
        "answerAnchors": data.get("anchors"),
        "allowedNewNumbers": data.get("allowedNewNumbers"),
    }
    sub = Problems(pr.prefix)
    parsed = parse_grounding(shaped, case_id, fname, sub)
    head = pr.prefix + ": answerAnchors"
    pr.items.extend(
        pr.prefix + ": anchors" + line[len(head) :] if line.startswith(head) else line
        for line in sub.items
    )
    return SimplificationCase(
        id=case_id,
        file=fname,
        text=text,
        options=tuple(options),
        anchors=parsed.anchors,
        allowed_new_numbers=parsed.allowed_new_numbers,
        max_bullets=_count_field(data, "maxBullets", pr),
        max_words_per_bullet=_count_field(data, "maxWordsPerBullet", pr),
    )


_ANCHOR_KINDS = ("equals", "contains", "minCount")


def _retrieval_anchor(item: object, path: str, pr: Problems) -> RetrievalAnchor | None:
    if not isinstance(item, dict):
        pr.add(f"{path}: must be an object")
        return None
    ok = True
    if not nonempty_str(item.get("field")):
        pr.add(f"{path}.field: must be a non-empty string")
        ok = False
    kinds = [kind for kind in _ANCHOR_KINDS if item.get(kind) is not None]
    if len(kinds) != 1:
        pr.add(f"{path}: must have exactly one of equals, contains, minCount")
        return None
    kind = kinds[0]
    expected = item[kind]
    if kind == "minCount":
        if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
            pr.add(f"{path}.minCount: must be a non-negative integer")
            ok = False
    elif not nonempty_str(expected):
        pr.add(f"{path}.{kind}: must be a non-empty string")
        ok = False
    return RetrievalAnchor(item["field"], kind, expected) if ok else None


def parse_retrieval(data: dict[str, Any], case_id: str, fname: str, pr: Problems) -> RetrievalCase:
    """A ``kind: "retrieval"`` case: ``recordId``, ``recordType`` (default ``pubmed``),
    ``requireFields`` and ``anchors``, at least one check in all."""
    record_id = _text_field(data, "recordId", pr)
    record_type = data.get("recordType", "pubmed")
    if record_type is None:
        record_type = "pubmed"
    if not nonempty_str(record_type):
        pr.add("recordType: must be a non-empty string")
        record_type = "pubmed"
    fields: list[str] = []
    raw_fields = data.get("requireFields")
    if raw_fields is not None:
        if not isinstance(raw_fields, list) or not all(nonempty_str(f) for f in raw_fields):
            pr.add("requireFields: must be an array of non-empty strings")
        else:
            fields = list(raw_fields)
    anchors: list[RetrievalAnchor] = []
    raw_anchors = data.get("anchors")
    if raw_anchors is not None and not isinstance(raw_anchors, list):
        pr.add("anchors: must be an array")
    elif isinstance(raw_anchors, list):
        for i, item in enumerate(raw_anchors):
            anchor = _retrieval_anchor(item, f"anchors[{i}]", pr)
            if anchor is not None:
                anchors.append(anchor)
    if not raw_fields and not raw_anchors:
        pr.add("requireFields/anchors: at least one check is required")
    return RetrievalCase(case_id, fname, record_id, str(record_type), tuple(fields), tuple(anchors))


def check_dataset(root: str | os.PathLike[str] | None = None) -> DatasetCheck:
    """Load and validate a dataset directory, collecting every problem (§2.7); never raises.

    ``root`` defaults to the bundled sample dataset. An unexpected exception inside citelens
    raises :class:`~citelens.errors.InternalError`.
    """
    return attempt(lambda: _check_dataset(root))


def _check_dataset(root: str | os.PathLike[str] | None) -> DatasetCheck:
    shown = str(bundled_dataset_dir()) if root is None else os.fspath(root)
    base = Path(shown)
    cases_dir = base / "cases"
    names: list[str] = []
    # os.path: False for any OSError (an over-long name raises ENAMETOOLONG from Path.is_dir)
    if os.path.isdir(cases_dir):
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
    redaction: list[RedactionCase] = []
    simplification: list[SimplificationCase] = []
    retrieval: list[RetrievalCase] = []
    ignored: dict[str, int] = {}
    order: list[str] = []
    id_files: dict[str, str] = {}
    for name in names:
        rel = f"cases/{name}"
        pr = Problems(rel)
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
        data, failed = parse_json(raw)
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
        elif not nonempty_str(case_id):
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
            qa.append(parse_qa(data, cid, name, pr))
            order.append(cid)
        elif kind == "grounding":
            grounding.append(parse_grounding(data, cid, name, pr))
            order.append(cid)
        elif kind == "redaction":
            redaction.append(parse_redaction(data, cid, name, pr))
            order.append(cid)
        elif kind == "simplification":
            simplification.append(parse_simplification(data, cid, name, pr))
            order.append(cid)
        elif kind == "retrieval":
            retrieval.append(parse_retrieval(data, cid, name, pr))
            order.append(cid)
        else:
            ignored[kind] = ignored.get(kind, 0) + 1
        problems.extend(pr.items)
    fixture: tuple[StyleItem, ...] | None = None
    fixture_path = base / "fixtures" / "citation-styles.json"
    if os.path.isfile(fixture_path):
        fraw: bytes | None
        try:
            fraw = fixture_path.read_bytes()
        except OSError:
            fraw = None
        if fraw is None:
            problems.append("fixtures/citation-styles.json: file could not be read")
        else:
            files.append(("fixtures/citation-styles.json", fraw))
            fixture = parse_fixture(fraw, problems)
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
        redaction=tuple(redaction),
        simplification=tuple(simplification),
        retrieval=tuple(retrieval),
    )
    return DatasetCheck(shown, (), dataset)


def load_dataset(root: str | os.PathLike[str] | None = None) -> GoldDataset:
    """Load a dataset directory; raises :class:`GoldError` when it has no cases or is invalid
    (:class:`~citelens.errors.InternalError` for an unexpected exception inside citelens)."""
    check = check_dataset(root)
    if check.no_cases:
        raise GoldError("gold dataset has no cases", "input")
    if check.dataset is None:
        raise GoldError("gold dataset is invalid", "input")
    return check.dataset
