"""`AsyncClient`: the asyncio client (httpx.AsyncClient); the same methods as `Client`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any

import httpx

from citeflow.client import core
from citeflow.client.core import Answer, Call, Polled
from citeflow.client.errors import CiteflowError
from citeflow.client.models import (
    Accepted,
    AnswerState,
    BatchResult,
    Document,
    Result,
    Stats,
    StreamEvent,
)
from citeflow.client.retry import RetryInfo, RetryPolicy, retry_after, retryable


class AsyncClient:
    """The asyncio twin of `Client` (same arguments, same methods, awaited)."""

    def __init__(self, url: str | None = None, api_key: str | None = None, *,
                 timeout: float = 60.0, retry: RetryPolicy | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 limits: httpx.Limits = core.LIMITS) -> None:
        self.url, self.api_key = core.settings(url, api_key)
        self.retry = retry or RetryPolicy()
        self._refusals = core.Refusals()
        self._http = httpx.AsyncClient(base_url=self.url, headers=core.headers(self.api_key),
                                       timeout=timeout, transport=transport,
                                       limits=limits)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def submit(self, answer: Answer, *, wait: float | None = None,
                     idempotency_key: str | None = None) -> Accepted | Result:
        """See `Client.submit`."""
        call = core.answer_call(answer, wait, idempotency_key)
        with self._refusals.watch(call.answer_id):
            return core.submitted(await self._send(call))

    async def submit_many(self, answers: Iterable[Answer], *,
                          idempotency_key: str | None = None) -> BatchResult:
        """See `Client.submit_many`."""
        response = core.checked(await self._send(core.batch_call(answers, idempotency_key)))
        return BatchResult.model_validate_json(response.content)

    async def submit_provider(self, provider: str, response: Any, *, request: Any = None,
                              answer_id: str | None = None, query: str | None = None,
                              options: Mapping[str, Any] | None = None,
                              metadata: Mapping[str, Any] | None = None,
                              wait: float | None = None,
                              idempotency_key: str | None = None) -> Accepted | Result:
        """See `Client.submit_provider`."""
        extra = {"query": query, "options": options, "metadata": metadata}
        call = core.provider_call(provider, response, request, answer_id, extra, wait,
                                  idempotency_key)
        with self._refusals.watch(call.answer_id):
            return core.submitted(await self._send(call))

    async def upload_document(self, source: str | os.PathLike[str] | bytes, *,
                              doc_id: str | None = None, title: str | None = None,
                              filename: str | None = None) -> Document:
        """See `Client.upload_document`."""
        call = core.upload_call(source, doc_id, title, filename)
        response = core.checked(await self._send(call))
        return Document.model_validate_json(response.content)

    async def document(self, doc_id: str) -> Document:
        """See `Client.document`."""
        response = core.checked(await self._send(Call("GET", f"/v1/documents/{doc_id}")))
        return Document.model_validate_json(response.content)

    async def wait_document(self, doc_id: str, timeout: float = 60.0, *,
                            poll: float = 0.2) -> Document:
        """See `Client.wait_document`."""
        return await self._until_final(self.document, doc_id, timeout, poll)

    async def get(self, answer_id: str) -> Result:
        return core.read_result(await self._send(Call("GET", f"/v1/answers/{answer_id}")))

    async def wait(self, answer_id: str, timeout: float = 60.0, *,
                   poll: float = 0.2) -> Result:
        """See `Client.wait`."""
        self._refusals.check(answer_id)
        return await self._until_final(self.get, answer_id, timeout, poll)

    def viewer_url(self, answer_id: str) -> str:
        """See `Client.viewer_url`."""
        return core.viewer_url(self.url, answer_id, self.api_key)

    async def list(self, **filters: Any) -> AsyncIterator[AnswerState]:
        """See `Client.list`."""
        params = core.query(filters)
        while True:
            response = core.checked(await self._send(Call("GET", "/v1/answers", dict(params))))
            page = response.json()
            for item in page["items"]:
                yield AnswerState.model_validate(item)
            if not page.get("next_cursor"):
                return
            params["cursor"] = page["next_cursor"]

    async def stats(self, **params: Any) -> Stats:
        response = core.checked(await self._send(Call("GET", "/v1/stats", core.query(params))))
        return Stats.model_validate_json(response.content)

    def stream(self, *, last_event_id: str | None = None, **filters: Any) -> AsyncStream:
        """See `Client.stream` (`async for event in client.stream(...)`)."""
        return AsyncStream(self, core.query(filters), last_event_id)

    async def _until_final(self, read: Callable[[str], Awaitable[Polled]], key: str,
                           timeout: float, poll: float) -> Polled:
        """`read(key)` until it is final (a 404 meanwhile is not yet)."""
        delays = core.poll_delays(key, timeout, poll)
        while True:
            try:
                found = await read(key)
                if core.is_final(found):
                    return found
            except CiteflowError as exc:
                if exc.status != 404:
                    raise
            await asyncio.sleep(next(delays))

    async def _send(self, call: Call) -> httpx.Response:
        policy = self.retry
        for attempt in range(policy.attempts):
            last = attempt == policy.attempts - 1
            try:
                response = await self._http.request(
                    call.method, call.path, params=call.params or None, content=call.content,
                    files=call.files, data=call.data, headers=call.headers)
            except httpx.TransportError as exc:
                if last or not call.replayable:
                    raise CiteflowError.local("network_error",
                                              f"{self.url}: {exc!r}") from exc
                await self._pause(RetryInfo(attempt + 1, policy.delay(attempt, None), None,
                                            None, repr(exc)))
                continue
            if last or not retryable(response):
                return response
            wait = retry_after(response)
            await self._pause(RetryInfo(attempt + 1, policy.delay(attempt, wait),
                                        response.status_code, wait, None))
        raise AssertionError("unreachable")

    async def _pause(self, info: RetryInfo) -> None:
        if self.retry.on_retry is not None:
            self.retry.on_retry(info)
        await asyncio.sleep(info.delay)


class AsyncStream:
    """An async iterator of outcomes that reconnects after the last one it yielded."""

    def __init__(self, client: AsyncClient, params: dict[str, str],
                 last_event_id: str | None) -> None:
        self.client = client
        self.params = params
        self.last_event_id = last_event_id
        self.reconnects = 0
        # True while a connection is open (the gateway has subscribed it: outcomes from
        # now on are delivered).
        self.connected = False
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[StreamEvent]:
        attempt = 0
        while not self._closed:
            try:
                self.connected = False
                async for event in self._connection():
                    attempt = 0
                    yield event
            except httpx.TransportError as exc:
                error = repr(exc)
            except CiteflowError as exc:
                if exc.retry_after is None and exc.status not in (0, 429, 503):
                    raise
                error = str(exc)
            else:
                error = "stream ended"
            self.connected = False
            if self._closed:
                return
            if attempt >= self.client.retry.attempts * 4:
                raise CiteflowError.local("network_error", f"stream lost: {error}")
            self.reconnects += 1
            await self.client._pause(RetryInfo(
                attempt + 1, self.client.retry.delay(attempt, None), None, None, error))
            attempt += 1

    async def _connection(self) -> AsyncIterator[StreamEvent]:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        timeout = httpx.Timeout(30.0, read=None)
        async with self.client._http.stream("GET", "/v1/stream", params=self.params,
                                            headers=headers, timeout=timeout) as response:
            if response.status_code >= 400:
                await response.aread()
                raise core.error_of(response)
            self.connected = True
            parser = core.SseParser()
            async for line in response.aiter_lines():
                found = parser.feed(line)
                event = core.stream_event(found) if found else None
                if event is not None:
                    self.last_event_id = event.id
                    yield event
                if self._closed:
                    return

    def close(self) -> None:
        self._closed = True
