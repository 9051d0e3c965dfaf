"""Bundled adapter ``openai``: any OpenAI-compatible chat-completions server (§8.6)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from citelens.gold._cases import VERDICT_SCALE
from citelens.gold._citations import detect_citations
from citelens.gold._text import strip_markers
from citelens.gold._ws import normalise_label, trim_ws
from citelens.gold.adapters._transport import JsonTransport, token_totals_from

__all__ = ["ABSTAIN_REPLY", "OpenAIAdapter"]

ABSTAIN_REPLY = "The answer is not in the provided context."
_FENCE = "```"
_INFO = re.compile("[A-Za-z0-9_-]*")  # anchored by match(), no backtracking: linear
# the options of a simplify request and the defaults of the case format when one is absent
_SIMPLIFY_DEFAULTS = (
    ("audience", "Adult"),
    ("tone", "Informative"),
    ("length", "Standard"),
    ("language", "English"),
)

_DEFINITIONS = (
    "strong_support: a narrative sentence of the document states the claim, and the claim asks "
    "for no more than that sentence gives.\n"
    "partial_support: the claim joins several assertions and only some are explicitly "
    "supported.\n"
    "implied_by_data: the claim follows from numbers, a table or a figure in the document, but "
    "no sentence says it in words.\n"
    "overclaim: the document backs a weaker or narrower version; the claim inflates "
    "significance, effect size, population, endpoint or certainty, and the document does not "
    "explicitly deny the inflated part.\n"
    "not_supported: the document says nothing for or against the claim, including 'this "
    "population/endpoint was not studied'.\n"
    "contradicted: the document explicitly says the opposite, or explicitly negates a part of "
    "the claim."
)
_TIE_BREAKERS = (
    "Tie-breakers, in this order: 1. overclaim or contradicted? explicit negation of the "
    "inflated element -> contradicted; silence -> overclaim. 2. not_supported or contradicted? "
    "silent -> not_supported; states the opposite -> contradicted. 3. not_supported or "
    "overclaim? any weaker version supported -> overclaim, else not_supported. 4. strong or "
    "partial? whole claim explicitly supported -> strong_support; only part -> "
    "partial_support. 5. implied or strong? a narrative sentence states it -> strong_support; "
    "only the data shows it -> implied_by_data."
)


def _env_first(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name)
        if value:
            return value
    return None


def _unfenced(text: str) -> str:
    # One surrounding Markdown fence (§8.6): "```", an info string of [A-Za-z0-9_-], the body,
    # "```". Slicing, not a regex: the former pattern's lazy body before `\s*```\s*\Z` was cubic
    # in a WS run (2,000 spaces after "```" took 10 s), and the reply is the model's text.
    if len(text) < 2 * len(_FENCE) or not (text.startswith(_FENCE) and text.endswith(_FENCE)):
        return text
    inner = text[len(_FENCE) : -len(_FENCE)]
    info = _INFO.match(inner)
    return trim_ws(inner[info.end() if info else 0 :])


def _parse_json_content(content: str) -> Any:
    """The JSON value of a reply: trimmed of WS, one surrounding fence removed, ``json.loads``.
    Raises ``ValueError`` when it is not JSON, including JSON nested beyond what ``json`` can
    decode (its ``RecursionError``: a reply that cannot be read is unparsable, §8.6)."""
    text = _unfenced(trim_ws(content))
    try:
        return json.loads(text)
    except RecursionError:
        pass  # raised below, outside the handler, so that nothing is chained
    raise ValueError("unparsable model output")


class OpenAIAdapter:
    """Chat-completions adapter configured by ``CITELENS_OPENAI_*`` environment variables."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.meta: dict[str, str] = {"name": "openai"}
        environ = os.environ if env is None else env
        self.adapter_config_problems: list[str] = []
        base = _env_first(environ, "CITELENS_OPENAI_BASE_URL", "OPENAI_BASE_URL")
        self._base = base.rstrip("/") if base else None
        self._model = _env_first(environ, "CITELENS_OPENAI_MODEL", "CITELENS_EVAL_MODEL")
        self._key = _env_first(environ, "CITELENS_OPENAI_API_KEY", "OPENAI_API_KEY")
        timeout: float = 60.0
        retries = 2
        raw_timeout = environ.get("CITELENS_OPENAI_TIMEOUT")
        if raw_timeout:
            try:
                timeout = float(raw_timeout)
            except ValueError:
                timeout = -1.0
            if not timeout > 0:
                self.adapter_config_problems.append(
                    "openai adapter: CITELENS_OPENAI_TIMEOUT must be a number > 0"
                )
        raw_retries = environ.get("CITELENS_OPENAI_RETRIES")
        if raw_retries:
            if raw_retries.isascii() and raw_retries.isdigit():
                retries = int(raw_retries)
            else:
                self.adapter_config_problems.append(
                    "openai adapter: CITELENS_OPENAI_RETRIES must be an integer >= 0"
                )
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        self.transport = JsonTransport(
            timeout=timeout if timeout > 0 else 60.0, retries=retries, backoff=0.5, headers=headers
        )

    def __repr__(self) -> str:
        return "OpenAIAdapter()"

    def online_available(self) -> bool:
        """Base URL and model are both set."""
        return bool(self._base and self._model)

    def online_config_hint(self) -> str:
        """What to set."""
        return (
            "Set CITELENS_OPENAI_BASE_URL and CITELENS_OPENAI_MODEL (and CITELENS_OPENAI_API_KEY "
            "if the server needs one) to run online scorers."
        )

    def run_model(self) -> str | None:
        """The model sent in every request."""
        return self._model

    def _chat(self, system: str, user: str, json_mode: bool) -> tuple[str, Any]:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        data = self.transport.post(self._base or "", "/chat/completions", body)
        content: Any = None
        if isinstance(data, Mapping):
            choices = data.get("choices")
            if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
                message = choices[0].get("message")
                if isinstance(message, Mapping):
                    content = message.get("content")
        if not isinstance(content, str):
            raise ValueError("response has no choices[0].message.content")
        usage = data.get("usage") if isinstance(data, Mapping) else None
        return content, usage

    def split_claims(self, text: str) -> dict[str, Any]:
        """Ask the model for verbatim claim sentences; citations are detected locally."""
        system = "You extract verifiable claims from a source text. Reply with JSON only, no prose."
        user = (
            "List only the verifiable claims of the source text below: not background, aims or "
            "transitions. Copy each claim sentence verbatim, citation markers included. Return "
            'JSON only: {"claims": [{"original_text": "<verbatim sentence, markers included>"}]}'
            "\n\nSOURCE TEXT:\n" + text
        )
        content, _usage = self._chat(system, user, json_mode=True)
        parsed = _parse_json_content(content)
        if not isinstance(parsed, Mapping) or not isinstance(parsed.get("claims"), list):
            raise ValueError("unparsable model output")
        claims: list[dict[str, Any]] = []
        for item in parsed["claims"]:
            original = item.get("original_text") if isinstance(item, Mapping) else item
            if not isinstance(original, str):
                raise ValueError("unparsable model output")
            claims.append(
                {
                    "text": strip_markers(original),
                    "original_text": original,
                    "citations": detect_citations(original),
                }
            )
        return {"claims": claims}

    def _judge(self, claim: str, name: str, content: str) -> tuple[dict[str, Any], Any]:
        system = (
            "You judge one claim against one reference document. Reply with JSON only, no prose."
        )
        user = (
            "Decide how well the DOCUMENT supports the CLAIM as written, using exactly one of "
            "these six labels:\n" + _DEFINITIONS + "\n" + _TIE_BREAKERS + "\n\n"
            'Return JSON only: {"verdict": "<label>", "summary": "<one sentence>", '
            '"passages": [{"quote": "<verbatim text copied from the document>"}]}\n\n'
            f"CLAIM:\n{claim}\n\nDOCUMENT NAME: {name}\nDOCUMENT:\n{content}"
        )
        raw, usage = self._chat(system, user, json_mode=True)
        parsed: Any = None
        try:
            parsed = _parse_json_content(raw)
        except ValueError:
            parsed = None
        label = normalise_label(parsed.get("verdict")) if isinstance(parsed, Mapping) else None
        if not isinstance(parsed, Mapping) or label not in VERDICT_SCALE:
            return (
                {
                    "document_name": name,
                    "verdict": None,
                    "summary": f"unparsable model output: {raw[:120]}",
                    "passages": [],
                },
                usage,
            )
        passages = parsed.get("passages")
        summary = parsed.get("summary")
        return (
            {
                "document_name": name,
                "verdict": label,
                "summary": summary if isinstance(summary, str) else "",
                "passages": passages if isinstance(passages, list) else [],
            },
            usage,
        )

    def analyze_batch(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One chat request per (claim, document)."""
        usages: list[Mapping[str, Any]] = []
        out: list[dict[str, Any]] = []
        for claim in payload.get("claims") or []:
            analyses: list[dict[str, Any]] = []
            for doc in payload.get("documents") or []:
                analysis, usage = self._judge(
                    str(claim), str(doc.get("name", "")), str(doc.get("content", ""))
                )
                analyses.append(analysis)
                if isinstance(usage, Mapping):
                    usages.append(usage)
            out.append({"individual_analyses": analyses})
        result: dict[str, Any] = {"claims": out}
        if usages:
            totals = token_totals_from(usages)
            result["usage"] = {
                "prompt_tokens": totals["prompt_tokens"],
                "completion_tokens": totals["completion_tokens"],
                "total_tokens": totals["total_tokens"],
                "completion_tokens_details": {"reasoning_tokens": totals["reasoning_tokens"]},
            }
        return result

    def answer(self, question: str, context: str) -> str:
        """Answer only from the context, or reply with the abstention sentence."""
        system = "You answer questions strictly from the provided context."
        user = (
            "Answer the QUESTION using only the CONTEXT. If the context does not contain the "
            f"answer, reply exactly: {ABSTAIN_REPLY}\n\nQUESTION:\n{question}\n\nCONTEXT:\n"
            + context
        )
        content, _usage = self._chat(system, user, json_mode=False)
        return trim_ws(content)

    def _json_reply(self, system: str, user: str) -> Mapping[str, Any]:
        # one fixed message for every unreadable reply (json's own names a position in it),
        # raised outside the handler so that nothing is chained
        content, _usage = self._chat(system, user, json_mode=True)
        parsed: Any = None
        try:
            parsed = _parse_json_content(content)
        except ValueError:
            parsed = None
        if not isinstance(parsed, Mapping):
            raise ValueError("unparsable model output")
        return parsed

    def redact(self, text: str) -> dict[str, Any]:
        """Ask the model to replace every personal identifier with a ``[TYPE]`` tag and to list
        what it removed; a reply not of that shape raises (a redaction failure)."""
        system = "You de-identify clinical text. Reply with JSON only, no prose."
        user = (
            "Replace every personal identifier in the TEXT below (names of patients and "
            "relatives, NHS and other ID numbers, dates of birth, phone numbers, emails, street "
            "addresses, postcodes) with its type in square brackets, e.g. [PATIENT_NAME], "
            "[NHS_NUMBER], [DATE_OF_BIRTH], [PHONE], [EMAIL], [STREET_ADDRESS], [POSTCODE]. "
            "Change nothing else. Return JSON only: "
            '{"text": "<the text with identifiers replaced>", "entities": [{"value": '
            '"<identifier copied verbatim from the text>", "type": "<TYPE>"}]}\n\nTEXT:\n' + text
        )
        parsed = self._json_reply(system, user)
        redacted = parsed.get("text")
        entities = parsed.get("entities")
        if entities is None:
            entities = []
        if not isinstance(redacted, str) or not isinstance(entities, list):
            raise ValueError("unparsable model output")
        out: list[dict[str, str]] = []
        for item in entities:
            value = item.get("value") if isinstance(item, Mapping) else None
            kind = item.get("type") if isinstance(item, Mapping) else None
            if not isinstance(value, str) or not isinstance(kind, str | None):
                raise ValueError("unparsable model output")
            out.append({"value": value, "type": kind or ""})
        return {"text": redacted, "entities": out}

    def simplify(self, payload: dict[str, Any]) -> dict[str, str]:
        """Ask the model to rewrite the text for a patient, keeping every fact and number."""
        text = payload.get("text") if isinstance(payload, Mapping) else None
        if not isinstance(text, str):
            raise ValueError("simplify payload has no text")
        options = {
            key: payload.get(key) if isinstance(payload.get(key), str) else default
            for key, default in _SIMPLIFY_DEFAULTS
        }
        system = "You rewrite clinical text in plain language for patients. Reply with JSON only."
        user = (
            f"Rewrite the TEXT below for this audience: {options['audience']}; tone: "
            f"{options['tone']}; length: {options['length']}; language: {options['language']}. "
            "Keep every drug name, dose, test value and timeframe exactly; do not add any number "
            "that is not in the text. When the length is Brief, write 2 or 3 bullet lines "
            "starting with '- ', each under 20 words. Return JSON only: "
            '{"text": "<the rewritten text>"}\n\nTEXT:\n' + text
        )
        parsed = self._json_reply(system, user)
        simplified = parsed.get("text")
        if not isinstance(simplified, str):
            raise ValueError("unparsable model output")
        return {"text": simplified}

    def fetch_record(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Ask the model for the bibliographic record of an identifier, as JSON fields."""
        record_id = payload.get("id") if isinstance(payload, Mapping) else None
        if not isinstance(record_id, str):
            raise ValueError("fetch_record payload has no id")
        kind = payload.get("type")
        system = "You return bibliographic records as JSON. Reply with JSON only, no prose."
        user = (
            "Return the record with the IDENTIFIER below "
            f"(type: {kind if isinstance(kind, str) else 'pubmed'}). Copy fields verbatim from "
            "the source record; never invent one. Return JSON only: "
            '{"record": {"title": "<title>", "authors": ["<Surname Initials>"], "year": '
            '"<year>", "journal": "<journal>", "abstract_sections": ["<section text>"]}}'
            "\n\nIDENTIFIER:\n" + record_id
        )
        parsed = self._json_reply(system, user)
        record = parsed.get("record")
        if not isinstance(record, Mapping):
            raise ValueError("unparsable model output")
        return {"record": dict(record)}

    def reset_timing(self) -> None:
        """Start a new latency sample."""
        self.transport.reset_timing()

    def call_latencies(self) -> list[float]:
        """Milliseconds per request since :meth:`reset_timing`."""
        return list(self.transport.latencies)

    def reset_tokens(self) -> None:
        """Start a new token tally."""
        self.transport.reset_tokens()

    def token_totals(self) -> dict[str, int]:
        """Token usage of every request since :meth:`reset_tokens`."""
        return token_totals_from(self.transport.usages)
