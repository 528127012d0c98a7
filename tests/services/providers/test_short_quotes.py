"""Verbatim claims need content: a provider's or upstream quote that is
empty, whitespace or punctuation is downgraded to derived with `quote_too_short`, never
resolved to a span on a lone `.`."""

from __future__ import annotations

import pytest

from services.spans.logic import resolve_answer
from tests.services.spans.builders import chunk, cited, source

SOURCE = source(1, chunk("The river rose. It fell again, slowly… “Yes.”"))


@pytest.mark.parametrize("quote", [".", " ", "…", "“.”", " , ; ", "--"])
def test_contentless_quote_is_downgraded(quote: str) -> None:
    unit = {"id": "U1", "text": "It rose.", "kind": "verbatim", "quote": quote,
            "source_indexes": [1]}
    resolved = resolve_answer(cited("It rose.", [SOURCE], units=[unit]))
    [result] = resolved.resolution.units
    assert (result.kind, result.source_spans, result.downgraded) == ("derived", [], True)
    assert [p.code for p in resolved.resolution.problems] == ["quote_too_short"]


def test_quote_with_words_still_resolves() -> None:
    unit = {"id": "U1", "text": "It rose.", "kind": "verbatim", "quote": "river rose",
            "source_indexes": [1]}
    [result] = resolve_answer(cited("It rose.", [SOURCE], units=[unit])).resolution.units
    assert result.kind == "verbatim"
    assert [span.quote for span in result.source_spans] == ["river rose"]
