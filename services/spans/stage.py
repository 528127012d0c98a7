"""The spans stage: `answers.cited` -> `answers.resolved`."""

from __future__ import annotations

import schemas.topics
from schemas.citations import AnswerCited
from services.runtime.stage import typed_stage
from services.spans.logic import resolve_answer

STAGE = typed_stage(
    "spans",
    schemas.topics.ANSWERS_CITED,
    AnswerCited,
    schemas.topics.ANSWERS_RESOLVED,
    resolve_answer,
    description="Resolves answer units to exact source spans and builds citation locators.",
)
