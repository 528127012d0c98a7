"""Markdown footnote definitions (`[^1]: Smith…`) are references, not answer text: the plain
rendering leaves them out (its reference list names the sources instead)."""

from __future__ import annotations

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

SOURCES = [{"index": 1, "kind": "document", "title": "Smith",
            "chunks": [{"text": "Coffee reached Vienna in 1683."}]},
           {"index": 2, "kind": "document", "title": "Jones",
            "chunks": [{"text": "Coffee spread fast."}]}]


def plain(text: str) -> str:
    answer = {"answer_id": "fn", "text": text, "sources": SOURCES}
    result = process_answer(orjson.dumps(answer), event_id="e1")
    assert isinstance(result, AnswerFormatted), result
    return result.renderings.plain or ""


def test_definitions_at_the_end_are_left_out() -> None:
    out = plain("Coffee reached Vienna in 1683 [^1]. It spread fast [^2].\n\n"
                "[^1]: Smith, Coffee History, 2001.\n[^2]: Jones, Cafes, 1999.\n")
    assert out == ("Coffee reached Vienna in 1683. It spread fast.\n\nReferences\n"
                   "[1] Smith.\n[2] Jones.\n")


def test_definitions_between_paragraphs_and_continuation_lines_are_left_out() -> None:
    out = plain("Coffee reached Vienna in 1683 [^1].\n\n[^1]: Smith, Coffee History,\n"
                "    second edition, 2001.\n\nIt spread fast [^2].\n\n[^2]: Jones, Cafes.")
    assert "Smith, Coffee" not in out and "second edition" not in out and "[^" not in out
    assert out.startswith("Coffee reached Vienna in 1683.\n\nIt spread fast.\n\nReferences\n")


def test_text_without_definitions_is_unchanged() -> None:
    out = plain("Coffee reached Vienna in 1683 [1]. A note: [^x] is not a definition.")
    assert out.startswith("Coffee reached Vienna in 1683. A note: [^x] is not a definition.")
