"""Dates as people write them: the days a date of a text can denote, whatever its order.

Read: all-numeric dates with a four-digit year, separated by `/`, `-` or `.` (`12/03/2001`,
`3/12/2001`, `12.03.2001`, `2001-03-12`, `2001/3/12`); dates with a month name, day first
or month first (`12 March 2001`, `12th of March, 2001`, `March 12, 2001`, `Dec. 12, 2001`,
`12. März 2001`, `12 de marzo de 2001`; month names of English, German, French, Spanish,
Portuguese, Italian and Dutch, and English abbreviations); and CJK dates (`2001年3月12日`,
`2001년 3월 12일`). A numeric date whose first two numbers could each be the month
(`12/03/2001`: 12 March or December 3) denotes both days: either backs it. Two-digit years
are not read (`12/03/01` could be any order).
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass

Day = tuple[int, int, int]  # (year, month, day)

_MONTH_NAMES = {
    1: "january jan januar jänner janvier enero janeiro gennaio januari",
    2: "february feb februar février febrero fevereiro febbraio februari",
    3: "march mar märz mars marzo março maart",
    4: "april apr avril abril aprile",
    5: "may mai mayo maio maggio mei",
    6: "june jun juni juin junio junho giugno",
    7: "july jul juli juillet julio julho luglio",
    8: "august aug août agosto augustus",
    9: "september sep sept septembre septiembre setiembre setembro settembre",
    10: "october oct oktober octobre octubre outubro ottobre",
    11: "november nov novembre noviembre novembro",
    12: "december dec dezember décembre diciembre dezembro dicembre",
}
_MONTHS = {name: number for number, names in _MONTH_NAMES.items() for name in names.split()}
# (a month is any word of 3 to 9 letters, looked up in `_MONTHS`: one character class is
# cheaper to try at every place of a text than an alternation of the names)
_MONTH = r"[^\W\d_]{3,9}"
_ORDINAL = r"(?:st|nd|rd|th|\.|º)?"
_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")  # (every form holds one: the fast test)
_NUMERIC = re.compile(r"(?<![\d.,/-])(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?![\d]|[./-]\d)")
_DAY_FIRST = re.compile(
    rf"(?<![\d.,/])(\d{{1,2}}){_ORDINAL}\s+(?:of\s+|de\s+)?({_MONTH})(?![^\W\d_])\.?,?\s+"
    rf"(?:de\s+|del\s+)?(\d{{4}})(?!\d)"
)
_MONTH_FIRST = re.compile(
    rf"(?<![^\W\d_])({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL},?\s+(\d{{4}})(?!\d)"
)
_CJK = re.compile(r"(?<!\d)(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]")
# A month name with its day before or after it, or its year, or both (`16 May 2001`,
# `March 2006`, `December 10`, `Dec. 10, 2014`, `12th of March`; the names spelled out:
# read only in the few texts asked about).
_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_PHRASE = re.compile(
    rf"(?:(?<![\d.,/])(\d{{1,2}}){_ORDINAL}\s+(?:of\s+|de\s+)?)?(?<![^\W\d_])({_NAMES})(?![^\W\d_])"
    rf"(?:\.?\s+(\d{{1,2}}){_ORDINAL}(?![\d.]\d))?(?:\.?,?\s+(?:de\s+|del\s+)?(\d{{4}}))?(?!\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class WrittenDate:
    """A date as a text writes it, and the days it can denote."""

    text: str
    days: frozenset[Day]


def dates_of(text: str) -> list[WrittenDate]:
    """The dates `text` writes, in the forms of the module docstring."""
    found: list[WrittenDate] = []
    if _YEAR.search(text) is None:
        return found
    for match in _NUMERIC.finditer(text):
        first, second, third = match.group(1, 3, 4)
        if len(first) == 4:
            days = [_day(first, second, third)]
        elif len(third) == 4:
            days = [_day(third, second, first), _day(third, first, second)]
        else:
            continue
        _add(found, match.group(), days)
    for match in _DAY_FIRST.finditer(text):
        day, month, year = match.group(1, 2, 3)
        number = _MONTHS.get(month.lower())
        if number is not None:
            _add(found, match.group(), [_day(year, number, day)])
    for match in _MONTH_FIRST.finditer(text):
        month, day, year = match.group(1, 2, 3)
        number = _MONTHS.get(month.lower())
        if number is not None:
            _add(found, match.group(), [_day(year, number, day)])
    for match in _CJK.finditer(text):
        year, month, day = match.group(1, 2, 3)
        _add(found, match.group(), [_day(year, month, day)])
    return found


def month_dates(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` of each date `text` writes with a month name and a day, a year or
    both, complete or not (`16 May 2001`, `March 2006`, `December 10`): a date a reader
    takes as one fact."""
    return [
        match.span()
        for match in _PHRASE.finditer(text)
        if match.group(1, 3, 4) != (None, None, None)
    ]


def date_backed(date: WrittenDate, others: list[WrittenDate]) -> bool:
    """Whether one of the `others` can denote a day `date` can denote."""
    return any(not date.days.isdisjoint(other.days) for other in others)


def _add(found: list[WrittenDate], text: str, days: list[Day | None]) -> None:
    """Add the date `text` with those of its `days` that exist (none: not a date)."""
    valid = frozenset(day for day in days if day is not None)
    if valid:
        found.append(WrittenDate(text, valid))


def _day(year: str, month: str | int, day: str) -> Day | None:
    """The day (year, month, day) when it exists, else None."""
    found = int(year), int(month), int(day)
    if not (1 <= found[1] <= 12 and 1 <= found[2] <= monthrange(found[0] or 1, found[1])[1]):
        return None
    return found
