"""The per-hop split of `bench e2e`: each stage on the records the one before it published."""

from __future__ import annotations

from services.bench.e2e import answers
from services.bench.hop_costs import hop_costs
from services.bench.toy import CODEC_SPECS
from services.runtime.registry import load_stage
from services.stages import STAGE_NAMES, all_stages


def test_every_stage_is_split_into_decode_logic_and_encode() -> None:
    costs = hop_costs(list(all_stages().values()), answers("costs", 2), rounds=1)
    assert [c.name for c in costs] == list(STAGE_NAMES)
    for before, after in zip(costs, costs[1:]):
        assert after.in_bytes == before.out_bytes
    assert costs[0].in_bytes < costs[-1].out_bytes
    for cost in costs:
        assert min(cost.decode_ms, cost.logic_ms, cost.encode_ms) >= 0
        assert cost.in_process_ms == cost.decode_ms + cost.logic_ms + cost.encode_ms
        assert cost.in_process_ms > 0


def test_the_codec_hops_are_split_too() -> None:
    costs = hop_costs([load_stage(spec) for spec in CODEC_SPECS], answers("costs", 1), rounds=1)
    assert [c.name for c in costs] == [f"codec-{name}" for name in STAGE_NAMES]


def test_the_toy_hops_decode_the_event_they_carry() -> None:
    """The toy hops carry answer.submitted on every topic: each is decoded as what it is."""
    from services.bench.toy import SPECS

    costs = hop_costs([load_stage(spec) for spec in SPECS], answers("costs", 1))
    assert all(cost.decode_ms > 0 for cost in costs)
