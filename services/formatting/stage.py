"""The formatting stage: `answers.resolved` -> `answers.formatted`."""

from __future__ import annotations

from schemas.spans import AnswerResolved
from schemas.topics import ANSWERS_FORMATTED, ANSWERS_RESOLVED
from services.formatting.logic import format_answer
from services.runtime.stage import typed_stage

STAGE = typed_stage(
    "formatting",
    ANSWERS_RESOLVED,
    AnswerResolved,
    ANSWERS_FORMATTED,
    format_answer,
    description="answer.resolved -> answer.formatted: frontend structure and safe renderings",
)
