"""The judging stage: `answers.formatted` -> `answers.judged` (group `citeflow-judging`).

Run only when `CITEFLOW_JUDGING` names a judge; loading it here checks it (an unknown model
or a refused key stops the stage at start-up with one line, before any answer is read).
Its handler is a coroutine: the runtime loop judges each answer as it is fetched, up to
`CITEFLOW_JUDGING_CONCURRENCY` in flight, while their model calls run on the refiner's
threads, so the consumer keeps heartbeating however long a model takes and no answer
waits for the others fetched with it.
"""

from __future__ import annotations

from dataclasses import replace

from schemas.formatted import AnswerFormatted
from schemas.topics import ANSWERS_FORMATTED, ANSWERS_JUDGED
from services.judging.settings import refiner_from_env
from services.runtime.stage import async_typed_stage

REFINER = refiner_from_env()

STAGE = replace(
    async_typed_stage(
        "judging",
        ANSWERS_FORMATTED,
        AnswerFormatted,
        ANSWERS_JUDGED,
        REFINER.refine,
        REFINER.concurrency,
        description="answer.formatted -> answer.judged: a model judge's second opinion",
    ),
    collectors=REFINER.metrics.collectors if REFINER.metrics else (),
)
