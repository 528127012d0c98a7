"""Writing systems as the tokenizer reads them: each character's script class, and how a
word of mixed characters splits into the units that matching compares.

Spaced scripts (Latin, Greek, Cyrillic, Arabic, Hebrew, the Indic scripts, ...) give one
unit per word, combining marks included (a Devanagari vowel sign is part of its word) and
digits of every script read as ASCII digits; optional marks that writers leave out (Arabic
harakat and tatweel, Hebrew points) are dropped. A number glued to a word of another script
is its own unit (`494킬로미터` -> `494`, `킬로미터`). Scripts written without spaces give
overlapping character n-grams, which survive paraphrase without a dictionary: bigrams of Han
and Katakana (with a few Chinese function characters breaking the run), trigrams of the
Southeast Asian abugidas (a base letter with its marks is one character); Hiragana runs
(particles and endings) give none. A unit or counter written right after digits (`年`, `月`,
`万`, `个`, `人` ...) is a unit of its own, not the first half of a bigram with the word after
it (`3月开通` -> `3`, `月`, `开通`: no `月开`). Where a run negates (`不`, `没有`, `ない`, `ไม่`), a `not`
unit is added for the negation check.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

# Script classes.
OTHER = 0
LATIN = 1
GREEK = 2
CYRILLIC = 3
ARMENIAN = 4
HEBREW = 5
ARABIC = 6
INDIC = 7
GEORGIAN = 8
ETHIOPIC = 9
HANGUL = 10
HAN = 11
HIRAGANA = 12
KATAKANA = 13
THAI = 14
LAO = 15
KHMER = 16
MYANMAR = 17
DIGIT = 18
MARK = 19

NAMES = {
    OTHER: "Zyyy", LATIN: "Latn", GREEK: "Grek", CYRILLIC: "Cyrl", ARMENIAN: "Armn",
    HEBREW: "Hebr", ARABIC: "Arab", INDIC: "Deva", GEORGIAN: "Geor", ETHIOPIC: "Ethi",
    HANGUL: "Hang", HAN: "Hani", HIRAGANA: "Hira", KATAKANA: "Kana", THAI: "Thai",
    LAO: "Laoo", KHMER: "Khmr", MYANMAR: "Mymr",
}

# (first code point, class), sorted; a class holds up to the next entry's first code point.
_RANGES: list[tuple[int, int]] = [
    (0x0000, LATIN), (0x0370, GREEK), (0x0400, CYRILLIC), (0x0530, ARMENIAN),
    (0x0590, HEBREW), (0x0600, ARABIC), (0x0700, OTHER), (0x0750, ARABIC), (0x0780, OTHER),
    (0x08A0, ARABIC), (0x0900, INDIC), (0x0E00, THAI), (0x0E80, LAO), (0x0F00, OTHER),
    (0x1000, MYANMAR), (0x10A0, GEORGIAN), (0x1100, HANGUL), (0x1200, ETHIOPIC),
    (0x13A0, OTHER), (0x1780, KHMER), (0x1800, OTHER), (0x19E0, KHMER), (0x1A00, OTHER),
    (0x1C80, CYRILLIC), (0x1C90, GEORGIAN), (0x1CC0, OTHER), (0x1E00, LATIN),
    (0x1F00, GREEK), (0x2000, OTHER), (0x2C60, LATIN), (0x2C80, OTHER), (0x2D00, GEORGIAN),
    (0x2D30, OTHER), (0x2D80, ETHIOPIC), (0x2DE0, CYRILLIC), (0x2E00, OTHER),
    (0x2E80, HAN), (0x3000, OTHER), (0x3005, HAN), (0x3006, OTHER), (0x3007, HAN),
    (0x3008, OTHER), (0x3021, HAN), (0x302A, OTHER), (0x3040, HIRAGANA),
    (0x30A0, KATAKANA), (0x3100, OTHER), (0x3130, HANGUL), (0x3190, OTHER),
    (0x31F0, KATAKANA), (0x3200, OTHER), (0x3400, HAN), (0x4DC0, OTHER), (0x4E00, HAN),
    (0xA000, OTHER), (0xA640, CYRILLIC), (0xA6A0, OTHER), (0xA720, LATIN), (0xA800, OTHER),
    (0xA960, HANGUL), (0xA980, OTHER), (0xAB00, ETHIOPIC), (0xAB30, LATIN), (0xAB70, OTHER),
    (0xAC00, HANGUL), (0xD800, OTHER), (0xF900, HAN), (0xFB00, LATIN), (0xFB13, ARMENIAN),
    (0xFB1D, HEBREW), (0xFB50, ARABIC), (0xFE00, OTHER), (0xFE70, ARABIC), (0xFF00, OTHER),
    (0xFF21, LATIN), (0xFF3B, OTHER), (0xFF41, LATIN), (0xFF5B, OTHER), (0xFF66, KATAKANA),
    (0xFFA0, HANGUL), (0xFFE0, OTHER), (0x20000, HAN), (0x40000, OTHER),
]
_STARTS = [start for start, _ in _RANGES]
_CLASSES = [cls for _, cls in _RANGES]

# Classes written without spaces, and the n-gram size of their units (Hiragana: none).
NGRAM: dict[int, int] = {HAN: 2, KATAKANA: 2, HIRAGANA: 0, THAI: 3, LAO: 3, KHMER: 3,
                         MYANMAR: 3}
# Chinese function characters: they separate the content words around them (`的`, `是`...).
_HAN_BREAKS = frozenset("的了是在和与及也都而并或被把对这那个之其于为以从等就还又将所由着过吗呢吧啊")
# Marks writers leave out: Arabic harakat, superscript alef, Quranic marks, tatweel; Hebrew
# points and cantillation; the joiners.
_OPTIONAL = frozenset(
    [chr(c) for c in range(0x064B, 0x0660)] + ["\u0670", "\u0640", "\u200c", "\u200d"]
    + [chr(c) for c in range(0x06D6, 0x06EE)] + [chr(c) for c in range(0x0591, 0x05C8)]
    + [chr(c) for c in range(0xFE00, 0xFE10)]  # variation selectors
)
# Negations inside unspaced runs (with words that merely contain them).
_RUN_NEGATIONS = ("不", "没", "沒", "未曾", "从未", "從未", "并非", "並非", "无法", "無法",
                  "ない", "ません", "なかっ", "ไม่", "ບໍ່", "មិន")
_NOT_NEGATIONS = ("不仅", "不僅", "不但", "不断", "不斷", "不同", "不少", "不过", "不過",
                  "不久", "少ない", "危ない")
NEGATION_UNIT = "not"


def char_class(ch: str) -> int:
    """The script class of one character (DIGIT for a decimal digit, MARK for a combining
    mark)."""
    code = ord(ch)
    if code < 0x80:
        return DIGIT if "0" <= ch <= "9" else LATIN
    category = unicodedata.category(ch)
    if category == "Nd":
        return DIGIT
    if category[0] == "M":
        return MARK
    return _CLASSES[bisect_right(_STARTS, code) - 1]


def _mark_ranges() -> str:
    """A regex class body of every combining mark of the Basic Multilingual Plane."""
    parts: list[str] = []
    start = -1
    for code in range(0x300, 0x10000):
        mark = unicodedata.category(chr(code))[0] == "M"
        if mark and start < 0:
            start = code
        elif not mark and start >= 0:
            parts.append(f"\\u{start:04x}-\\u{code - 1:04x}")
            start = -1
    return "".join(parts)


MARKS = _mark_ranges()


def _ascii_digits(word: str) -> str:
    """`word` with every decimal digit (any script) as an ASCII digit."""
    return "".join(
        str(unicodedata.decimal(ch)) if not ch.isascii() and ch.isdecimal() else ch
        for ch in word
    )


_HAN = "\u2e80-\u2fff\u3005\u3007\u3021-\u3029\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_HIRAGANA = "\u3040-\u309f"
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_SOUTHEAST = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff\uffa0-\uffdf"
# A word token's runs of one kind: Han, Hiragana, Katakana, a Southeast Asian abugida (one
# script per run), Hangul, or anything else (letters of spaced scripts, digits, marks).
_RUNS = re.compile(
    f"([{_HAN}]+)|([{_HIRAGANA}]+)|([{_KATAKANA}]+)|([\u0e00-\u0e7f]+|[\u0e80-\u0eff]+"
    f"|[\u1000-\u109f]+|[\u1780-\u17ff\u19e0-\u19ff]+)|([{_HANGUL}]+)"
    f"|([^{_HAN}{_HIRAGANA}{_KATAKANA}{_SOUTHEAST}{_HANGUL}]+)"
)
# Units and counters a Han run opens with right after digits (`2015年`, `3月`, `50万`, `3个`,
# `20人`): they belong to the number, and make no bigram with the word after them.
_AFTER_DIGITS = frozenset("年月日号號时時分秒点點十百千万萬亿億兆个個位名人岁歲歳元円倍次件台本只条條种種度")
_HAN_BREAK = re.compile(f"[{''.join(sorted(_HAN_BREAKS))}]+")
_CLUSTER = re.compile(f".[{MARKS}]*", re.DOTALL)  # a base character with its marks
# A character of a script written without spaces (quotes and sentences in them are measured
# in these, not in words).
UNSPACED_CHAR = re.compile(f"[{_HAN}{_HIRAGANA}{_KATAKANA}{_SOUTHEAST}]")


def _ngrams(units: list[str] | str, size: int) -> list[str]:
    """Overlapping n-grams of `size` units; fewer units than `size` make one."""
    if len(units) <= size:
        return ["".join(units)]
    return ["".join(units[i : i + size]) for i in range(len(units) - size + 1)]


def _negates(run: str) -> bool:
    """Whether an unspaced run holds a negation."""
    if not any(negation in run for negation in _RUN_NEGATIONS):
        return False
    for word in _NOT_NEGATIONS:
        run = run.replace(word, "")
    return any(negation in run for negation in _RUN_NEGATIONS)


def split_word(word: str) -> list[str]:
    """The matching units of one lowercase non-ASCII word token (see the module docstring)."""
    if not _OPTIONAL.isdisjoint(word):
        word = "".join(ch for ch in word if ch not in _OPTIONAL)
    units: list[str] = []
    after_digits = False
    for han, _hiragana, katakana, southeast, hangul, other in _RUNS.findall(word):
        if other or hangul:
            run = other or hangul
            if other and not run.isascii() and any(map(str.isdecimal, run)):
                run = _ascii_digits(run)
            units.append(run)
            after_digits = bool(other) and run[-1].isdigit()
            continue
        if han:
            rest = han
            if after_digits and han[0] in _AFTER_DIGITS:
                if han[0] not in _HAN_BREAKS:  # (a break character is no unit anyway)
                    units.append(han[0])
                rest = han[1:]
            for part in _HAN_BREAK.split(rest):
                if part:
                    units.extend(_ngrams(part, 2))
        elif katakana:
            units.extend(_ngrams(katakana, 2))
        elif southeast:
            units.extend(_ngrams(_CLUSTER.findall(southeast), 3))
        run = han or _hiragana or katakana or southeast
        if _negates(run):
            units.append(NEGATION_UNIT)
        after_digits = False
    return units


def text_script(text: str, limit: int = 4_000) -> int:
    """The script class most letters of `text` are written in (its first `limit`
    characters; Hiragana and Katakana count as Han's companions: a text with kana is
    Japanese); OTHER when it has no letter."""
    sample = text[:limit]
    if sample.isascii():
        return LATIN if _ASCII_LETTER.search(sample) else OTHER
    # Only the non-ASCII characters are looked at: the UTF-8 bytes without the ASCII ones,
    # decoded (C loops over the bytes; a regex scan costs several times as much).
    others = (
        sample.encode("utf-8", "surrogatepass")
        .translate(None, _ASCII_BYTES)
        .decode("utf-8", "surrogatepass")
    )
    # ASCII characters but blanks stand for Latin letters: near enough to weigh scripts.
    latin = len(sample) - len(others) - sample.count(" ")
    counts: dict[int, int] = {LATIN: latin} if latin > 0 else {}
    for ch in others:
        if ch.isalpha():
            cls = char_class(ch)
            counts[cls] = counts.get(cls, 0) + 1
    if not counts:
        return OTHER
    kana = counts.pop(HIRAGANA, 0) + counts.pop(KATAKANA, 0)
    if kana:
        counts[HIRAGANA] = kana + counts.pop(HAN, 0)  # Japanese
    best = max(counts.values())
    return min(cls for cls, count in counts.items() if count == best)


_ASCII_LETTER = re.compile(r"[A-Za-z]")
_ASCII_BYTES = bytes(range(128))
