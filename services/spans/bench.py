"""Benchmark of the spans stage alone on the SPEC §7 answer (20 verbatim units).

The `answer.cited` input is built from the workload without running the other stages:
scores are the retriever scores min-max normalised, sentences are the workload's own
(`. `-separated), each `[n]` marker is a citation of its sentence, and each citation's
passage is the first sentence of the cited source's chunk sharing most words with it.
Only `resolve_answer` is timed (no envelope decoding or encoding).
"""

from __future__ import annotations

import re
import statistics
import time
from typing import Any

from schemas.answers import AnswerSubmitted, Source
from schemas.citations import AnswerCited, Citation, CitationExtraction, Sentence, SupportingPassage
from schemas.scoring import ScoreExplanation, SourceScore
from services.bench.workload import bench_answer
from services.spans.logic import resolve_answer

_MARKER = re.compile(r"\[(\d+)\]")
_SENTENCE_END = re.compile(r"(?<=\.) (?=[A-Z])")


def _scores(answer: AnswerSubmitted) -> list[SourceScore]:
    raw = {s.index: s.score or 0.0 for s in answer.sources}
    low, high = min(raw.values()), max(raw.values())
    norm = {i: (v - low) / (high - low) if high > low else 1.0 for i, v in raw.items()}
    ranked = sorted(norm, key=lambda i: -norm[i])
    return [
        SourceScore(
            index=index,
            retriever_score=raw[index],
            retriever_norm=norm[index],
            score=norm[index],
            rank=ranked.index(index) + 1,
            eligible=True,
            cited=True,
            explanation=ScoreExplanation(
                parts={"retriever": norm[index]}, weights={"retriever": 1.0}, text="bench"
            ),
        )
        for index in raw
    ]


def _span(start: int, end: int) -> dict[str, int]:
    return {"start": start, "end": end, "start_utf16": start, "end_utf16": end}


def _passage(source: Source, sentence: str) -> tuple[int, str]:
    words = set(sentence.lower().split())
    position = max(
        range(len(source.chunks)),
        key=lambda p: len(words & set(source.chunks[p].text.lower().split())),
    )
    text = source.chunks[position].text
    return position, text[: text.find(". ") + 1 or len(text)]


def bench_cited(answer_id: str = "bench-0") -> AnswerCited:
    """The SPEC §7 answer as an `answer.cited` event (see the module docstring)."""
    answer = AnswerSubmitted.model_validate(bench_answer(answer_id))
    sources = {s.index: s for s in answer.sources}
    sentences: list[Sentence] = []
    citations: list[Citation] = []
    passages: list[SupportingPassage] = []
    start = 0
    for number, piece in enumerate(_SENTENCE_END.split(answer.text)):
        start = answer.text.index(piece, start)
        ids: list[int] = []
        for marker in _MARKER.finditer(piece):
            index = int(marker.group(1))
            ids.append(index)
            citations.append(
                Citation(
                    **_span(start + marker.start(), start + marker.end()),
                    id=index,
                    marker=marker.group(),
                    source_index=index,
                    cluster_index=len(citations),
                    sentence_index=number,
                )
            )
            position, text = _passage(sources[index], piece)
            chunk = sources[index].chunks[position]
            passages.append(
                SupportingPassage(
                    citation_id=index,
                    sentence_index=number,
                    source_index=index,
                    chunk_id=chunk.chunk_id,
                    chunk_position=position,
                    section_id=chunk.section_id,
                    end_char=len(text),
                    passage=text,
                )
            )
        sentences.append(
            Sentence(**_span(start, start + len(piece)), index=number, text=piece, citation_ids=ids)
        )
        start += len(piece)
    extraction = CitationExtraction(citations=citations, sentences=sentences, passages=passages)
    return AnswerCited(
        answer=answer,
        scores=_scores(answer),
        passage_sources=[s.index for s in answer.sources],
        extraction=extraction,
    )


def bench_spans(runs: int = 200) -> dict[str, Any]:
    """Time `resolve_answer` on the SPEC §7 answer `runs` times; per-answer milliseconds."""
    cited = bench_cited()
    resolved = resolve_answer(cited)
    timings: list[float] = []
    for _ in range(max(1, runs)):
        began = time.perf_counter()
        resolve_answer(cited)
        timings.append((time.perf_counter() - began) * 1000.0)
    units = resolved.resolution.units
    return {
        "stage": "spans",
        "runs": len(timings),
        "median_ms": statistics.median(timings),
        "p90_ms": statistics.quantiles(timings, n=10)[-1] if len(timings) >= 2 else timings[0],
        "min_ms": min(timings),
        "target_ms": 0.5,
        "units": len(units),
        "verbatim_units": sum(u.kind == "verbatim" for u in units),
        "downgraded_units": sum(u.downgraded for u in units),
        "spans": sum(len(u.source_spans) for u in units),
        "links": len(resolved.resolution.links),
    }
