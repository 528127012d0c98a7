"""Reading a chat model's reply strictly: one JSON object of the prompt's shape, or nothing.

A reply that is not one JSON object (a single ```json fence around it is tolerated: models
without a JSON mode add one), or is longer than `MAX_REPLY_CHARS`, rejects every item of
the batch. Within a well-formed reply each entry stands alone: a verdict outside the enum,
a missing rationale or a quote that is not a string rejects that item only, and an item
the reply does not mention is rejected as unanswered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from services.judging.judge import MODEL_VERDICTS, Item, NoOpinion, Opinion

# A batch's reply is a few hundred characters per item; far more is not a reply to use.
MAX_REPLY_CHARS = 64 * 1024
MAX_RATIONALE_CHARS = 400
MAX_QUOTES = 3


def parse_reply(text: str, items: Sequence[Item]) -> dict[str, Opinion | NoOpinion]:
    """Per item key, the opinion the reply gives, or why it gives none."""
    try:
        entries = _entries(text)
    except ValueError as exc:
        return {item.key: NoOpinion("rejected", str(exc)) for item in items}
    found: dict[str, Opinion | NoOpinion] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            found.setdefault(entry["id"], _opinion(entry))
    return {
        item.key: found.get(item.key, NoOpinion("rejected", "the reply has no entry for it"))
        for item in items
    }


def _entries(text: str) -> list[Any]:
    if len(text) > MAX_REPLY_CHARS:
        raise ValueError(f"the reply is {len(text)} characters (more than {MAX_REPLY_CHARS})")
    body = text.strip()
    if body.startswith("```"):
        first, _, rest = body.partition("\n")
        if first.strip() not in ("```", "```json") or not rest.rstrip().endswith("```"):
            raise ValueError("the reply is not one JSON object")
        body = rest.rstrip()[:-3]
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise ValueError("the reply is not JSON") from None
    if not isinstance(value, dict) or not isinstance(value.get("judgements"), list):
        raise ValueError("the reply is not an object with a `judgements` list")
    return value["judgements"]


def _opinion(entry: dict[str, Any]) -> Opinion | NoOpinion:
    verdict = entry.get("verdict")
    if verdict not in MODEL_VERDICTS:
        return NoOpinion("rejected", f"verdict {str(verdict)[:40]!r} is not one of "
                                     f"{', '.join(MODEL_VERDICTS)}")
    rationale = entry.get("rationale")
    if not isinstance(rationale, str) or not rationale.strip():
        return NoOpinion("rejected", "the entry has no rationale")
    if len(rationale) > MAX_RATIONALE_CHARS:
        return NoOpinion("rejected", f"the rationale is longer than {MAX_RATIONALE_CHARS}"
                                     " characters")
    quotes = entry.get("evidence", [])
    if not isinstance(quotes, list) or not all(isinstance(q, str) and q for q in quotes):
        return NoOpinion("rejected", "`evidence` is not a list of quotes")
    if len(quotes) > MAX_QUOTES:
        return NoOpinion("rejected", f"more than {MAX_QUOTES} evidence quotes")
    return Opinion(verdict, " ".join(rationale.split()), tuple(quotes))
