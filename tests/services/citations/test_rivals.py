"""The better-source search made where passages are chosen: a passage that falls short of
support, of a sentence citing only its source, carries the best other source's counts."""

from __future__ import annotations

from typing import Any

from schemas.citations import SupportingPassage
from services.bench.verification import cited_event
from services.spans.logic import resolve_answer
from tests.services.verification.test_verdicts import SCATTERED, TOGETHER

_TOWER = "The Eiffel tower was finished in 1889 and stands 330 metres tall in Paris."
_BRIDGE = "The Golden Gate bridge opened in 1937 across the strait in San Francisco."
_OTHER = "Tea grows best on cool hillsides with steady rain and acidic soil."


def _answer(text: str, *sources: str) -> dict[str, Any]:
    return {
        "answer_id": "rivals",
        "text": text,
        "sources": [
            {"index": n, "chunks": [{"text": chunk}]} for n, chunk in enumerate(sources, 1)
        ],
    }


def _passage(data: dict[str, Any], sentence: int = 0) -> SupportingPassage:
    passages = cited_event(data).extraction.passages
    [found] = [p for p in passages if p.sentence_index == sentence]
    return found


def test_a_wrong_citation_carries_the_source_that_holds_the_sentence() -> None:
    data = _answer(
        "The Eiffel tower was finished in 1889 and stands 330 metres tall [1].",
        _BRIDGE, _OTHER, _TOWER,
    )
    rival = _passage(data).rival
    assert rival is not None
    assert (rival.source_index, rival.absent, rival.lacking, rival.conflicts) == (3, 0, 0, [])
    [support] = resolve_answer(cited_event(data)).resolution.support
    assert support is not None and support.better_source == 3


def test_a_source_that_cannot_be_clearly_better_is_not_searched() -> None:
    """Source 2 holds two of the claim's five terms, as the cited one does: even its best
    passage could not score `BETTER_MARGIN` above, so the search finds no rival."""
    data = _answer("Tea hillsides border the bridge strait [1].", _BRIDGE, _OTHER)
    rival = _passage(data).rival
    assert rival is not None and rival.source_index is None
    [support] = resolve_answer(cited_event(data)).resolution.support
    assert support is not None and support.better_source is None


def test_the_rival_is_the_best_scoring_source_among_those_that_might_be_better() -> None:
    """Source 2 holds every term of the claim, scattered; source 3 holds four in one
    sentence and scores higher: it is the rival."""
    data = _answer("Everest climbers attempt the summit from Nepal [1].", _OTHER, SCATTERED,
                   TOGETHER)
    rival = _passage(data).rival
    assert rival is not None and rival.source_index == 3
    [support] = resolve_answer(cited_event(data)).resolution.support
    assert support is not None and support.better_source == 3


def test_no_other_source_means_a_search_with_nothing_found() -> None:
    data = _answer("The bridge is painted orange [1].", _BRIDGE)
    rival = _passage(data).rival
    assert rival is not None and rival.source_index is None


def test_a_supported_passage_searches_nothing() -> None:
    data = _answer(
        "The Eiffel tower was finished in 1889 and stands 330 metres tall [1].",
        _TOWER, _BRIDGE,
    )
    assert _passage(data).rival is None


def test_a_sentence_citing_two_sources_is_left_to_the_spans_stage() -> None:
    data = _answer("The bridge is painted orange and tea is green [1][2].", _BRIDGE, _OTHER)
    passages = cited_event(data).extraction.passages
    assert len(passages) == 2 and all(p.rival is None for p in passages)


def test_a_rival_read_otherwise_in_canonical_form_leaves_the_search_to_the_spans_stage() -> (
    None
):
    """A ligature in another source: its passage is not counted, so no rival is set and
    the spans stage searches the sources itself, finding the same better source."""
    ligature = "The Eiffel tower was ﬁnished in 1889 and stands 330 metres tall in Paris."
    data = _answer(
        "The Eiffel tower was finished in 1889 and stands 330 metres tall [1].",
        _BRIDGE, ligature,
    )
    assert _passage(data).rival is None
    [support] = resolve_answer(cited_event(data)).resolution.support
    assert support is not None and support.better_source == 2
