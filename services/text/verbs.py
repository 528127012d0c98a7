"""Past forms of verbs, by language: the words a page most often states in other words.

A clause tells an event by its verb, and pages tell the same event with other verbs (`vied
for spots` where a page says the players competed, `was appointed` where it says he became
deputy): where a source backs most of a clause, the verb it lacks is the event worded
otherwise more often than a claim it does not make (services.verification.atoms marks the
atom's other words instead). Only a language whose past forms its words' endings tell apart
has a rule: English (and undetermined text, whose terms are English's:
services.text.lexical), a regular `-ed` form (the stemmer takes the ending off: `died`, `vied`,
`appointed`; not `need` or `speed`) or an irregular past form. Romance participles end as
many nouns do (`-é`, `-ado`, `-ato`: `société`, `estado`, `stato`), and German and Dutch
`ge-` participles as adjectives and nouns do (`gesamten`, `gebied`): without a lexicon no
rule tells them, and no word of those languages is read as one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set as AbstractSet

from services.text.languages import UNDETERMINED
from services.text.lexical import term_list

_ENGLISH = frozenset({"en", UNDETERMINED})

# English irregular past forms (simple past and participle) that are no common noun or
# adjective of their own (not `left`, `rose`, `saw`, `shot`, `born`: facts people mark).
_ENGLISH_IRREGULAR = frozenset("""became began begun brought built bought came caught chose
    chosen drew drawn drove driven fought flew flown forgot forgotten gave given grew grown
    held kept knew led lost made met paid ran rode risen said sang sung sent shown sold spent
    spoke spoken stood struck taught thought threw thrown told took taken understood won
    wrote written""".split())
_IRREGULAR_TERMS = frozenset(term_list(sorted(_ENGLISH_IRREGULAR), "en"))


def may_hold(folded: str, lacking: AbstractSet[str], language: str) -> bool:
    """Whether an atom may hold a past form of a verb in `language` among the words whose
    terms are `lacking` (`folded`: its words lowercase between spaces,
    services.text.separators.ascii_word_text): a test in C that most atoms fail, before
    `past_forms` reads word by word."""
    return language in _ENGLISH and (
        "ed " in folded or folded.endswith("ed") or not _IRREGULAR_TERMS.isdisjoint(lacking)
    )


def past_forms(
    words: Sequence[str], terms: Sequence[str], numbers: Iterable[int], language: str
) -> list[int]:
    """Which of `numbers` (places in the lowercase `words`, whose content `terms` are
    services.text.lexical.term_list's) are past forms of verbs in `language` (see the
    module docstring)."""
    if language not in _ENGLISH:
        return []
    return [
        number for number in numbers
        if (word := words[number]) in _ENGLISH_IRREGULAR
        or (len(word) > 3 and word.endswith("ed") and terms[number] != word)
    ]
