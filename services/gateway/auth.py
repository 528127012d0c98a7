"""API keys: `Authorization: Bearer <key>` verified through the store, cached briefly in
process, with scopes and a per-key token bucket."""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from cachetools import TTLCache
from starlette.requests import Request

from services.gateway import embed_tokens
from services.gateway.addresses import AddressLimiter
from services.gateway.problems import ProblemError, unavailable
from services.store.api import ApiKey, ResultsStore, StoreUnavailable

SCOPES = frozenset({"submit", "read", "stream", "ops", "admin"})
_CACHE_ENTRIES = 10_000
# Requests without a valid key, per client address: a second's worth of a script's typos,
# not a brute force (each unknown key is a store lookup).
UNAUTHENTICATED_RATE_PER_S = 5.0
UNAUTHENTICATED_BURST = 20.0
KNOWN_VALID_S = 3600.0
MAX_SECRET_CHARS = 200  # longer is never a key: refused without hashing or a lookup


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


class KeyVerifier:
    """Verifies bearer keys through the store, caching the answer for `ttl_s` seconds per
    secret: a revoked key stops working within that time. Valid and invalid answers live
    in separate caches, so a flood of random keys evicts only other invalid ones; requests
    without a valid key are limited per client address before any store lookup."""

    def __init__(self, store: ResultsStore, ttl_s: float, retry_after_s: int,
                 unauthenticated: AddressLimiter | None = None) -> None:
        self._store = store
        self._valid: TTLCache[bytes, Principal] = TTLCache(_CACHE_ENTRIES, ttl_s)
        self._invalid: TTLCache[bytes, bool] = TTLCache(_CACHE_ENTRIES, ttl_s)
        # Keys found valid in the last hour: looked up again when their verdict expires
        # (revocation still holds within ttl_s), but never refused for their address, and
        # trusted for the ops views while the store is down.
        self._known: TTLCache[bytes, Principal] = TTLCache(_CACHE_ENTRIES, KNOWN_VALID_S)
        self._retry_after_s = retry_after_s
        self.unauthenticated = unauthenticated or AddressLimiter(
            UNAUTHENTICATED_RATE_PER_S, UNAUTHENTICATED_BURST)

    def _refuse(self, request: Request, detail: str, spend: bool = True) -> ProblemError:
        """401 (a token of the client's address spent), or 429 when the address is out of
        tokens for requests without a valid key."""
        wait_s = self.unauthenticated.take(_address(request), spend)
        if wait_s:
            return ProblemError(429, "rate_limited",
                                "too many requests without a valid API key from this address",
                                headers={"Retry-After": str(max(1, math.ceil(wait_s)))})
        return _unauthorized(detail)

    async def principal(self, request: Request, outage_ok: bool = False) -> Principal:
        """The caller's Principal; 401 without a live key (429 past the per-address rate of
        such requests), 503 when the store cannot say (with `outage_ok`, a key this process
        verified in the last hour is taken as it was then instead)."""
        header = request.headers.get("authorization", "")
        scheme, _, secret = header.partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not secret:
            raise self._refuse(request, "an API key is required: Authorization: Bearer <key>")
        if embed_tokens.is_embed_token(secret):
            return self._embedded(request, secret)
        if not secret.isascii() or not secret.isprintable() or len(secret) > MAX_SECRET_CHARS:
            raise self._refuse(request, "the API key is unknown or revoked")  # never looked up
        digest = hashlib.sha256(secret.encode("utf-8", "surrogateescape")).digest()
        # One lookup each (`in` then `[]` would race the TTL: an entry expiring between the
        # two raised KeyError, a 500 schemathesis found).
        found = self._valid.get(digest)
        if found is not None:
            return found
        if self._invalid.get(digest) is not None:
            raise self._refuse(request, "the API key is unknown or revoked")
        # An unknown secret costs a store lookup: none for an address out of tokens (a
        # valid key is never charged; from such an address it waits like the rest until
        # the bucket refills, unless this process has it cached).
        if (self._known.get(digest) is None
                and self.unauthenticated.take(_address(request), spend=False)):
            raise self._refuse(request, "the API key is unknown or revoked", spend=False)
        try:
            key = await self._store.verify_key(secret)
        except StoreUnavailable:
            # The ops views must outlive a database incident: a key verified shortly
            # before still reads them (a revocation during the outage is not seen).
            known = self._known.get(digest) if outage_ok else None
            if known is not None:
                return known
            raise unavailable("store", self._retry_after_s) from None
        if key is None:
            self._invalid[digest] = True
            raise self._refuse(request, "the API key is unknown or revoked")
        found = self._valid[digest] = self._known[digest] = _principal_of(key)
        return found


    def _embedded(self, request: Request, token: str) -> Principal:
        """The reader an embed token stands for: `read` of its answer and cited documents
        only (403 for anything else); 401 for a token not issued here or expired."""
        grant = embed_tokens.verify(token)
        if grant is None:
            raise self._refuse(request, "the embed token is unknown or expired")
        if not grant.allows(request.method, request.url.path):
            raise ProblemError(403, "outside_embed_token", "an embed token reads only its "
                               "answer and the documents that answer cites")
        return Principal(f"embed:{grant.tenant}:{grant.answer_id}", grant.tenant,
                         frozenset({"read"}), None)


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _principal_of(key: ApiKey) -> Principal:
    return Principal(key.key_id, key.tenant, frozenset(key.scopes), key.rate_per_s)


def _unauthorized(detail: str) -> ProblemError:
    return ProblemError(401, "unauthorized", detail,
                        headers={"WWW-Authenticate": 'Bearer realm="citeflow"'})


def require_scope(principal: Principal, scope: str) -> None:
    """403 unless the key has `scope` (admin keys have every scope)."""
    if scope not in principal.scopes and not principal.is_admin:
        raise ProblemError(403, "missing_scope", f"this API key lacks the '{scope}' scope")
