"""Hand-written cases for every verdict of the lexical judge."""

from __future__ import annotations

import unicodedata

from services.text.lexical import name_terms
from services.verification.claims import read_claim
from services.verification.judges import LEXICAL
from services.verification.sources import SourceView, source_view
from services.verification.verify import CitedClaim, Outcome, verify

SOURCE = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. "
    "It is 330 metres tall and was designed by the engineering firm of Gustave Eiffel. "
    "Critics at the time did not welcome the iron structure."
)
OTHER = (
    "Mount Everest rises 8,849 metres above sea level on the border of Nepal and China. "
    "Climbers usually attempt the summit in May."
)

# Every word of the claim "Everest climbers attempt the summit from Nepal", in sentences too
# far apart to join; most of its words in one sentence.
SCATTERED = (
    "Everest is high. " + "Filler words pad this long stretch of text. " * 12
    + "Climbers train hard. " + "More filler sits between the words. " * 12
    + "The summit is cold. " + "Still more filler keeps them apart here. " * 12
    + "Nepal is a country. May is a month. Attempts are many."
)
TOGETHER = "Everest climbers attempt the summit every spring."


def _judge(claim: str, sources: dict[int, str], cited: int = 1) -> Outcome:
    views: dict[int, SourceView | None] = {n: source_view([t]) for n, t in sources.items()}
    claims = [CitedClaim(0, cited, 0, claim, (cited,))]
    return verify(claims, [], list(sources), views.get, {}, LEXICAL).outcomes[0]


def test_paraphrase_with_the_key_facts_is_supported() -> None:
    outcome = _judge("Gustave Eiffel's firm designed the tower, completed in 1889 in Paris.",
                     {1: SOURCE})
    assert outcome.verdict == "supported", outcome
    assert outcome.judge == "lexical"
    assert outcome.conflicts == ()
    assert outcome.evidence is not None
    assert "Eiffel" in outcome.evidence.text


def test_a_changed_number_is_not_supported() -> None:
    outcome = _judge("The Eiffel Tower was completed in 1899 for the World's Fair in Paris.",
                     {1: SOURCE})
    assert outcome.verdict != "supported"
    assert "number" in outcome.conflicts
    assert "1899" in outcome.missing


def test_a_negation_the_source_lacks_is_not_supported() -> None:
    outcome = _judge("The Eiffel Tower was not completed for the World's Fair in Paris.",
                     {1: SOURCE})
    assert outcome.verdict != "supported"
    assert "negation" in outcome.conflicts


def test_a_negation_the_claim_drops_is_not_supported() -> None:
    outcome = _judge("Critics at the time did welcome the iron structure.", {1: SOURCE})
    assert outcome.verdict != "supported"
    assert "negation" in outcome.conflicts


def test_half_the_facts_is_partial() -> None:
    outcome = _judge(
        "The Eiffel Tower was completed in Paris and repainted green by volunteers yearly.",
        {1: SOURCE},
    )
    assert outcome.verdict == "partial", outcome
    assert outcome.missing == ["repainted", "green", "volunteers", "yearly"]


def test_an_unrelated_source_is_unsupported() -> None:
    outcome = _judge("Climbers usually attempt the Everest summit in May.", {1: SOURCE})
    assert outcome.verdict == "unsupported"


def test_another_source_that_fits_better_is_named() -> None:
    claim = "Mount Everest rises 8,849 metres above sea level."
    wrong = _judge(claim, {1: SOURCE, 2: OTHER}, cited=1)
    right = _judge(claim, {1: SOURCE, 2: OTHER}, cited=2)
    assert wrong.better_source == 2
    assert right.verdict == "supported" and right.better_source is None


def test_the_better_source_is_the_best_scoring_not_the_one_holding_most_words() -> None:
    """Source 2 holds every word of the claim, scattered over sentences too far apart to
    join; source 3 holds most of them in one sentence and scores higher: it is named (the
    search does not stop at the source holding most)."""
    claim = "Everest climbers attempt the summit in May from Nepal."
    sources = {1: SOURCE, 2: SCATTERED, 3: TOGETHER}
    outcome = _judge(claim, sources)
    assert outcome.better_source == 3
    views = {n: source_view([t]) for n, t in sources.items()}
    bounds = {n: len(read_claim(claim).items & views[n].vocabulary) for n in (2, 3)}
    assert bounds[2] > bounds[3]  # source 2 does hold more of the claim's words


def test_the_cited_sources_own_title_and_authors_frame_the_claim() -> None:
    chapter = ("Call me Ishmael. Some years ago, having little money in my purse, I thought I "
               "would sail about a little and see the watery part of the world.")
    claim = "Herman Melville's Moby-Dick opens with Ishmael wanting to see the watery world."
    named = {1: source_view([chapter], name_terms("Moby-Dick", ["Herman Melville"])),
             2: source_view([OTHER], name_terms("Everest", ["Edmund Hillary"]))}
    plain = {1: source_view([chapter]), 2: source_view([OTHER])}
    judged = [
        verify([CitedClaim(0, 1, 0, claim, (1,))], [], [1, 2], views.get, {}, LEXICAL).outcomes[0]
        for views in (named, plain)
    ]
    assert judged[0].verdict == "supported" and judged[0].missing == ["wanting"]
    assert judged[1].verdict == "partial"
    assert {"Herman", "Moby", "Dick"} <= set(judged[1].missing)
    # another source's name is no help: cited there, the claim is still unsupported
    wrong = verify([CitedClaim(0, 2, 0, claim, (2,))], [], [1, 2], named.get, {}, LEXICAL)
    assert wrong.outcomes[0].verdict == "unsupported"


def test_a_source_without_text_is_unverifiable() -> None:
    outcome = _judge("The tower is 330 metres tall.", {1: "   "})
    assert (outcome.verdict, outcome.score, outcome.evidence) == ("unverifiable", 0.0, None)


def test_verbatim_sentences_are_supported_by_construction() -> None:
    views = {1: source_view([SOURCE])}
    claims = [CitedClaim(0, 1, 4, "Anything at all.", (1,))]
    outcome = verify(claims, [], [1], views.get, {4: frozenset({1})}, LEXICAL).outcomes[0]
    assert (outcome.verdict, outcome.score, outcome.judge) == ("supported", 1.0, "verbatim")


def test_stable_under_the_sources_normalisation() -> None:
    """Ligatures, line-end hyphenation and decomposed accents in the source read as the
    canonical text does: same verdict, score and missing words; evidence maps back to the
    source's own text."""
    clean = "The café offers fine financial advice to every visitor in Zürich."
    messy = unicodedata.normalize(
        "NFD", "The café oﬀers ﬁne ﬁnan-\ncial advice to every\u00ad visitor in Zürich."
    )
    claim = "The café in Zürich offers fine financial advice."
    a, b = _judge(claim, {1: clean}), _judge(claim, {1: messy})
    assert (a.verdict, a.score, a.missing) == (b.verdict, b.score, b.missing)
    assert a.verdict == "supported"
    assert b.evidence is not None
    start, end = b.evidence.view.original_bounds(
        b.evidence.piece, b.evidence.start, b.evidence.end
    )
    assert messy[start:end].startswith("The caf") and messy[start:end].endswith("Zu\u0308rich.")
