"""Quotations of every language are verbatim claims, and a quotation found in its cited
source supports its sentence (the framing around it is not claimed)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

DEMO = Path(__file__).resolve().parents[3] / "services" / "examples" / "demo_answer.json"


def _formatted(data: dict) -> AnswerFormatted:
    result = process_answer(orjson.dumps(data), event_id="t")
    assert isinstance(result, AnswerFormatted), result
    return result


def _answer(text: str, source: str) -> dict:
    return {
        "answer_id": "q-1",
        "text": text,
        "sources": [{"index": 1, "kind": "document", "chunks": [{"text": source}]}],
    }


def test_the_demo_answers_quoted_sentences_are_supported() -> None:
    result = _formatted(orjson.loads(DEMO.read_bytes()))
    quoted = [s.index for s in result.sentences if '"' in s.text]
    assert quoted
    for citation in result.citations:
        if citation.sentence_index in quoted:
            assert citation.support is not None
            assert (citation.support.verdict, citation.support.judge) == ("supported", "verbatim")


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("Goethe schrieb „Die Leiden des jungen Werthers“ in nur vier Wochen [1].",
         "Er schrieb damals Die Leiden des jungen Werthers, seinen ersten Roman."),
        ("Le narrateur dit « longtemps je me suis couché de bonne heure » [1].",
         "Il écrit : longtemps je me suis couché de bonne heure, puis il se tait."),
        ("小说开头写道「我是一只猫，还没有名字」[1]。",
         "夏目漱石的小说以我是一只猫，还没有名字开头。"),
        ("彼は『吾輩は猫である』と書いた[1]。", "夏目漱石は吾輩は猫であるを書いた。"),
        ("He called it ‘a truth universally acknowledged’ [1].",
         "It is a truth universally acknowledged, that a single man must be in want of a wife."),
    ],
)
def test_quotations_of_every_language_are_found_and_support(text: str, source: str) -> None:
    result = _formatted(_answer(text, source))
    unit = result.answer_units.units[0]
    assert unit.kind == "verbatim" and unit.origin == "quotation"
    span = unit.source_spans[0]
    assert source[span.start_char : span.end_char] == span.quote
    support = result.citations[0].support
    assert support is not None and support.verdict == "supported"


def test_a_quotation_not_in_the_source_is_not_verbatim() -> None:
    result = _formatted(_answer("Er sagte „das steht nirgends geschrieben“ [1].",
                                "Ganz andere Worte stehen hier."))
    assert result.answer_units.units[0].kind == "derived"
