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

from services.text.languages import UNDETERMINED

_ENGLISH = frozenset({"en", UNDETERMINED})

# English irregular past forms (simple past and participle) that are no common noun or
# adjective of their own (not `left`, `rose`, `saw`, `shot`, `born`: facts people mark).
_ENGLISH_IRREGULAR = frozenset("""became began begun brought built bought came caught chose
    chosen drew drawn drove driven fought flew flown forgot forgotten gave given grew grown
    held kept knew led lost made met paid ran rode risen said sang sung sent shown sold spent
    spoke spoken stood struck taught thought threw thrown told took taken understood won
    wrote written""".split())


def past_form(word: str, term: str, language: str) -> bool:
    """Whether the lowercase `word` (its content `term`, services.text.lexical.term_list)
    is a past form of a verb in `language` (see the module docstring)."""
    if language not in _ENGLISH:
        return False
    return word in _ENGLISH_IRREGULAR or (
        len(word) > 3 and word.endswith("ed") and term != word
    )
