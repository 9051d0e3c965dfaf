"""The ``lexical`` reference system's redaction: regular expressions for common UK PII.

Each pattern names one entity type; a match is replaced by ``[TYPE]``. The classes are written
out in ASCII (``[0-9]``, ``[A-Za-z]``) because Python's ``\\d`` and ``\\w`` are Unicode-aware and
would make the result depend on scripts the patterns were not written for. Every pattern either
has bounded quantifiers or starts only where a run of its characters starts (a lookbehind), so
a pattern fails in time linear in the text: the text is the gold case's, but an adapter author
may reuse this on anything.

Clinicians ("Dr", "Prof") are deliberately not redacted: the bundled cases keep clinician names
by design, and only patients' and relatives' names identify the patient.
"""

from __future__ import annotations

import re

__all__ = ["redact_text"]

# One name word: an initial capital then lower-case letters, with the O'/D' prefix, an inner
# capital (McDonald) and one hyphenated part (Kowalski-Nowak) allowed.
_WORD = r"(?:[OD]['’])?[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+(?:[A-Z][a-z]+)?)?"
_RELATIONS = (
    "son|daughter|wife|husband|partner|mother|father|brother|sister|carer|friend|niece|nephew|"
    "grandson|granddaughter|grandmother|grandfather"
)
_STREETS = (
    "Road|Street|Avenue|Lane|Close|Drive|Way|Place|Crescent|Court|Gardens|Terrace|Grove|Hill|"
    "Rd|St|Ave"
)
_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"

# (type, pattern, group): the entity is the pattern's ``group``; in this order, which decides
# between two matches starting at the same place with the same length.
_PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    (
        "EMAIL",
        re.compile(
            r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
            r"\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
        ),
        0,
    ),
    # 3-3-4 digits, one separator style throughout (the backreference), or ten digits
    ("NHS_NUMBER", re.compile(r"(?<![0-9])[0-9]{3}([ -]?)[0-9]{3}\1[0-9]{4}(?![0-9])"), 0),
    # UK numbers: 0 or +44, then 2-4, 3-4 and 3-4 digits (07700 900123, 020 7946 0018)
    (
        "PHONE",
        re.compile(
            r"(?<![0-9+])(?:\+44[ ]?(?:\(0\)[ ]?)?|0)[0-9]{2,4}[ -]?[0-9]{3,4}[ -]?[0-9]{3,4}"
            r"(?![0-9])"
        ),
        0,
    ),
    (
        "DATE",
        re.compile(
            r"(?<![0-9/.-])(?:0?[1-9]|[12][0-9]|3[01])([/.-])(?:0?[1-9]|1[0-2])\1"
            r"(?:19|20)?[0-9]{2}(?![0-9])"
        ),
        0,
    ),
    (
        "DATE",
        re.compile(
            rf"(?<![0-9])(?:0?[1-9]|[12][0-9]|3[01]) (?:{_MONTHS})[a-z]{{0,6}}\.? "
            r"(?:19|20)[0-9]{2}(?![0-9])"
        ),
        0,
    ),
    (
        "POSTCODE",
        re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,2}[0-9][A-Z0-9]? ?[0-9][A-Z]{2}(?![A-Za-z0-9])"),
        0,
    ),
    (
        "STREET_ADDRESS",
        re.compile(
            rf"(?<![A-Za-z0-9])[0-9]{{1,4}}[A-Za-z]? (?:{_WORD} ){{1,3}}(?:{_STREETS})(?![A-Za-z])"
        ),
        0,
    ),
    (
        "PATIENT_NAME",
        re.compile(rf"(?<![A-Za-z])(?:Mrs|Miss|Mr|Ms|Mx)\.? {_WORD}(?: {_WORD}){{0,2}}"),
        0,
    ),
    (
        "RELATIVE_NAME",
        re.compile(rf"(?<![A-Za-z])(?i:{_RELATIONS}) ({_WORD}(?: {_WORD})?)"),
        1,
    ),
)
# words before a date that make it a date of birth
_BIRTH = re.compile(r"dob|birth|born")
_BIRTH_WINDOW = 24


def _kind(text: str, kind: str, start: int) -> str:
    if kind == "DATE" and _BIRTH.search(text[max(0, start - _BIRTH_WINDOW) : start].lower()):
        return "DATE_OF_BIRTH"
    return kind


def redact_text(text: str) -> tuple[str, list[dict[str, str]]]:
    """``text`` with every PII match replaced by ``[TYPE]``, and the ``{value, type}`` of each
    replaced match in text order.

    Overlapping matches: the leftmost wins, then the longest, then the earlier pattern.
    """
    found: list[tuple[int, int, int, str]] = []
    for order, (kind, pattern, group) in enumerate(_PATTERNS):
        for match in pattern.finditer(text):
            start, end = match.span(group)
            found.append((start, -end, order, _kind(text, kind, start)))
    found.sort()
    pieces: list[str] = []
    entities: list[dict[str, str]] = []
    cursor = 0
    for start, neg_end, _order, kind in found:
        if start < cursor:
            continue  # overlaps a match already taken
        end = -neg_end
        pieces.append(text[cursor:start])
        pieces.append(f"[{kind}]")
        entities.append({"value": text[start:end], "type": kind})
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), entities
