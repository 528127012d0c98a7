"""API keys: `Authorization: Bearer <key>` verified through the store, cached briefly in
process, with scopes and a per-key token bucket (SPEC §9, issue 13 item 6)."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from cachetools import TTLCache
from starlette.requests import Request

from services.gateway.problems import ProblemError, unavailable
from services.store.api import ApiKey, ResultsStore, StoreUnavailable

SCOPES = frozenset({"submit", "read", "stream", "admin"})
_CACHE_ENTRIES = 10_000


@dataclass(frozen=True)
class Principal:
    """Who is calling: the verified key's id, tenant and scopes."""

    key_id: str
    tenant: str
    scopes: frozenset[str]
    rate_per_s: float | None

    @property
    def is_admin(self) -> bool:
        return "admin" in self.scopes

    def read_tenant(self) -> str | None:
        """The tenant reads are restricted to: None (every tenant) for admin keys."""
        return None if self.is_admin else self.tenant


class TokenBuckets:
    """One token bucket per key: `rate` tokens a second, up to `rate * burst_seconds`."""

    def __init__(self, default_rate: float, burst_seconds: float) -> None:
        self._default = default_rate
        self._burst_seconds = burst_seconds
        # A plain dict (one entry per verified key id, so bounded by the keys there are):
        # read and written on every request.
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, principal: Principal, cost: float = 1.0) -> float:
        """Spend `cost` tokens; 0 when allowed, else the seconds until enough have refilled
        (nothing is spent then)."""
        rate = principal.rate_per_s or self._default
        capacity = max(rate * self._burst_seconds, cost)
        now = time.monotonic()
        tokens, stamp = self._buckets.get(principal.key_id, (capacity, now))
        tokens = min(capacity, tokens + (now - stamp) * rate)
        if tokens < cost:
            self._buckets[principal.key_id] = (tokens, now)
            return (cost - tokens) / rate
        self._buckets[principal.key_id] = (tokens - cost, now)
        return 0.0


_UNKNOWN = object()  # a secret not in the cache (None there means "known invalid")


class KeyVerifier:
    """Verifies bearer keys through the store, caching the answer (valid or not) for
    `ttl_s` seconds per secret: a revoked key stops working within that time."""

    def __init__(self, store: ResultsStore, ttl_s: float, retry_after_s: int) -> None:
        self._store = store
        self._cache: TTLCache[bytes, Principal | None] = TTLCache(_CACHE_ENTRIES, ttl_s)
        self._retry_after_s = retry_after_s

    async def principal(self, request: Request) -> Principal:
        """The caller's Principal; 401 without a live key, 503 when the store cannot say."""
        header = request.headers.get("authorization", "")
        scheme, _, secret = header.partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not secret:
            raise _unauthorized("an API key is required: Authorization: Bearer <key>")
        if not secret.isascii() or not secret.isprintable():
            raise _unauthorized("the API key is unknown or revoked")  # never looked up
        digest = hashlib.sha256(secret.encode("utf-8", "surrogateescape")).digest()
        # One lookup (`in` then `[]` would race the TTL: an entry expiring between the two
        # raised KeyError, a 500 schemathesis found).
        cached = self._cache.get(digest, _UNKNOWN)
        if cached is None or isinstance(cached, Principal):
            found = cached
        else:
            try:
                key = await self._store.verify_key(secret)
            except StoreUnavailable:
                raise unavailable("store", self._retry_after_s) from None
            found = None if key is None else _principal_of(key)
            self._cache[digest] = found
        if found is None:
            raise _unauthorized("the API key is unknown or revoked")
        return found


def _principal_of(key: ApiKey) -> Principal:
    return Principal(key.key_id, key.tenant, frozenset(key.scopes), key.rate_per_s)


def _unauthorized(detail: str) -> ProblemError:
    return ProblemError(401, "unauthorized", detail,
                        headers={"WWW-Authenticate": 'Bearer realm="citeflow"'})


def require_scope(principal: Principal, scope: str) -> None:
    """403 unless the key has `scope` (admin keys have every scope)."""
    if scope not in principal.scopes and not principal.is_admin:
        raise ProblemError(403, "missing_scope", f"this API key lacks the '{scope}' scope")
