"""Per-tenant daily budgets of judge requests and tokens (UTC days, in this process).

A budget is spent before a call is made (`take`: a request, the tokens the prompt is
estimated at) and corrected after (`settle`: the tokens the reply reported). A tenant whose
budget is spent gets `over_budget` for the rest of the day; its citations keep their
lexical verdicts. Each judging process counts on its own: with N replicas a tenant may use
up to N budgets.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class BudgetLimits:
    """Per tenant per day; None is no limit."""

    requests: int | None = None
    tokens: int | None = None

    @classmethod
    def parse(cls, text: str) -> BudgetLimits:
        """`requests=500,tokens=200000` (either or both; empty: no limits)."""
        values: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, _, number = part.partition("=")
            if key.strip() not in ("requests", "tokens") or not number.strip().isdigit():
                raise ValueError(f"budget {text!r}: expected e.g. 'requests=500,tokens=200000'")
            values[key.strip()] = int(number)
        return cls(**values)


class Budgets:
    """The day's spending of every tenant against the same limits."""

    def __init__(self, limits: BudgetLimits,
                 clock: Callable[[], float] = time.time) -> None:
        self.limits = limits
        self._clock = clock
        self._day = -1
        self._spent: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    def _today(self) -> dict[str, list[int]]:
        day = int(self._clock() // 86400)
        if day != self._day:
            self._day, self._spent = day, {}
        return self._spent

    def take(self, tenant: str, tokens: int) -> bool:
        """Spend one request and `tokens` (estimated) if the budget allows; False if not."""
        with self._lock:
            spent = self._today().setdefault(tenant, [0, 0])
            if self.limits.requests is not None and spent[0] + 1 > self.limits.requests:
                return False
            if self.limits.tokens is not None and spent[1] + tokens > self.limits.tokens:
                return False
            spent[0] += 1
            spent[1] += tokens
            return True

    def settle(self, tenant: str, estimated: int, used: int) -> None:
        """Replace a call's estimated tokens by what it used."""
        with self._lock:
            spent = self._today().setdefault(tenant, [0, 0])
            spent[1] = max(0, spent[1] - estimated + used)

    def exhausted(self, tenant: str) -> bool:
        """Whether the tenant's budget is spent for today."""
        with self._lock:
            spent = self._today().get(tenant, [0, 0])
            return (self.limits.requests is not None and spent[0] >= self.limits.requests) or (
                self.limits.tokens is not None and spent[1] >= self.limits.tokens)
