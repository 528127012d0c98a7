"""The whole pipeline in-process, no broker: the same pure stage logic the consumers run,
chained directly (what `citeflow process` and the benchmarks use)."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.answers import AnswerRejected
from schemas.formatted import AnswerFormatted
from services.citations.logic import cite_answer
from services.formatting.logic import format_answer
from services.ingest.answers import admit_data, admit_provider
from services.scoring.logic import score_answer
from services.spans.logic import resolve_answer
from services.text.extraction import extract_answer


@dataclass(frozen=True)
class StageFailure:
    """A stage raised on an admitted answer (a bug, reported rather than crashing the run)."""

    answer_id: str
    stage: str
    error: str


Result = AnswerFormatted | AnswerRejected | StageFailure


def process_answer(
    raw: bytes, *, event_id: str, position: str | None = None, provider: str | None = None
) -> Result:
    """One `answer.submitted` data object (JSON bytes) through all five stages; with
    `provider`, one provider line (`services.providers`) normalised first."""
    if provider is None:
        admitted = admit_data(raw, event_id=event_id, position=position)
    else:
        admitted = admit_provider(raw, provider, event_id=event_id, position=position)
    if isinstance(admitted, AnswerRejected):
        return admitted
    stage = "scoring"
    try:
        # In one process the citation extraction both scoring and citations need is run
        # once and handed to both, with the citing sentences' terms it remembers; over Kafka
        # each stage process runs its own.
        answer = admitted.answer
        found = extract_answer(answer)
        scored = score_answer(admitted, found)
        stage = "citations"
        cited = cite_answer(scored, found)
        stage = "spans"
        resolved = resolve_answer(cited)
        stage = "formatting"
        return format_answer(resolved)
    except Exception as exc:  # noqa: BLE001 - reported per answer, the run goes on
        return StageFailure(admitted.answer.answer_id, stage, f"{type(exc).__name__}: {exc}")
