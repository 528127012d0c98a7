"""What the chat-model judges (OpenAI-compatible, Anthropic) share: their settings, the
start-up check of a refused key, and the replies unusable before their text is read."""

from __future__ import annotations

from collections.abc import Sequence

from services.judging.judge import (
    Item,
    JudgeConfigError,
    JudgeUnavailable,
    Usage,
    Verdicts,
    no_opinions,
)
from services.judging.transport import HttpReply, Transport, error_message


class ChatJudge:
    """A judge behind an HTTP chat API; subclasses build the request and read the reply."""

    quotes_evidence = True
    kind = ""  # the name's prefix: `openai`, `anthropic`

    def __init__(self, transport: Transport, model: str, base_url: str,
                 max_tokens: int = 2048) -> None:
        self._transport = transport
        self._model = model
        self._base = base_url.rstrip("/")
        self._max_tokens = max_tokens

    @property
    def name(self) -> str:
        """`<kind>:<model>`."""
        return f"{self.kind}:{self._model}"

    def _refused_key(self, reply: HttpReply) -> None:
        """A 401/403 at start-up is a configuration error (the key will not start working)."""
        if reply.status in (401, 403):
            raise JudgeConfigError(f"{self._base}: the API key was refused "
                                   f"(HTTP {reply.status}) {error_message(reply.body)}")

    @staticmethod
    def _unusable(reply: HttpReply, items: Sequence[Item], usage: Usage) -> Verdicts | None:
        """The no-opinions of a reply that is too long or not a success (a refused key or a
        vanished model mid-run is the judge being unavailable: the breaker takes it)."""
        if reply.too_large:
            return no_opinions(items, "rejected", "the reply is longer than 1 MiB", usage)
        if reply.status == 200:
            return None
        detail = f"HTTP {reply.status} {error_message(reply.body)}".strip()
        if reply.status in (401, 403, 404):
            raise JudgeUnavailable(detail)
        return no_opinions(items, "rejected", detail, usage)
