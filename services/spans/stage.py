"""The spans stage: `answers.cited` -> `answers.resolved`."""

from __future__ import annotations

import schemas.topics
from schemas.citations import AnswerCited
from services.runtime.stage import typed_stage
from services.spans.logic import resolve_answer
from services.verification.config import configured_judge

# The judge of citation support, loaded as the stage starts: a bad CITEFLOW_JUDGE (or model
# directory) stops the stage here with its error, instead of dead-lettering every answer.
configured_judge()

STAGE = typed_stage(
    "spans",
    schemas.topics.ANSWERS_CITED,
    AnswerCited,
    schemas.topics.ANSWERS_RESOLVED,
    resolve_answer,
    description="Resolves answer units to exact source spans and builds citation locators.",
)
