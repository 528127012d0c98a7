"""`GET /v1/stream`: Server-Sent Events of outcomes for the key's tenant (scope `stream`).

Everything that can be refused is refused before the stream starts, as problem+json:
no key (401), no `stream` scope (403), another tenant without an admin key (403), a bad
or unknown query parameter (400). Once streaming, nothing a client sends or fails to read
can raise here: a garbage Last-Event-ID is an `error` event, a client that disconnects is
noticed at once (its queue is dropped), one that stops reading is cut off by the hub.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from services.gateway.context import authorize
from services.gateway.queries import parse_params
from services.gateway.reads import _tenant_filter
from services.gateway.stream.filters import StreamFilter, StreamParams
from services.gateway.stream.frames import CONTENT_TYPE
from services.gateway.stream.hub import Hub, Subscription
from services.gateway.stream.subscriber import Subscriber

HEADERS = [
    (b"content-type", CONTENT_TYPE),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),  # nginx: do not buffer the stream
]


async def stream(request: Request) -> EventStream:
    """`GET /v1/stream`."""
    principal = await authorize(request, "stream")
    params: Any = parse_params(request, StreamParams)
    stream_filter = StreamFilter.of(params, _tenant_filter(principal, params.tenant))
    hub: Hub = request.app.state.hub
    last_event_id = request.headers.get("last-event-id") or params.last_event_id
    subscription = await hub.subscribe(stream_filter, last_event_id,
                                       full=params.view == "full")
    return EventStream(hub, subscription)


class EventStream:
    """The response: catch-up, then live frames, until the client or the hub ends it."""

    def __init__(self, hub: Hub, subscription: Subscription) -> None:
        self.hub = hub
        self.subscription = subscription

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        sub = self.subscription.subscriber
        sub.task = asyncio.current_task()
        watcher = asyncio.create_task(_watch_disconnect(receive, sub))

        async def write(data: bytes) -> None:
            await send({"type": "http.response.body", "body": data, "more_body": True})

        try:
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            await self.hub.catch_up(self.subscription, write)
            await self.hub.pump(sub, write)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not sub.dropped:
                raise
            # The hub dropped a client that stopped reading after it was ended: returning
            # lets the server close the connection (it logs an incomplete response).
        finally:
            watcher.cancel()
            self.hub.unsubscribe(sub)


async def _watch_disconnect(receive: Receive, sub: Subscriber) -> None:
    """End the client's stream as soon as its connection closes."""
    while (await receive())["type"] != "http.disconnect":
        pass
    sub.end(b"")


def routes() -> list[Route]:
    return [Route("/v1/stream", stream, methods=["GET"], name="stream")]
