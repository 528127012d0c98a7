"""A model judge on an evaluation's claims, beside the lexical judge on the same claims: what
`citeflow eval attribution --judge openai:<model>` (and any eval with labelled claims)
prints. Each claim is judged against its passage exactly as the judging stage would (the
same prompt, batches, retries, breaker, verbatim check of the quotes)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.eval.metrics import balanced_accuracy
from services.judging.cache import cache_key
from services.judging.judge import Item, NoOpinion
from services.judging.refine import Refiner
from services.judging.selection import best_window


@dataclass(frozen=True, slots=True)
class LabelledClaim:
    """A claim, the passage it cites, and whether humans call it fully supported."""

    claim: str
    passage: str
    supported: bool


def compare(refiner: Refiner, claims: Sequence[LabelledClaim],
            lexical_supported: Sequence[bool]) -> dict[str, Any]:
    """The model judge's figures on `claims` beside the lexical judge's (its `supported`
    calls on the same claims, in order). A claim without a usable opinion counts as the
    lexical judge's call (what the stage would show)."""
    started = time.perf_counter()
    windows = [c.passage[slice(*best_window(c.claim, c.passage, refiner.context_chars))]
               for c in claims]
    items = [Item(cache_key(c.claim, window, refiner.judge.name), c.claim, window)
             for c, window in zip(claims, windows, strict=True)]
    opinions, usage, _ = asyncio.run(refiner.ask("eval", items))
    seconds = time.perf_counter() - started
    statuses: Counter[str] = Counter()
    verdicts: Counter[str] = Counter()
    predicted: list[bool] = []
    for item, lexical in zip(items, lexical_supported, strict=True):
        opinion = opinions[item.key]
        if isinstance(opinion, NoOpinion):
            statuses[opinion.status] += 1
            predicted.append(lexical)
            continue
        _, problem = refiner.check_quotes(opinion, item.evidence)
        if problem is not None:
            statuses["rejected"] += 1
            predicted.append(lexical)
            continue
        statuses["judged"] += 1
        verdicts[opinion.verdict] += 1
        predicted.append(opinion.verdict == "supported")
    labels = [c.supported for c in claims]
    return {
        "judge": refiner.judge.name,
        "claims": len(claims),
        "balanced_accuracy": balanced_accuracy(predicted, labels),
        "lexical_balanced_accuracy": balanced_accuracy(list(lexical_supported), labels),
        "statuses": dict(statuses),
        "verdicts": dict(verdicts),
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "usd": refiner.prices.usd(usage) if refiner.prices else None,
        "seconds": round(seconds, 3),
    }
