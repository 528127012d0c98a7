"""An OpenAI-compatible chat-completions judge: OpenAI, Azure OpenAI's v1 API, vLLM, Ollama,
llama.cpp's server, LM Studio; anything serving `POST {base}/chat/completions`.

Structured output first (`response_format` with the reply's JSON Schema, strict); a server
that refuses that parameter with a 400 naming it is asked again without it, and from then
on the reply is only read by the strict parser (services.judging.reply). A `refusal` in
the message (OpenAI's structured-output refusals) is an opinion refused, not an error.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from services.judging.chat_judge import ChatJudge
from services.judging.judge import Item, Usage, Verdicts, no_opinions
from services.judging.prompt import REPLY_SCHEMA, build_prompt
from services.judging.reply import parse_reply
from services.judging.transport import HttpReply, Transport, error_message

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAICompatibleJudge(ChatJudge):
    """Judges a batch of items in one chat completion."""

    kind = "openai"

    default_base_url = DEFAULT_BASE_URL

    def __init__(self, transport: Transport, model: str, base_url: str | None = None,
                 api_key: str = "", max_tokens: int = 2048) -> None:
        super().__init__(transport, model, base_url, api_key, max_tokens)
        self._structured = True
        self._lock = threading.Lock()

    def _auth_headers(self, api_key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def _model_url(self) -> str:
        return f"{self._base}/models"

    def _model_missing(self, reply: HttpReply) -> str | None:
        """The model is missing from `GET {base}/models`. A server without the listing
        (some local servers) is not asked further: its first call tells."""
        if reply.status != 200 or not isinstance(reply.body, dict):
            return None
        listed = [m.get("id") for m in reply.body.get("data") or [] if isinstance(m, dict)]
        if self._model in listed:
            return None
        return f" (it serves: {', '.join(str(m) for m in listed[:10]) or 'no models'})"

    def judge(self, items: Sequence[Item]) -> Verdicts:
        """One chat completion for the batch."""
        prompt = build_prompt(items)
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": "system", "content": prompt.system},
                         {"role": "user", "content": prompt.user}],
            "temperature": 0,
            "max_tokens": self._max_tokens,
        }
        reply = self._post(payload)
        usage = _usage(reply.body)
        unusable = self._unusable(reply, items, usage)
        if unusable is not None:
            return unusable
        message = _message(reply.body)
        if message is None:
            return no_opinions(items, "rejected", "the reply has no message", usage)
        if isinstance(message.get("refusal"), str) and message["refusal"]:
            return no_opinions(items, "refused", message["refusal"][:300], usage)
        content = message.get("content")
        if not isinstance(content, str):
            return no_opinions(items, "rejected", "the reply's message has no text", usage)
        return Verdicts(parse_reply(content, items), usage)

    def _post(self, payload: dict[str, Any]) -> HttpReply:
        url = f"{self._base}/chat/completions"
        if self._structured:
            structured = {**payload, "response_format": {"type": "json_schema", "json_schema": {
                "name": "citation_judgements", "strict": True, "schema": REPLY_SCHEMA}}}
            reply = self._transport.post(url, structured, self._headers)
            if not (reply.status == 400 and "response_format" in error_message(reply.body)):
                return reply
            with self._lock:  # this server takes no JSON Schema: the strict parser alone
                self._structured = False
        return self._transport.post(url, payload, self._headers)


def _message(body: Any) -> dict[str, Any] | None:
    if not isinstance(body, dict):
        return None
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    return message if isinstance(message, dict) else None


def _usage(body: Any) -> Usage:
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return Usage(requests=1)
    return Usage(1, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens")
                                                                or 0))
