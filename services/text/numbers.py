"""Numbers as people write them: the values a claim's number stands for.

A claim's number is usually exact (`1991`, `12,717`), but people also write:

- decades: `the 1990s`, `1990's`, `2000s`, `'90s` (any year of the decade);
- ranges with a shortened end: `1939–45` (the end is `1945`);
- approximations: `about 3 km`, `over fifty`, `nearly 400`, `etwa 50`, `约50` (a value near
  it; `over`/`more than` above it, `under`/`less than` below it);
- numbers in words: `fifty`, `three million`, `fünfzig` (the languages text2num reads:
  English, French, Spanish, Portuguese, German, Dutch, Danish, Italian); an ordinal in words
  (`seventh`) is left to be matched as a word;
- digits grouped in thousands: `3,800` (read as the tokens `3` and `800`) is 3800;
- ordinals and units written onto the digits: `9th`, `12th`, `5km` state 9, 12 and 5;
- Chinese, Japanese and Korean numerals: `五十万`, `两万`, `3万`, `1.5亿`, `오십만`, and
  `二十多` (above 20) (services.text.numerals), on the passage's side too.

`written_numbers` finds them in a claim and gives, for each, the text that states it and the
values that back it; `values_of` reads the numeric values a passage states, so that a
claim's `2000's` matches a passage's `2001` instead of conflicting with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from text_to_num import alpha2digit

from services.text.languages import UNDETERMINED
from services.text.numerals import as_digits, numerals

APPROXIMATE = 0.25  # `about x`: within a quarter of x
_WORDS_LANGUAGES = frozenset({"en", "fr", "es", "pt", "de", "nl", "da", "it"})
_DECADE = re.compile(r"(?<![\w'’])(?:(\d{3})0['’]?s|['’](\d)0s)\b", re.IGNORECASE)
_RANGE = re.compile(r"(?<!\d)(\d{2})(\d{2})\s*[–—-]\s*(\d{2})(?!\d|[./-]\d)")  # (not `2001-03-12`)
_NEAR = (r"about|around|approximately|nearly|almost|roughly|some|circa|ca\.|c\.|"
         r"etwa|rund|fast|ungefähr|environ|près de|presque|alrededor de|casi|cerca de|"
         r"quasi|circa|bijna|ongeveer|omkring|около|почти|примерно|约|大约|近|約|およそ|약")
_ABOVE = r"over|more than|at least|above|exceeding|über|mehr als|plus de|más de|mais de|oltre|более|свыше|超过|以上|이상"
_BELOW = r"under|less than|below|fewer than|up to|unter|weniger als|moins de|menos de|meno di|менее|до|不到|未満|미만"
_NUMBER = r"(\d[\d,.]*\d|\d)"
# (a word of a spaced script before the marker makes it part of that word: `handsome 5`;
# CJK writes the marker right after the word before it: `人口约50万`)
_APPROXIMATE = re.compile(
    rf"(?<![^\W\u3040-\u9fff\uac00-\ud7a3])(?:({_NEAR})|({_ABOVE})|({_BELOW}))\s*{_NUMBER}",
    re.IGNORECASE,
)
_VALUE = re.compile(r"\d+(?:[,.]\d{3})*(?:[.,]\d+)?")
_HAS_LETTER_NUMBER = re.compile(r"[^\W\d_]{3,}")
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d]|[.,]\d)")
_SUFFIX = re.compile(r"(?:st|nd|rd|th|e|er|ème|º|ª)\b", re.IGNORECASE)  # an ordinal's
_ATTACHED = re.compile(r"(\d+)[^\W\d_]{1,3}")


@dataclass(frozen=True, slots=True)
class WrittenNumber:
    """A number as the claim writes it: the text stating it, and the range of values
    that back it (inclusive)."""

    text: str
    low: float
    high: float


def written_numbers(text: str, language: str) -> tuple[list[WrittenNumber], str]:
    """The decades, shortened ranges, approximations and numbers in words or CJK numerals of
    a claim, and the claim with its numbers in words and numerals as digits (itself when it
    has none); the text of a number in words or numerals is its digits."""
    found: list[WrittenNumber] = []
    for match in _DECADE.finditer(text):
        if match.group(1):
            start = int(match.group(1)) * 10
        else:
            start = 1900 + int(match.group(2)) * 10
        found.append(WrittenNumber(match.group(), start, start + 9))
    for match in _RANGE.finditer(text):
        century, first, last = match.group(1), match.group(2), match.group(3)
        if int(last) > int(first):
            end = float(century + last)
            found.append(WrittenNumber(last, end, end))
    for match in _GROUPED.finditer(text):
        value = _number(match.group())
        found.append(WrittenNumber(match.group(), value, value))
    digits = text
    cjk = numerals(text)
    if cjk:
        digits = as_digits(text, cjk)
        for numeral in cjk:
            value = numeral.value
            high = value * (1 + 2 * APPROXIMATE) if numeral.above else value
            found.append(WrittenNumber(numeral.digits(), value, high))
    if language == UNDETERMINED:
        language = "en"  # (too few words to tell: read as English, as terms are)
    if language in _WORDS_LANGUAGES and _HAS_LETTER_NUMBER.search(text):
        converted = alpha2digit(digits, language)
        if converted != digits:
            known = set(_VALUE.findall(digits))
            digits = converted
            for match in _VALUE.finditer(converted):
                stated = match.group()
                if stated not in known and not _SUFFIX.match(converted, match.end()):
                    number = _number(stated)
                    found.append(WrittenNumber(stated, number, number))
    for match in _APPROXIMATE.finditer(digits):
        value = _number(match.group(4))
        if match.group(1):
            low, high = value * (1 - APPROXIMATE), value * (1 + APPROXIMATE)
        elif match.group(2):
            low, high = value, value * (1 + 2 * APPROXIMATE)
        else:
            low, high = value * (1 - 2 * APPROXIMATE), value
        found.append(WrittenNumber(match.group(4), low, high))
    return found, digits


def values_of(text: str, language: str | None = None) -> list[float]:
    """The numeric values `text` states in digits (`12,717` is 12717, `3.5` is 3.5), in CJK
    numerals (`50万` is 500000), and, given its `language`, in words (`one year` is 1)."""
    cjk = numerals(text)
    if cjk:
        text = as_digits(text, cjk)
    if language == UNDETERMINED:
        language = "en"  # (as in `written_numbers`)
    if language is not None and language in _WORDS_LANGUAGES and _HAS_LETTER_NUMBER.search(text):
        text = alpha2digit(text, language, threshold=0)
    return [_number(value) for value in _VALUE.findall(text)]


def stated_numbers(tokens: list[str]) -> list[str]:
    """The numbers word `tokens` state: the tokens made of digits, and the digits of an
    ordinal or a unit written onto them (`9th`, `5km`)."""
    found: list[str] = []
    for token in tokens:
        if token.isdigit():
            found.append(token)
        elif token[:1].isdigit():
            match = _ATTACHED.fullmatch(token)
            if match is not None:
                found.append(match.group(1))
    return found


def _number(text: str) -> float:
    """The value of a digit string with thousands separators or a decimal mark."""
    if re.fullmatch(r"\d{1,3}(?:[,.]\d{3})+", text):
        return float(re.sub(r"[,.]", "", text))
    return float(text.replace(",", "."))


def backed(number: WrittenNumber, values: list[float]) -> bool:
    """Whether one of `values` backs the written number."""
    return any(number.low <= value <= number.high for value in values)
