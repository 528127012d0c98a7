"""`GET /v1/stats`: citation-quality numbers per model, tenant, language or model judge over
a window, optionally in time buckets. Sums and means are SQL aggregates; latency percentiles
are exact (linear interpolation between the closest ranks, PostgreSQL's `percentile_cont`) on
both databases:
PostgreSQL computes them, on SQLite (which has no percentile function) the same formula runs
over the window's latencies.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from services.store.answer_state import to_ms
from services.store.api import GroupStats, StatsQuery
from services.store.tables import answers

_SUMS = ("citations", "invalid_citations", "sentences", "uncited_sentences",
         "downgraded_quotes", "sources_supplied", "sources_cited", "supported_citations",
         "unsupported_citations", "partial_citations", "disagreements")
GroupKey = tuple[str | None, int | None]


async def group_stats(conn: AsyncConnection, query: StatsQuery) -> list[GroupStats]:
    """One GroupStats per group (and bucket) that has answers in the window."""
    dims = _dims(query)
    where = _where(query)
    c = answers.c
    totals = await conn.execute(
        sa.select(
            *dims, sa.func.count(),
            sa.func.sum(sa.case((c.status == "formatted", 1), else_=0)),
            sa.func.sum(sa.case((c.judge.is_not(None), 1), else_=0)),
            *(sa.func.sum(c[name]) for name in _SUMS),
            sa.func.avg(c.coverage), sa.func.avg(c.citation_recall),
            sa.func.avg(c.citation_precision),
            # judged: the valid citations of the answers that carry verdicts
            sa.func.sum(sa.case((c.supported_citations.is_not(None),
                                 c.citations - c.invalid_citations), else_=0)),
            # unverifiable: the rest of the judged, where partial is counted apart
            sa.func.sum(sa.case((c.partial_citations.is_not(None),
                                 c.citations - c.invalid_citations - c.supported_citations
                                 - c.unsupported_citations - c.partial_citations), else_=0)),
            sa.func.sum(c.judge_usd), sa.func.avg(c.judge_latency_ms),
        ).where(*where).group_by(*dims)
    )
    groups: dict[GroupKey, GroupStats] = {}
    for row in totals:
        group_key, values = _split(query, row)
        group = GroupStats(key=group_key[0], bucket_start=_bucket_start(group_key[1]))
        group.answers, group.formatted = int(values[0]), int(values[1] or 0)
        group.judged = int(values[2] or 0)
        for name, value in zip(_SUMS, values[3:3 + len(_SUMS)], strict=True):
            setattr(group, name, int(value or 0))
        coverage, recall, precision, judged, unverifiable, usd, judge_ms = values[
            3 + len(_SUMS):]
        group.judge_usd, group.judge_latency_ms = _float(usd), _float(judge_ms)
        group.mean_coverage = _float(coverage)
        group.citation_recall = _float(recall)
        group.citation_precision = _float(precision)
        group.invalid_citation_rate = _share(group.invalid_citations, group.citations)
        group.judged_citations = int(judged or 0)
        group.unverifiable_citations = max(0, int(unverifiable or 0))
        group.support_rate = _share(group.supported_citations, group.judged_citations)
        group.unsupported_rate = _share(group.unsupported_citations, group.judged_citations)
        groups[group_key] = group
    failures = await conn.execute(
        sa.select(*dims, c.status, c.reason, sa.func.count())
        .where(*where, c.status.in_(("rejected", "dead_lettered")))
        .group_by(*dims, c.status, c.reason)
    )
    for row in failures:
        group_key, (status, reason, count) = _split(query, row)
        group = groups[group_key]
        target = group.rejections if status == "rejected" else group.dead_letters
        target[reason or "unknown"] = int(count)
    for group_key, (p50, p95) in (await _latency_percentiles(conn, query, dims, where)).items():
        groups[group_key].latency_p50_ms, groups[group_key].latency_p95_ms = p50, p95
    return sorted(groups.values(), key=lambda g: (g.key or "", g.bucket_start or _EPOCH))


async def _latency_percentiles(
    conn: AsyncConnection, query: StatsQuery, dims: list[Any], where: list[Any]
) -> dict[GroupKey, tuple[float, float]]:
    latency = answers.c.latency_ms
    where = [*where, latency.is_not(None)]
    result: dict[GroupKey, tuple[float, float]] = {}
    if conn.dialect.name == "postgresql":
        rows = await conn.execute(
            sa.select(*dims, sa.func.percentile_cont(0.5).within_group(latency),
                      sa.func.percentile_cont(0.95).within_group(latency))
            .where(*where).group_by(*dims)
        )
        for row in rows:
            group_key, (p50, p95) = _split(query, row)
            if p50 is not None:  # no GROUP BY (group_by none): one row of NULLs when empty
                result[group_key] = (float(p50), float(p95))
        return result
    values: dict[GroupKey, list[float]] = defaultdict(list)
    for row in await conn.execute(sa.select(*dims, latency).where(*where).order_by(latency)):
        group_key, (value,) = _split(query, row)
        values[group_key].append(float(value))
    return {group: (percentile(v, 0.5), percentile(v, 0.95)) for group, v in values.items()}


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """`percentile_cont`: linear interpolation between the closest ranks of sorted values."""
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _dims(query: StatsQuery) -> list[Any]:
    """The grouping columns: the model or tenant (none for one overall group), then the
    time bucket's start in ms when buckets were asked for."""
    dims: list[Any] = []
    if query.group_by == "model":
        dims.append(answers.c.model)
    elif query.group_by == "tenant":
        dims.append(answers.c.tenant)
    elif query.group_by == "language":
        dims.append(answers.c.language)
    elif query.group_by == "judge":
        dims.append(answers.c.judge)
    if query.bucket_seconds:
        size = int(query.bucket_seconds) * 1000
        dims.append((answers.c.answered_at_ms // size * size).label("bucket"))
    return dims


def _split(query: StatsQuery, row: Sequence[Any]) -> tuple[GroupKey, Sequence[Any]]:
    """A result row as ((group key, bucket ms), the remaining values)."""
    values = list(row)
    key = values.pop(0) if query.group_by != "none" else None
    bucket = int(values.pop(0)) if query.bucket_seconds else None
    return (key, bucket), values


def _where(query: StatsQuery) -> list[Any]:
    c = answers.c
    where = [c.answered_at_ms >= to_ms(query.since), c.answered_at_ms < to_ms(query.until)]
    if query.tenant is not None:
        where.append(c.tenant == query.tenant)
    if query.model is not None:
        where.append(c.model == query.model)
    if query.language is not None:
        where.append(c.language == query.language)
    return where


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _bucket_start(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(int(ms) / 1000, UTC)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
