"""Sink mode of the stage runtime: a stage whose records end in a database, not on topics.

The stage's pure `decode` turns each record into values (or None: nothing to write); the
sink's writer writes the values of a whole fetched batch in ONE database transaction. The
consumer loop, batching, rebalance handling, shutdown and commits are the StageRunner's;
only processing (decode instead of handle) and delivery (write, then settle) differ, so the
normal stages' hot path is untouched.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from aiokafka import ConsumerRecord, TopicPartition

from services.runtime.loop import Abandoned, StageRunner
from services.runtime.pending import Pending
from services.runtime.stage import Message, Sink, SinkWriter, TransientError

__all__ = ["Sink", "SinkRunner", "SinkWriter"]


@dataclass(slots=True)
class _SinkPending(Pending):
    values: list[Any] = field(default_factory=list)


class SinkRunner(StageRunner):
    """Runs a sink stage: decode per record, one database transaction per batch."""

    _writer: SinkWriter | None = None

    @property
    def sink(self) -> Sink:
        assert self.stage.sink is not None
        return self.stage.sink

    async def run(self) -> None:
        self._writer = await self._open_writer()
        if self._writer is None:  # stopped before the database came up
            return
        try:
            await super().run()
        finally:
            await self._writer.close()

    async def _open_writer(self) -> SinkWriter | None:
        attempt = 0
        while not self.stopping.is_set():
            try:
                return await self.sink.open_writer()
            except TransientError as exc:
                attempt += 1
                self.log.warning("database not reachable", error=str(exc), attempt=attempt)
                await self._sleep(self.policy.delay(min(attempt, 8)))
        return None

    async def _process_partition(
        self, tp: TopicPartition, records: list[ConsumerRecord]
    ) -> list[Pending]:
        pending: list[Pending] = []
        topic = self.config.logical(tp.topic)
        decode = self.sink.decode
        perf = time.perf_counter
        times: list[float] = []
        for record in records:
            message = Message(topic, record.value or b"", record.key, record.partition,
                              record.offset, tuple(record.headers or ()), record.timestamp)
            self.tracker.start(tp, record.offset)
            item = _SinkPending(tp, message, [])
            began = perf()
            try:
                value = decode(message)
            except Exception as exc:  # noqa: BLE001 - a record we cannot read: dead letter
                # decode is pure: another attempt gives the same answer, so no retries.
                self.metrics.failed(type(exc).__name__)
                item.records = [self._dead_letter(message, exc, 1)]
                await self._send(item)
            else:
                times.append(perf() - began)
                if value is not None:
                    item.values.append(value)
            pending.append(item)
        self.metrics.processing_times(times)
        return pending

    async def _deliver(self, pending: list[Pending]) -> None:
        items = [p for p in pending if isinstance(p, _SinkPending)]
        try:
            await self._write(items)
        except Abandoned:
            # COMMIT (sink, stopping while the database is down): nothing of this batch is
            # marked finished, so nothing of it is committed; all of it is read again.
            self.log.warning("batch abandoned: database unavailable while stopping")
            return
        # COMMIT (sink): only after the database commit above, and after every dead letter
        # of the batch was acknowledged by the broker (settle); then the finished prefix.
        await self._settle(pending)
        await self._commit()

    async def _write(self, items: list[_SinkPending]) -> None:
        """Write the batch's values in one transaction. Database unreachable: retry with
        backoff for as long as it takes (never commit, drop or dead-letter for an outage).
        Any other error is about the values themselves: write record by record and
        dead-letter the records whose values the database refuses."""
        values = [v for item in items for v in item.values]
        if not values:
            return
        try:
            await self._retrying(values)
        except Abandoned:
            raise
        except Exception as exc:  # noqa: BLE001 - isolated record by record below
            self.log.warning("batch refused, writing record by record", error=str(exc))
            for item in items:
                if not item.values:
                    continue
                try:
                    await self._retrying(item.values)
                except Abandoned:
                    raise
                except Exception as record_error:  # noqa: BLE001 - this record is poison
                    self.metrics.failed(type(record_error).__name__)
                    item.records = [self._dead_letter(item.message, record_error, 1)]
                    await self._send(item)

    async def _retrying(self, values: list[Any]) -> None:
        """One transaction, retried while the database is unreachable; Abandoned when the
        process stops meanwhile."""
        assert self._writer is not None
        attempt = 0
        while True:
            try:
                await self._writer.write(values)
                return
            except TransientError as exc:
                attempt += 1
                self.metrics.failed(type(exc).__name__)
                self.log.warning("database write failed, retrying", error=str(exc),
                                 attempt=attempt, values=len(values))
                await self._sleep(self.policy.delay(min(attempt, 8)))
                if self.stopping.is_set():
                    raise Abandoned() from exc
