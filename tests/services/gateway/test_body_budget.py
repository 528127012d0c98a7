"""A body costs its key tokens by size, so one key cannot make the gateway read
megabytes per request token; a refused body closes the connection (its rest is not read)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from tests.services.gateway.conftest import Gw


async def _chunks(count: int, size: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield b" " * size


async def test_an_oversize_body_is_413_and_closes(gw: Gw) -> None:
    response = await gw.client.post(  # the test app's answer limit: 64 KiB
        "/v1/answers", content=_chunks(48, 64 * 1024),
        headers={**gw.auth(), "Content-Type": "application/json"})
    assert response.status_code == 413 and response.headers["connection"] == "close"


async def test_a_large_body_spends_the_key_s_tokens(gw: Gw) -> None:
    gateway = gw.app.state.gateway
    gateway.settings = replace(gateway.settings, max_answer_bytes=8 * 1024 * 1024)
    key = await gw.key_for("acme", "submit", rate=2.0)  # 4 tokens of burst
    response = await gw.client.post(  # 3 MiB: 12 tokens
        "/v1/answers", content=_chunks(48, 64 * 1024),
        headers={**gw.auth(key), "Content-Type": "application/json"})
    assert response.status_code == 429, response.text
    assert response.headers["connection"] == "close" and "retry-after" in response.headers
