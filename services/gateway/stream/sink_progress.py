"""How far the store sink has written, read from its consumer group's committed offsets.

The sink commits a partition's offset only after the database commit, so a committed
offset past a record means the store holds that record's outcome. A client resuming from
before the ring's window is served from the store only once the store is past the ring's
floor on the partitions it needs: otherwise records between what the sink wrote and what
the ring holds would be skipped.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiokafka import TopicPartition

from services.gateway.stream.positions import TopicPartition as LogicalPartition
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_admin


class SinkProgress:
    """`written(needed)`: whether the sink has stored every record up to `needed`."""

    def __init__(self, config: RuntimeConfig, group: str) -> None:
        self.config = config
        self.group = group

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
                self.group, partitions=list(partitions))
        finally:
            await admin.close()
        for tp, offset in partitions.items():
            found = committed.get(tp)
            if found is None or found.offset <= offset:  # -1: nothing committed yet
                return False
        return True
