"""How far the store sink has written, read from its consumer group's committed offsets.

The sink commits a partition's offset only after the database commit, so a committed
offset past a record means the store holds that record's outcome. A client resuming from
before the ring's window is served from the store only once the store is past the ring's
floor on the partitions it needs: otherwise records between what the sink wrote and what
the ring holds would be skipped.

The sink's group is found on the broker as `/v1/pipeline` finds it
(services.runtime.group_lag.stage_group): a store run under `CITEFLOW_GROUP_ID` (any name,
whatever the gateway's own environment says) is the one asked while it consumes; with no
store consuming, the configured name. The name found is kept for `REFRESH_S`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from aiokafka import TopicPartition

from services.gateway.stream.positions import TopicPartition as LogicalPartition
from services.runtime.config import RuntimeConfig
from services.runtime.group_lag import stage_group
from services.runtime.kafka import make_admin

# How long the sink's group, once found, is asked without looking for it again (a resuming
# client's wait polls `written` every 0.2 s; finding the group lists every group).
REFRESH_S = 30.0


class SinkProgress:
    """`written(needed)`: whether the sink has stored every record up to `needed`."""

    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self._group: str | None = None
        self._found_at = 0.0

    async def group(self) -> str:
        """The store sink's consumer group (found again after `REFRESH_S`)."""
        now = time.monotonic()
        if self._group is None or now - self._found_at > REFRESH_S:
            self._group = await stage_group(self.config, "store")
            self._found_at = now
        return self._group

    async def written(self, needed: Mapping[LogicalPartition, int]) -> bool:
        """True when, for every (topic, partition) -> offset in `needed`, the sink's
        committed offset is past it. Raises KafkaError when the broker cannot say."""
        if not needed:
            return True
        partitions = {TopicPartition(self.config.physical(topic), partition): offset
                      for (topic, partition), offset in needed.items()}
        admin = make_admin(self.config)
        await admin.start()
        try:
            # Partitions named: Tansu drops the connection on the "all partitions" form.
            committed = await admin.list_consumer_group_offsets(
                await self.group(), partitions=list(partitions))
        finally:
            await admin.close()
        for tp, offset in partitions.items():
            found = committed.get(tp)
            if found is None or found.offset <= offset:  # -1: nothing committed yet
                return False
        return True
