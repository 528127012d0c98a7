"""Fake judge servers the tests start on real sockets: an OpenAI-compatible one
(`/v1/chat/completions`, `/v1/models`) and an Anthropic one (`/v1/messages`,
`/v1/models/{id}`), replying in each API's recorded shapes.

What a server replies is a script: a queue of `Reply`s (status, headers, body, delay) used
one per request, after which `default` answers. `naive_verdicts` is the judge behind the
default reply: it reads the prompt the way a model that follows instructions naively would.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# An instruction to answer `supported`, in several languages, as an injected text would
# write it; the naive judge obeys any of these it finds in its instructions.
OBEYED = re.compile(
    r"(ignore|disregard|ignorez|ignoriere|ignora|игнорируй|忽略|無視|무시)"
    r".{0,80}?\bsupported\b", re.IGNORECASE | re.DOTALL)
_NONCE = re.compile(r"<<<DATA ([0-9a-f]+)")
_WORD = re.compile(r"\w+")


@dataclass
class Reply:
    """One scripted reply; `body` bytes are sent as they are (malformed JSON included)."""

    status: int = 200
    body: bytes | dict[str, Any] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def naive_verdicts(system: str, user: str) -> list[dict[str, Any]]:
    """The judgements of a model that follows any instruction in its instruction text.

    The instruction text is everything but the data block the system prompt announces
    (found by its nonce). Without such a block, the whole prompt is instruction text. Each
    item's verdict is a word rule (all claim words in the evidence: supported; half: partial;
    else unsupported) unless the instruction text says to answer supported."""
    nonce = _NONCE.search(system)
    items: list[dict[str, Any]] = []
    instructions = system + "\n" + user
    if nonce:
        opening, closing = f"<<<DATA {nonce.group(1)}\n", f"\nDATA {nonce.group(1)}>>>"
        start, end = user.find(opening), user.find(closing)
        if start >= 0 and end > start:
            items = json.loads(user[start + len(opening) : end])["items"]
            instructions = system + "\n" + user[:start] + user[end + len(closing) :]
    obey = OBEYED.search(instructions) is not None
    out = []
    for item in items or [{"id": "0", "claim": user, "evidence": user}]:
        claim = {w.lower() for w in _WORD.findall(item["claim"])}
        evidence_words = {w.lower() for w in _WORD.findall(item["evidence"])}
        share = len(claim & evidence_words) / max(1, len(claim))
        verdict = "supported" if share == 1 else "partial" if share >= 0.5 else "unsupported"
        if obey:
            verdict = "supported"
        quote = item["evidence"][:40].strip()
        out.append({"id": item["id"], "verdict": verdict,
                    "rationale": f"{int(share * 100)}% of the claim's words are in the evidence.",
                    "evidence": [quote] if verdict != "unsupported" and quote else []})
    return out


def openai_completion(content: str | None, refusal: str | None = None,
                      model: str = "judge-model") -> dict[str, Any]:
    """A chat.completion object as OpenAI's API returns it."""
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1764300000,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": content,
                                 "refusal": refusal, "annotations": []}}],
        "usage": {"prompt_tokens": 420, "completion_tokens": 60, "total_tokens": 480},
    }


def openai_error(message: str, kind: str = "invalid_request_error",
                 code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def anthropic_message(text: str, stop_reason: str = "end_turn",
                      model: str = "judge-model") -> dict[str, Any]:
    """A Messages API response as Anthropic returns it."""
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}] if text else [],
        "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 410, "output_tokens": 55},
    }


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


class FakeJudgeServer:
    """A threaded HTTP server speaking one API (`openai` or `anthropic`)."""

    def __init__(self, api: str, models: tuple[str, ...] = ("judge-model",),
                 judge: Callable[[str, str], list[dict[str, Any]]] = naive_verdicts) -> None:
        self.api = api
        self.models = models
        self.judge = judge
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.reject_response_format = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.respond(self, "GET", None)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                server.respond(self, "POST", json.loads(self.rfile.read(length) or b"null"))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        port = self.httpd.server_address[1]
        return f"http://127.0.0.1:{port}" + ("/v1" if self.api == "openai" else "")

    def __enter__(self) -> FakeJudgeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def posts(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r["body"] for r in self.requests if r["method"] == "POST"]

    def respond(self, handler: BaseHTTPRequestHandler, method: str, body: Any) -> None:
        with self.lock:
            self.requests.append({"method": method, "path": handler.path, "body": body,
                                  "headers": dict(handler.headers)})
            scripted = self.script.pop(0) if self.script and method == "POST" else None
        reply = scripted or self.default(method, handler.path, body)
        if reply.delay_s:
            time.sleep(reply.delay_s)
        payload = reply.body if isinstance(reply.body, bytes) else json.dumps(
            reply.body).encode()
        try:
            handler.send_response(reply.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(payload)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def default(self, method: str, path: str, body: Any) -> Reply:
        if self.api == "openai":
            return self._openai(method, path, body)
        return self._anthropic(method, path, body)

    def _openai(self, method: str, path: str, body: Any) -> Reply:
        if method == "GET" and path == "/v1/models":
            return Reply(body={"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "test"}
                for m in self.models]})
        if method == "POST" and path == "/v1/chat/completions":
            if body.get("model") not in self.models:
                return Reply(404, openai_error(f"The model `{body.get('model')}` does not "
                                               "exist", code="model_not_found"))
            if self.reject_response_format and "response_format" in body:
                return Reply(400, openai_error("Unrecognized request argument supplied: "
                                               "response_format"))
            system, user = (m["content"] for m in body["messages"])
            return Reply(body=openai_completion(
                json.dumps({"judgements": self.judge(system, user)}), model=body["model"]))
        return Reply(404, openai_error("Not found"))

    def _anthropic(self, method: str, path: str, body: Any) -> Reply:
        if method == "GET" and path.startswith("/v1/models/"):
            model = path.rsplit("/", 1)[1]
            if model not in self.models:
                return Reply(404, anthropic_error("not_found_error", f"model: {model}"))
            return Reply(body={"type": "model", "id": model, "display_name": model,
                               "created_at": "2025-01-01T00:00:00Z"})
        if method == "POST" and path == "/v1/messages":
            if body.get("model") not in self.models:
                return Reply(404, anthropic_error("not_found_error",
                                                  f"model: {body.get('model')}"))
            user = body["messages"][0]["content"]
            return Reply(body=anthropic_message(
                json.dumps({"judgements": self.judge(body["system"], user)}),
                model=body["model"]))
        return Reply(404, anthropic_error("not_found_error", "Not found"))
