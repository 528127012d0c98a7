"""Prometheus metrics of the stream hub (the gateway's /metrics serves the default registry).
Updated once per record or per client event, never per delivered frame."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

CLIENTS = Gauge("citeflow_stream_clients", "SSE clients connected")
RECORDS = Counter("citeflow_stream_records_total", "outcome records fanned out")
DELIVERIES = Counter("citeflow_stream_deliveries_total", "frames offered to client queues")
DUPLICATES = Counter("citeflow_stream_duplicates_total",
                     "records dropped as at-least-once duplicates (same event id)")
OVERFLOWS = Counter("citeflow_stream_overflows_total",
                    "clients cut off because their buffer was full")
DROPPED = Counter("citeflow_stream_dropped_total",
                  "ended clients whose connection was closed because they stopped reading")
RESUMES = Counter("citeflow_stream_resumes_total", "resumed streams, by where the catch-up "
                  "came from", ["source"])  # ring | store | bad_id | too_old
