"""What the chat-model judges (OpenAI-compatible, Anthropic) share: their settings and
headers, the start-up check of the key and the model, and the replies unusable before their
text is read. A subclass fills in the hooks: its default base URL, its auth headers, where
the model is looked up and what says it does not exist."""

from __future__ import annotations

from abc import ABC, abstractmethod
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


class ChatJudge(ABC):
    """A judge behind an HTTP chat API; subclasses build the request and read the reply."""

    quotes_evidence = True
    kind = ""  # the name's prefix: `openai`, `anthropic`
    default_base_url = ""

    def __init__(self, transport: Transport, model: str, base_url: str | None = None,
                 api_key: str = "", max_tokens: int = 2048) -> None:
        self._transport = transport
        self._model = model
        self._base = (base_url or self.default_base_url).rstrip("/")
        self._headers = self._auth_headers(api_key)
        self._max_tokens = max_tokens

    @property
    def name(self) -> str:
        """`<kind>:<model>`."""
        return f"{self.kind}:{self._model}"

    def check(self) -> None:
        """Ask the server about the model (`_model_url`): a refused key or an unknown model
        is a configuration error. An unreachable server is not: the breaker copes."""
        try:
            reply = self._transport.get(self._model_url(), self._headers)
        except JudgeUnavailable:
            return
        if reply.status in (401, 403):  # the key will not start working
            raise JudgeConfigError(f"{self._base}: the API key was refused "
                                   f"(HTTP {reply.status}) {error_message(reply.body)}")
        missing = self._model_missing(reply)
        if missing is not None:
            raise JudgeConfigError(f"model {self._model!r} does not exist at {self._base}"
                                   f"{missing}")

    @abstractmethod
    def _auth_headers(self, api_key: str) -> dict[str, str]:
        """The headers every request carries (the key, an API version)."""

    @abstractmethod
    def _model_url(self) -> str:
        """Where the start-up check looks the model up."""

    @abstractmethod
    def _model_missing(self, reply: HttpReply) -> str | None:
        """None when `reply` does not say the model is unknown, else the detail to append to
        the error (e.g. what the server serves instead)."""

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
