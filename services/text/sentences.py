"""Citation-aware sentence segmentation in one regex-driven scan.

Candidate boundaries are line breaks and runs of terminal punctuation; each candidate is
kept or rejected by local rules: abbreviations, initials, dotted acronyms, clock times,
decimals, URLs and e-mail addresses (no space after the period), ellipses, quotations and
parentheses (punctuation inside them is protected), list items and bullets. Citation markers
right after the final punctuation (`capital.[1] Next`, `capital. [1] Next`) stay with the
sentence they follow. Measured against the Pragmatic Segmenter Golden Rules (pySBD's tests).

Chinese and Japanese (SPEC §10): `。！？` and the full-width `．` end a
sentence with no space after them, with the closing quotes and brackets that follow (`。」`)
and the markers right after (`。[1]`); a marker before them (`首都[1]。`) is inside.
"""

from __future__ import annotations

import re

from services.text import lexicon
from services.text.lists import list_breaks
from services.text.markdown import inside
from services.text.protected import positions, protected_intervals

# A run of terminal punctuation with closing quotes/brackets after it
# (`.`, `?!`, `...`, `. . .`, `."`, `.)`, `.).`).
_RUN = re.compile(r"(?:[.!?…]+(?: \.(?!\.))*[)\]\"'”’»*_]*)+")
# Chinese and Japanese sentence ends, with the closers that may follow them.
_CJK_STOPS = "。！？．"  # (not halfwidth ｡: its scan is slow, its use rare)
_CJK_RUN = re.compile(r"[。！？．!?]+[」』）】〕》〉\"”’)]*")
_CANDIDATE_CHARS = ".!?…\n\r"  # every terminal punctuation mark and line break (but CJK)
_LINE_BREAKS = "\n\r"
_CLOSERS = ")]\"'”’»*_"
_TOKEN_STRIP = "()[]{}\"'“”‘’«»*_"
_LONGEST_TOKEN = 100  # no abbreviation is longer: look no further back for a token
# The sentence so far is only a list label: `1`, `a`, `• 9`, `⁃10`.
_LIST_LABEL = re.compile(r"\s*(?:[•⁃◦▪‣●*+-]\s*)?(?:\d{1,3}|[A-Za-z])[.)]*\s*")
# The sentence so far is only an introductory time: `At 5`, `By 10:30`.
_CLOCK_INTRO = re.compile(
    r"\W*(?:at|by|before|after|until|till|around|about|from|since)\s+\d{1,2}(?:[:.]\d\d)?\s*",
    re.IGNORECASE,
)
_LINE_START_LIST = re.compile(r"[ \t]*(?:[•⁃◦▪‣●]|[-*+#>][ \t]|\d{1,3}[.)][ \t]|[\r\n]|$)")
_WORD = re.compile(r"[A-Za-z]+")
_SPACE = " \t\r\n\f\v\u00a0\u2028\u2029"
_NOT_STARTING = ",;:!?%)]}/&–—"
_OPENING_QUOTES = "\"'“‘«"


class _Scan:
    """State of one segmentation: the text, what is protected, and the cuts made so far."""

    def __init__(
        self,
        text: str,
        clusters: list[tuple[int, int]],
        code: list[tuple[int, int]],
        fenced: list[tuple[int, int]],
    ) -> None:
        self.text = text
        self.n = len(text)
        self.cluster_end = dict(clusters)
        self.cluster_ends = set(self.cluster_end.values())
        self.code = code
        self.fenced = fenced
        self.protected = protected_intervals(text)
        # Sweep state of `is_protected`: the first interval not yet passed, the furthest
        # close of those passed, and the last start asked about.
        self.swept = 0
        self.reach = -1
        self.asked = 0
        self.start = 0
        self.spans: list[tuple[int, int]] = []

    def cut(self, position: int, resume: int | None = None) -> None:
        """End the current sentence at `position`; the next starts at `resume`."""
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
        if c in "(":
            return False
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
            while k < n and text[k] in " \t":
                k += 1
            end = cluster_end.get(k)
            if end is None:
                return j, marked
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
        return token.strip(_TOKEN_STRIP)

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
            return scan.next_word(k) in lexicon.SENTENCE_STARTERS
        return scan.is_start(k)
    if lower in lexicon.NEVER_FINAL:
        return False
    if len(token) == 1 and token.isalpha():
        return scan.next_word(k) in lexicon.SENTENCE_STARTERS
    if lower in lexicon.PREPOSITIVE:
        return False
    if lower in lexicon.BEFORE_NUMBER:
        if scan.text[k : k + 1].isdigit():
            return False
        return scan.text[k : k + 1].isupper()
    if lower in lexicon.GENERAL:
        return scan.text[k : k + 1].isupper()
    return scan.is_start(k)


def _dots(scan: _Scan, rs: int, re_: int, k: int, dots: int, spaced: bool) -> None:
    """Decide a run of periods (one period, `..`, `...`, `....`, `. . .`, `. . . .`)."""
    text = scan.text
    attached = rs > 0 and text[rs - 1] not in _SPACE
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
        return  # `e.g.,`, `Jane.Doe@x`, `information.As`: no space after the period
    if scan.is_protected(rs, re_):
        return
    cluster_end = scan.cluster_end
    if re_ in cluster_end or (text[re_ : re_ + 1] == " " and re_ + 1 in cluster_end):
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
    if scan.is_start(k):
        scan.cut(re_)


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
    if scan.is_protected(rs, re_):
        return
    scan.cut(scan.skip_markers(re_)[0])


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
) -> list[tuple[int, int]]:
    """Sentence spans `(start, end)` of `text`, trimmed of surrounding whitespace.

    `clusters` are citation-marker spans (kept with the sentence they follow), `code` the
    code regions (no boundary inside), `fenced` the fenced blocks (each one sentence).
    `wrapped=True` treats single line breaks as wrapping (PDF text), not as boundaries.
    """
    scan = _Scan(text, clusters or [], code or [], fenced or [])
    forced = list_breaks(text)
    for start, end in scan.fenced:
        forced.extend((start, end))
    forced.sort()
    f = 0
    consumed = 0
    # (an ASCII text holds no CJK stop: their scans are skipped)
    candidates = _CANDIDATE_CHARS if text.isascii() else _CANDIDATE_CHARS + _CJK_STOPS
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
        elif text[rs] == "." and _plain_full_stop(scan, rs):
            end = rs + 1
            scan.cut(end)
        elif text[rs] in _CJK_STOPS:
            end = _CJK_RUN.match(text, rs).end()  # type: ignore[union-attr]  # at a stop
            _cjk_run(scan, rs, end)
        else:
            end = _RUN.match(text, rs).end()  # type: ignore[union-attr]  # matches "" too
            _run(scan, rs, end)
        consumed = end
    for position in forced[f:]:
        if position > scan.start:
            scan.cut(position)
    scan.cut(scan.n)
    return _trim(text, scan.spans)


def _plain_full_stop(scan: _Scan, rs: int) -> bool:
    """Fast path for the common boundary, decided as `_run` would: one period after an
    ordinary word or a citation marker, then a space and a capital (`word. Next`,
    `[1]. Next`), outside quotations and brackets."""
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
        if len(token) < 2 or not token.isalpha() or token.lower() in lexicon.ABBREVIATIONS:
            return False
    return not scan.is_protected(rs, rs + 1)


def _trim(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans without leading/trailing whitespace; empty ones dropped."""
    trimmed = []
    for start, end in spans:
        while start < end and text[start] in _SPACE:
            start += 1
        while end > start and text[end - 1] in _SPACE:
            end -= 1
        if end > start:
            trimmed.append((start, end))
    return trimmed
