"""Superscript markers after short words: a citation after a word of any script before any
sentence terminator, an exponent after a variable or a unit."""

from __future__ import annotations

import pytest

from schemas.answers import Source
from services.text.extraction import extract


def _cited(text: str) -> list[tuple[int, str]]:
    sources = [Source(index=i, doc_id=f"doc{i}") for i in range(1, 4)]
    return [(c.id, c.marker) for c in extract(text, sources).citations]


@pytest.mark.parametrize(
    "text",
    [
        "میرا نام علی ہے¹۔ میں لاہور میں رہتا ہوں۔",  # Urdu `is`, then the full stop
        "میرا نام علی ہے<sup>1</sup>۔ میں لاہور میں رہتا ہوں۔",
        "ہے¹ اور وہ بھی۔",
        "ماذا حدث هو¹؟ طرح الكثير من التساؤلات.",
        "東京は大き¹。人口は多い。",
        "人口很多。好¹。",
        "Բարև Ձեզ է¹։ Իմ անունն Արմինե է։",
        "መልካም ቀን ነው¹። እባክሽ ድገሚልኝ።",
    ],
)
def test_a_superscript_after_a_short_word_of_another_script_is_a_marker(text: str) -> None:
    assert [cited for cited, _ in _cited(text)] == [1]


@pytest.mark.parametrize(
    "text",
    [
        "The area is x². Next.",
        "A room of 12 m²。大阪很大。",
        "Площадь 12 м². Потом.",
        "Площадь равна a². Потом.",
        "π². Next.",
        "المساحة 100 كم²۔ ثم عاد.",
        "المساحة ١٠٠ كم²؟ ثم عاد.",
    ],
)
def test_variables_and_units_before_a_terminator_stay_exponents(text: str) -> None:
    assert _cited(text) == []
