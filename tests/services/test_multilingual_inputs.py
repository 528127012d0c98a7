"""Hostile and unusual multilingual input through the whole pipeline in process: a clear
rejection or a result, never a crash; invisible controls never raw in the HTML."""

from __future__ import annotations

import tracemalloc

import orjson

from schemas.answers import AnswerRejected
from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

THAI = "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทยและมีประชากรมากที่สุด"
INVISIBLE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u2060\ufeff"


def _run(text: str, chunks: list[str], answer_id: str = "m-1"):
    data = {"answer_id": answer_id, "text": text,
            "sources": [{"index": 1, "kind": "document", "chunks": [{"text": c} for c in chunks]}]}
    return process_answer(orjson.dumps(data), event_id="t")


def test_a_4_mb_thai_answer_is_a_clear_rejection() -> None:
    result = _run(THAI * (4 * 1024 * 1024 // len(THAI.encode())), [THAI])
    assert isinstance(result, AnswerRejected)
    assert result.code == "too_large" and "limit" in result.message


def _thai(phrases_per_citation: int) -> str:
    """199,000 characters of Thai phrases, one in `phrases_per_citation` cited."""
    phrases = 199_000 // (len(THAI) + 5)
    return "".join(THAI + (" [1] " if i % phrases_per_citation == 0 else " ")
                   for i in range(phrases))


def test_the_longest_thai_answer_citing_every_phrase_is_too_heavy_for_the_door() -> None:
    """3,109 citations in one unpunctuated sentence: its events would pass the broker's
    limit (its 778-citation form below makes an 8.9 MB answer.formatted), so it is rejected
    at the door, not dead-lettered after."""
    result = _run(_thai(1), [THAI * 20])
    assert isinstance(result, AnswerRejected)
    assert result.code == "too_large" and "3109 citations" in result.message


def test_the_longest_thai_answer_goes_through_within_memory() -> None:
    text = _thai(4)
    tracemalloc.start()
    try:
        result = _run(text, [THAI * 20])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(result, AnswerFormatted)
    assert result.language == "th" and result.script == "Thai"
    assert peak < 512 * 1024 * 1024, peak


def test_mixed_scripts_in_one_sentence_are_judged() -> None:
    result = _run("東京 (Tokyo) ist die Hauptstadt Japans und hat 14 Millionen Einwohner [1].",
                  ["Tokyo (東京) ist die Hauptstadt Japans. Die Stadt hat 14 Millionen Einwohner."])
    assert isinstance(result, AnswerFormatted)
    support = result.citations[0].support
    assert support is not None and support.verdict == "supported"


def test_invisible_controls_inside_markers_and_quotes_never_reach_the_html_raw() -> None:
    text = (f"Die Stadt sagt „groß {INVISIBLE} und alt“ [1{INVISIBLE}] und "
            f"[{INVISIBLE}1] oder [1]{INVISIBLE}.")
    result = _run(text, ["Die Stadt ist groß und alt."])
    assert isinstance(result, AnswerFormatted)
    html = result.renderings.html
    assert not any(ch in html for ch in INVISIBLE)
    assert any(c.valid for c in result.citations)


def test_a_source_of_only_digits_and_punctuation_is_judged_without_error() -> None:
    result = _run("Die Zahlen lauten 1234 und 5678 [1].", ["1234 — 5678, 90! (12) ..."])
    assert isinstance(result, AnswerFormatted)
    support = result.citations[0].support
    assert support is not None and support.verdict in ("supported", "partial", "unverifiable")
