"""The raw reference of `bench e2e` moves the pipeline's message sizes, hop by hop."""

from __future__ import annotations

from services.bench.e2e import answers, hop_sizes
from services.runtime.registry import load_stage
from services.stages import STAGE_NAMES


def test_hop_sizes_are_the_encoded_size_of_each_stage_output() -> None:
    sample = answers("size", 1)[0]
    sizes = hop_sizes([load_stage(name) for name in STAGE_NAMES], sample)
    assert len(sizes) == 5
    assert sizes[0] > len(sample.value) * 0.9  # accepted wraps the submitted answer
    assert sizes[3] > sizes[1]  # resolved carries scores, extraction and spans
    assert all(size > 0 for size in sizes)
