"""Turns at the reader processes, shared fairly between tenants: each tenant's jobs wait in
their own line and a free slot goes to the waiting tenant served least recently, so one
tenant's queued renders and chapters never hold another tenant's behind them."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter, deque


class Turns:
    """`slots` jobs run at once; waiting jobs are granted slots one tenant at a time."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._lines: dict[str, deque[asyncio.Future[None]]] = {}
        self._running: Counter[str] = Counter()
        # When each tenant with a job running or waiting was last granted a slot.
        self._served: dict[str, int] = {}
        self._grants = itertools.count(1)

    async def acquire(self, tenant: str, timeout_s: float) -> None:
        """Wait for a slot (TimeoutError past `timeout_s`: the job never ran); the caller
        gives it back with `release(tenant)`."""
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines.setdefault(tenant, deque()).append(ticket)
        self._grant()
        try:
            await asyncio.wait_for(asyncio.shield(ticket), timeout_s)
        except BaseException:
            if ticket.done() and not ticket.cancelled():
                self.release(tenant)  # granted while giving up: pass the slot on
            else:
                ticket.cancel()
                self._leave(tenant, ticket)
            raise

    def release(self, tenant: str) -> None:
        self._running[tenant] -= 1
        if not self._running[tenant]:
            del self._running[tenant]
            if tenant not in self._lines:
                self._served.pop(tenant, None)
        self._grant()

    def _grant(self) -> None:
        while self._lines and self._running.total() < self.slots:
            tenant = min(self._lines, key=lambda t: self._served.get(t, 0))
            line = self._lines[tenant]
            ticket = line.popleft()
            if not line:
                del self._lines[tenant]
            self._served[tenant] = next(self._grants)
            self._running[tenant] += 1
            ticket.set_result(None)

    def _leave(self, tenant: str, ticket: asyncio.Future[None]) -> None:
        line = self._lines.get(tenant)
        if line is not None and ticket in line:
            line.remove(ticket)
            if not line:
                del self._lines[tenant]
                if tenant not in self._running:
                    self._served.pop(tenant, None)
