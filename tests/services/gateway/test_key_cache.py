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
    verifier._valid = cache  # type: ignore[assignment]
    for _ in range(5):
        assert (await verifier.principal(_request())).tenant == "acme"
    assert keys.calls >= 2


class ManyKeys:
    """A store knowing one valid secret; every other is unknown. Counts lookups."""

    def __init__(self) -> None:
        self.calls = 0

    async def verify_key(self, secret: str) -> ApiKey | None:
        self.calls += 1
        if secret != SECRET:
            return None
        return ApiKey("abc", "acme", frozenset({"read"}), None, datetime.now(UTC), None, None)


def _from(secret: str, host: str = "10.0.0.1") -> Request:
    return Request({"type": "http", "client": (host, 1234),
                    "headers": [(b"authorization", f"Bearer {secret}".encode())]})


async def test_random_keys_are_limited_per_address_and_never_evict_valid_ones() -> None:
    """878 random keys a second were each a store lookup and an entry of the
    cache valid keys share (10,000 of them evicted every valid key)."""
    import pytest

    from services.gateway.addresses import AddressLimiter
    from services.gateway.problems import ProblemError

    keys = ManyKeys()
    verifier = KeyVerifier(keys, ttl_s=60.0, retry_after_s=1,  # type: ignore[arg-type]
                           unauthenticated=AddressLimiter(0.001, 20))
    assert (await verifier.principal(_from(SECRET))).tenant == "acme"
    statuses = []
    for n in range(12_000):
        with pytest.raises(ProblemError) as refused:
            await verifier.principal(_from(f"random-{n}"))
        statuses.append(refused.value.status)
    assert statuses[:20] == [401] * 20 and set(statuses[20:]) == {429}
    assert keys.calls == 1 + 20  # past its burst, the address costs no lookup
    # The valid key, cached before the flood, is still served from the cache ...
    assert (await verifier.principal(_from(SECRET))).tenant == "acme"
    assert keys.calls == 21
    # ... and once its verdict expires it is looked up again, not refused for its address.
    verifier._valid.clear()
    assert (await verifier.principal(_from(SECRET))).tenant == "acme"
    assert keys.calls == 22
    # ... and another address is not limited by this one's flood.
    with pytest.raises(ProblemError) as other:
        await verifier.principal(_from("random-x", host="10.0.0.2"))
    assert other.value.status == 401
