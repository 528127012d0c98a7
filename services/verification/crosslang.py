"""Claims and sources in different languages: what the lexical judge may still say.

Words cannot be matched across languages, so a claim whose language differs from its
source's (services.text.languages; undetermined texts and close neighbours match anything)
is `unverifiable` with the reason `cross_language`, unless its numbers decide: a number of the
claim that the source lacks (while the source has numbers; thousands separators aside) makes
it `unsupported` with the same reason. Only numbers a language would write in digits decide:
months (`4月`, `4월`: `April`) and numbers below ten (`3 Brücken`: `three bridges`) are
spelled as words in other languages. Names do not decide: languages spell them differently
(`Rhine`, `Rhein`).
"""

from __future__ import annotations

import re

from services.text.languages import language_of, same_language, source_sample
from services.text.lexical import words
from services.verification.claims import has_digit, numbers_of

CROSS_LANGUAGE = "cross_language"
# A thousands separator between digits (`1,233`, `1.233`, `1 233`): numbers are compared
# without them, as languages write them differently.
_GROUPING = re.compile(r"(?<=\d)[,.\u00a0\u202f\u2009' ](?=\d{3}(?!\d))")
_MONTH = re.compile(r"(?<!\d)\d{1,2}\s*[月월]")  # a month by its number (Chinese, Japanese, Korean)


def source_language(texts: list[str] | tuple[str, ...]) -> str:
    """The language of a source made of `texts` (read from its first characters)."""
    return language_of(source_sample(texts))


def crosses(claim: str, source: str) -> bool:
    """Whether a claim in language `claim` cannot be read against a source in `source`."""
    return not same_language(claim, source)


def decided_across(claim: str, source_texts: list[str] | tuple[str, ...]) -> tuple[str, list[str]]:
    """The verdict on a claim read against a source in another language (`unverifiable`, or
    `unsupported` when its numbers decide) and the numbers the source lacks."""
    sample = _GROUPING.sub("", " ".join(source_texts))
    claim = _MONTH.sub(" ", _GROUPING.sub("", claim))
    lacking: list[str] = []
    if has_digit(claim):
        source_numbers = set(numbers_of(words(sample))) if has_digit(sample) else set()
        if source_numbers:
            lacking += [
                n
                for n in dict.fromkeys(numbers_of(words(claim)))
                if n not in source_numbers and len(n) > 1
            ]
    return ("unsupported" if lacking else "unverifiable"), lacking
