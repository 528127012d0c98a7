"""The citations stage: `answers.scored` in, `answers.cited` out."""

from __future__ import annotations

from schemas import topics
from schemas.scoring import AnswerScored
from services.citations.logic import cite_answer
from services.runtime.stage import typed_stage

STAGE = typed_stage(
    "citations",
    topics.ANSWERS_SCORED,
    AnswerScored,
    topics.ANSWERS_CITED,
    cite_answer,
    description="Citation extraction: markers, sentences, maps, segments, coverage, "
    "references and supporting passages.",
)
