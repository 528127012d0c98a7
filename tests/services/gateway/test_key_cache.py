"""The key cache: an entry that expires while it is being read is looked up again."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from cachetools import TTLCache
from starlette.requests import Request

from services.gateway.auth import KeyVerifier
from services.store.api import ApiKey

SECRET = "cf_abc_secret"


class Keys:
    """The one store method KeyVerifier uses, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def verify_key(self, secret: str) -> ApiKey | None:
        self.calls += 1
        return ApiKey("abc", "acme", frozenset({"read"}), None, datetime.now(UTC), None, None)


def _request() -> Request:
    return Request({"type": "http", "headers": [(b"authorization", f"Bearer {SECRET}".encode())]})


async def test_an_entry_expiring_between_lookups_is_verified_again_not_an_error() -> None:
    keys = Keys()
    verifier = KeyVerifier(keys, ttl_s=1.0, retry_after_s=1)  # type: ignore[arg-type]
    assert (await verifier.principal(_request())).tenant == "acme"
    # A clock that moves half the TTL on every read: whatever the verifier asks the cache
    # twice sees the entry live, then expired.
    ticks = itertools.count(step=0.6)
    cache: TTLCache[bytes, object] = TTLCache(16, 1.0, timer=lambda: next(ticks))
    verifier._cache = cache  # type: ignore[assignment]
    for _ in range(5):
        assert (await verifier.principal(_request())).tenant == "acme"
    assert keys.calls >= 2
