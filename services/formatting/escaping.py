"""Escaping of untrusted text for each rendering, and the one URL check every link passes.

Long texts are escaped with chains of `str.replace` and checked with substring searches
(C loops) rather than regular expressions, which scan a few KB of non-ASCII text an
order of magnitude slower here.
"""

from __future__ import annotations

import re
from ipaddress import IPv6Address
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from services.formatting.allowlist import PROTOCOLS

# Characters an HTML parser rewrites (CR, CRLF) or drops (other C0 controls but tab and
# line feed): normalised first, so what is emitted is exactly what a browser, or bleach,
# reads back. NUL is handled apart: `escape_html_many` uses it as its separator.
_HTML_CONTROL = re.compile(r"\r\n?|[\x01-\x08\x0b\x0c\x0e-\x1f]")
_CONTROLS = tuple(chr(code) for code in range(1, 32) if chr(code) not in "\t\n")
# The explicit directional formatting characters (embeddings, overrides, their pop, and
# isolates): they reorder the text after them (`gnp.exe` after U+202E shows as `exe.png`),
# and a browser obeys them written as character references too. Untrusted text shows
# each as a visible token instead (`⟨U+202E⟩`): a reader sees it is there, and it
# reorders nothing.
EXPLICIT_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_VISIBLE: dict[str, str] = {ch: f"\u27e8U+{ord(ch):04X}\u27e9" for ch in EXPLICIT_BIDI}
_VISIBLE_BIDI = str.maketrans(_VISIBLE)
# The bidirectional marks (left-to-right, right-to-left, Arabic letter mark) and the
# zero-width characters: they reorder no letters (joiners are part of some scripts'
# spelling). In markup they are written as character references, so no raw invisible
# character hides in it (or in a copy of it); plain text, which has no references, drops
# the bidirectional marks.
BIDI_MARKS = "\u200e\u200f\u061c"
_MARKS = BIDI_MARKS + "\u200b\u200c\u200d\u2060\ufeff"
_BIDI = tuple(EXPLICIT_BIDI + _MARKS)
_BIDI_ENTITIES = str.maketrans({**{ch: f"&#x{ord(ch):x};" for ch in _MARKS}, **_VISIBLE})
_PLAIN_BIDI = str.maketrans({**dict.fromkeys(BIDI_MARKS), **_VISIBLE})
_PLAIN_SEEN = tuple(EXPLICIT_BIDI + BIDI_MARKS)
_CONTROLS_AND_NUL = ("\x00", *_CONTROLS, *_BIDI)

_URL_STRIP = "".join(chr(code) for code in range(0x21))
# RFC 3986 reserved and unreserved characters plus `%`; everything else is percent-encoded.
_URL_SAFE = "!#$%&'()*+,-./:;=?@[]~_"
# What a browser refuses in a host name once it is percent-decoded (the WHATWG URL
# standard's forbidden domain code points): such a link would go nowhere.
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20\x7f-\x9f#%/:<>?@\[\\\]^|]")


def _html_control(match: re.Match[str]) -> str:
    return "\n" if match.group()[0] == "\r" else ""


def _without_controls(text: str) -> str:
    """`text` with CR/CRLF as LF and the C0 controls an HTML parser drops removed (NUL
    kept). A text without any of them (found by substring searches, much faster here
    than a regular-expression scan or `isprintable`) is returned as is."""
    if any(map(text.__contains__, _CONTROLS)):
        return _HTML_CONTROL.sub(_html_control, text)
    return text


def has_controls(text: str) -> bool:
    """Whether `text` holds a NUL or a character `escape_html` removes or rewrites (a
    control, or a bidirectional control it writes as a reference)."""
    # Every such character is unprintable: a printable text (one C pass over it, most
    # answers without a line break are) is settled without the 41 substring searches,
    # which cost twice as much on a 1,500-character text that is not all ASCII.
    return not text.isprintable() and any(map(text.__contains__, _CONTROLS_AND_NUL))


def _escape_markup(text: str) -> str:
    """`html.escape(text, quote=True)`, each replace only when its character occurs:
    a substring search (memchr) costs far less than the count `str.replace` starts
    with, and most texts hold none of the five. `text` itself when nothing changes."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "'" in text:
        text = text.replace("'", "&#x27;")
    return text


def escape_html(text: str) -> str:
    """Text for an HTML text node or a quoted attribute value."""
    # A printable text (one C call; most attribute values are) holds no control or NUL:
    # the 31 substring searches cost far more on a short text.
    if text.isprintable():
        return _escape_markup(text)
    return bidi_in_markup(_escape_markup(_without_controls(text).replace("\x00", "")))


def visible_bidi(text: str) -> str:
    """`text` with each explicit directional formatting character as a visible token."""
    if any(map(text.__contains__, EXPLICIT_BIDI)):
        return text.translate(_VISIBLE_BIDI)
    return text


def plain_bidi(text: str) -> str:
    """Text for a plain-text reader: each explicit directional formatting character as a
    visible token, the bidirectional marks dropped (no raw control is left to reorder or
    hide anything)."""
    if any(map(text.__contains__, _PLAIN_SEEN)):
        return text.translate(_PLAIN_BIDI)
    return text


def bidi_in_markup(escaped: str) -> str:
    """Escaped text or markup with its explicit directional controls as visible tokens and
    its marks and zero-width characters as character references."""
    if any(map(escaped.__contains__, _BIDI)):
        return escaped.translate(_BIDI_ENTITIES)
    return escaped


def escape_html_many(
    pieces: list[str], line_break: str | None = None, *, clean: bool = False
) -> list[str]:
    """`escape_html` of every piece (and each line feed replaced by `line_break`, if
    given), done as one pass over the pieces joined by NUL: one call instead of one per
    piece. `clean`: the caller knows no piece holds a NUL or control (`has_controls`),
    so that check is skipped. `pieces` itself when nothing needs escaping; pieces that
    hold a NUL themselves are escaped one by one."""
    joined = "\x00".join(pieces)
    escaped = joined
    # printable pieces (most short ones are) hold no NUL or control
    if not clean and not all(map(str.isprintable, pieces)):
        if joined.count("\x00") != len(pieces) - 1:
            escaped_pieces = [escape_html(piece) for piece in pieces]
            if line_break is None:
                return escaped_pieces
            return [piece.replace("\n", line_break) for piece in escaped_pieces]
        escaped = bidi_in_markup(_escape_markup(_without_controls(joined)))
    else:
        escaped = _escape_markup(escaped)
    if line_break is not None and "\n" in escaped:
        escaped = escaped.replace("\n", line_break)
    return pieces if escaped is joined else escaped.split("\x00")


def escape_markdown(text: str) -> str:
    """Answer text for markdown: inert as link, image, HTML, autolink or code, while
    emphasis, lists and headings of the answer keep working. Backslash escapes for the
    characters that open links, images, code spans and reference definitions; entities
    (understood by every dialect) for `&` and `<`."""
    return visible_bidi(_markdown_markup(text))


def _markdown_markup(text: str) -> str:
    """`escape_markdown` but for the directional controls."""
    # each replace only when its character occurs (see `_escape_markup`)
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "`" in text:
        text = text.replace("`", "\\`")
    if "[" in text:
        text = text.replace("[", "\\[")
    if "]" in text:
        text = text.replace("]", "\\]")
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    return text


def escape_markdown_many(pieces: list[str], *, clean: bool = False) -> list[str]:
    """`escape_markdown` of every piece, as one pass over the pieces joined by NUL;
    `pieces` itself when nothing needs escaping. `clean`: no piece holds a NUL, a control
    or a directional control (`has_controls`), so none is looked for."""
    joined = "\x00".join(pieces)
    if clean:
        escaped = _markdown_markup(joined)
    elif joined.count("\x00") != len(pieces) - 1:
        return [escape_markdown(piece) for piece in pieces]
    else:
        escaped = escape_markdown(joined)
    return pieces if escaped is joined else escaped.split("\x00")


def escape_markdown_lines(texts: list[str]) -> list[str]:
    """Untrusted texts for reference-list lines, each on one line (whitespace runs,
    newlines too, become one space), with quotes and parentheses escaped as well, so a
    line can never form a link reference definition with a title. One pass for all
    (one per text when a text holds a NUL itself)."""
    lines = [" ".join(text.split()) for text in texts]
    joined = "\x00".join(lines)
    if joined.count("\x00") != len(lines) - 1:
        return [_escape_markdown_line(line) for line in lines]
    return _escape_markdown_line(joined).split("\x00")


def _escape_markdown_line(text: str) -> str:
    return (
        escape_markdown(text)
        .replace('"', "&quot;")
        .replace("'", "&#39;")
        .replace("(", "&#40;")
        .replace(")", "&#41;")
    )


def safe_url(url: str | None) -> str | None:
    """`url` if it is an http(s) URL with a host or a mailto URL with an address, with
    leading/trailing spaces and controls removed, any userinfo dropped, and anything outside
    RFC 3986 percent-encoded (so it is safe in a markdown autolink and a quoted attribute);
    else None. Userinfo goes because it passes for a host: `https://apple.com@evil.example/`
    leads to evil.example."""
    if not url:
        return None
    candidate = quote(url.strip(_URL_STRIP), safe=_URL_SAFE)
    try:
        parts = urlsplit(candidate)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in PROTOCOLS:
        return None
    if parts.scheme == "mailto":
        return candidate if parts.path else None
    if not host or not _valid_host(host, parts.netloc):
        return None
    if "@" in parts.netloc:
        candidate = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    return candidate


def _valid_host(host: str, netloc: str) -> bool:
    """Whether a browser accepts `host` (as `urlsplit` gives it) as a host."""
    if "[" in netloc:
        try:
            IPv6Address(host)
        except ValueError:
            return False
        return True
    return not _FORBIDDEN_HOST.search(unquote(host))
