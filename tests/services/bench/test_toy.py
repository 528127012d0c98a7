"""The floor stages of `bench e2e --stages toy|codec` chain like the real ones."""

from __future__ import annotations

from services.bench.e2e import answers, hop_sizes
from services.bench.toy import CODEC_SPECS, INPUT_TYPES, real_events
from services.runtime.registry import load_stage
from services.stages import STAGE_NAMES


def test_codec_hops_move_the_real_events_at_the_real_sizes() -> None:
    sample = answers("codec", 1)[0]
    real = hop_sizes([load_stage(name) for name in STAGE_NAMES], sample)
    codec = hop_sizes([load_stage(spec) for spec in CODEC_SPECS], sample)
    # Same answer shape, other ids and seed: sizes agree to within a few percent.
    for ours, theirs in zip(codec, real, strict=True):
        assert abs(ours - theirs) <= 0.1 * theirs
    # Each hop's output is the next hop's input type.
    assert [type(event) for event in real_events()[:-1]] == list(INPUT_TYPES[1:])
