"""Citation-aware sentence segmentation in one regex-driven scan.

Candidate boundaries are line breaks and runs of terminal punctuation; each candidate is
kept or rejected by local rules: abbreviations, initials, dotted acronyms, clock times,
decimals, URLs and e-mail addresses (no space after the period), ellipses, quotations and
parentheses (punctuation inside them is protected), list items and bullets. Citation markers
right after the final punctuation (`capital.[1] Next`, `capital. [1] Next`) stay with the
sentence they follow. Measured against the Pragmatic Segmenter Golden Rules (pySBD's tests).

Chinese and Japanese: `。！？` and the full-width `．` end a
sentence with no space after them, with the closing quotes and brackets that follow (`。」`)
and the markers right after (`。[1]`); a marker before them (`首都[1]。`) is inside.

Every language, without being told it: the full stops of other scripts end a
sentence as the CJK ones do (Devanagari `।` `॥`, Arabic and Urdu `؟` `۔`, Armenian `։`,
Ethiopic `።` `፧`, Burmese `။`); a colon after an Armenian or Arabic-script word, a
semicolon after a Greek word (the Greek question mark) and an Arabic comma that does not
separate list items end one too. Abbreviations, titles and ordinals of other languages
(services.text.lexicon_langs: `Srta.`, `l'Ing.`, `пгт.`, `12. Juni`, `XII. Pluku`,
`der 3. Versuch`) do not;
quotations and titles (`„…“`, `«…»`, `《…》`, `「…」`) protect what they hold. An optional
BCP 47 `language` is a hint only: it adds the titles that are ordinary words elsewhere, reads
periods after numbers as ordinals, and tells Arabic from Persian and Urdu.
"""

from __future__ import annotations

import re

from services.text import lexicon, lexicon_langs
from services.text.lists import list_breaks
from services.text.markdown import inside
from services.text.protected import positions, protected_intervals

# A run of terminal punctuation with closing quotes/brackets after it
# (`.`, `?!`, `...`, `. . .`, `."`, `.)`, `.).`).
_RUN = re.compile(r"(?:[.!?…]+(?: \.(?!\.))*[)\]\"'”’»“«›‹*_]*)+")
# Chinese and Japanese sentence ends, with the closers that may follow them.
_CJK_STOPS = "。！？．"  # (not halfwidth ｡: its scan is slow, its use rare)
_CJK_RUN = re.compile(r"[。！？．!?।॥۔؟։።፧။\u037e]+[」』）】〕》〉\"”’)»“]*")
# Full stops of other scripts, cut as the CJK ones (no space needed after them): Devanagari
# danda and double danda, Urdu full stop, Arabic question mark, Armenian full stop, Ethiopic
# full stop and question mark, Burmese section mark, the Greek question mark (U+037E).
_SCRIPT_STOPS = "।॥۔؟։።፧။\u037e"
_STOPS = _CJK_STOPS + _SCRIPT_STOPS
# Ends only after a word of some scripts: `:` (Armenian, Arabic script), `;` (Greek), `،`.
_CONTEXT_STOPS = ":;،"
_CANDIDATE_CHARS = ".!?…\n\r"  # every terminal punctuation mark and line break (but CJK)
_LINE_BREAKS = "\n\r"
_CLOSERS = ")]\"'”’»“«›‹*_"
_TOKEN_STRIP = "()[]{}\"'“”‘’«»„‚‹›*_"
_LONGEST_TOKEN = 100  # no abbreviation is longer: look no further back for a token
# The sentence so far is only a list label: `1`, `a`, `• 9`, `⁃10`.
_LIST_LABEL = re.compile(r"\s*(?:[•⁃◦▪‣●*+-]\s*)?(?:\d{1,3}|[A-Za-z])[.)]*\s*")
# The sentence so far is only an introductory time: `At 5`, `By 10:30`.
_CLOCK_INTRO = re.compile(
    r"\W*(?:at|by|before|after|until|till|around|about|from|since)\s+\d{1,2}(?:[:.]\d\d)?\s*",
    re.IGNORECASE,
)
_LINE_START_LIST = re.compile(r"[ \t]*(?:[•⁃◦▪‣●]|[-*+#>][ \t]|\d{1,3}[.)][ \t]|[\r\n]|$)")
_WORD = re.compile(r"[^\W\d_]+")
# The invisible characters that may sit next to a terminator or a marker: zero width space,
# joiners, marks and bidi controls (embeddings, overrides, isolates), BOM. Blanks to the scan.
_INVISIBLE = (
    "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_SPACE = " \t\r\n\f\v\u00a0\u2028\u2029" + _INVISIBLE
_BLANKS = " \t" + _INVISIBLE  # between a sentence end and its markers (no line break)
# A sentence keeps the bidi embeddings and isolates it opens and closes (`\u2067…\u2069`):
# it does not start with blanks and invisibles but for their openers, nor end with them
# but for their closes (a cut right before a close moves after it).
_OPENS = "\u202a\u202b\u202d\u202e\u2066\u2067\u2068"
_CLOSES = "\u202c\u2069"
_LEADING = "".join(c for c in _SPACE if c not in _OPENS)
_TRAILING = "".join(c for c in _SPACE if c not in _CLOSES)
_NOT_STARTING = ",;:!?%)]}/&–—"
_TOKEN_STRIP_ALL = _TOKEN_STRIP + _INVISIBLE
_OPENING_QUOTES = "\"'“‘«„‚»‹「『《"
_STARTERS = lexicon.SENTENCE_STARTERS | lexicon_langs.SENTENCE_STARTERS
_ANY_ABBREVIATION = lexicon.ABBREVIATIONS | lexicon_langs.ALL
_ORDINAL_REACH = 300  # how far back a sentence is searched for letters of ordinal languages
_ROMAN = re.compile(r"[IVXLC]{2,7}")
_ORDINAL_LETTERS = re.compile(f"[{lexicon_langs.ORDINAL_LETTERS}]")
_DETERMINERS = lexicon_langs.ORDINAL_DETERMINERS
# Letters read back for a determiner: one more than the longest, so a longer word is none.
_LONGEST_DETERMINER = max(map(len, _DETERMINERS)) + 1
_LETTERS = re.compile(r"[^\W\d_]+")
# Letters only Persian and Urdu write (Arabic writes ي ك ى ة): their sentences do not end at
# a comma.
_PERSIAN_URDU = re.compile(
    "[\u067e\u0686\u0698\u06a9\u06af\u06cc\u06c1\u06be\u06d2\u0679\u0688\u0691\u06ba]"
)
# An Arabic comma between list items: one word, then another comma.
_LIST_COMMA = re.compile(r"،\s+\S+،")


class _Scan:
    """State of one segmentation: the text, what is protected, and the cuts made so far."""

    def __init__(
        self,
        text: str,
        clusters: list[tuple[int, int]],
        code: list[tuple[int, int]],
        fenced: list[tuple[int, int]],
        language: str,
        plain: bool = False,
    ) -> None:
        self.text = text
        self.language = language  # the hint's primary subtag, lower case ("" when none)
        self.persian = -1  # whether the text has Persian or Urdu letters (-1: not looked)
        self.cluster_start: dict[int, int] = {}  # end -> start of each cluster, when asked
        self.n = len(text)
        self.cluster_end = dict(clusters)
        self.cluster_ends = set(self.cluster_end.values())
        self.code = code
        self.fenced = fenced
        self.protected = protected_intervals(text, plain)
        # Sweep state of `is_protected`: the first interval not yet passed, the furthest
        # close of those passed, and the last start asked about.
        self.swept = 0
        self.reach = -1
        self.asked = 0
        self.start = 0
        self.spans: list[tuple[int, int]] = []

    def cut(self, position: int, resume: int | None = None) -> None:
        """End the current sentence at `position`; the next starts at `resume`."""
        text = self.text
        if position < self.n and text[position] in _CLOSES:
            while position < self.n and text[position] in _CLOSES:
                position += 1
            if resume is not None and resume < position:
                resume = position
        if position > self.start:
            self.spans.append((self.start, position))
        self.start = position if resume is None else resume

    def is_start(self, k: int) -> bool:
        """Whether text at `k` can begin a sentence (the end of text counts)."""
        text = self.text
        if k >= self.n:
            return True
        c = text[k]
        if c.islower() or c in _NOT_STARTING:
            return False
        if c == "(":  # `... хабарлады. («Айқын», 23 сəуір).`
            after = text[k + 1 : k + 2]
            return after != "" and after in _OPENING_QUOTES
        if c == "-":
            return text[k + 1 : k + 2] == " " and text[k + 2 : k + 3].isupper()
        if c in _OPENING_QUOTES:
            return not text[k + 1 : k + 2].islower()
        return True

    def next_word(self, k: int) -> str:
        """The alphabetic word at `k` ("" when there is none)."""
        match = _WORD.match(self.text, k)
        return match.group() if match else ""

    def skip_space(self, k: int) -> int:
        """The first non-whitespace position at or after `k`."""
        text, n = self.text, self.n
        while k < n and text[k] in _SPACE:
            k += 1
        return k

    def skip_markers(self, j: int) -> tuple[int, bool]:
        """Past the citation clusters (and blanks between them) that start near `j`."""
        text, n, cluster_end = self.text, self.n, self.cluster_end
        marked = False
        while True:
            k = j
            while k < n and text[k] in _BLANKS:
                k += 1
            end = cluster_end.get(k)
            if end is None:
                return j, marked
            while end < n and text[end] in _INVISIBLE:  # a bidi isolate's close, `[1]\u2069`
                end += 1
            j, marked = end, True

    def is_protected(self, start: int, end: int) -> bool:
        """Whether a punctuation run lies strictly inside a quotation, parenthesis, bracket or
        code (a run that reaches the closing character is not inside)."""
        code = self.code
        if code and inside(code, start):
            return True
        # No interval is longer than `QUOTE_REACH`, so the run is inside one exactly when the
        # furthest close among the intervals opening before `start` reaches `end`. The scan
        # asks in text order: that furthest close is swept forward, not searched for.
        if start < self.asked:
            self.swept, self.reach = 0, -1
        self.asked = start
        protected, k, reach = self.protected, self.swept, self.reach
        while k < len(protected) and protected[k][0] < start:
            close = protected[k][1]
            if close > reach:  # noqa: PLR1730 - max() parses keywords: costlier than this
                reach = close
            k += 1
        self.swept, self.reach = k, reach
        return end <= reach

    def token_before(self, position: int) -> str:
        """The whitespace-delimited token ending at `position`, without quotes and brackets."""
        text = self.text
        low = max(self.start, position - _LONGEST_TOKEN)
        token = text[max(low, text.rfind(" ", low, position) + 1) : position]
        if "\n" in token or "\t" in token or "\r" in token:
            token = token.split()[-1] if token.split() else ""
        return token.strip(_TOKEN_STRIP_ALL)

    def has_content(self, position: int) -> bool:
        """Whether the current sentence holds anything before `position`."""
        return self.skip_space(self.start) < position

    def is_list_label(self, position: int) -> bool:
        """Whether the current sentence is only a list label (`1`, `a`, `• 9`) so far."""
        return position - self.start <= 8 and bool(
            _LIST_LABEL.fullmatch(self.text, self.start, position)
        )


def _run_kind(run: str) -> tuple[str, int, bool]:
    """`(kind, dots, spaced)` of a punctuation run: kind is "dots", "bang" or "mixed"."""
    core = run.rstrip(_CLOSERS)
    if any(c in _CLOSERS for c in core):
        return "mixed", 0, False
    if "!" in core or "?" in core:
        return "bang", 0, False
    if "…" in core:
        return "dots", 3, False
    return "dots", core.count("."), " " in core


def _period_ends(scan: _Scan, rs: int, k: int) -> bool:
    """Whether the single period at `rs` (after a word) ends its sentence; `k` is the next
    non-blank position."""
    token = scan.token_before(rs)
    lower = token.lower()
    if "." in token:
        parts = token.split(".")
        if all(p.isdigit() for p in parts if p):
            return scan.is_start(k)
        if all(p.isalpha() and len(p) <= 2 for p in parts):
            if lower in lexicon.NEVER_FINAL:
                return False
            if lower in lexicon.CLOCK:
                if _CLOCK_INTRO.fullmatch(scan.text, scan.start, rs - len(token)):
                    return False
                return scan.text[k : k + 1].isupper()
            return scan.next_word(k) in _STARTERS
        return scan.is_start(k)
    if lower in lexicon.NEVER_FINAL:
        return False
    if len(token) == 1 and token.isalpha():
        return scan.next_word(k) in _STARTERS
    if lower in lexicon.PREPOSITIVE:
        return False
    if lower in lexicon.BEFORE_NUMBER:
        if scan.text[k : k + 1].isdigit():
            return False
        return scan.text[k : k + 1].isupper()
    if lower in lexicon.GENERAL:
        return scan.text[k : k + 1].isupper()
    ends = _other_language_ends(scan, token, rs, k)
    if ends is not None:
        return ends
    return scan.is_start(k)


def _other_language_ends(scan: _Scan, token: str, rs: int, k: int) -> bool | None:
    """Whether the period at `rs` after `token` ends its sentence by the rules of other
    languages (services.text.lexicon_langs); None when they do not decide."""
    text = scan.text
    bare = text[rs - 1 : rs].isalnum()  # not after a bracket or quote: `[1].` is no ordinal
    apostrophe = max(token.rfind("'"), token.rfind("’"))
    if apostrophe >= 0:  # `l'Ing.`, `dell'Avv.`
        token = token[apostrophe + 1 :]
    lower = token.lower()
    if lower not in lexicon_langs.ALL:
        if bare and (token.isdigit() and len(token) <= 2 or _ROMAN.fullmatch(token)):
            return _ordinal_ends(scan, rs - len(token), k)
        if "\u0370" <= token[-1:] <= "\u03ff" and "\u0370" <= text[k : k + 1] <= "\u03ff":
            return True  # Greek: `κανένας. το κόστος`
        return None
    after = text[k : k + 1]
    if "\u0400" <= token[:1] <= "\u04ff":
        if lower in lexicon_langs.CYRILLIC_NEVER_FINAL:
            return False
        return after.isupper()
    if lower in lexicon_langs.TITLES:
        return False
    if lower in lexicon_langs.BEFORE_NUMBER:
        return not after.isdigit() and after.isupper()
    hinted = lexicon_langs.HINTED_TITLES.get(scan.language)
    if hinted is not None and lower in hinted:
        return False
    return None


def _ordinal_ends(scan: _Scan, number: int, k: int) -> bool | None:
    """A period after a day or a Roman numeral starting at `number` (`12. Juni`,
    `XII. Pluku`): an ordinal, not an end, before a month's name, or before a word where the
    language writes ordinals so (told so, or not told and the sentence has letters only such
    languages use, or a German determiner stands before the number and a noun after it:
    `der 3. Versuch`)."""
    match = _LETTERS.match(scan.text, k)
    if match is None:
        return None
    word = match.group()
    if word.lower() in lexicon_langs.MONTHS:
        return False
    language = scan.language
    if language:
        return False if language in lexicon_langs.ORDINAL_LANGUAGES else None
    low = max(scan.start, k - _ORDINAL_REACH)
    if not scan.text[low:k].isascii() and _ORDINAL_LETTERS.search(scan.text, low, k):
        return False
    if word not in _STARTERS and _word_before(scan, number) in _DETERMINERS:
        return False
    return None


def _word_before(scan: _Scan, position: int) -> str:
    """The word a blank before `position` in the current sentence, lower-cased (`der`, `Im`);
    "" when there is none or it is neither lower case nor capitalised."""
    text, low = scan.text, scan.start
    end = position
    while end > low and text[end - 1] in " \t\u00a0":
        end -= 1
    if end == position:
        return ""
    begin = end
    while begin > low and end - begin < _LONGEST_DETERMINER and text[begin - 1].isalpha():
        begin -= 1
    word = text[begin:end]
    return word if word.islower() else word.lower() if word.istitle() else ""


def _dots(scan: _Scan, rs: int, re_: int, k: int, dots: int, spaced: bool) -> None:
    """Decide a run of periods (one period, `..`, `...`, `....`, `. . .`, `. . . .`)."""
    text = scan.text
    b = rs - 1
    while b > 0 and text[b] in _INVISIBLE:  # `د\u202a.\u202c`: a bidi embedding's period
        b -= 1
    attached = rs > 0 and text[b] not in _SPACE
    content = scan.has_content(rs)
    if spaced:
        if attached:
            # `compounds. . . . The`: the first dot ends the sentence, the ellipsis opens the next.
            if k < scan.n and scan.is_start(k):
                scan.cut(rs + 1)
        elif dots >= 4 and scan.is_start(k):
            scan.cut(re_)
        return
    if dots == 1:
        if not content or scan.is_list_label(rs):
            if not content and scan.is_start(k):
                scan.cut(re_)
            return
        if not attached:
            if scan.is_start(k):
                scan.cut(re_)
            return
        if _period_ends(scan, rs, k):
            scan.cut(re_)
        return
    if not attached and content and dots in (2, 4):
        # `reste .. Next`: a full stop, then a stray run that is a sentence of its own.
        if scan.is_start(k):
            scan.cut(rs + 1)
            scan.cut(re_)
        return
    if scan.is_start(k):
        scan.cut(re_)


def _run(scan: _Scan, rs: int, re_: int) -> None:
    """Decide one punctuation run: cut after it (and after its markers) or not."""
    text, n = scan.text, scan.n
    if re_ < n and text[re_] not in _SPACE and re_ not in scan.cluster_end:
        if not _cyrillic_glued(scan, rs, re_):
            return  # `e.g.,`, `Jane.Doe@x`, `information.As`: no space after the period
    if scan.is_protected(rs, re_):
        return
    cluster_end = scan.cluster_end
    if re_ in cluster_end or (re_ < n and text[re_] in _BLANKS):
        end, marked = scan.skip_markers(re_)
    else:
        end, marked = re_, False
    k = end + 1 if text[end : end + 1] == " " else end
    if k < n and text[k] in _SPACE:
        k = scan.skip_space(k)
    if marked:
        if k < n and text[k] in ".!?…":
            return  # `A.D. [1][2]. The`: the real end comes after the markers
        if scan.is_start(k):
            scan.cut(end)
        return
    if re_ - rs == 1 and text[rs] == ".":
        kind, dots, spaced = "dots", 1, False
    else:
        kind, dots, spaced = _run_kind(text[rs:re_])
    if kind == "dots":
        _dots(scan, rs, re_, k, dots, spaced)
        return
    if scan.is_list_label(rs):
        return  # `1.)`: a list label
    if kind == "bang" and scan.token_before(rs).lower() in lexicon.EXCLAMATION_WORDS:
        return
    if scan.is_start(k) or (kind == "bang" and _cyrillic_lower(text, rs - 1, k)):
        scan.cut(re_)


def _is_cyrillic(c: str) -> bool:
    return "\u0400" <= c <= "\u04ff"


def _cyrillic_lower(text: str, before: int, k: int) -> bool:
    """Whether a Cyrillic letter stands at `before` and a lower-case one at `k` (`кім? не?`:
    in Russian and Kazakh a question or exclamation ends its sentence before one)."""
    after = text[k : k + 1]
    return _is_cyrillic(text[before : before + 1]) and _is_cyrillic(after) and after.islower()


def _cyrillic_glued(scan: _Scan, rs: int, re_: int) -> bool:
    """A period between a Cyrillic word and a capital with no space (`жағдайы.XVIII`):
    a sentence end written without its space, unless the word is an abbreviation."""
    text = scan.text
    if re_ - rs != 1 or not text[re_].isupper() or not _is_cyrillic(text[rs - 1 : rs]):
        return False
    token = scan.token_before(rs)
    return len(token) >= 3 and token.isalpha() and token.lower() not in lexicon_langs.ALL


def _cjk_run(scan: _Scan, rs: int, re_: int) -> None:
    """A Chinese or Japanese sentence end: cut after it and the markers right after it,
    unless it is quoted or bracketed, a quotation the sentence goes on after (`。」と言った`:
    a hiragana particle follows), or a full-width decimal point (`１．５`)."""
    text = scan.text
    after = text[re_ : re_ + 1]
    if text[rs] == "．" and text[rs - 1 : rs].isdigit() and after.isdigit():
        return
    if re_ - rs > 1 and text[re_ - 1] in "」』”" and "\u3040" <= after <= "\u309f":
        return
    if re_ - rs > 1 and text[re_ - 1] in "》〉":
        return  # the end of a title, not of the sentence: `《你好，李焕英！》吧。`
    if scan.is_protected(rs, re_):
        return
    scan.cut(scan.skip_markers(re_)[0])


def _context_stop(scan: _Scan, rs: int) -> None:
    """`:` after an Armenian or Arabic-script word, `;` after a Greek one (its question
    mark), an Arabic comma that does not separate list items: a sentence end when a blank
    (or a marker) follows."""
    text = scan.text
    c = text[rs]
    after = text[rs + 1 : rs + 2]
    if after and after not in _SPACE and rs + 1 not in scan.cluster_end:
        return  # `05:01`, `a:b`
    letter = _letter_before(text, _before_markers(scan, rs), scan.start)
    if c == ":":
        if not ("\u0531" <= letter <= "\u058f" or _is_arabic_script(letter)):
            return
    elif c == ";":
        if not "\u0370" <= letter <= "\u03ff":
            return
    elif not _arabic_comma_ends(scan, rs):
        return
    if scan.is_protected(rs, rs + 1):
        return
    scan.cut(scan.skip_markers(rs + 1)[0])


def _before_markers(scan: _Scan, position: int) -> int:
    """`position`, or the start of the citation markers (and blanks) right before it
    (`Ձեզ【1†source】:`)."""
    if not scan.cluster_end:
        return position
    if not scan.cluster_start:
        scan.cluster_start = {end: start for start, end in scan.cluster_end.items()}
    text = scan.text
    while True:
        k = position
        while k > scan.start and text[k - 1] in _BLANKS:
            k -= 1
        start = scan.cluster_start.get(k)
        if start is None:
            return position
        position = start


def _is_arabic_script(c: str) -> bool:
    return "\u0600" <= c <= "\u06ff" or "\u0750" <= c <= "\u077f" or "\ufb50" <= c <= "\ufefc"


def _letter_before(text: str, rs: int, low: int) -> str:
    """The last letter before `rs` in the current sentence, past blanks, dots and closing
    quotes (`շատ են...:`); "" when there is none nearby."""
    k = rs - 1
    stop = max(low, rs - 12)
    while k >= stop and not text[k].isalpha():
        k -= 1
    return text[k] if k >= stop else ""


def _arabic_comma_ends(scan: _Scan, rs: int) -> bool:
    """An Arabic comma ends an Arabic sentence (pySBD's Arabic rule: Arabic prose joins
    whole clauses with it), not one between list items (`الدم، والقلب،`); Persian and Urdu
    sentences go on after it (told so, or written with letters only they use)."""
    if _LIST_COMMA.match(scan.text, rs):
        return False
    language = scan.language
    if language:
        return language == "ar"
    if scan.persian < 0:  # looked at once per text, not once per comma
        scan.persian = 0 if _PERSIAN_URDU.search(scan.text) is None else 1
    return scan.persian == 0


def _line_break(scan: _Scan, start: int, end: int, wrapped: bool) -> None:
    """A line break ends a sentence (hard-wrapped text: only before a blank or list line)."""
    if scan.fenced and inside(scan.fenced, start):
        return
    if wrapped:
        previous_blank = not scan.text[scan.text.rfind("\n", 0, start) + 1 : start].strip()
        if not previous_blank and not _LINE_START_LIST.match(scan.text, end):
            return
    scan.cut(start, end)


def split_sentences(
    text: str,
    clusters: list[tuple[int, int]] | None = None,
    code: list[tuple[int, int]] | None = None,
    fenced: list[tuple[int, int]] | None = None,
    *,
    wrapped: bool = False,
    language: str | None = None,
    plain: bool = False,
) -> list[tuple[int, int]]:
    """Sentence spans `(start, end)` of `text`, trimmed of surrounding whitespace.

    `clusters` are citation-marker spans (kept with the sentence they follow), `code` the
    code regions (no boundary inside), `fenced` the fenced blocks (each one sentence).
    `wrapped=True` treats single line breaks as wrapping (PDF text), not as boundaries.
    `language` (BCP 47, optional) is a hint: the segmenter reads every language without it.
    `plain=True` tells that the text folds to ASCII (services.text.separators.fold_punctuation).
    """
    hint = language.replace("_", "-").split("-", 1)[0].lower() if language else ""
    if code:
        code = [span for span in code if not _armenian_mark(text, span[0])]
    scan = _Scan(text, clusters or [], code or [], fenced or [], hint, plain)
    forced = list_breaks(text, plain)
    for start, end in scan.fenced:
        forced.extend((start, end))
    forced.sort()
    f = 0
    consumed = 0
    # (a text that is ASCII, or folds to it, holds no stop of another script and no letter
    # a colon or semicolon ends a sentence after: their scans are skipped)
    candidates = (
        _CANDIDATE_CHARS
        if plain or text.isascii()
        else _CANDIDATE_CHARS + _STOPS + _CONTEXT_STOPS
    )
    for rs in positions(text, candidates):
        if rs < consumed:
            continue
        while f < len(forced) and forced[f] <= rs:
            if forced[f] > scan.start:
                scan.cut(forced[f])
            f += 1
        if text[rs] in _LINE_BREAKS:
            end = rs + 2 if text.startswith("\r\n", rs) else rs + 1
            _line_break(scan, rs, end, wrapped)
        elif text[rs] == "." and (stop := _plain_full_stop(scan, rs)) is not False:
            end = rs + 1
            if stop:  # (None: protected)
                scan.cut(end)
        elif text[rs] in _STOPS:
            end = _CJK_RUN.match(text, rs).end()  # type: ignore[union-attr]  # at a stop
            _cjk_run(scan, rs, end)
        elif text[rs] in _CONTEXT_STOPS:
            end = rs + 1
            _context_stop(scan, rs)
        else:
            end = _RUN.match(text, rs).end()  # type: ignore[union-attr]  # matches "" too
            _run(scan, rs, end)
        consumed = end
    for position in forced[f:]:
        if position > scan.start:
            scan.cut(position)
    scan.cut(scan.n)
    return _trim(text, scan.spans)


def _armenian_mark(text: str, start: int) -> bool:
    """Whether the backtick opening a code span at `start` is the Armenian mark written
    with it (`Համակարգի` որպես`: U+055D's look-alike, right after an Armenian letter)."""
    return text[start] == "`" and start > 0 and "\u0531" <= text[start - 1] <= "\u058f"


def _plain_full_stop(scan: _Scan, rs: int) -> bool | None:
    """Fast path for the common boundary, decided as `_run` would: one period after an
    ordinary word or a citation marker, then a space and a capital (`word. Next`,
    `[1]. Next`), outside quotations and brackets (True: a cut), or inside them (None: no
    cut; the period is a whole run, which `_run` would find protected); False when `_run`
    decides."""
    text = scan.text
    if text[rs + 1 : rs + 2] != " " or not text[rs + 2 : rs + 3].isupper():
        return False
    if rs not in scan.cluster_ends:
        if not text[rs - 1 : rs].islower():
            return False
        low = rs - _LONGEST_TOKEN
        if low < scan.start:  # noqa: PLR1730 - max() parses keywords: costlier than this
            low = scan.start
        # rfind gives -1 or a blank at or after `low`: the token starts after it.
        token = text[text.rfind(" ", low, rs) + 1 or low : rs]
        if len(token) < 2 or not token.isalpha() or token.lower() in _ANY_ABBREVIATION:
            return False
    return None if scan.is_protected(rs, rs + 1) else True


def _trim(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans without leading/trailing whitespace; empty ones dropped."""
    trimmed = []
    for start, end in spans:
        while start < end and text[start] in _LEADING:
            start += 1
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        if end > start:
            trimmed.append((start, end))
    return trimmed
