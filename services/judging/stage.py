"""The judging stage: `answers.formatted` -> `answers.judged` (group `citeflow-judging`).

Run only when `CITEFLOW_JUDGING` names a judge; loading it here checks it (an unknown model
or a refused key stops the stage at start-up with one line, before any answer is read).
"""

from __future__ import annotations

from dataclasses import replace

from schemas.formatted import AnswerFormatted
from schemas.topics import ANSWERS_FORMATTED, ANSWERS_JUDGED
from services.judging.settings import refiner_from_env
from services.runtime.stage import typed_stage

REFINER = refiner_from_env()

STAGE = replace(
    typed_stage(
        "judging",
        ANSWERS_FORMATTED,
        AnswerFormatted,
        ANSWERS_JUDGED,
        REFINER.refine,
        description="answer.formatted -> answer.judged: a model judge's second opinion",
    ),
    collectors=REFINER.metrics.collectors if REFINER.metrics else (),
)
