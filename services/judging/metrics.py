"""Prometheus metrics of a model judge, per judge and tenant: requests by outcome, their
latency, tokens, cost, opinions by status, and the circuit breaker. Served on the judging
stage process's metrics endpoint (`Stage.collectors`)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from schemas.judged import BreakerState

_BREAKER = {"closed": 0, "half_open": 1, "open": 2}


class JudgeMetrics:
    """The judge's metrics (unregistered: the stage process registers `collectors`)."""

    def __init__(self, judge: str) -> None:
        self.judge = judge
        self.requests = Counter(
            "citeflow_judge_requests", "Calls to the model judge by outcome (ok, unavailable, "
            "breaker_open, over_budget)", ("judge", "tenant", "outcome"), registry=None)
        self.seconds = Histogram(
            "citeflow_judge_request_seconds", "Wall time of one call to the model judge "
            "(retries included)", ("judge", "tenant"), registry=None,
            buckets=(0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120))
        self.tokens = Counter(
            "citeflow_judge_tokens", "Tokens the model judge used", ("judge", "tenant",
                                                                      "direction"),
            registry=None)
        self.usd = Counter(
            "citeflow_judge_cost_usd", "What the model judge cost (CITEFLOW_JUDGING_PRICES)",
            ("judge", "tenant"), registry=None)
        self.opinions = Counter(
            "citeflow_judge_opinions", "Citations judged, by status (judged, rejected, "
            "refused, unavailable, over_budget)", ("judge", "tenant", "status"), registry=None)
        self.breaker = Gauge(
            "citeflow_judge_breaker_state", "The judge's circuit breaker: 0 closed, "
            "1 half-open, 2 open", ("judge",), registry=None)

    @property
    def collectors(self) -> tuple[Counter | Gauge | Histogram, ...]:
        return (self.requests, self.seconds, self.tokens, self.usd, self.opinions,
                self.breaker)

    def call(self, tenant: str, outcome: str, seconds: float | None = None,
             input_tokens: int = 0, output_tokens: int = 0, usd: float | None = None) -> None:
        """One call (or one refused before it was made: no time)."""
        self.requests.labels(self.judge, tenant, outcome).inc()
        if seconds is not None:
            self.seconds.labels(self.judge, tenant).observe(seconds)
        if input_tokens:
            self.tokens.labels(self.judge, tenant, "input").inc(input_tokens)
        if output_tokens:
            self.tokens.labels(self.judge, tenant, "output").inc(output_tokens)
        if usd:
            self.usd.labels(self.judge, tenant).inc(usd)

    def opinion(self, tenant: str, status: str) -> None:
        self.opinions.labels(self.judge, tenant, status).inc()

    def breaker_state(self, state: BreakerState) -> None:
        self.breaker.labels(self.judge).set(_BREAKER[state])
