"""Dates in every common order (services.text.dates): the days each can denote."""

from __future__ import annotations

import pytest

from services.text.dates import date_backed, dates_of, month_dates

MARCH_12 = (2001, 3, 12)


@pytest.mark.parametrize(
    "text",
    ["on 12/03/2001", "on 3/12/2001", "on 2001-03-12", "on 12.03.2001", "on 2001/3/12",
     "on 12 March 2001", "on 12th of March, 2001", "on March 12, 2001", "on Mar. 12, 2001",
     "am 12. März 2001", "el 12 de marzo de 2001", "le 12 mars 2001", "2001年3月12日に",
     "2001년 3월 12일"],
)
def test_every_common_form_is_read(text: str) -> None:
    found = dates_of(text)
    assert len(found) == 1 and found[0].text in text
    assert MARCH_12 in found[0].days
    assert dates_of("Dec. 12, 2001")[0].days == {(2001, 12, 12)}


def test_an_ambiguous_order_denotes_both_days_an_unambiguous_one_its_own() -> None:
    assert dates_of("12/03/2001")[0].days == {(2001, 3, 12), (2001, 12, 3)}
    assert dates_of("13/03/2001")[0].days == {(2001, 3, 13)}
    assert dates_of("2001-03-12")[0].days == {MARCH_12}


def test_dates_back_each_other_only_on_the_same_day() -> None:
    day = dates_of("12 March 2001")[0]
    for same in ("2001-03-12", "12/03/2001", "3/12/2001", "March 12, 2001", "2001年3月12日"):
        assert date_backed(day, dates_of(same)), same
    for other in ("2001-12-03", "13/03/2001", "12 March 2002", "12 April 2001", "2001年3月21日"):
        assert not date_backed(day, dates_of(other)), other


@pytest.mark.parametrize(
    "text",
    ["12/03/01", "31/02/2001", "the 1939-45 war", "version 1.2.3", "room 12 March", "3.2 km"],
)
def test_what_is_no_date_is_not_read(text: str) -> None:
    assert dates_of(text) == []


def test_month_dates_are_read_whole_with_a_day_a_year_or_both() -> None:
    text = ("He died on 16 May 2001, joined in March 2006, left on December 10 and on "
            "the 12th of March, 2001; Dec. 10, 2014; am 12. März 2001.")
    assert [text[start:end] for start, end in month_dates(text)] == [
        "16 May 2001", "March 2006", "December 10", "12th of March, 2001", "Dec. 10, 2014",
        "12. März 2001"]
    # A month name alone, or a word that is one only in part, is no date.
    assert month_dates("they may go in March with 5 marching bands") == []
