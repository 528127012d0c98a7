"""Calling a judge's HTTP API: timeouts, retries with backoff that honour `Retry-After`,
and a cap on what is read of a reply.

Retried: connection failures, timeouts, 408, 409, 429 and 5xx (Anthropic's 529 included),
waiting what `Retry-After` asks (seconds or an HTTP date) or else exponential backoff with
jitter. A `Retry-After` longer than `max_retry_after_s` is not waited for: the call fails
as unavailable at once (the circuit breaker takes it from there). Any other status is the
caller's to read (`HttpReply`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import orjson

from services.judging.judge import JudgeUnavailable
from services.runtime.retry import RetryPolicy

_RETRIED = frozenset({408, 409, 429})
# More than any reply worth parsing (services.judging.reply caps the text far lower); a
# longer body is cut here, so a runaway reply costs no more memory than this.
MAX_BODY_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class HttpReply:
    """A reply that was not retried: its status and JSON body (None when it is not JSON
    or was longer than MAX_BODY_BYTES)."""

    status: int
    body: Any
    too_large: bool = False


@dataclass(frozen=True)
class Transport:
    """POSTs JSON with the retry policy; one httpx client (thread-safe) per judge."""

    client: httpx.Client
    policy: RetryPolicy
    max_retry_after_s: float = 60.0
    sleep: Callable[[float], None] = time.sleep

    def post(self, url: str, payload: dict[str, Any], headers: dict[str, str]) -> HttpReply:
        """POST `payload`; raises JudgeUnavailable after the last failed attempt."""
        return self._call("POST", url, headers, orjson.dumps(payload))

    def get(self, url: str, headers: dict[str, str]) -> HttpReply:
        """GET `url` (start-up checks), with the same retries."""
        return self._call("GET", url, headers, None)

    def _call(self, method: str, url: str, headers: dict[str, str], body: bytes | None) -> (
        HttpReply
    ):
        attempt = 0
        while True:
            attempt += 1
            wait: float | None = None
            try:
                reply = self._once(method, url, headers, body)
            except httpx.TransportError as exc:  # connection refused/reset, timeouts
                problem = f"{type(exc).__name__}: {exc or 'no detail'}"
            else:
                if reply[0] not in _RETRIED and reply[0] < 500:
                    return _reply(*reply)
                problem = f"HTTP {reply[0]}"
                wait = retry_after(reply[1])
                if wait is not None and wait > self.max_retry_after_s:
                    raise JudgeUnavailable(f"{problem}; Retry-After {wait:.0f} s is longer "
                                           f"than {self.max_retry_after_s:.0f} s")
            if self.policy.exhausted(attempt):
                raise JudgeUnavailable(f"{problem} after {attempt} attempts")
            self.sleep(wait if wait is not None else self.policy.delay(attempt))

    def _once(self, method: str, url: str, headers: dict[str, str], body: bytes | None) -> (
        tuple[int, httpx.Headers, bytes, bool]
    ):
        with self.client.stream(method, url, headers={**headers, "content-type":
                                                      "application/json"},
                                content=body) as response:
            chunks: list[bytes] = []
            size = 0
            too_large = False
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    too_large = True
                    break
                chunks.append(chunk)
            return response.status_code, response.headers, b"".join(chunks), too_large


def _reply(status: int, _headers: httpx.Headers, raw: bytes, too_large: bool) -> HttpReply:
    if too_large:
        return HttpReply(status, None, too_large=True)
    try:
        return HttpReply(status, orjson.loads(raw))
    except orjson.JSONDecodeError:
        return HttpReply(status, None)


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds a `Retry-After` header asks to wait (delta-seconds or an HTTP date)."""
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def error_message(body: Any) -> str:
    """The message of an OpenAI- or Anthropic-shaped error body (`{"error": {...}}`)."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or body["error"].get("type") or "")[:300]
    return ""
