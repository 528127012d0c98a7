"""Prometheus metrics of a stage process."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)


class StageMetrics:
    """Counters, histograms and gauges of one stage; `serve` exposes them over HTTP."""

    def __init__(self, stage: str, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        labels = ("stage",)
        self._processed = Counter(
            "citeflow_messages_processed", "Input messages handled (outputs acknowledged)",
            labels, registry=self.registry,
        ).labels(stage)
        self._failed = Counter(
            "citeflow_messages_failed", "Failed processing attempts (retried or dead-lettered)",
            ("stage", "error"), registry=self.registry,
        )
        self._dead = Counter(
            "citeflow_messages_dead_lettered", "Input messages sent to a dead-letter topic",
            labels, registry=self.registry,
        ).labels(stage)
        self._rejected = Counter(
            "citeflow_messages_rejected", "Outputs published to a *.rejected topic",
            labels, registry=self.registry,
        ).labels(stage)
        self._seconds = Histogram(
            "citeflow_processing_seconds", "Stage logic time per input message",
            labels, registry=self.registry,
            buckets=(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0),
        ).labels(stage)
        self._batch = Histogram(
            "citeflow_batch_size", "Records per fetched batch", labels, registry=self.registry,
            buckets=(1, 5, 10, 25, 50, 100, 250, 500, 1000),
        ).labels(stage)
        self._lag = Gauge(
            "citeflow_consumer_lag", "Records behind the partition's high watermark",
            ("stage", "topic", "partition"), registry=self.registry,
        )
        self.stage = stage

    def processed(self, count: int = 1) -> None:
        """Count handled input messages."""
        self._processed.inc(count)

    def failed(self, error: str) -> None:
        """Count one failed attempt, labelled by error type."""
        self._failed.labels(self.stage, error).inc()

    def dead_lettered(self) -> None:
        """Count one dead letter."""
        self._dead.inc()

    def rejected(self, count: int = 1) -> None:
        """Count outputs to a rejection topic."""
        self._rejected.inc(count)

    def processing_time(self, seconds: float) -> None:
        """Observe the stage logic time of one message."""
        self._seconds.observe(seconds)

    def processing_times(self, seconds: Sequence[float]) -> None:
        """Observe the stage logic time of many messages at once (one update per bucket
        instead of one locked update per message; the same histogram as one by one)."""
        if not seconds:
            return
        hist = self._seconds
        bounds = getattr(hist, "_upper_bounds", None)
        buckets = getattr(hist, "_buckets", None)
        total = getattr(hist, "_sum", None)
        if bounds is None or buckets is None or total is None:  # another client version
            for value in seconds:
                hist.observe(value)
            return
        counts = [0] * len(bounds)
        for value in seconds:
            counts[bisect_left(bounds, value)] += 1
        for i, count in enumerate(counts):
            if count:
                buckets[i].inc(count)
        total.inc(sum(seconds))

    def batch(self, size: int) -> None:
        """Observe the size of one fetched batch."""
        self._batch.observe(size)

    def lag(self, topic: str, partition: int, behind: int) -> None:
        """Set the consumer lag of one partition."""
        self._lag.labels(self.stage, topic, str(partition)).set(behind)

    def serve(self, port: int | None) -> int | None:
        """Start the HTTP endpoint on `port`; None or 0 disables it. Returns the port."""
        if not port:
            return None
        server, _thread = start_http_server(port, registry=self.registry)
        return int(server.server_port)

    def value(self, name: str, **labels: str) -> float:
        """The current value of one sample (for tests and progress displays)."""
        found = self.registry.get_sample_value(name, {"stage": self.stage, **labels})
        return found or 0.0
