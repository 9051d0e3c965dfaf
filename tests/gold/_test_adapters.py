"""Deterministic test adapters whose expected metrics are worked out by hand in the tests."""

from __future__ import annotations

from typing import Any, ClassVar


class Scripted:
    """Scripted answers per input; stateful across repeats (a counter per claim)."""

    meta: ClassVar[dict[str, str]] = {"name": "scripted"}

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.hooks: list[str] = []

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return "nothing to set"

    def run_model(self) -> str:
        return "scripted-1"

    def split_claims(self, text: str) -> Any:
        if text.startswith("Kappa"):
            raise RuntimeError("boom")
        return {
            "claims": [
                "Alpha beta gamma delta one",
                {"text": "Background sentence here", "citations": []},
                {"text": "Invented claim not in source at all", "citations": [1]},
            ]
        }

    def analyze_batch(self, payload: dict[str, Any]) -> Any:
        claim = payload["claims"][0]
        k = self.calls.get(claim, 0) + 1
        self.calls[claim] = k
        doc = payload["documents"][0]["name"]
        if claim.startswith("Epsilon"):
            return ["not", "a", "mapping"]
        if claim.startswith("Alpha"):
            if k == 1:
                analysis = {
                    "document_name": doc,
                    "verdict": " Strong Support ",
                    "passages": ["Alpha beta gamma", {"quote": "made up words"}, {"text": 5}],
                }
                usage: dict[str, Any] = {"prompt_tokens": 10, "completion_tokens": 5}
            else:
                analysis = {
                    "document_name": doc,
                    "verdict": "partial-support",
                    "passages": [{"quote": None, "snippet": "is true"}],
                }
                usage = {
                    "input_tokens": 7,
                    "output_tokens": 3,
                    "total_tokens": 11,
                    "output_tokens_details": {"reasoning_tokens": 2},
                }
            return {
                "claims": [{"individual_analyses": [{"document_name": "other"}, analysis]}],
                "usage": usage,
            }
        return {
            "claims": [
                {
                    "individual_analyses": [
                        {
                            "document_name": doc,
                            "verdict": "maybe",
                            "summary": "Claim COULD NOT BE VERIFIED against the document.",
                        }
                    ]
                }
            ]
        }

    def answer(self, question: str, context: str) -> Any:
        if question.startswith("How long"):
            return "You need 90 days and 5 forms."
        if question.startswith("What price"):
            return {"answer": "I do not know."}
        return 42

    def reset_timing(self) -> None:
        self.hooks.append("reset_timing")

    def reset_tokens(self) -> None:
        self.hooks.append("reset_tokens")


class Failing:
    """Every capability call raises: every measurable metric is null."""

    meta: ClassVar[dict[str, str]] = {"name": "failing"}

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def split_claims(self, text: str) -> Any:
        raise TimeoutError("system timed out")

    def analyze_batch(self, payload: dict[str, Any]) -> Any:
        raise TimeoutError("system timed out")

    def answer(self, question: str, context: str) -> Any:
        raise TimeoutError("system timed out")


class Hooked:
    """Uses call_latencies() and token_totals(); async capability functions."""

    meta: ClassVar[dict[str, str]] = {"name": "hooked"}

    def __init__(self) -> None:
        self.resets = 0

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    async def analyze_batch(self, payload: dict[str, Any]) -> Any:
        doc = payload["documents"][0]["name"]
        return {
            "claims": [{"individual_analyses": [{"document_name": doc, "verdict": "overclaim"}]}]
        }

    async def answer(self, question: str, context: str) -> Any:
        return {"text": "The answer is not in the provided context."}

    def reset_timing(self) -> None:
        self.resets += 1

    def call_latencies(self) -> list[float]:
        return [5.0, 1.0, 3.0, 2.0]

    def reset_tokens(self) -> None:
        return None

    def token_totals(self) -> dict[str, int]:
        return {
            "calls": 4,
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "reasoning_tokens": 4,
            "total_tokens": 120,
        }


class Unavailable:
    """online_available() is false."""

    meta: ClassVar[dict[str, str]] = {"name": "unavailable"}

    def online_available(self) -> bool:
        return False

    def online_config_hint(self) -> str:
        return "Set SYSTEM_URL to run online scorers."

    def split_claims(self, text: str) -> Any:
        return {"claims": []}

    def analyze_batch(self, payload: dict[str, Any]) -> Any:
        return {}

    def answer(self, question: str, context: str) -> Any:
        return ""


class Raising(Unavailable):
    """online_available() raises."""

    meta: ClassVar[dict[str, str]] = {"name": "raising"}

    def online_available(self) -> bool:
        raise RuntimeError("no config")


class GroundingOnly:
    """Only the grounding capability."""

    meta: ClassVar[dict[str, str]] = {"name": "grounding-only"}

    def online_available(self) -> bool:
        return True

    def online_config_hint(self) -> str:
        return ""

    def answer(self, question: str, context: str) -> str:
        return "The answer is not in the provided context."


class Broken:
    """Every kind of validation problem at once."""

    online_config_hint = "not callable"
    analyze_batch = 3
    reset_timing = "x"
    meta: ClassVar[dict[str, str]] = {"name": ""}


scripted = Scripted()
