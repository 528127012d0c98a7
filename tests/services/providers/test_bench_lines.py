"""The `bench adapters` workload: the benchmark answer as each provider returns it cites the same
sentences of the same sources as its `[N]` markers (no timing here)."""

from __future__ import annotations

import orjson

from schemas.formatted import AnswerFormatted
from services.bench.adapters import provider_lines
from services.pipeline import process_answer


def test_every_provider_line_cites_what_the_markers_cite() -> None:
    lines = provider_lines()
    marked = process_answer(lines["perplexity"], event_id="e", provider="perplexity")
    assert isinstance(marked, AnswerFormatted)
    expected = sorted((c.sentence_index, c.source_index) for c in marked.citations)
    assert len(expected) == 50
    for provider, raw in lines.items():
        result = process_answer(raw, event_id="e", provider=provider)
        assert isinstance(result, AnswerFormatted), provider
        assert all(c.valid for c in result.citations), provider
        assert sorted((c.sentence_index, c.source_index) for c in result.citations) == expected, (
            provider)
        assert orjson.loads(raw)["answer_id"] == f"bench-{provider}"
