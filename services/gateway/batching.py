"""Coalescing concurrent calls into one: while one batch runs, the next accumulates (group
commit). The gateway's per-submit store work (a duplicate check before producing, the
`submitted` record after) costs one SQL round trip per batch instead of one per request."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Batcher(Generic[T, R]):
    """`await batcher.call(item)` returns `run(batch)`'s result for the batch the item went
    in (or raises its exception). At most `max_items` per batch, one batch at a time."""

    def __init__(self, run: Callable[[list[T]], Awaitable[R]], max_items: int = 500) -> None:
        self._run = run
        self._max = max_items
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def call(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        # A caller that gives up (client gone) cancels only its own future and leaves its
        # item in the batch: the batch's work is idempotent and shared.
        return await future

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[: self._max], self._pending[self._max :]
            try:
                result = await self._run([item for item, _ in batch])
            except Exception as exc:  # noqa: BLE001 - handed to every caller of the batch
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for _, future in batch:
                if not future.done():
                    future.set_result(result)
