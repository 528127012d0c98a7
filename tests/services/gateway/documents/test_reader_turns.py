"""The tenants take turns at the reader processes: one tenant's queued jobs do not hold
another tenant's behind them, and each tenant's pending jobs are bounded on their own."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from services.gateway.documents.renderer import PageRenderer, RenderBudget, RenderBusy


async def _finished_in_order(renderer: PageRenderer) -> list[str]:
    done: list[str] = []

    async def job(tenant: str, name: str) -> None:
        # time.sleep: each job holds the one reader process a while, in a real process.
        await renderer.work(tenant, time.sleep, 0.2)
        done.append(name)

    queued = [asyncio.create_task(job("attacker", f"a{n}")) for n in range(4)]
    await asyncio.sleep(0)  # the attacker's four are in line before the other tenant's
    await asyncio.gather(*queued, job("reader", "r0"))
    return done


def test_a_tenants_queued_jobs_do_not_delay_another_tenants(tmp_path: Path) -> None:
    renderer = PageRenderer(tmp_path, RenderBudget(workers=1, deadline_s=120.0))
    try:
        assert asyncio.run(_finished_in_order(renderer)) == ["a0", "r0", "a1", "a2", "a3"]
    finally:
        renderer.close()


async def _refusals(renderer: PageRenderer) -> tuple[list[object], object]:
    first = [asyncio.create_task(renderer.work("attacker", time.sleep, 0.2))
             for _ in range(3)]
    await asyncio.sleep(0)
    other = await renderer.work("reader", os.getpid)
    return list(await asyncio.gather(*first, return_exceptions=True)), other


def test_the_pending_bound_is_per_tenant(tmp_path: Path) -> None:
    renderer = PageRenderer(tmp_path, RenderBudget(workers=1, max_pending=2,
                                                   deadline_s=120.0))
    try:
        attacker, reader = asyncio.run(_refusals(renderer))
        assert [type(r) for r in attacker] == [type(None), type(None), RenderBusy]
        assert isinstance(reader, int) and reader != os.getpid()
    finally:
        renderer.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling classes")
def test_reader_processes_run_at_the_idle_scheduling_class(tmp_path: Path) -> None:
    renderer = PageRenderer(tmp_path, RenderBudget(workers=2, deadline_s=120.0))
    try:
        pids = {asyncio.run(renderer.work("t", os.getpid)) for _ in range(4)}
        processes = {pid for pool in renderer._slots if pool is not None
                     for pid in pool._processes}
        assert pids <= processes and os.getpid() not in processes
        assert {os.sched_getscheduler(pid) for pid in processes} == {os.SCHED_IDLE}
        # Their CPU is not charged to the gateway's autogroup: a session each, at nice 19.
        assert all(os.getsid(pid) == pid for pid in processes)
        autogroups = {Path(f"/proc/{pid}/autogroup").read_text().split()[-1]
                      for pid in processes if Path(f"/proc/{pid}/autogroup").exists()}
        assert autogroups <= {"19"}
    finally:
        renderer.close()
