"""The ``lexical`` reference system's simplifier: keep the sentences a patient must not lose.

A sentence is kept when it carries a number, a drug-like word or an instruction word; background
sentences are dropped. Kept sentences are shortened (a leading ``Heading:`` label, asides in
parentheses without digits, and "daily" wording go) but never reworded around their facts, and
no number is ever introduced, so a dose or a timeframe survives verbatim. A ``length`` asking for
brevity gives at most three ``- `` bullets of at most 18 words. Audience, tone and language are
accepted and not used: the rules are English and tone-neutral.
"""

from __future__ import annotations

import re

from citelens.gold._text import sentences, tokens

__all__ = ["simplify_text"]

_DRUG_SUFFIXES = (
    "mab",
    "nib",
    "pril",
    "sartan",
    "olol",
    "statin",
    "cillin",
    "mycin",
    "oxacin",
    "azole",
    "thiazide",
    "tidine",
    "parin",
    "xaban",
    "gatran",
    "gliptin",
    "gliflozin",
    "glutide",
    "formin",
    "profen",
    "fenac",
    "thyroxine",
    "sulfate",
    "sulphate",
    "zepam",
    "triptan",
    "setron",
    "dronate",
    "semide",
    "cycline",
)
_MIN_DRUG_LEN = 6  # "nib", "mab" alone are no drug names
_INSTRUCTIONS = frozenset(
    {
        "take",
        "stop",
        "start",
        "avoid",
        "return",
        "call",
        "morning",
        "evening",
        "night",
        "bedtime",
        "daily",
        "weekly",
    }
)
_BRIEF = frozenset({"brief", "short", "bullets"})
_MAX_BULLETS = 3
_MAX_BULLET_WORDS = 18  # under the 20 words of the brief contract, with room for the marker
_DIGIT = re.compile(r"[0-9]")
# "Discharge summary: You …": a label of at most three words before a colon
_HEADING = re.compile(r"[A-Z][A-Za-z]*(?: [A-Za-z]+){0,2}: ")
# an aside in parentheses that holds no digit (a value in parentheses is a fact, kept)
_ASIDE = re.compile(r" ?\([^()0-9]*\)")
_PHRASES = (
    (re.compile(r"(?i)\bonce daily\b"), "once a day"),
    (re.compile(r"(?i)\btwice daily\b"), "twice a day"),
    (re.compile(r"(?i)\bthree times daily\b"), "three times a day"),
    (re.compile(r"(?i)\bfour times daily\b"), "four times a day"),
)
_WS = re.compile(r"\s+")


def _keep(sentence: str) -> bool:
    if _DIGIT.search(sentence):
        return True
    words = tokens(sentence)
    if _INSTRUCTIONS.intersection(words):
        return True
    return any(len(w) >= _MIN_DRUG_LEN and w.endswith(_DRUG_SUFFIXES) for w in words)


def _shorten(sentence: str) -> str:
    heading = _HEADING.match(sentence)
    if heading is not None and heading.end() < len(sentence):
        rest = sentence[heading.end() :]
        sentence = rest[0].upper() + rest[1:]
    sentence = _ASIDE.sub("", sentence)
    for pattern, plain in _PHRASES:
        sentence = pattern.sub(plain, sentence)
    return _WS.sub(" ", sentence).strip()


def simplify_text(text: str, length: str | None) -> str:
    """The kept, shortened sentences of ``text``: prose, or bullets when ``length`` is brief."""
    parts = sentences(text)
    if not parts:
        return ""
    kept = [_shorten(s) for s in parts if _keep(s)] or [_shorten(parts[0])]
    if length is None or length.strip().lower() not in _BRIEF:
        return " ".join(kept)
    bullets = [" ".join(s.split()[:_MAX_BULLET_WORDS]) for s in kept[:_MAX_BULLETS]]
    return "\n".join(f"- {b}" for b in bullets)
