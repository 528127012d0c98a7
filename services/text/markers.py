"""Citation markers: find them, resolve them to sources, group them into clusters.

Syntaxes: `[1]`, `[1][2]`, `[1] [2]`, `[1], [2]`, `[1, 2]`, `[1,2,3]`, `[1; 2]`, ranges
`[1-3]` / `[1–3]`, `[Document N]` (the Nth document source), `[Web Source N](url)` (the Nth web
source, URL cross-checked), footnotes `[^1]` and `[^1^]`, `[citation:1]`, `[Source 1]` /
`[Sources 2, 3]`, `[[1]](url)` (source 1, URL cross-checked), pinpoints `[1, p. 12]` (the page
kept as a hint), and the rarer styles of `services.text.marker_styles` (full-width `［1］`,
`<sup>1</sup>`, superscript digits, OpenAI file-search markers `【4:0†source】`, OpenAI's
citation tokens naming sources by `source_id`). Code spans,
fenced code, markdown links to text, reference-style links, escaped brackets (`\\[1]`),
footnote and link-reference definitions, `[abc]` and `[]` are not citations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from heapq import merge
from urllib.parse import urlsplit

from schemas.rows import Row
from services.text.hits import CitationHit, ClusterHit, ProblemHit
from services.text.marker_styles import (
    CITE_SEPARATOR,
    RARE_MARKER,
    SUPERSCRIPT_TABLE,
    has_rare_start,
    is_exponent,
)

MAX_RANGE = 50  # a range citing more sources than this is flagged, not expanded

# A link target: no spaces, at most one level of balanced parentheses (Wikipedia URLs).
_URL = r"(?:[^()\s]|\([^()\s]*\))*"
_NUMBER_LIST = (
    r"[ ]*\d+(?:[ ]*[-–][ ]*\d+)?(?:[ ]*[,;][ ]*\d+(?:[ ]*[-–][ ]*\d+)?)*[ ]*"
)
_MARKER = re.compile(
    r"\[(?:"
    rf"(?P<num>\d+)\](?!\()"
    rf"|(?i:web[ ]source)[ ]+(?P<web>\d+)\]\((?P<url>{_URL})\)"
    r"|(?i:document)[ ]+(?P<doc>\d+)\]"
    r"|\^(?P<foot>\d+)\^?\]"
    rf"|(?i:sources?[ ]+|citation[ ]*:)(?P<named>{_NUMBER_LIST})\]"
    rf"|\[(?P<linked>\d+)\]\]\((?P<lurl>{_URL})\)"
    r"|(?P<pin>\d+)[ ]*,?[ ]*(?i:pp?\.|pages?)[ ]*(?P<page>\d+)(?:[ ]*[-–][ ]*\d+)?\]"
    rf"|(?P<list>{_NUMBER_LIST})\](?P<link>\({_URL}\))?"
    r")"
)
_ITEM = re.compile(r"(\d+)(?:[ ]*[-–][ ]*(\d+))?")
# Between two markers of one cluster: nothing, spaces, or one comma/semicolon.
_CLUSTER_GAP = re.compile(r"[ \t]*[,;]?[ \t]*")
_GAP_CHARS = " \t,;"  # a gap can only start with one of these (a cheap test first)


def url_key(url: str) -> str:
    """A URL reduced for comparison: lowercase host without `www.`, no fragment, no trailing `/`."""
    parts = urlsplit(url.strip().strip("<>"))
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{path}{query}"


def _is_definition(text: str, start: int, end: int) -> bool:
    """A footnote or link-reference definition (`[^1]: ...`, `[1]: http...`) at a line start
    (the caller saw the colon after the marker)."""
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return start == 0 or text[start - 1] == "\n"


class _Resolver:
    """Resolves cited numbers to sources and records invalid ones as problems."""

    def __init__(self, sources: Sequence[Row]) -> None:
        self.sources = sources
        self.by_index = {source["index"]: source for source in sources}
        self.by_id: dict[str, Row] | None = None  # built on the first citation token
        self.documents = [s for s in sources if s["kind"] == "document"]
        self.webs = [s for s in sources if s["kind"] == "web"]
        self.citations: list[CitationHit] = []
        self.problems: list[ProblemHit] = []

    def add(
        self,
        cited: int,
        marker: str,
        start: int,
        end: int,
        source: Row | None,
        problem: tuple[str, str] | None,
    ) -> None:
        """Record one citation; `problem` is `(code, message)` when it is invalid."""
        if problem is None and source is None:
            problem = (
                "unknown_source",
                f"{marker} cites source {cited}, which does not exist",
            )
        index = source["index"] if source is not None else None
        self.citations.append(
            CitationHit(
                cited if index is None else index,
                marker,
                start,
                end,
                index,
                problem is None,
                problem[1] if problem else None,
            )
        )
        if problem is not None:
            self.problems.append(ProblemHit(problem[0], problem[1], start, end))

    def numbered(self, cited: int, marker: str, start: int, end: int) -> None:
        """`[n]` or `[^n]`: the source whose index is n."""
        if cited == 0:
            self.add(
                0, marker, start, end, None, ("zero_index", f"{marker} cites source 0")
            )
            return
        self.add(cited, marker, start, end, self.by_index.get(cited), None)

    def number_list(self, body: str, marker: str, start: int, end: int) -> None:
        """`[1, 2]`, `[1; 2]`, `[1-3]`, `[1–3]`: every number and every range member."""
        for item in _ITEM.finditer(body):
            low = int(item.group(1))
            if item.group(2) is None:
                self.numbered(low, marker, start, end)
                continue
            high = int(item.group(2))
            if low <= high and high - low <= MAX_RANGE:
                for cited in range(low, high + 1):
                    self.numbered(cited, marker, start, end)
                continue
            message = f"{marker}: range {low}-{high} is reversed or cites more than {MAX_RANGE}"
            for cited in (low, high):
                self.add(cited, marker, start, end, None, ("invalid_range", message))

    def nth(
        self, kind: str, nth: int, marker: str, start: int, end: int
    ) -> Row | None:
        """`[Document N]` / `[Web Source N]`: the Nth source of that kind, or a problem."""
        pool = self.documents if kind == "document" else self.webs
        if 1 <= nth <= len(pool):
            return pool[nth - 1]
        label = "document" if kind == "document" else "web source"
        code = "unknown_document" if kind == "document" else "unknown_web_source"
        message = (
            f"{marker} cites {label} {nth}, but the answer has {len(pool)} {label}s"
        )
        self.add(nth, marker, start, end, None, (code, message))
        return None

    def web(self, nth: int, url: str, marker: str, start: int, end: int) -> None:
        """`[Web Source N](url)`: the Nth web source, its URL cross-checked."""
        source = self.nth("web", nth, marker, start, end)
        if source is not None:
            self.linked(source, url, f"web source {nth}", marker, start, end)

    def linked(
        self, source: Row, url: str, label: str, marker: str, start: int, end: int
    ) -> None:
        """A citation of `source` whose marker links `url`: the URL must be the source's."""
        problem = None
        own = source["url"]
        if own and url_key(url) != url_key(own):
            problem = ("url_mismatch", f"{marker} links {url}, but {label} is {own}")
        self.add(source["index"], marker, start, end, source, problem)

    def named(self, ids: list[str], marker: str, start: int, end: int) -> None:
        """OpenAI's citation token: each id names the source with that `source_id`, else
        the one with that `doc_id`."""
        if self.by_id is None:
            self.by_id = {s["doc_id"]: s for s in reversed(self.sources) if s["doc_id"]}
            self.by_id.update(
                (s["source_id"], s) for s in reversed(self.sources) if s["source_id"]
            )
        for source_id in ids:
            source = self.by_id.get(source_id)
            if source is not None:
                self.add(source["index"], marker, start, end, source, None)
                continue
            message = f"a citation token cites {source_id!r}, no source's source_id or doc_id"
            self.add(0, marker, start, end, None, ("unknown_source", message))

    def rare(self, match: re.Match[str], text: str) -> bool:
        """A marker of `services.text.marker_styles`; False when it is not a citation (an
        exponent)."""
        oai, ids, _lines, wide, sup, superscript = match.groups()
        marker, (start, end) = match.group(), match.span()
        if ids is not None:
            self.named(ids.split(CITE_SEPARATOR)[1:], marker, start, end)
        elif oai is not None:
            # Which source an OpenAI file-search marker cites is only in the provider's
            # annotations (`services.providers`); alone it stays unresolved.
            message = (
                f"{marker} is a file-search marker without the provider's annotations: "
                "the source it cites is unknown"
            )
            self.add(int(oai), marker, start, end, None, ("unresolved_marker", message))
        elif wide is not None:
            self.number_list(wide, marker, start, end)
        elif is_exponent(text, start, end):
            return False
        else:
            body = sup if sup is not None else superscript.translate(SUPERSCRIPT_TABLE)
            self.number_list(body, marker, start, end)
        return True


def find_markers(
    text: str, sources: Sequence[Row], code: list[tuple[int, int]], *, plain: bool = False
) -> tuple[list[CitationHit], list[ClusterHit], list[ProblemHit]]:
    """Every citation in `text` (outside `code` regions), its clusters and its problems
    (`sources`: the field values of the answer's sources, `schemas.rows`);
    `plain`: the text is known to fold to ASCII (`has_rare_start`)."""
    # The rarer styles are scanned for only when a character of theirs is there.
    rare = has_rare_start(text, plain)
    if not rare and "[" not in text:
        return [], [], []
    matches: Iterator[re.Match[str]] = _MARKER.finditer(text)
    if rare:
        matches = merge(matches, RARE_MARKER.finditer(text), key=re.Match.start)
    resolver = _Resolver(sources)
    by_index, citations = resolver.by_index, resolver.citations
    clusters: list[ClusterHit] = []
    region = 0
    previous_end = -1
    for match in matches:
        start, end = match.span()
        if start < previous_end:
            continue  # `[1]` inside `<sup>[1]</sup>`: part of the marker before
        if code:
            while region < len(code) and code[region][1] <= start:
                region += 1
            if region < len(code) and code[region][0] <= start:
                continue
        if start and text[start - 1] in "]\\" and start != previous_end:
            continue  # `[text][1]`: a reference-style markdown link; `\[1]`: escaped
        if text[end : end + 1] == ":" and _is_definition(text, start, end):
            continue
        # Whether this marker extends the last cluster (adjacent, or one gap away).
        joins = previous_end >= 0 and (
            previous_end == start
            or (
                text[previous_end] in _GAP_CHARS
                and _CLUSTER_GAP.fullmatch(text, previous_end, start) is not None
            )
        )
        cluster_index = len(clusters) - joins
        marker = match.group()
        first = len(citations)
        # (`[n]`, the common case, is read without the twelve groups)
        number = None if rare and match.re is RARE_MARKER else match["num"]
        if number is not None:
            if (cited := int(number)) in by_index:
                # The common case, inline: `[n]` citing an existing source.
                citations.append(
                    CitationHit(cited, marker, start, end, cited, True, None, cluster_index)
                )
                first = -1  # its cluster index is set
            else:
                resolver.numbered(cited, marker, start, end)
        elif match.re is RARE_MARKER:
            if not resolver.rare(match, text):
                continue
        else:
            _, web, url, doc, foot, named, linked, lurl, pin, page, body, _ = match.groups()
            if body is not None or named is not None:
                resolver.number_list(body if named is None else named, marker, start, end)
            elif foot is not None:
                resolver.numbered(int(foot), marker, start, end)
            elif doc is not None:
                source = resolver.nth("document", int(doc), marker, start, end)
                if source is not None:
                    resolver.add(source["index"], marker, start, end, source, None)
            elif web is not None:
                resolver.web(int(web), url, marker, start, end)
            elif pin is not None:
                resolver.numbered(int(pin), marker, start, end)
                citations[-1].page = int(page)  # the pinpoint: a hint for the passage
            elif (cited := int(linked)) in by_index:
                resolver.linked(by_index[cited], lurl, f"source {cited}", marker, start, end)
            else:
                resolver.numbered(cited, marker, start, end)
        if first == -1:
            added = [len(citations) - 1]
        else:
            for citation in citations[first:]:
                citation.cluster_index = cluster_index
            added = list(range(first, len(citations)))
        if joins:
            cluster = clusters[-1]
            cluster.end = end
            cluster.marker = text[cluster.start : end]
            cluster.citations += added
        else:
            clusters.append(ClusterHit(start, end, marker, added))
        previous_end = end
    return citations, clusters, resolver.problems
