"""Quotations of every language are verbatim claims: a quotation found in its cited source
supports a sentence that only frames it (`X opens by saying`), and is an atom of its own,
judged verbatim, in a sentence that claims more."""

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


def test_the_demo_answers_quoted_sentences_are_supported_their_quotes_verbatim() -> None:
    result = _formatted(orjson.loads(DEMO.read_bytes()))
    quoted = [s.index for s in result.sentences if '"' in s.text]
    assert quoted
    for citation in result.citations:
        if citation.sentence_index in quoted:
            support = citation.support
            assert support is not None and support.verdict == "supported"
            assert support.judge == "verbatim" or any(
                atom.judge == "verbatim" and atom.verdict == "supported" for atom in support.atoms
            )


def test_a_quote_verifies_its_quote_and_the_rest_is_judged() -> None:
    source = ("Angelou wrote We Had Him, a poem she dedicated to Jackson. It was read at the "
              "memorial service.")
    text = ('In 2009, Angelou wrote "We Had Him", a poem about Michael Jackson, which was read '
            "by Queen Latifah at his funeral [1].")
    support = _formatted(_answer(text, source)).citations[0].support
    assert support is not None
    assert (support.verdict, support.judge) == ("partial", "lexical")
    quote = [atom for atom in support.atoms if atom.text == "We Had Him"]
    assert [(atom.verdict, atom.judge) for atom in quote] == [("supported", "verbatim")]
    assert {"Queen", "Latifah"} <= set(support.missing)


def test_a_sentence_that_only_frames_its_quote_is_verbatim() -> None:
    source = "It is a truth universally acknowledged, that a single man must be in want of a wife."
    support = _formatted(
        _answer("The novel opens by saying “a truth universally acknowledged” [1].", source)
    ).citations[0].support
    assert support is not None
    assert (support.verdict, support.judge) == ("supported", "verbatim")


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("Goethe schrieb „Die Leiden des jungen Werthers“ [1].",
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
