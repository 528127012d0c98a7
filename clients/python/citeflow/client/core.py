"""What `Client` and `AsyncClient` share: configuration, the requests each method makes,
turning responses into models or a `CiteflowError`, and the SSE parser."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from citeflow.client.errors import CiteflowError
from citeflow.client.models import (
    Accepted,
    AnswerState,
    Document,
    Result,
    StreamEvent,
    result_of,
)
from citeflow.client.retry import retry_after

DEFAULT_URL = "http://localhost:8000"
USER_AGENT = "citeflow-python"
# Keep-alive for as many connections as are open: httpx keeps only 20 by default, so more
# concurrent calls than that would open a new connection per request.
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=100)
Answer = BaseModel | Mapping[str, Any]


def settings(url: str | None, api_key: str | None) -> tuple[str, str | None]:
    """The gateway URL and key: arguments first, then CITEFLOW_URL and CITEFLOW_API_KEY."""
    base = (url or os.environ.get("CITEFLOW_URL") or DEFAULT_URL).rstrip("/")
    return base, api_key or os.environ.get("CITEFLOW_API_KEY")


def headers(api_key: str | None) -> dict[str, str]:
    found = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if api_key:
        found["Authorization"] = f"Bearer {api_key}"
    return found


Polled = TypeVar("Polled", Result, Document)


def is_final(found: Result | Document) -> bool:
    """Whether a read answer or document is final (a formatted result always is)."""
    return not isinstance(found, AnswerState | Document) or found.final


def poll_delays(what: str, timeout: float, poll: float) -> Iterator[float]:
    """The pauses between polls (growing from `poll` to 2 s); past `timeout`, a `timeout`
    CiteflowError instead of the next pause."""
    deadline = time.monotonic() + timeout
    delay = poll
    while time.monotonic() + delay <= deadline:
        yield delay
        delay = min(delay * 1.5, 2.0)
    raise CiteflowError.local("timeout", f"{what} not final in {timeout} s")


def viewer_url(base: str, answer_id: str, api_key: str | None) -> str:
    """The gateway's viewer page of an answer; the key in the fragment (`#key=`, never sent
    to a server) when there is one, as the page reads it."""
    page = f"{base}/answers/{quote(answer_id, safe='')}"
    return f"{page}#key={quote(api_key, safe='')}" if api_key else page


class Refusals:
    """The last refused submit of each answer id this client sent (the most recent
    `MAX_REFUSALS`): `wait` raises it at once rather than polling for an answer that will not
    come, or reading an earlier answer under the same id."""

    MAX_REFUSALS = 1024

    def __init__(self) -> None:
        self._errors: OrderedDict[str, CiteflowError] = OrderedDict()

    @contextmanager
    def watch(self, answer_id: str | None) -> Iterator[None]:
        """Note the submit of `answer_id` in the block: a CiteflowError is kept (and
        raised), a success forgets an earlier one."""
        try:
            yield
        except CiteflowError as exc:
            if answer_id:
                self._errors[answer_id] = exc
                self._errors.move_to_end(answer_id)
                while len(self._errors) > self.MAX_REFUSALS:
                    self._errors.popitem(last=False)
            raise
        if answer_id:
            self._errors.pop(answer_id, None)

    def check(self, answer_id: str | None) -> None:
        """Raise what there is to know before waiting for `answer_id`."""
        if not answer_id:
            raise CiteflowError.local(
                "no_answer_id", f"wait needs an answer id, got {answer_id!r}",
                "a hook's answer_id is None until its chain has run and produced text")
        refused = self._errors.get(answer_id)
        if refused is not None:
            raise CiteflowError(refused.problem, retry_after=refused.retry_after,
                                hint=refused.hint) from refused


@dataclass
class Call:
    """One logical request: retried as a whole, under the same Idempotency-Key."""

    method: str
    path: str
    params: dict[str, str] = field(default_factory=dict)
    content: bytes | None = None
    files: dict[str, Any] | None = None
    data: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Safe to send again after a network error: reads, and submits under an
    # Idempotency-Key (the gateway replays the first response).
    replayable: bool = True
    # The answer a submit sends (for `Refusals`).
    answer_id: str | None = None


def as_dict(answer: Answer) -> dict[str, Any]:
    """An answer (pydantic model or mapping) as JSON-ready data, with an answer_id."""
    data = (answer.model_dump(mode="json", exclude_none=True) if isinstance(answer, BaseModel)
            else dict(answer))
    if not data.get("answer_id"):
        data["answer_id"] = f"cf-{uuid.uuid4().hex}"
    return data


def submit_call(path: str, body: dict[str, Any], wait: float | None,
                idempotency_key: str | None) -> Call:
    params = {"wait": f"{wait:g}"} if wait else {}
    return Call("POST", path, params, _dumps(body), headers={
        "Content-Type": "application/json",
        "Idempotency-Key": idempotency_key or uuid.uuid4().hex},
        answer_id=str(body["answer_id"]))


def answer_call(answer: Answer, wait: float | None, key: str | None) -> Call:
    return submit_call("/v1/answers", as_dict(answer), wait, key)


def provider_call(provider: str, response: Any, request: Any, answer_id: str | None,
                  extra: Mapping[str, Any], wait: float | None, key: str | None) -> Call:
    line = {"response": _plain(response), "answer_id": answer_id or f"cf-{uuid.uuid4().hex}",
            **{k: _plain(v) for k, v in extra.items() if v is not None}}
    if request is not None:
        line["request"] = _plain(request)
    return submit_call(f"/v1/providers/{provider}/answers", line, wait, key)


def batch_call(answers: Iterable[Answer], key: str | None) -> Call:
    body = b"\n".join(_dumps(as_dict(a)) for a in answers) + b"\n"
    return Call("POST", "/v1/answers:batch", content=body, headers={
        "Content-Type": "application/x-ndjson",
        "Idempotency-Key": key or uuid.uuid4().hex})


def upload_call(source: str | os.PathLike[str] | bytes, doc_id: str | None,
                title: str | None, filename: str | None) -> Call:
    if isinstance(source, bytes):
        data, name = source, filename or doc_id or "document"
    else:
        path = Path(source)
        data, name = path.read_bytes(), filename or path.name
    fields = {k: v for k, v in {"doc_id": doc_id, "title": title}.items() if v}
    return Call("POST", "/v1/documents", files={"file": (name, data)}, data=fields)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _plain(value: Any) -> Any:
    """A provider SDK object (pydantic model, dataclass-like) as plain JSON data."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    dump = getattr(value, "model_dump", None) or getattr(value, "to_dict", None)
    return dump() if callable(dump) else value


def query(filters: Mapping[str, Any]) -> dict[str, str]:
    """Filters as query parameters (booleans lower case, times RFC 3339); None dropped."""
    out: dict[str, str] = {}
    for name, value in filters.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, datetime):
            out[name] = value.isoformat()
        else:
            out[name] = str(value)
    return out


def error_of(response: httpx.Response) -> CiteflowError:
    """A non-2xx response as a CiteflowError carrying its problem+json."""
    try:
        problem = response.json()
        if not isinstance(problem, dict):
            raise ValueError
    except ValueError:
        problem = {"type": "about:blank", "title": response.reason_phrase,
                   "status": response.status_code, "code": f"http_{response.status_code}",
                   "detail": response.text[:500]}
    problem.setdefault("status", response.status_code)
    return CiteflowError(problem, retry_after=retry_after(response))


def checked(response: httpx.Response) -> httpx.Response:
    if response.status_code >= 400:
        raise error_of(response)
    return response


def submitted(response: httpx.Response) -> Accepted | Result:
    """A submit's answer: 202 (Accepted) or 200 with the result (`?wait=`)."""
    checked(response)
    if response.status_code == 202:
        return Accepted.model_validate_json(response.content)
    return result_of(response.headers.get("citeflow-status"), json.loads(response.content))


def read_result(response: httpx.Response) -> Result:
    checked(response)
    return result_of(response.headers.get("citeflow-status"), json.loads(response.content))


@dataclass
class SseEvent:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry_ms: int | None = None


class SseParser:
    """Server-Sent Events from lines (the WHATWG event-stream format)."""

    def __init__(self) -> None:
        self._fields = SseEvent()
        self._data: list[str] = []

    def feed(self, line: str) -> SseEvent | None:
        if not line:
            if not self._data:
                self._fields = SseEvent()
                return None
            event = self._fields
            event.data = "\n".join(self._data)
            self._fields, self._data = SseEvent(), []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._fields.event = value
        elif name == "id" and "\0" not in value:
            self._fields.id = value
        elif name == "retry" and value.isdigit():
            self._fields.retry_ms = int(value)
        return None


OUTCOMES = frozenset({"formatted", "rejected", "dead_lettered"})


def stream_event(event: SseEvent) -> StreamEvent | None:
    """An outcome event as a StreamEvent; control events give None (`error` raises)."""
    if event.event == "error":
        data = json.loads(event.data or b"{}")
        raise CiteflowError({"type": "about:blank", "title": "stream error", "status": 0,
                             "code": data.get("code", "stream_error"),
                             "detail": data.get("detail", "")},
                            retry_after=(event.retry_ms / 1000) if event.retry_ms else None)
    if event.event not in OUTCOMES or event.id is None:
        return None
    return StreamEvent.model_validate({**json.loads(event.data), "id": event.id,
                                       "event": event.event})
