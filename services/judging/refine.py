"""Refining one formatted answer's verdicts with a model judge: the judging stage's logic.

The candidates (services.judging.selection) are looked up in the cache, the rest sent in
batches of `batch_size` items, at most `concurrency` calls at a time across every answer
in flight (the calls block on HTTP or a local model: they run on the refiner's own threads,
and `refine` is a coroutine that waits for them without holding up the event loop). Before
each call the tenant's budget and the circuit breaker are asked; a call that fails after
its retries counts against the breaker. Whatever happens, each candidate gets a judgement:
the model's verdict when its reply is usable and every quote it gives is in the passage,
else the lexical verdict with the reason.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from schemas.formatted import AnswerFormatted
from schemas.judged import (
    AnswerJudged,
    CitationJudgement,
    EvidenceQuote,
    JudgementStatus,
    JudgingCost,
)
from schemas.spans import Verdict
from services.judging.breaker import CircuitBreaker
from services.judging.budget import Budgets
from services.judging.cache import OpinionCache, cache_key
from services.judging.judge import (
    Item,
    JudgeUnavailable,
    ModelJudge,
    NoOpinion,
    Opinion,
    Usage,
    Verdicts,
    no_opinions,
)
from services.judging.metrics import JudgeMetrics
from services.judging.prompt import build_prompt
from services.judging.selection import Candidate, Scope, candidates
from services.judging.verbatim import locate

DEFAULT_TENANT = "default"


@dataclass(frozen=True)
class Prices:
    """USD per million input and output tokens (None: the cost is not priced)."""

    input_per_mtok: float
    output_per_mtok: float

    def usd(self, usage: Usage) -> float:
        return (usage.input_tokens * self.input_per_mtok
                + usage.output_tokens * self.output_per_mtok) / 1_000_000


@dataclass
class Refiner:
    """Everything the judging stage holds between answers."""

    judge: ModelJudge
    scope: Scope = "doubtful"
    batch_size: int = 8
    concurrency: int = 4
    context_chars: int = 6000
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    budgets: Budgets | None = None
    cache: OpinionCache = field(default_factory=OpinionCache)
    prices: Prices | None = None
    metrics: JudgeMetrics | None = None

    def __post_init__(self) -> None:
        self._pool = ThreadPoolExecutor(max(1, self.concurrency), "judge")
        if self.metrics is None:
            self.metrics = JudgeMetrics(self.judge.name)

    async def refine(self, answer: AnswerFormatted) -> AnswerJudged:
        """The second opinions of `answer`'s candidates (never raises for a judge's failure)."""
        started = time.perf_counter()
        tenant = tenant_of(answer.metadata)
        found = candidates(answer, self.scope, self.context_chars)
        keys = [cache_key(c.claim, c.evidence, self.judge.name) for c in found]
        opinions, usage, cached = await self.ask(
            tenant, [Item(key, c.claim, c.evidence) for key, c in zip(keys, found, strict=True)])
        judgements = [
            self._judgement(c, opinions[key], key, key in cached)
            for key, c in zip(keys, found, strict=True)
        ]
        assert self.metrics is not None
        for judgement in judgements:
            self.metrics.opinion(tenant, judgement.status)
        self.metrics.breaker_state(self.breaker.state)
        return AnswerJudged(
            answer_id=answer.answer_id,
            tenant=tenant,
            judge=self.judge.name,
            scope=self.scope,
            judgements=judgements,
            disagreements=sum(1 for j in judgements if j.disagrees),
            cost=JudgingCost(
                requests=usage.requests, input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                usd=self.prices.usd(usage) if self.prices else None,
                latency_ms=round((time.perf_counter() - started) * 1000, 3)),
            breaker=self.breaker.state,
        )

    async def ask(self, tenant: str, items: Sequence[Item]) -> (
            tuple[dict[str, Opinion | NoOpinion], Usage, set[str]]):
        """Per item key, the cached opinion or the judge's (in batches, `concurrency` calls
        at a time, each allowed by the budget and the breaker); what the calls used; the
        keys answered from the cache. Quotes are not checked here (`check_quotes`)."""
        opinions: dict[str, Opinion | NoOpinion] = {}
        cached: set[str] = set()
        asked: dict[str, Item] = {}
        for item in items:
            hit = self.cache.get(item.key)
            if hit is not None:
                opinions[item.key] = hit
                cached.add(item.key)
            else:
                asked.setdefault(item.key, item)
        pending = list(asked.values())
        batches = [pending[i : i + self.batch_size]
                   for i in range(0, len(pending), self.batch_size)]
        loop = asyncio.get_running_loop()
        answered = await asyncio.gather(
            *(loop.run_in_executor(self._pool, self._call, tenant, batch) for batch in batches))
        usage = Usage()
        for verdicts in answered:
            opinions.update(verdicts.opinions)
            usage.requests += verdicts.usage.requests
            usage.input_tokens += verdicts.usage.input_tokens
            usage.output_tokens += verdicts.usage.output_tokens
        return opinions, usage, cached

    def _call(self, tenant: str, batch: Sequence[Item]) -> Verdicts:
        """One call to the judge, if the budget and the breaker allow it."""
        metrics = self.metrics
        assert metrics is not None
        estimate = _estimated_tokens(batch)
        if self.budgets is not None and not self.budgets.take(tenant, estimate):
            metrics.call(tenant, "over_budget")
            return no_opinions(batch, "over_budget",
                               f"tenant {tenant!r} has spent its judging budget for today",
                               Usage())
        if not self.breaker.allow():
            metrics.call(tenant, "breaker_open")
            return no_opinions(batch, "unavailable", "the judge's circuit breaker is open",
                               Usage())
        started = time.perf_counter()
        try:
            verdicts = self.judge.judge(batch)
        except JudgeUnavailable as exc:
            self.breaker.failure()
            metrics.call(tenant, "unavailable", time.perf_counter() - started)
            return no_opinions(batch, "unavailable", str(exc), Usage())
        self.breaker.success()
        usage = verdicts.usage
        metrics.call(tenant, "ok", time.perf_counter() - started, usage.input_tokens,
                     usage.output_tokens, self.prices.usd(usage) if self.prices else None)
        if self.budgets is not None:
            tokens = usage.input_tokens + usage.output_tokens
            self.budgets.settle(tenant, estimate, tokens or estimate)
        return verdicts

    def _judgement(self, candidate: Candidate, opinion: Opinion | NoOpinion, key: str,
                   cached: bool) -> CitationJudgement:
        support = candidate.citation.support
        assert support is not None
        if isinstance(opinion, NoOpinion):
            return _kept(candidate, opinion.status, opinion.detail)
        evidence, problem = self.check_quotes(opinion, candidate.evidence)
        if problem is not None:
            return _kept(candidate, "rejected", problem, opinion.verdict)
        if not cached:
            self.cache.put(key, opinion)
        return _kept(candidate, "judged", None, opinion.verdict).model_copy(update={
            "verdict": opinion.verdict, "judge": self.judge.name,
            "rationale": opinion.rationale, "cached": cached,
            "disagrees": opinion.verdict != support.verdict,
            "evidence": [q.model_copy(update={"start": q.start + candidate.offset,
                                              "end": q.end + candidate.offset})
                         for q in evidence]})

    def check_quotes(self, opinion: Opinion, evidence: str) -> (
            tuple[list[EvidenceQuote], str | None]):
        """The opinion's quotes located in `evidence`, or why the opinion cannot be used (a
        quote that is not there; a `supported`/`partial` verdict quoting nothing)."""
        found: list[EvidenceQuote] = []
        for quote in opinion.quotes:
            located = locate(quote, evidence)
            if located is None:
                return [], f"evidence quote not in the source: {quote[:80]!r}"
            found.append(located)
        if (self.judge.quotes_evidence and not found
                and opinion.verdict in ("supported", "partial")):
            return [], f"a {opinion.verdict} verdict quoting no evidence"
        return found, None


def _kept(candidate: Candidate, status: JudgementStatus, detail: str | None,
          model_verdict: Verdict | None = None) -> CitationJudgement:
    """The citation's judgement keeping its lexical verdict (`status` says why)."""
    citation = candidate.citation
    support = citation.support
    assert support is not None
    return CitationJudgement(
        citation_index=candidate.index, citation_id=citation.id,
        sentence_index=citation.sentence_index, source_index=citation.source_index,
        status=status, verdict=support.verdict, judge=support.judge,
        lexical_verdict=support.verdict, lexical_judge=support.judge,
        model_verdict=model_verdict, detail=detail)


def tenant_of(metadata: Mapping[str, Any] | None) -> str:
    """The answer's tenant (`metadata.tenant`, stamped by the gateway), else `default`."""
    tenant = (metadata or {}).get("tenant")
    return tenant if isinstance(tenant, str) and tenant else DEFAULT_TENANT


def _estimated_tokens(batch: Sequence[Item]) -> int:
    """About four characters a token, plus room for the reply."""
    prompt = build_prompt(batch, nonce="0" * 24)
    return (len(prompt.system) + len(prompt.user)) // 4 + 100 * len(batch)
