"""A sentence's atomic claims: the parts a reader can check one by one.

`atoms` cuts a sentence (any language, without being told which) into spans of its own text:

- quoted words (`"…"`, `“…”`, `„…“`, `«…»`, `‹…›`, `‘…’`, `「…」`, `『…』`, `《…》`; a `‘` after a letter
  is an apostrophe) are atoms of
  their own (`QUOTE`), checked word for word;
- parentheticals (`(…)`, `[…]`, `（…）`) are atoms of their own;
- the rest is cut at clause punctuation (commas, semicolons, colons, dashes; the Arabic and
  CJK forms; the CJK enumeration comma) and before the conjunctions and relative words that
  open a clause or a coordinated part (`and`, `but`, `which`, `und`, `et`, `и`, `并且`, …).

A part that holds fewer than `MIN_WORDS` words of content (two letters or more, or a number)
is no claim on its own: it joins the part before it (the first part joins the next). Quotes
and brackets that never close are read as plain text. The cost is one pass over the sentence
and a regex per delimiter class: no tokenizer, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PART = 0
QUOTE = 1
MIN_WORDS = 2
MAX_ATOMS = 24  # a longer list is judged as its first parts plus the rest in one

_QUOTES = {
    '"': '"', "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb", "\u00bb": "\u00ab",
    "\u2039": "\u203a", "\u300c": "\u300d", "\u300e": "\u300f", "\u300a": "\u300b",
    "\u201a": "\u2018", "\u2018": "\u2019",
}
_BRACKETS = {"(": ")", "[": "]", "\uff08": "\uff09"}
_OPENING = frozenset([*_QUOTES, *_BRACKETS])
_OPENERS = re.compile("[" + re.escape("".join(_OPENING)) + "]")
# Conjunctions and relative words that open a clause or a coordinated part, by language;
# a cut is made before them (they stay with the part they open).
_CONJUNCTIONS = """and but or while whereas although though because which who whom whose
    where whereby after before since until unless including
    und aber oder sondern sowie während weil obwohl nachdem bevor
    et mais ou donc car tandis lorsque puis dont
    y pero sino mientras aunque porque cuando donde
    e ma però mentre perché quando dove
    mas porém enquanto embora porque quando onde
    en maar terwijl omdat
    och men medan eftersom
    og men mens fordi
    и но а или однако который которая которое которые когда где
    ve ama veya fakat çünkü iken""".split()
_CONJUNCTION_WORDS = frozenset(_CONJUNCTIONS)
# Words that belong to a clause rather than to one of its phrases: auxiliaries, the copula
# and personal pronouns, by language. A phrase a source does not back (`in 2015`, `the
# following month`) never opens with one (`He appeared`, `was named`).
CLAUSE_WORDS = frozenset("""am is are was were be been being have has had do does did will
    would shall should can could might must i you he she it we they me him us them
    ist sind war waren wird werden wurde wurden hat haben hatte hatten ich du er sie es wir ihr
    est sont était étaient sera ont avait avaient je tu il elle nous vous ils elles
    es son era eran fue fueron ha han había yo él ella nosotros ellos ellas""".split())
# How a function word before a missing phrase relates to it, by language
# (services.verification.atoms._Phrases): a coordinator joins a member to a list (`and
# Canada`); a definite article makes the words after it one description (`the following
# year`).
COORDINATORS: dict[str, frozenset[str]] = {
    language: frozenset(found.split())
    for language, found in {
        "en": "and or nor", "de": "und oder", "fr": "et ou ni", "es": "y e o u ni",
        "it": "e ed o od né", "pt": "e ou nem", "nl": "en of", "sv": "och eller",
        "da": "og eller", "nb": "og eller", "nn": "og eller", "no": "og eller", "fi": "ja tai",
        "pl": "i oraz lub albo", "cs": "a i nebo", "ro": "și sau", "ru": "и или", "uk": "і та або",
        "tr": "ve veya",
    }.items()
}
DEFINITE_ARTICLES: dict[str, frozenset[str]] = {
    language: frozenset(found.split())
    for language, found in {
        "en": "the", "de": "der die das den dem des", "fr": "le la les l",
        "es": "el la los las", "it": "il lo la i gli le l", "pt": "o a os as", "nl": "de het",
    }.items()
}
_CONJUNCTION = re.compile(r"(?<=\s)(?:" + "|".join(_CONJUNCTIONS) + r")(?=\s)", re.IGNORECASE)
# Clause punctuation (a comma or colon inside a number, `12,717` or `3:45`, is not one).
_PUNCTUATION = re.compile(
    r"(?<!\d)[,:](?!\d)|(?<!\d),(?=\s)|(?<=\d),(?=\s\D)|:(?=\s)|[;\u061b\u060c\uff0c\uff1b\uff1a\u3001]|\s[\u2013\u2014-]\s|\u2014"
)
# Conjunctions written without spaces (CJK) and the particles that join clauses.
_DELIMITING = frozenset(",:;\u061b\u060c\uff0c\uff1b\uff1a\u3001\u2013\u2014-")
# (the ASCII ones of the opening and delimiting marks, as bytes to delete)
_ASCII_MARKS = bytes(sorted(ord(mark) for mark in _OPENING | _DELIMITING if mark.isascii()))
# Every ASCII character but letters and digits (what `_trimmed` trims in ASCII text).
_ASCII_OTHERS = "".join(ch for ch in map(chr, range(128)) if not ch.isalnum())
_CJK_JOINS = re.compile(r"并且|而且|但是|不过|然而|以及|同时|并|而|但|及びに|および|また|しかし|그리고|하지만|그러나")
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_WORD = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]{{2,}}|\d")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]{2,}|[0-9]")


@dataclass(slots=True)
class AtomSpan:
    """`[start, end)` of the sentence, what it is (`PART` or `QUOTE`), and the words it
    claims (a part's text without the quotes and parentheticals inside it, which are atoms
    of their own). Not frozen: a frozen instance is made through `object.__setattr__`, field
    by field, several times the cost of a plain one (no reader changes one)."""

    start: int
    end: int
    kind: int
    claims: str


def atoms(text: str) -> list[AtomSpan]:
    """The atomic claims of sentence `text`, in text order (see the module docstring); the
    whole sentence as one part when it has no content or cannot be cut."""
    return [
        AtomSpan(start, end, kind, text[start:end] if kind == QUOTE else rest[start:end])
        for start, end, kind, rest in _spans(text)
    ]


def _spans(text: str) -> list[tuple[int, int, int, str]]:
    """(start, end, kind, the text outside quotes and brackets) of each atom."""
    plain_ascii = text.isascii()
    chars: set[str] | None = None
    if plain_ascii:  # (its marks deleted in C: no set of its characters to build)
        plain = len(text.encode().translate(None, _ASCII_MARKS)) == len(text)
    else:
        chars = set(text)
        plain = _OPENING.isdisjoint(chars) and _DELIMITING.isdisjoint(chars)
    if (
        plain
        and _CONJUNCTION_WORDS.isdisjoint(text.lower().split())
        and (plain_ascii or _CJK_JOINS.search(text) is None)
    ):  # nothing cuts it: one part (the common short sentence, decided in C)
        whole = _trimmed(text, 0, len(text))
        return [(whole[0], whole[1], PART, text)] if whole else []
    if chars is None:
        chars = set(text)
    inner = [] if _OPENING.isdisjoint(chars) else _enclosed(text)
    rest = text
    found: list[tuple[int, int, int]] = []
    for start, end, kind in inner:
        low, high = max(start - 1, 0), min(end + 1, len(text))
        rest = rest[:low] + " " * (high - low) + rest[high:]
        span = _trimmed(text, start, end)
        if span is not None:
            found.append((span[0], span[1], kind))
    cuts = sorted({0, len(text), *_cuts(rest, chars)})
    parts: list[tuple[int, int]] = []
    for start, end in zip(cuts, cuts[1:]):
        span = _trimmed(rest, start, end)
        if span is not None:
            parts.append(span)
    found.extend((start, end, PART) for start, end in _merged(rest, parts))
    found = [atom for atom in found if atom[2] == QUOTE or _content(text[atom[0] : atom[1]])]
    if not found:
        whole = _trimmed(text, 0, len(text))
        return [(whole[0], whole[1], PART, text)] if whole else []
    found.sort()
    if len(found) > MAX_ATOMS:
        start = found[MAX_ATOMS - 1][0]
        tail = max(end for _, end, _ in found[MAX_ATOMS - 1 :])
        found = [*found[: MAX_ATOMS - 1], (start, tail, PART)]
    return [(start, end, kind, rest) for start, end, kind in found]


def _content(text: str) -> int:
    """How many words of content `text` holds (letters of two or more, digits, CJK)."""
    if text.isascii():
        return len(_ASCII_WORD.findall(text))
    return len(_WORD.findall(text))


def _enclosed(text: str) -> list[tuple[int, int, int]]:
    """(start, end, kind) of the inside of every outermost closed quote or bracket."""
    spans: list[tuple[int, int, int]] = []
    position, size = 0, len(text)
    while position < size:
        opening = _OPENERS.search(text, position)
        if opening is None:
            break
        position = opening.start()
        char = text[position]
        closer = _QUOTES.get(char)
        kind = QUOTE
        if closer is None:
            closer = _BRACKETS.get(char)
            kind = PART
        if closer is None or (char in "\u2018\u201a" and position and text[position - 1].isalnum()):
            position += 1
            continue
        end = _closing(text, position, char, closer)
        if end < 0:
            position += 1  # never closed: plain text
            continue
        spans.append((position + 1, end, kind))
        position = end + 1
    return spans


def _closing(text: str, opening: int, char: str, closer: str) -> int:
    """Where the quote or bracket opened at `opening` closes (nesting counted for
    brackets), or -1."""
    if char not in _BRACKETS:
        return text.find(closer, opening + 1)
    depth = 0
    for position in range(opening + 1, len(text)):
        found = text[position]
        if found == closer:
            if depth == 0:
                return position
            depth -= 1
        elif found == char:
            depth += 1
    return -1


def _cuts(rest: str, chars: set[str]) -> list[int]:
    """Where the text outside quotes and brackets is cut (`chars`: the sentence's
    characters; each pattern runs only where its characters or words occur)."""
    cuts: list[int] = []
    if not _DELIMITING.isdisjoint(chars):
        cuts += [match.end() for match in _PUNCTUATION.finditer(rest)]
    if not _CONJUNCTION_WORDS.isdisjoint(rest.lower().split()):
        cuts += [match.start() for match in _CONJUNCTION.finditer(rest)]
    if not rest.isascii():
        cuts += [match.start() for match in _CJK_JOINS.finditer(rest)]
    return cuts


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """`[start, end)` without blanks and clause punctuation at either end; None if empty."""
    part = text[start:end]
    if part.isascii():  # (stripped in C: no Python step per character)
        kept = part.lstrip(_ASCII_OTHERS)
        if not kept:
            return None
        start += len(part) - len(kept)
        return start, start + len(kept.rstrip(_ASCII_OTHERS))
    while start < end and (text[start].isspace() or not text[start].isalnum()):
        start += 1
    while end > start and (text[end - 1].isspace() or not text[end - 1].isalnum()):
        end -= 1
    return (start, end) if end > start else None


def _merged(rest: str, parts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts with fewer than `MIN_WORDS` content words joined to a neighbour."""
    merged: list[tuple[int, int]] = []
    pending: int | None = None  # the start of a short first part, joining the next
    for start, end in parts:
        if pending is not None:
            start, pending = pending, None
        if _content(rest[start:end]) >= MIN_WORDS:
            merged.append((start, end))
        elif merged:
            merged[-1] = (merged[-1][0], end)
        else:
            pending = start
    if pending is not None:
        if merged:
            merged[0] = (pending, merged[0][1])
        else:
            merged.append((pending, parts[-1][1]))
    return merged


_BLANKS = re.compile(r"\s+")
# What closes a sentence in any script: a line ending without it is a heading or a label.
_CLOSING = frozenset(".!?;:\u3002\uff01\uff1f\u061f\u06d4\u0964\u0965\u0589\u1362\u104b\"'\u201d\u2019)\u00bb")


def fold_blanks(text: str) -> str:
    """`text` in lowercase with every run of blanks one space (how quotes are compared)."""
    return _BLANKS.sub(" ", text.lower())


def is_heading(text: str, start: int, end: int) -> bool:
    """Whether `[start, end)` of `text` is a line of its own that no closing punctuation
    ends: a title, a heading, a metadata line or a label rather than a sentence."""
    if end <= start or text[end - 1] in _CLOSING:
        return False
    starts_line = start == 0 or text[start - 1] == "\n"
    ends_line = text[end : end + 80].lstrip(" \t\r")[:1] in ("\n", "")
    return starts_line and ends_line
