"""An Anthropic Messages judge (`POST {base}/v1/messages`).

The instructions go in `system`, the data block in the one user message; the reply's text
blocks are read by the strict parser (services.judging.reply). `stop_reason: refusal` is an
opinion refused; a reply cut at `max_tokens` is rejected (its JSON is incomplete).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.judging.chat_judge import ChatJudge
from services.judging.judge import Item, Usage, Verdicts, no_opinions
from services.judging.prompt import build_prompt
from services.judging.reply import parse_reply
from services.judging.transport import HttpReply, error_message

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicJudge(ChatJudge):
    """Judges a batch of items in one Messages call."""

    kind = "anthropic"

    default_base_url = DEFAULT_BASE_URL

    def _auth_headers(self, api_key: str) -> dict[str, str]:
        return {"x-api-key": api_key, "anthropic-version": API_VERSION}

    def _model_url(self) -> str:
        return f"{self._base}/v1/models/{self._model}"

    def _model_missing(self, reply: HttpReply) -> str | None:
        """`GET {base}/v1/models/{model}` answers 404 for an unknown model."""
        return f": {error_message(reply.body)}" if reply.status == 404 else None

    def judge(self, items: Sequence[Item]) -> Verdicts:
        """One Messages call for the batch."""
        prompt = build_prompt(items)
        payload: dict[str, Any] = {
            "model": self._model,
            "max_tokens": self._max_tokens,
            "temperature": 0,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
        }
        reply = self._transport.post(f"{self._base}/v1/messages", payload, self._headers)
        body = reply.body if isinstance(reply.body, dict) else {}
        usage = _usage(body)
        unusable = self._unusable(reply, items, usage)
        if unusable is not None:
            return unusable
        if body.get("stop_reason") == "refusal":
            return no_opinions(items, "refused", "the model declined to answer", usage)
        if body.get("stop_reason") == "max_tokens":
            return no_opinions(items, "rejected", "the reply was cut at max_tokens", usage)
        blocks = body.get("content")
        if not isinstance(blocks, list):
            return no_opinions(items, "rejected", "the reply has no content", usage)
        text = "".join(b.get("text", "") for b in blocks
                       if isinstance(b, dict) and b.get("type") == "text")
        return Verdicts(parse_reply(text, items), usage)


def _usage(body: dict[str, Any]) -> Usage:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return Usage(requests=1)
    return Usage(1, int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0))
