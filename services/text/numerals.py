"""Chinese, Japanese and Korean numerals read as digits: `五十` is 50, `一千二百` 1200,
`两万` 20000, `二十一` 21, `3万` 30000, `1.5亿` 150000000, `二〇〇一年` 2001, `오십만` 500000.

Numeral characters are also parts of ordinary words (`一般`, `统一`, `十分`, `三峡`, `千葉`,
`万一`, `천사`), so a run of them is read only where it can only be a number:

- digits followed by a multiplier (`3万`, `180万`, `5천만`, `3300亿`);
- a number ending in a large multiplier goes on with what follows it that is worth less
  (`3万5千` 35000, `1万2000` 12000; Korean after one space: `1억 2천만` 120000000);
- two characters or more that form a number (`五十`, `十三`, `百万`, `两万`), not opening
  with `万`/`亿` (`万一`, `万年`) nor a multiplier right after another without a digit
  (`千百年`), nor two digits in a row (`五六十`, `一一`) unless they are a year written digit
  by digit (`二〇〇一`, `一九四五年`);
- one character before a counter (`三个`, `十年`, `两人`, `千円`), `一` only before `年`,
  `月`, `日` (`一个` is `a`);
- not after `第` or Korean `제` (an ordinal, matched as a word; `제3조`: article 3) nor
  after `数`, `几` (`数百万`: several million);
- Korean (Hangul) numerals in words: a run opening a word, with `십` or `백` in it, ending
  with a multiplier or of three syllables or more (`오십`, `삼백`, `이십일`; not `천사`,
  `이천`, `백사`).

A numeral followed by `多`, `余` or `几` (`二十多`: twenty-odd) stands for a value above it.
Every rule is a test on characters: text without numeral characters costs one search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Chinese and Japanese numeral characters: digits, zero, multipliers.
_HAN_DIGITS = {"一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
               "七": 7, "八": 8, "九": 9, "〇": 0, "零": 0}
_HAN_SMALL = {"十": 10, "百": 100, "千": 1000}
_HAN_LARGE = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8, "兆": 10**12}
_KO_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_KO_SMALL = {"십": 10, "백": 100, "천": 1000}
_KO_LARGE = {"만": 10**4, "억": 10**8, "조": 10**12}
_VALUES = {**_HAN_DIGITS, **_HAN_SMALL, **_HAN_LARGE, **_KO_DIGITS, **_KO_SMALL, **_KO_LARGE}
_MULTIPLIERS = frozenset([*_HAN_SMALL, *_HAN_LARGE, *_KO_SMALL, *_KO_LARGE])
_LARGE = frozenset([*_HAN_LARGE, *_KO_LARGE])
_ZEROS = frozenset("〇零")
_KO_VALUES = frozenset(_KO_DIGITS.keys() | _KO_SMALL.keys() | _KO_LARGE.keys())

_HAN = "".join([*_HAN_DIGITS, *_HAN_SMALL, *_HAN_LARGE])
_KO = "".join([*_KO_DIGITS, *_KO_SMALL, *_KO_LARGE])
_DIGITS = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
_ANY = re.compile(f"[{_HAN}{_KO}]")
_RUN = re.compile(f"[{_HAN}]+|[{_KO}]+")
_PREFIX = re.compile(f"(?:{_DIGITS})$")  # digits right before a run (`3万`)
# digits right after a run, and no multiplier after them (`1万2000`, not `1万2千`)
_DIGITS_AFTER = re.compile(f"(?:{_DIGITS})(?![\\d.,{_HAN}{_KO}])")
# Counters a single numeral character needs after it (`三个`, `十年`, `两人`, `千円`).
_COUNTERS = frozenset("个個人名位年月日号號天岁歳次倍种種座家件本台条條项項部届屆回周週章代"
                      "米元円匹只隻头頭枚册冊场場所间間层層架辆輛艘秒克吨噸里ヶか箇カ时時")
_ONE_COUNTERS = frozenset("年月日")
_NOT_AFTER = frozenset("第数數几幾제")
_ABOVE = frozenset("多余餘几幾")
_YEAR = frozenset("年")


@dataclass(frozen=True, slots=True)
class Numeral:
    """A numeral read in a text: where it stands, its value, and whether it stands for a
    value above it (`二十多`)."""

    start: int
    end: int
    value: float
    above: bool

    def digits(self) -> str:
        """The value in ASCII digits (`500000`, `1.5`)."""
        value = self.value
        return str(int(value)) if value == int(value) else str(value)


def has_numerals(text: str) -> bool:
    """Whether `text` has a CJK or Hangul numeral character (ASCII text has none)."""
    return not text.isascii() and _ANY.search(text) is not None


def numerals(text: str) -> list[Numeral]:
    """The numerals `text` writes in CJK or Hangul characters (alone or after digits), in
    order."""
    if not has_numerals(text):
        return []
    found: list[Numeral] = []
    for match in _RUN.finditer(text):
        run, start, end = match.group(), match.start(), match.end()
        prefix = None
        if start and text[start - 1].isdigit() and run[0] in _MULTIPLIERS:
            digits = _PREFIX.search(text, max(0, start - 24), start)
            if digits is not None:
                prefix, start = digits.group(), digits.start()
        before = text[start - 1] if start else ""
        if before.isdigit() or before == "." or before in _NOT_AFTER:
            continue
        after = text[end : end + 1]
        value = _read(prefix, run, before, after)
        if value is None:
            continue
        if found and _continues(text, found[-1], start, value):
            start, value = found[-1].start, found.pop().value + value
        found.append(Numeral(start, end, value, after in _ABOVE))
    return _with_digits_after(text, found)


def _continuation(text: str, numeral: Numeral) -> int:
    """Where a number that goes on `numeral` starts: right after it, or after the one space
    a Hangul multiplier may have after it (`1억 2천만`)."""
    end = numeral.end
    return end + 1 if text[end - 1] in _KO_LARGE and text[end : end + 1] == " " else end


def _continues(text: str, numeral: Numeral, start: int, value: float) -> bool:
    """Whether a numeral of `value` at `start` goes on `numeral`, one that ends in a large
    multiplier worth more than it: `3万5千` is 35000, Korean `1억 2천만` 120000000."""
    last = text[numeral.end - 1]
    return last in _LARGE and value < _VALUES[last] and start == _continuation(text, numeral)


def _with_digits_after(text: str, found: list[Numeral]) -> list[Numeral]:
    """`found` with the digits that go on a numeral ending in a large multiplier taken into
    it (`1万2000人` is 12000, `1만 2000명` 12000): digits worth less than the multiplier."""
    for number, numeral in enumerate(found):
        if text[numeral.end - 1] not in _LARGE:
            continue
        digits = _DIGITS_AFTER.match(text, _continuation(text, numeral))
        if digits is None:
            continue
        value = float(digits.group().replace(",", ""))
        if value < _VALUES[text[numeral.end - 1]]:
            end = digits.end()
            found[number] = Numeral(numeral.start, end, numeral.value + value,
                                    text[end : end + 1] in _ABOVE)
    return found


def as_digits(text: str, found: list[Numeral]) -> str:
    """`text` with each of its numerals `found` written in ASCII digits."""
    parts: list[str] = []
    last = 0
    for numeral in found:
        parts += [text[last : numeral.start], numeral.digits()]
        last = numeral.end
    parts.append(text[last:])
    return "".join(parts)


def _read(prefix: str | None, run: str, before: str, after: str) -> float | None:
    """The value of a run of numeral characters (after the digits `prefix`, if any), or
    None where the run is no number by the rules of the module docstring."""
    if prefix is not None:
        return _value(float(prefix.replace(",", "")), run)
    if run[0] in _KO_VALUES:
        if (
            len(run) < 2
            or "\uac00" <= before <= "\ud7a3"  # (inside a word)
            or not ("십" in run or "백" in run)
            or (len(run) == 2 and run[-1] not in _MULTIPLIERS)
        ):
            return None
    elif len(run) == 1:
        if run in _LARGE or run in _ZEROS or not (after in _COUNTERS or after in _ABOVE):
            return None
        if run == "一" and after not in _ONE_COUNTERS:
            return None
    if run[0] in _LARGE:
        return None
    if len(run) > 1 and all(char not in _MULTIPLIERS for char in run):  # a year, digit by digit
        if not (after in _YEAR or _ZEROS.intersection(run)):
            return None
        return float("".join(str(_VALUES[char]) for char in run))
    return _value(None, run)



def _value(prefix: float | None, run: str) -> float | None:
    """The value of numeral characters with multipliers (after the number `prefix`), or
    None when they form no number (two digits in a row, a multiplier right after another
    without a digit, a large one opening it)."""
    total = 0.0  # the sections closed by a large multiplier (`万`, `亿`)
    section = 0.0  # the current section (below the next large multiplier)
    digit = prefix
    last_large = 0
    last_multiplier = 0
    previous = "number" if prefix is not None else ""
    zero = False
    for char in run:
        value = _VALUES[char]
        if char in _ZEROS:
            if not last_multiplier:
                return None
            zero = True
            kind = "zero"
        elif char not in _MULTIPLIERS:
            if previous in ("digit", "number"):
                return None
            digit = value
            kind = "digit"
        elif char in _LARGE:
            if digit is None and section == 0:
                if previous != "large" or value <= last_large:
                    return None
                total *= value  # (`万亿`: ten thousand hundred millions)
            else:
                part = section + (digit or 0)
                total = (total + part) * value if value > last_large else total + part * value
            section, digit, last_large = 0.0, None, value
            last_multiplier, zero, kind = value, False, "large"
        else:
            if digit is None:
                if previous not in ("", "zero"):
                    return None  # (`千百`, `一万千`)
                digit = 1
            section += digit * value
            digit, last_multiplier, zero, kind = None, value, False, "small"
        previous = kind
    if digit is not None and previous == "digit" and last_multiplier >= 100 and not zero:
        digit *= last_multiplier // 10  # (`三百五` is 350, `一万二` 12000)
    return total + section + (digit or 0)
