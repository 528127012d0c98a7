"""Limits on what a client may send before the application sees a request.

uvicorn's httptools protocol puts no bound on a request head (a 32 MB header was answered
200; 20 connections each holding an unfinished 8 MB header held 170 MB) and no deadline on
it (a half-sent head kept a connection open for minutes; the keep-alive timeout starts only
after a first response). `GuardedHttpToolsProtocol` adds:

- a request head (request line and headers) of at most `MAX_HEAD_BYTES`, whether it
  arrives in one read or many: past it the connection gets 431 and is closed;
- a deadline: a connection must deliver a complete head within `HEAD_TIMEOUT_S` of opening
  (or of its first byte after the previous request), else it gets 408 and is closed;
  trickling bytes does not extend it;
- a body that stalls for `BODY_IDLE_TIMEOUT_S` (no byte received while the application
  waits for more) is cut off;
- a response sent before the request's body was all in (401, 413, 429, ...) closes the
  connection: the rest of the body is not read;
- an address whose requests keep being cut off (all of the above) is shut out: past
  `REFUSALS_BURST` such refusals, refilled at `REFUSALS_PER_S`, its new connections are
  closed on arrival, before a byte is read.
  Reconnecting is all such a client can do, and each reconnect had cost a parser, a
  deadline, a head and a response on the event loop every other client waits for.
  Connections already open carry on. A trusted proxy (`FORWARDED_ALLOW_IPS`; none by
  default, loopback included) is never shut out, since behind it every client has its
  address: its requests count against the client it names in `X-Forwarded-For`, and a
  shut-out client's request gets 429 as soon as its head is in. Each request counts once.

`citeflow serve` runs uvicorn with `http=GuardedHttpToolsProtocol`.
"""

from __future__ import annotations

import asyncio
import math
import os
from typing import Any

from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from services.gateway.addresses import AddressLimiter


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else default


MAX_HEAD_BYTES = 32 * 1024
# Read at import, so every uvicorn worker process has them from the environment.
HEAD_TIMEOUT_S = _seconds("CITEFLOW_HEAD_TIMEOUT_SECONDS", 10.0)
BODY_IDLE_TIMEOUT_S = _seconds("CITEFLOW_BODY_IDLE_TIMEOUT_SECONDS", 30.0)
REFUSALS_BURST = 20.0
REFUSALS_PER_S = 1.0

_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n"
              b"connection: close\r\n\r\n")
_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
_SHUT_OUT = (b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\nretry-after: %d\r\n"
             b"connection: close\r\n\r\n")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a bounded, timed request head and body."""

    max_head_bytes = MAX_HEAD_BYTES
    head_timeout_s = HEAD_TIMEOUT_S
    body_idle_timeout_s = BODY_IDLE_TIMEOUT_S
    # Per worker process, like the rest of its state.
    refusals = AddressLimiter(REFUSALS_PER_S, REFUSALS_BURST)

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        # uvicorn's per-connection set-up (a parser, loggers, buffers) waits for
        # `connection_made`: a shut-out address never costs it.
        self._deferred = (config, server_state, app_state, _loop)
        self._set_up = False
        self._guard: asyncio.TimerHandle | None = None
        self._peer: str | None = None
        self._proxied = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # The address refusals count against: for a trusted proxy, the client each of its
        # requests names (`on_headers_complete`); none for a Unix socket.
        peer = transport.get_extra_info("peername")
        peer = peer[0] if isinstance(peer, tuple) else None
        if peer is not None and peer in _trusted(self._deferred[0].forwarded_allow_ips):
            self._proxied = True
        elif peer is not None:
            if self.refusals.take(peer, spend=False):
                transport.abort()  # shut out: no state, no response, nothing counted
                return
            self._peer = peer
        super().__init__(*self._deferred)
        self._set_up = True
        self._reading_head = True
        self._in_body = False
        self._head_bytes = 0
        self._struck = False  # this request has counted against its client
        self._cut = False  # refused here: what the parser still holds is not served
        super().connection_made(transport)
        self._guard = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_guard()
        if self._set_up:  # not shut out
            super().connection_lost(exc)

    def _cancel_guard(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
            self._guard = None

    def _strike(self) -> None:
        """One more request of this address cut off (once per request, whichever of the
        head, body or response checks sees it first)."""
        if self._peer is not None and not self._struck:
            self._struck = True
            self.refusals.take(self._peer)

    def _refuse(self, response: bytes, strike: bool = True) -> None:
        self._cancel_guard()
        self._cut = True
        if not self.transport.is_closing():
            if strike:
                self._strike()
            self.transport.write(response)
            self.transport.close()

    def _head_timed_out(self) -> None:
        self._guard = None
        if self._reading_head:
            self._refuse(_TIMEOUT)

    def _body_stalled(self) -> None:
        self._guard = None
        if self._in_body and not self.transport.is_closing():
            self._strike()
            self.transport.close()  # the application sees a disconnect

    def data_received(self, data: bytes) -> None:
        if self._reading_head:
            self._head_bytes += len(data)
            if self._guard is None:
                self._guard = self.loop.call_later(self.head_timeout_s, self._head_timed_out)
        elif self._in_body:
            self._cancel_guard()
        super().data_received(data)
        # Still no complete head after this data (a head completing within it reset the
        # count): over the limit, the connection is refused before buffering more.
        if self._reading_head and self._head_bytes > self.max_head_bytes:
            self._refuse(_TOO_LARGE)
        elif self._in_body and self._guard is None and not self.transport.is_closing():
            # More body to come (this data may have held the head and its first bytes).
            self._guard = self.loop.call_later(self.body_idle_timeout_s, self._body_stalled)

    def on_message_begin(self) -> None:
        self._struck = False
        if self._proxied:
            self._peer = None  # until this request's head names its client
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self._reading_head = False
        self._in_body = True
        self._head_bytes = 0
        self._cancel_guard()
        if self._cut:
            return  # a request pipelined behind a refused one
        if self._proxied:
            self._peer = self._forwarded_client()
            if self._peer is not None and (
                    wait_s := self.refusals.take(self._peer, spend=False)):
                self._refuse(_SHUT_OUT % max(1, math.ceil(wait_s)), strike=False)
                return
        # A head that arrived within one read was never over the limit between reads.
        if len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers) > (
                self.max_head_bytes):
            self._refuse(_TOO_LARGE)
            return
        super().on_headers_complete()

    def _forwarded_client(self) -> str | None:
        """The client a trusted proxy names, read as uvicorn reads it for the application;
        None when it names none."""
        named = b", ".join(v for n, v in self.headers if n == b"x-forwarded-for")
        if not named:
            return None
        host, _ = _trusted(self.config.forwarded_allow_ips).get_trusted_client_address(
            named.decode("latin1"))
        return host or None

    def on_body(self, body: bytes) -> None:
        if not self._cut:
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._in_body = False
        self._cancel_guard()  # the whole body is in: no more body deadline
        # What comes next is the next request's head (pipelined, or after the response).
        self._reading_head = True
        self._head_bytes = 0
        if not self._cut:
            super().on_message_complete()

    def on_response_complete(self) -> None:
        # The body still coming is that of the request just answered (not of a pipelined
        # one behind it): answered (401, 413, 429, ...) before its body was in, reading on
        # would take a body of any length (a chunked one has no end in sight) for nothing.
        if self._in_body and self.cycle is not None and self.cycle.response_complete:
            self._strike()
            if not self.transport.is_closing():
                self.transport.close()
        super().on_response_complete()  # the keep-alive timeout runs until the next byte


_TRUSTED: dict[str, _TrustedHosts] = {}


def _trusted(allowed: str | list[str]) -> _TrustedHosts:
    """uvicorn's own reading of `forwarded_allow_ips` (addresses and networks, or `*`)."""
    key = allowed if isinstance(allowed, str) else ",".join(allowed)
    found = _TRUSTED.get(key)
    if found is None:
        found = _TRUSTED[key] = _TrustedHosts(allowed)
    return found


def uvicorn_options() -> dict[str, Any]:
    """The uvicorn settings of a gateway process (`citeflow serve`, tests, benches)."""
    return {"http": GuardedHttpToolsProtocol, "timeout_keep_alive": 5,
            "server_header": False, "forwarded_allow_ips": trusted_proxies()}


def trusted_proxies() -> str:
    """`FORWARDED_ALLOW_IPS`: the proxies whose `X-Forwarded-For` names the client. Unlike
    uvicorn's own default (loopback), none when unset: any local process could otherwise
    name a new client with every request, escaping every per-address limit."""
    return os.environ.get("FORWARDED_ALLOW_IPS", "").strip()
