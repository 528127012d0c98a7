"""What every route reaches through `request.app.state.gateway`: settings, the store, the
producer, the stream hub, key verification and rate limits; `authorize` for routes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from starlette.requests import Request

from services.gateway.auth import KeyVerifier, Principal, TokenBuckets, require_scope
from services.gateway.observability import note
from services.gateway.problems import ProblemError
from services.gateway.producer import AnswerProducer
from services.gateway.settings import GatewaySettings
from services.store.api import AnswerRecord, ResultsStore


class StreamHub(Protocol):
    """What the app needs of the stream hub (services.gateway.stream.Hub): its lifetime,
    readiness, and the wait of `?wait=`."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def ready(self) -> bool: ...

    async def wait_for(self, answer_id: str, tenant: str,
                       timeout: float) -> AnswerRecord | None: ...


@dataclass
class Gateway:
    settings: GatewaySettings
    store: ResultsStore
    producer: AnswerProducer
    hub: StreamHub
    verifier: KeyVerifier
    buckets: TokenBuckets
    started_at: datetime

    async def authorize(self, request: Request, scope: str, cost: float = 1.0) -> Principal:
        """The caller, checked for `scope` and charged `cost` tokens: 401, 403 or 429."""
        # The ops views (metrics, pipeline health) outlive a store outage.
        principal = await self.verifier.principal(request, outage_ok=scope == "ops")
        note(request, tenant=principal.tenant, key_id=principal.key_id)
        require_scope(principal, scope)
        self.charge(principal, cost)
        return principal

    def charge(self, principal: Principal, cost: float) -> None:
        """Spend `cost` of the key's tokens, or 429 with Retry-After (nothing spent)."""
        if cost <= 0:
            return
        wait_s = self.buckets.take(principal, cost)
        if wait_s:
            raise ProblemError(429, "rate_limited",
                               "this API key is over its request rate; retry later",
                               headers={"Retry-After": str(max(1, math.ceil(wait_s)))})


def gateway_of(request: Request) -> Gateway:
    gateway: Any = request.app.state.gateway
    assert isinstance(gateway, Gateway)
    return gateway


async def authorize(request: Request, scope: str, cost: float = 1.0) -> Principal:
    """For routes of any part of the gateway: the verified caller with `scope`."""
    return await gateway_of(request).authorize(request, scope, cost)
