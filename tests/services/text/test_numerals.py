"""Chinese, Japanese and Korean numerals (services.text.numerals) and how the numbers of a
claim and a passage read them (services.text.numbers)."""

from __future__ import annotations

import pytest

from services.text.numbers import backed, values_of, written_numbers
from services.text.numerals import as_digits, has_numerals, numerals


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("五十", [50]), ("三百", [300]), ("一千二百", [1200]), ("两万", [20000]),
        ("二十一", [21]), ("十年", [10]), ("3万", [30000]), ("50万人", [500000]),
        ("1.5亿", [150_000_000]), ("1,500万", [15_000_000]), ("一亿二千万", [120_000_000]),
        ("十億円", [1_000_000_000]), ("一万亿", [10**12]), ("三百五", [350]),
        ("一万二", [12000]), ("一百零五", [105]), ("一千零十", [1010]),
        ("二〇〇一年", [2001]), ("一九四五年", [1945]), ("十三个朝代", [13]),
        ("千円札", [1000]), ("五千円札", [5000]), ("一月", [1]),
        ("오십만 명", [500000]), ("삼백", [300]), ("이십일세기", [21]), ("5천만 원", [50_000_000]),
        # a number ending in a large multiplier goes on with what is worth less after it
        ("3万5千", [35000]), ("1万2000人", [12000]), ("1万2千", [12000]),
        ("1억 2천만 명", [120_000_000]), ("2억 5000만 원", [250_000_000]), ("1만 2000년", [12000]),
        ("1万20000", [10000]), ("3万 5千", [30000, 5000]),
    ],
)
def test_numerals_are_read_as_their_values(text: str, values: list[int]) -> None:
    assert [numeral.value for numeral in numerals(text)] == values


@pytest.mark.parametrize(
    "text",
    # words made of numeral characters: `一般` (ordinary), `十分` (very), `三峡` (a place),
    # `万一` (in case), `千方百计`, `千百年来`, `一个` (a), ordinals and `several`, `五六十`
    # (fifty or sixty), Korean `천사` (angel), `이천` (a city), `제3조` (article 3)
    ["他一般不来", "十分重要", "三峡大坝", "万一下雨", "千方百计", "千百年来", "一个城市", "第三名",
     "数百万", "几十年", "五六十", "樋口一葉", "日本一高い山", "천사", "이천에서", "제3조"],
)
def test_words_made_of_numeral_characters_are_no_numbers(text: str) -> None:
    assert numerals(text) == []


def test_text_without_numeral_characters_is_left_as_it_is() -> None:
    assert not has_numerals("Fifty people came in 2001")  # (ASCII: no search at all)
    assert not has_numerals("会社は2001年に設立された")
    text = "人口约五十万，面积三百平方公里"
    assert as_digits(text, numerals(text)) == "人口约500000，面积300平方公里"


def test_a_claims_numerals_are_backed_by_the_passages_values_either_way() -> None:
    found, digits = written_numbers("人口约五十万", "zh")
    assert digits == "人口约500000"
    for passage in ("人口500000", "人口50万", "人口五十万", "人口约52万"):
        assert any(backed(number, values_of(passage)) for number in found), passage
    exact = written_numbers("人口五十万", "zh")[0]
    assert not any(backed(number, values_of("人口60万")) for number in exact)
    assert 500000 in values_of("서울 인구는 오십만 명")


def test_twenty_odd_stands_for_a_value_above_twenty() -> None:
    found = written_numbers("二十多人参加", "zh")[0]
    assert any(backed(number, [23]) for number in found)
    assert not any(backed(number, [18]) for number in found)


def test_a_compound_number_is_one_value_that_passages_back_as_written_in_digits() -> None:
    found, digits = written_numbers("인구는 1억 2천만 명이다", "ko")
    assert digits == "인구는 120000000 명이다"
    assert any(backed(number, values_of("인구 120,000,000명")) for number in found)
    assert not any(backed(number, values_of("인구 100,000,000명")) for number in found)
    assert 12000 in values_of("约1万2000人参加")
    assert numerals("1万2000多人")[0].above
