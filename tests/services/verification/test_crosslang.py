"""Claims judged against sources in another language (services.verification.crosslang)."""

from __future__ import annotations

from services.verification.judges import LEXICAL
from services.verification.sources import source_view
from services.verification.verify import CitedClaim, verify

GERMAN = "Der Rhein ist 1.233 Kilometer lang und mündet in die Nordsee. Er fließt durch Basel."
CHINESE = "长江全长6300公里，是中国最长的河流，注入东海。"
ENGLISH = "The Rhine is 1,233 kilometres long and flows into the North Sea."


def _outcome(claim: str, source: str):
    views = {1: source_view([source])}
    result = verify([CitedClaim(0, 1, 0, claim, (1,))], [], [1], views.get, {}, LEXICAL)
    return result.outcomes[0]


def test_another_language_is_unverifiable_with_its_reason() -> None:
    outcome = _outcome("The Rhine is 1,233 kilometres long and flows into the North Sea.", GERMAN)
    assert (outcome.verdict, outcome.reason) == ("unverifiable", "cross_language")
    outcome = _outcome("The Yangtze is about 6,300 kilometres long.", CHINESE)
    assert (outcome.verdict, outcome.reason) == ("unverifiable", "cross_language")


def test_numbers_decide_across_languages() -> None:
    outcome = _outcome("The Rhine is 1,320 kilometres long.", GERMAN)
    assert (outcome.verdict, outcome.reason, outcome.missing) == (
        "unsupported", "cross_language", ["1320"]
    )


def test_months_and_small_numbers_spelled_as_words_do_not_decide() -> None:
    apollo = "Apollo 13 was launched on April 11, 1970, with three astronauts aboard."
    outcome = _outcome("阿波罗13号于1970年4月11日发射，载有3名宇航员。", apollo)
    assert (outcome.verdict, outcome.reason) == ("unverifiable", "cross_language")
    outcome = _outcome("阿波罗13号于1971年4月11日发射。", apollo)
    assert (outcome.verdict, outcome.missing) == ("unsupported", ["1971"])


def test_same_language_is_judged_as_ever() -> None:
    outcome = _outcome("The Rhine flows into the North Sea.", ENGLISH)
    assert outcome.verdict == "supported" and outcome.reason is None
    german = _outcome("Der Rhein mündet in die Nordsee.", GERMAN)
    assert german.verdict == "supported"


def test_an_answer_in_one_language_citing_sources_in_three() -> None:
    views = {1: source_view([ENGLISH]), 2: source_view([GERMAN]), 3: source_view([CHINESE])}
    claims = [CitedClaim(k, k + 1, k, "The Rhine flows into the North Sea.", (k + 1,))
              for k in range(3)]
    outcomes = verify(claims, [], [1, 2, 3], views.get, {}, LEXICAL).outcomes
    assert [outcomes[k].verdict for k in range(3)] == ["supported", "unverifiable", "unverifiable"]


def test_a_judge_that_reads_the_texts_decides_across_languages() -> None:
    class Reader:
        name = "reader"
        reads_text = True
        supported_from = 0.5
        partial_from = 0.2

        def scores(self, checks):
            return [0.9 for _ in checks]

    views = {1: source_view([GERMAN])}
    claim = CitedClaim(0, 1, 0, "The Rhine flows into the North Sea.", (1,))
    outcome = verify([claim], [], [1], views.get, {}, Reader()).outcomes[0]
    assert outcome.verdict == "supported" and outcome.reason is None
