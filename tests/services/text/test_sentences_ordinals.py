"""A period after a number that reads as an ordinal, not told the language: German's
`der 3. Versuch` (a determiner before the number, a noun after it), the other languages that
write ordinals so, English's sentence ends after numbers, and an answer mixing them."""

from __future__ import annotations

import pytest

from schemas.answers import Source
from services.text.extraction import extract
from tests.services.text.test_sentences_lang import texts as _sentences

GERMAN_ORDINALS = [
    ("Das war der 3. Versuch. Er scheiterte.", ["Das war der 3. Versuch.", "Er scheiterte."]),
    (
        "Der 2. Weltkrieg endete 1945. Danach kam der Wiederaufbau.",
        ["Der 2. Weltkrieg endete 1945.", "Danach kam der Wiederaufbau."],
    ),
    (
        "Im 19. Jahrhundert wuchs die Stadt. Dann kam die Bahn.",
        ["Im 19. Jahrhundert wuchs die Stadt.", "Dann kam die Bahn."],
    ),
    (
        "Er feierte seinen 50. Geburtstag in Berlin. Alle kamen.",
        ["Er feierte seinen 50. Geburtstag in Berlin.", "Alle kamen."],
    ),
    (
        "Das Team erreichte zum 3. Mal das Finale. Es verlor.",
        ["Das Team erreichte zum 3. Mal das Finale.", "Es verlor."],
    ),
    (
        "Beethoven schrieb die 9. Sinfonie in Wien. Sie ist berühmt.",
        ["Beethoven schrieb die 9. Sinfonie in Wien.", "Sie ist berühmt."],
    ),
    (
        "Ludwig regierte im XIV. Jahrhundert nicht. Er kam später.",
        ["Ludwig regierte im XIV. Jahrhundert nicht.", "Er kam später."],
    ),
]


@pytest.mark.parametrize(("text", "expected"), GERMAN_ORDINALS)
def test_german_ordinals_after_a_determiner_without_the_hint(
    text: str, expected: list[str]
) -> None:
    assert _sentences(text) == expected
    assert _sentences(text, "de") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a number without a determiner before it ends a German sentence as before
        ("Er belegte Platz 3. Danach ging er.", ["Er belegte Platz 3.", "Danach ging er."]),
        ("Siehe Kapitel 12. Dort steht mehr.", ["Siehe Kapitel 12.", "Dort steht mehr."]),
        # ... and so does one before a word that starts sentences
        ("Es kam am 3. Die Gäste jubelten.", ["Es kam am 3.", "Die Gäste jubelten."]),
        # English ends a sentence after `the 3.`, `chapter 12.`, `am 3.`
        ("He came in the 3. The crowd cheered.", ["He came in the 3.", "The crowd cheered."]),
        ("He finished the 3. Paris was next.", ["He finished the 3.", "Paris was next."]),
        ("See chapter 12. The rest follows.", ["See chapter 12.", "The rest follows."]),
        ("I am 3. My sister is 5.", ["I am 3.", "My sister is 5."]),
        ("I am 3. Tom is 5.", ["I am 3.", "Tom is 5."]),
        # lower-case nouns follow the ordinals of the other languages that write them so
        ("Det var den 3. gang. Han gik.", ["Det var den 3. gang.", "Han gik."]),
        (
            "Zajął 3. miejsce w wyścigu. Potem wrócił.",
            ["Zajął 3. miejsce w wyścigu.", "Potem wrócił."],
        ),
        ("Bylo to 3. místo. Pak odešel.", ["Bylo to 3. místo.", "Pak odešel."]),
        ("Ez volt a 3. helyezés. Aztán hazament.", ["Ez volt a 3. helyezés.", "Aztán hazament."]),
    ],
)
def test_other_periods_after_numbers(text: str, expected: list[str]) -> None:
    assert _sentences(text) == expected


def test_an_answer_mixing_english_and_german() -> None:
    """Each part is read by its own words: the German ordinal stays, the English sentence
    that ends on a number ends there, and every marker stays with its sentence."""
    text = (
        "Paris is the capital of France [1]. Das war der 3. Versuch [2]. Er scheiterte. "
        "The team tried again in round 3. Nobody expected it [1]. "
        "Die Firma wurde im 19. Jahrhundert gegründet [2]."
    )
    sources = [Source(index=i, doc_id=f"doc{i}") for i in (1, 2)]
    found = extract(text, sources)
    assert [s.text for s in found.sentences] == [
        "Paris is the capital of France [1].",
        "Das war der 3. Versuch [2].",
        "Er scheiterte.",
        "The team tried again in round 3.",
        "Nobody expected it [1].",
        "Die Firma wurde im 19. Jahrhundert gegründet [2].",
    ]
    assert [found.sentence_citation_ids(s) for s in found.sentences] == [
        [1], [2], [], [], [1], [2]
    ]
