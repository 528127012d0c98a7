"""The scoring stage: answers.accepted -> answers.scored."""

from __future__ import annotations

from schemas.answers import AnswerAccepted
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_SCORED
from services.runtime.stage import typed_stage
from services.scoring.logic import score_answer

STAGE = typed_stage(
    "scoring",
    ANSWERS_ACCEPTED,
    AnswerAccepted,
    ANSWERS_SCORED,
    score_answer,
    description="score, rank and explain every retrieved source",
)
