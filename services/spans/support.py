"""Support verdicts on the answer's citations, placed in the sources.

The verdicts come from services.verification; this module hands it the answer's claims (each
valid citation's sentence, or its own segment in a sentence with several citation clusters),
its sentences, the sources' pieces, the sentences that are verbatim units, and the supporting
passages the citations stage chose (the stage's `links`): a claim's evidence in a source is
the passage of its sentence and that source, recorded as the link's index (`Support.link`,
whose locator is already there; link k is the extraction's passage k). Only where no passage exists (a source not eligible for
passages) does the check search the source, and that evidence becomes a `SourceSpan` with a
locator, like any span. A sentence is verbatim in a
source when a verbatim unit covers at least `VERBATIM_COVER` of it and has a span there, or
when a quotation found there is all it claims (its other words only frame the quote: at
most `FRAME_TERMS` content terms besides the source's own name, `X opens by saying`); its
citations of that source are `supported`, with that span as evidence. A sentence that
claims more than its quote is judged atom by atom, the quote an atom of its own.

With the lexical judge, most citations need none of that: the only valid citation of its
sentence is decided here when the sentence is verbatim in the source or its passage there is
counted and, if it falls short of support, carries the citations stage's search for a better
source (its `rival`, services.citations.rivals) (`DecidedSingles`); only the rest go to
`verify`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence

from schemas.citations import CitationExtraction
from schemas.construct import maker
from schemas.rows import Row, row, rows
from schemas.spans import AnswerQuality, AnswerUnit, AnswerWord, Atom, SourceSpan, Support
from services.spans.atoms import Pending, with_atoms
from services.spans.locators import Locators
from services.spans.resolve import source_span
from services.spans.sections import Piece
from services.spans.units import UnitContext
from services.text.extraction import blank
from services.text.languages import UNDETERMINED, language_of, read_as_tokens
from services.text.lexical import NO_NAMES, name_terms, text_terms
from services.verification.claims import surface_words
from services.verification.atoms import Counts
from services.verification.crosslang import crosses, source_language
from services.verification.judges import LEXICAL, Judge, verdict_of
from services.verification.quality import SentenceClaim, with_single_citations
from services.verification.sources import SourceView, source_view
from services.verification.support import (
    Passage,
    counted_score,
    read_passage,
    rounded_score,
)
from services.verification.verify import (
    VERBATIM_JUDGE,
    CitedClaim,
    Outcome,
    Verification,
    clearly_better,
    searches_better,
    verify,
)

VERBATIM_COVER = 0.8
FRAME_TERMS = 3

_support = maker(Support)
_answer_quality = maker(AnswerQuality)


class SourcePieces:
    """The pieces of each source and their views for the verification (built on first use)."""

    __slots__ = ("_languages", "_pieces", "_sources", "_views")

    def __init__(self, pieces: Sequence[Piece], sources: Sequence[Row] = ()) -> None:
        # (`sources`: their field values, `source_rows`, for their names)
        self._sources = {source["index"]: source for source in sources}
        self._pieces: dict[int, list[Piece]] = {}
        for piece in pieces:
            self._pieces.setdefault(piece.source_index, []).append(piece)
        self._views: dict[int, SourceView | None] = {}
        self._languages: dict[int, str] = {}

    def view(self, index: int) -> SourceView | None:
        """The view of source `index`; None when it has no text (or does not exist)."""
        if index not in self._views:
            pieces = self._pieces.get(index)
            self._views[index] = (
                source_view([p.text for p in pieces], self.names(index)) if pieces else None
            )
        return self._views[index]

    def names(self, index: int) -> frozenset[str]:
        """The content terms of source `index`'s name (title and authors)."""
        source = self._sources.get(index)
        return name_terms(source["title"], source["authors"]) if source else NO_NAMES

    def language(self, index: int) -> str:
        """The language of source `index` (read from its pieces, without a view; once)."""
        found = self._languages.get(index)
        if found is None:
            pieces = self._pieces.get(index)
            found = source_language([p.text for p in pieces]) if pieces else UNDETERMINED
            self._languages[index] = found
        return found

    def pieces(self, index: int) -> list[Piece]:
        """The pieces of source `index`, in view order."""
        return self._pieces.get(index, [])


def blanked(text: str, extraction: CitationExtraction) -> str:
    """`text` with every citation marker replaced by spaces (offsets unchanged): claims are
    read from it (the lexical check and a model judge read words; the extra spaces are
    nothing to either). The clusters are blanked: each holds its citations' markers (as the
    extraction builds them); an event without clusters (older, or built by hand) has its
    citations blanked instead."""
    marked = rows(extraction, "clusters") or rows(extraction, "citations")
    return blank(text, [(marker["start"], marker["end"]) for marker in marked])


def sentence_bounds(sentences: Sequence[Row]) -> list[tuple[int, int, int]]:
    """(index, start, end) of each sentence (`sentences`: the extraction's `rows`)."""
    return [(fields["index"], fields["start"], fields["end"]) for fields in sentences]


def _verbatim(
    units: Sequence[AnswerUnit],
    sentences: list[tuple[int, int, int]],
    text: str,
    names: Callable[[int], frozenset[str]],
) -> dict[tuple[int, int], SourceSpan]:
    """(sentence index, source index) -> a span where a verbatim unit covers the sentence,
    or where a quotation inside it that the sentence only frames was found (`sentences`:
    `sentence_bounds`; `names`: a source's name terms). A unit of origin `quotation` is
    its sentence, its span the quote's."""
    found: dict[tuple[int, int], SourceSpan] = {}
    ends = [end for _, _, end in sentences]
    for unit in units:
        fields = unit.__dict__  # (a unit of this stage: every field set)
        if fields["kind"] != "verbatim":
            continue
        quotation = fields["origin"] == "quotation"
        unit_start, unit_end = fields["start"], fields["end"]
        if unit_start is None or unit_end is None:
            continue
        # the sentences the unit overlaps: from the first ending after its start
        for number in range(bisect_right(ends, unit_start), len(sentences)):
            index, start, end = sentences[number]
            if start >= unit_end:
                break
            size = len(text[start:end].strip())
            overlap = min(unit_end, end) - max(unit_start, start)
            if not size:
                continue
            # A quotation found verbatim supports a sentence that only frames it; the
            # words of a sentence that claims more are judged as its other atoms.
            claimed = text_terms(text[start:end]) if quotation else None
            for span in fields["source_spans"]:
                source = span.source_index
                if claimed is None:
                    if overlap < VERBATIM_COVER * size:
                        continue
                elif len(claimed - text_terms(span.quote) - names(source)) > FRAME_TERMS:
                    continue
                found.setdefault((index, source), span)
    return found


class DecidedSingles:
    """The citations decided without `verify`, each the only valid citation of its
    sentence, with the lexical judge: `supported` where the sentence is verbatim in the
    cited source (its span the evidence), else from the figures of its counted passage there
    (services.citations.checks) and, when the citation looks for a better source, of that
    passage's rival (services.citations.rivals). Their
    support is made here, without claims, source views or judgements: what `verify` gives
    (tests/services/verification/test_counted.py holds the two equal)."""

    __slots__ = (
        "_by_pair", "_languages", "_passages", "_verbatim", "better", "judged",
        "judged_supported", "sentences", "support", "supported",
    )

    def __init__(
        self,
        passages: list[Row],
        by_pair: dict[tuple[int, int], int],
        verbatim: dict[tuple[int, int], SourceSpan],
        support: list[Support | None],
        languages: Callable[[int], str],
    ) -> None:
        self._languages = languages  # a source's language
        self._passages = passages  # (the extraction's `rows`)
        self._by_pair = by_pair
        self._verbatim = verbatim
        self.support = support  # filled at the positions decided here
        self.sentences = 0  # their sentences with words (ALCE's), and those supported
        self.supported = 0
        self.better = 0  # their better sources found
        # (position, sentence index, claim, source, passage counts, the claim's language when
        # its words read in it: `read_as_tokens`) of those decided lexically
        self.judged: list[tuple[int, int, str, int, Counts, str | None]] = []
        self.judged_supported = 0  # of them, supported by their sentence's counts

    def decide(self, sentence: int, text: str, position: int, source: int) -> bool:
        """Make the support of the citation at `position` (the only one of sentence
        `sentence`, whose text is `text`) when it is decided here; whether it was."""
        span = self._verbatim.get((sentence, source))
        if span is not None:
            self._add(position, "supported", 1.0, None, span, [], [], VERBATIM_JUDGE)
            if any(map(str.isalnum, text)):
                self.sentences += 1
                self.supported += 1
            return True
        number = self._by_pair.get((sentence, source))
        if number is None:
            return False
        # The claim's language first: an undetermined one crosses none (the source's is not
        # read), and where it is its words' too, the atoms read their terms in it.
        language = language_of(text)
        if language != UNDETERMINED and crosses(language, self._languages(source)):
            return False  # (across languages: `verify` says what can be said)
        # (fields of a model built without validation: defaults may be unset)
        fields = self._passages[number]
        size = fields.get("terms")
        absent = fields.get("absent")
        conflicts = fields.get("conflicts")
        if not size or absent is None or conflicts is None:
            return False  # not counted, or nothing to check (unverifiable)
        score = counted_score(
            size, len(absent), len(absent) + fields.get("lacking", 0), len(conflicts)
        )
        verdict = verdict_of(LEXICAL, score, bool(conflicts))
        better = None
        if searches_better(verdict, score):
            rival = fields.get("rival")
            if rival is None:
                return False  # not searched by the citations stage: `verify` searches
            found = row(rival)
            better = found["source_index"]
            if better is not None:
                lacks = found["absent"]
                rival_score = counted_score(
                    size, lacks, lacks + found["lacking"], len(found["conflicts"])
                )
                rival_verdict = verdict_of(LEXICAL, rival_score, bool(found["conflicts"]))
                if not clearly_better(score, rival_score, rival_verdict):
                    better = None
        # (no missing words yet: its atoms give them, `with_atoms`; `atoms_missed` else)
        self._add(
            position, verdict, rounded_score(score), number, None, [], conflicts,
            LEXICAL.name, better,
        )
        self.better += better is not None
        counts = Counts(size, absent, fields.get("lacking", 0),
                        fields.get("lacking_items") or (), conflicts, fields["passage"])
        self.judged.append(
            (position, sentence, text, source, counts,
             language if read_as_tokens(text) else None)
        )
        self.sentences += 1  # (its items are words or numbers)
        self.supported += verdict == "supported"
        self.judged_supported += verdict == "supported"
        return True

    def atoms_missed(self) -> None:
        """The missing words of the citations decided here that no atom judged (`with_atoms`
        remakes the others, missing words included): the words of the items the source
        lacks."""
        for position, _, text, _, counts, _ in self.judged:
            entry = self.support[position]
            if entry is not None and not entry.atoms and counts.absent:
                entry.__dict__["missing"] = surface_words(text, counts.absent)

    def _add(
        self,
        position: int,
        verdict: str,
        score: float,
        link: int | None,
        evidence: SourceSpan | None,
        missing: list[str],
        conflicts: list[str],
        judge: str,
        better: int | None = None,
    ) -> None:
        self.support[position] = support_entry(
            verdict, score, link, evidence, missing, conflicts, better, judge
        )


def support_entry(
    verdict: str,
    score: float,
    link: int | None,
    evidence: SourceSpan | None,
    missing: list[str],
    conflicts: Sequence[str],
    better_source: int | None,
    judge: str,
    reason: str | None = None,
    missing_words: list[AnswerWord] | None = None,
    atoms: list[Atom] | None = None,
) -> Support:
    """The support of one citation (built without validation: every value is made here)."""
    return _support(
        {
            "reason": reason,
            "verdict": verdict,
            "score": score,
            "link": link,
            "evidence": evidence,
            "missing": missing,
            "missing_words": missing_words or [],
            "atoms": atoms or [],
            "conflicts": list(conflicts),
            "better_source": better_source,
            "judge": judge,
        }
    )


def _claims(
    extraction: CitationExtraction,
    citations: list[Row],
    text: str,
    sentences: list[tuple[int, int, int]],
    decided: DecidedSingles | None = None,
) -> tuple[list[CitedClaim], list[SentenceClaim], int]:
    """The claim of every valid citation, every sentence citing a source validly with the
    sources it cites, and how many other sentences have words (`citations`: the
    extraction's `rows`; `sentences`: `sentence_bounds`); without the citations `decided`
    decides (and their sentences)."""
    # sentence index -> (position, source index, cluster index, start) of its valid citations
    by_sentence: dict[int, list[tuple[int, int, int, int]]] = {}
    for position, fields in enumerate(citations):
        source = fields["source_index"]
        if fields["valid"] and source is not None:
            cited = (position, source, fields["cluster_index"], fields["start"])
            found = by_sentence.get(fields["sentence_index"])
            if found is None:
                by_sentence[fields["sentence_index"]] = [cited]
            else:
                found.append(cited)
    claims: list[CitedClaim] = []
    claimed: list[SentenceClaim] = []
    segment_ends: list[int] | None = None
    uncited = 0
    for index, start, end in sentences:
        cited_here = by_sentence.get(index)
        if cited_here is None:
            uncited += any(map(str.isalnum, text[start:end]))
            continue
        sentence_text = text[start:end].strip()
        if len(cited_here) == 1:
            position, source, _, _ = cited_here[0]
            if decided is not None and decided.decide(index, sentence_text, position, source):
                continue
            claims.append(CitedClaim(position, source, index, sentence_text, (source,)))
            if any(map(str.isalnum, sentence_text)):
                claimed.append(SentenceClaim(index, sentence_text, (source,)))
            continue
        sources = tuple(dict.fromkeys([source for _, source, _, _ in cited_here]))
        if any(map(str.isalnum, sentence_text)):
            claimed.append(SentenceClaim(index, sentence_text, sources))
        several = len({cluster for _, _, cluster, _ in cited_here}) > 1
        if several and segment_ends is None:
            segment_ends = [segment.end for segment in extraction.segments]
        for position, source, _, marker in cited_here:
            claim = sentence_text
            if several and segment_ends is not None:
                claim = _segment_claim(extraction, segment_ends, text, marker, start, end)
            claims.append(CitedClaim(position, source, index, claim, sources))
    return claims, claimed, uncited


def _segment_claim(
    extraction: CitationExtraction,
    segment_ends: list[int],
    text: str,
    marker: int,
    start: int,
    end: int,
) -> str:
    """The claim of a citation (its marker at `marker`) in the sentence `[start, end)` that
    has several citation clusters: the part of the segment holding the marker inside the
    sentence (the whole sentence when no segment holds it)."""
    segments = extraction.segments
    # the segment holding the marker: the first ending after its start
    at = bisect_right(segment_ends, marker)
    if at < len(segments) and segments[at].start <= marker:
        segment = segments[at]
        return text[max(segment.start, start) : min(segment.end, end)].strip()
    return text[start:end].strip()


def passage_pairs(passages: list[Row]) -> dict[tuple[int, int], int]:
    """(sentence index, source index) -> the position of their passage among the
    extraction's passages (`rows`; link k is passage k)."""
    by_pair: dict[tuple[int, int], int] = {}
    for position, fields in enumerate(passages):
        by_pair.setdefault((fields["sentence_index"], fields["source_index"]), position)
    return by_pair


def _passages(
    passages: list[Row],
    by_pair: Mapping[tuple[int, int], int],
    claims: Sequence[CitedClaim],
    sentences: Sequence[SentenceClaim],
) -> dict[tuple[str, int], Passage]:
    """(claim text, source index) -> the passage of the claim's sentence and that source,
    for every claim and sentence that has one (`passages`: the extraction's `rows`;
    `by_pair`: `passage_pairs`). A sentence's
    own claim takes the passage with the counts the citations stage found
    (services.citations.checks); a claim that is a part of its sentence reads the
    passage's text."""
    if not by_pair:
        return {}
    found: dict[tuple[str, int], Passage] = {}
    for sentence in sentences:
        for source in sentence.cited:
            number = by_pair.get((sentence.index, source))
            if number is not None:
                # (fields of a model built without validation: defaults may be unset)
                fields = passages[number]
                terms = fields.get("terms")
                found[sentence.text, source] = Passage(
                    number,
                    fields["passage"],
                    None,
                    fields.get("negated", False),
                    terms,
                    fields.get("absent") if terms is not None else None,
                    fields.get("lacking", 0),
                    fields.get("lacking_items"),
                    fields.get("conflicts") if terms is not None else None,
                )
    for claim in claims:
        key = (claim.text, claim.source_index)
        if key in found:
            continue
        number = by_pair.get((claim.sentence_index, claim.source_index))
        if number is not None:
            found[key] = read_passage(number, passages[number]["passage"])
    return found


def _evidence(
    outcome: Outcome, source: int, pieces: SourcePieces, locators: Locators
) -> SourceSpan | None:
    evidence = outcome.evidence
    if evidence is None or evidence.passage is not None or evidence.view is None:
        return None
    piece = pieces.pieces(source)[evidence.piece]
    start, end = evidence.view.original_bounds(evidence.piece, evidence.start, evidence.end)
    return source_span(piece, start, end, locators)


def citation_support(
    ctx: UnitContext,
    pieces: Sequence[Piece],
    units: Sequence[AnswerUnit],
    judge: Judge,
) -> tuple[list[Support | None], AnswerQuality]:
    """One support entry per citation of the extraction (None when invalid), and the
    answer's quality."""
    extraction = ctx.extraction
    citations, passages = rows(extraction, "citations"), rows(extraction, "passages")
    text = blanked(ctx.text, extraction)
    bounds = sentence_bounds(rows(extraction, "sentences"))
    by_source = SourcePieces(pieces, ctx.sources)
    verbatim_spans = _verbatim(units, bounds, text, by_source.names)
    verbatim: dict[int, frozenset[int]] = {}
    for sentence_index, source in verbatim_spans:
        verbatim[sentence_index] = verbatim.get(sentence_index, frozenset()) | {source}
    by_pair = passage_pairs(passages)
    support: list[Support | None] = [None] * len(citations)
    decided = (
        DecidedSingles(passages, by_pair, verbatim_spans, support, by_source.language)
        if judge is LEXICAL
        else None
    )
    claims, sentences, uncited = _claims(extraction, citations, text, bounds, decided)
    result = verify(
        claims,
        sentences,
        [source["index"] for source in ctx.sources],
        by_source.view,
        verbatim,
        judge,
        _passages(passages, by_pair, claims, sentences),
        uncited,
    )
    starts = {index: start for index, start, _ in bounds}
    pending: list[Pending] = []
    for claim in claims:
        outcome = result.outcomes[claim.position]
        link = None
        if outcome.judge == "verbatim":
            evidence = verbatim_spans.get((claim.sentence_index, claim.source_index))
        else:
            evidence = _evidence(outcome, claim.source_index, by_source, ctx.locators)
            if outcome.evidence is not None and outcome.evidence.passage is not None:
                link = outcome.evidence.passage.link
        support[claim.position] = support_entry(
            outcome.verdict, outcome.score, link, evidence, outcome.missing,
            outcome.conflicts, outcome.better_source, outcome.judge, outcome.reason,
        )
        if outcome.judge == LEXICAL.name and outcome.reason is None and judge is LEXICAL:
            offset = text.find(claim.text, starts[claim.sentence_index])
            pending.append(Pending(claim.position, claim.text, offset, claim.source_index))
    if decided is not None:
        pending += [
            Pending(position, claim, text.find(claim, starts[sentence]), source, counts, language)
            for position, sentence, claim, source, counts, language in decided.judged
        ]
        with_atoms(support, pending, ctx.text, by_source.view, by_source.pieces, ctx.locators)
        decided.atoms_missed()
        # ALCE counts the sentences decided here that their atoms support
        decided.supported += sum(
            entry.verdict == "supported"
            for entry in (support[position] for position, *_ in decided.judged)
            if entry is not None
        ) - decided.judged_supported
    return support, _quality(result, decided, support)


def _quality(
    result: Verification, decided: DecidedSingles | None, support: list[Support | None]
) -> AnswerQuality:
    quality = result.quality
    verdicts = [entry.verdict for entry in support if entry is not None]
    if decided is not None:
        quality = with_single_citations(quality, decided.sentences, decided.supported)
    return _answer_quality(
        {
            "judge": result.judge,
            "sentences": quality.sentences,
            "sentences_uncited": quality.sentences_uncited,
            "uncited_sentence_share": round(quality.uncited_sentence_share, 4),
            "citation_recall": round(quality.citation_recall, 4),
            "citation_precision": round(quality.citation_precision, 4),
            "citations_judged": len(verdicts),
            "supported": verdicts.count("supported"),
            "partial": verdicts.count("partial"),
            "unsupported": verdicts.count("unsupported"),
            "unverifiable": verdicts.count("unverifiable"),
            "better_source_found": sum(
                outcome.better_source is not None for outcome in result.outcomes.values()
            )
            + (decided.better if decided is not None else 0),
        }
    )
