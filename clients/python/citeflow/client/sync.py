"""`Client`: the blocking client (httpx.Client)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
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


class Client:
    """A citeflow gateway at `url` (else CITEFLOW_URL) with `api_key` (else
    CITEFLOW_API_KEY). Every call is retried on 429/503 and network errors per `retry`."""

    def __init__(self, url: str | None = None, api_key: str | None = None, *,
                 timeout: float = 60.0, retry: RetryPolicy | None = None,
                 transport: httpx.BaseTransport | None = None,
                 limits: httpx.Limits = core.LIMITS) -> None:
        self.url, self.api_key = core.settings(url, api_key)
        self.retry = retry or RetryPolicy()
        self._refusals = core.Refusals()
        self._http = httpx.Client(base_url=self.url, headers=core.headers(self.api_key),
                                  timeout=timeout, transport=transport,
                                  limits=limits)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ---- submitting ---------------------------------------------------------------------
    def submit(self, answer: Answer, *, wait: float | None = None,
               idempotency_key: str | None = None) -> Accepted | Result:
        """Submit one answer (an `AnswerSubmitted` or a dict; an answer_id is made if it has
        none). With `wait` seconds, the result if it is ready in time, else the 202."""
        call = core.answer_call(answer, wait, idempotency_key)
        with self._refusals.watch(call.answer_id):
            return core.submitted(self._send(call))

    def submit_many(self, answers: Iterable[Answer], *,
                    idempotency_key: str | None = None) -> BatchResult:
        """Submit answers in one batch request (JSON Lines); each line's outcome."""
        response = core.checked(self._send(core.batch_call(answers, idempotency_key)))
        return BatchResult.model_validate_json(response.content)

    def submit_provider(self, provider: str, response: Any, *, request: Any = None,
                        answer_id: str | None = None, query: str | None = None,
                        options: Mapping[str, Any] | None = None,
                        metadata: Mapping[str, Any] | None = None, wait: float | None = None,
                        idempotency_key: str | None = None) -> Accepted | Result:
        """Submit an LLM provider's own response (e.g. "anthropic" with its Message and the
        request that carried the documents); the gateway normalises its citations."""
        extra = {"query": query, "options": options, "metadata": metadata}
        call = core.provider_call(provider, response, request, answer_id, extra, wait,
                                  idempotency_key)
        with self._refusals.watch(call.answer_id):
            return core.submitted(self._send(call))

    def upload_document(self, source: str | os.PathLike[str] | bytes, *,
                        doc_id: str | None = None, title: str | None = None,
                        filename: str | None = None) -> Document:
        """Upload a PDF, EPUB, HTML or text document for the reader and span linking."""
        response = core.checked(self._send(core.upload_call(source, doc_id, title, filename)))
        return Document.model_validate_json(response.content)

    def document(self, doc_id: str) -> Document:
        """A document's record: its status (`submitted` until ingest is done with it), format,
        sections and chunks, or why it was rejected."""
        response = core.checked(self._send(Call("GET", f"/v1/documents/{doc_id}")))
        return Document.model_validate_json(response.content)

    def wait_document(self, doc_id: str, timeout: float = 60.0, *,
                      poll: float = 0.2) -> Document:
        """Poll until ingest is done with the document (ingested, rejected or
        dead-lettered): check `.status == "ingested"` before citing it."""
        return self._until_final(self.document, doc_id, timeout, poll)

    # ---- reading ------------------------------------------------------------------------
    def get(self, answer_id: str) -> Result:
        """The formatted result, or the answer's status while not formatted."""
        return core.read_result(self._send(Call("GET", f"/v1/answers/{answer_id}")))

    def wait(self, answer_id: str, timeout: float = 60.0, *, poll: float = 0.2) -> Result:
        """Poll until the answer is final (formatted, rejected, dead-lettered). If this
        client's last submit of `answer_id` was refused, that error is raised at once."""
        self._refusals.check(answer_id)
        return self._until_final(self.get, answer_id, timeout, poll)

    def viewer_url(self, answer_id: str) -> str:
        """The gateway's page showing the answer, with this client's key as `#key=` (the
        fragment stays in the browser)."""
        return core.viewer_url(self.url, answer_id, self.api_key)

    def list(self, **filters: Any) -> Iterator[AnswerState]:
        """Every answer matching the filters (model, status, since, until, has_problems,
        min_coverage, ..., limit per page), following the cursor pages."""
        params = core.query(filters)
        while True:
            page = core.checked(self._send(Call("GET", "/v1/answers", dict(params)))).json()
            for item in page["items"]:
                yield AnswerState.model_validate(item)
            if not page.get("next_cursor"):
                return
            params["cursor"] = page["next_cursor"]

    def stats(self, **params: Any) -> Stats:
        """Aggregates per model or tenant (group_by, window, until, bucket, model)."""
        response = core.checked(self._send(Call("GET", "/v1/stats", core.query(params))))
        return Stats.model_validate_json(response.content)

    def stream(self, *, last_event_id: str | None = None, **filters: Any) -> Stream:
        """Outcomes as they happen (filters as `list`, plus include= and view=); resumes
        with Last-Event-ID whenever the connection drops."""
        return Stream(self, core.query(filters), last_event_id)

    def _until_final(self, read: Callable[[str], Polled], key: str, timeout: float,
                     poll: float) -> Polled:
        """`read(key)` until it is final (a 404 meanwhile is not yet)."""
        delays = core.poll_delays(key, timeout, poll)
        while True:
            try:
                found = read(key)
                if core.is_final(found):
                    return found
            except CiteflowError as exc:
                if exc.status != 404:
                    raise
            time.sleep(next(delays))

    # ---- transport ----------------------------------------------------------------------
    def _send(self, call: Call) -> httpx.Response:
        """The call's response, retried per the policy; a CiteflowError if none came."""
        policy = self.retry
        for attempt in range(policy.attempts):
            last = attempt == policy.attempts - 1
            try:
                response = self._http.request(
                    call.method, call.path, params=call.params or None, content=call.content,
                    files=call.files, data=call.data, headers=call.headers)
            except httpx.TransportError as exc:
                if last or not call.replayable:
                    raise CiteflowError.local("network_error",
                                              f"{self.url}: {exc!r}") from exc
                self._pause(RetryInfo(attempt + 1, policy.delay(attempt, None), None, None,
                                      repr(exc)))
                continue
            if last or not retryable(response):
                return response
            wait = retry_after(response)
            self._pause(RetryInfo(attempt + 1, policy.delay(attempt, wait),
                                  response.status_code, wait, None))
        raise AssertionError("unreachable")

    def _pause(self, info: RetryInfo) -> None:
        if self.retry.on_retry is not None:
            self.retry.on_retry(info)
        time.sleep(info.delay)


class Stream:
    """An iterator of outcomes that reconnects after the last one it yielded."""

    def __init__(self, client: Client, params: dict[str, str],
                 last_event_id: str | None) -> None:
        self.client = client
        self.params = params
        self.last_event_id = last_event_id
        self.reconnects = 0
        # True while a connection is open (the gateway has subscribed it: outcomes from
        # now on are delivered).
        self.connected = False
        self._closed = False
        self._response: httpx.Response | None = None

    def __iter__(self) -> Iterator[StreamEvent]:
        attempt = 0
        while not self._closed:
            try:
                self.connected = False
                for event in self._connection():
                    attempt = 0
                    yield event
            except httpx.TransportError as exc:
                error: str | None = repr(exc)
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
            self.client._pause(RetryInfo(attempt + 1, self.client.retry.delay(attempt, None),
                                         None, None, error))
            attempt += 1

    def _connection(self) -> Iterator[StreamEvent]:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        timeout = httpx.Timeout(30.0, read=None)
        with self.client._http.stream("GET", "/v1/stream", params=self.params,
                                      headers=headers, timeout=timeout) as response:
            if response.status_code >= 400:
                response.read()
                raise core.error_of(response)
            self._response = response
            self.connected = True
            parser = core.SseParser()
            for line in response.iter_lines():
                found = parser.feed(line)
                event = core.stream_event(found) if found else None
                if event is not None:
                    self.last_event_id = event.id
                    yield event
                if self._closed:
                    return

    def close(self) -> None:
        """Stop after the current event (the iterator ends)."""
        self._closed = True
        if self._response is not None:
            self._response.close()
