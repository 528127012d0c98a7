"""The hub's fan-out, resume and wait paths, driven record by record (no broker: the
records are real outcome events, handed to the hub as its feed would)."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway.stream import frames as frames_module
from services.gateway.stream.filters import StreamFilter
from services.gateway.stream.hub import WRITE_CHUNK, Hub, HubLimits
from services.gateway.stream.positions import decode_position, encode_position
from services.gateway.stream.subscriber import Subscriber
from services.runtime.config import RuntimeConfig
from tests.services.gateway.stream.helpers import (
    FORMATTED,
    SinceStore,
    attach,
    dead_lettered,
    formatted,
    parse_events,
    rejected,
)
from tests.services.gateway.stream.test_positions_sealed import plain_id

ACME = StreamFilter("acme")


async def store_current(needed: object) -> bool:
    return True  # the in-memory store is written before the hub sees a record


def make_hub(store: SinceStore | None = None, **limits: object) -> Hub:
    hub = Hub(RuntimeConfig(), store or SinceStore(), HubLimits(**limits),  # type: ignore[arg-type]
              store_written=store_current)
    attach(hub)
    return hub


class Collector:
    """A client's writer: what it was sent, as bytes and as events."""

    def __init__(self) -> None:
        self.data = bytearray()

    async def write(self, data: bytes) -> None:
        self.data += data

    def events(self, kind: str | None = None) -> list[str]:
        return [e.json()["answer_id"] for e in parse_events(self.data.decode())
                if e.event == (kind or e.event) and e.event in
                ("formatted", "rejected", "dead_lettered")]


async def connect(hub: Hub, stream_filter: StreamFilter = ACME,
                  last_event_id: str | None = None) -> tuple[Subscriber, Collector,
                                                             asyncio.Task[None]]:
    """A client as the endpoint runs it: catch-up, then live frames into a Collector."""
    collector = Collector()
    subscription = await hub.subscribe(stream_filter, last_event_id)

    async def run() -> None:
        try:
            await hub.catch_up(subscription, collector.write)
            await hub.pump(subscription.subscriber, collector.write)
        finally:
            hub.unsubscribe(subscription.subscriber)

    task = asyncio.create_task(run())
    await asyncio.sleep(0)
    return subscription.subscriber, collector, task


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_each_record_is_encoded_once_and_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    hub = make_hub()
    calls = []
    real = frames_module.update_frame

    def counting(*args: object) -> frames_module.Frame:
        frame = real(*args)  # type: ignore[arg-type]
        calls.append(frame)
        return frame

    monkeypatch.setattr(frames_module, "update_frame", counting)
    subs = [(await hub.subscribe(ACME)).subscriber for _ in range(50)]
    for i in range(3):
        hub.publish(formatted(f"a-{i}", i))
    assert len(calls) == 3
    for sub in subs:
        assert [item is frame for item, frame in zip(sub.pending, calls, strict=True)] == \
            [True] * 3


async def test_slow_client_is_cut_off_while_others_keep_receiving() -> None:
    hub = make_hub(client_buffer=8)
    stuck = asyncio.Event()

    async def never_done(data: bytes) -> None:
        await stuck.wait()

    slow = await hub.subscribe(ACME)
    slow_task = asyncio.create_task(hub.pump(slow.subscriber, never_done))
    fast = [await connect(hub) for _ in range(3)]
    for i in range(40):
        hub.publish(formatted(f"a-{i}", i))
        await settle()
    sub = slow.subscriber
    assert sub.ending is not None and b"event: overflow" in sub.ending
    assert not sub.pending  # what it had pending was dropped, not kept
    assert sub not in hub._subscribers()
    for _, collector, _ in fast:
        assert collector.events() == [f"a-{i}" for i in range(40)]
    stuck.set()
    await asyncio.wait_for(slow_task, 5)
    for _, _, task in fast:
        task.cancel()


async def test_a_stalled_ended_client_is_dropped_by_the_ticker() -> None:
    hub = make_hub(client_buffer=2, stall_s=0.05, heartbeat_s=0.02)
    ticker = asyncio.create_task(hub._tick())
    try:
        blocked = asyncio.Event()

        async def never_done(data: bytes) -> None:
            await blocked.wait()

        subscription = await hub.subscribe(ACME)
        sub = subscription.subscriber
        task = asyncio.create_task(hub.pump(sub, never_done))
        sub.task = task
        for i in range(5):
            hub.publish(formatted(f"a-{i}", i))
            await settle()
        await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 5)
        assert task.cancelled() and sub.dropped
    finally:
        ticker.cancel()


async def test_tenants_see_only_their_own_and_admins_see_all() -> None:
    hub = make_hub()
    _, acme, t1 = await connect(hub, StreamFilter("acme"))
    _, other, t2 = await connect(hub, StreamFilter("other"))
    _, admin, t3 = await connect(hub, StreamFilter(None))
    hub.publish(formatted("a-1", 0, tenant="acme"))
    hub.publish(formatted("o-1", 1, tenant="other"))
    await settle()
    assert acme.events() == ["a-1"]
    assert other.events() == ["o-1"]
    assert admin.events() == ["a-1", "o-1"]
    for task in (t1, t2, t3):
        task.cancel()


async def test_filters_and_included_failures() -> None:
    hub = make_hub()
    attach(hub, [("answers.rejected", 0), ("answers.scored.dlq", 0)])
    _, plain, t1 = await connect(hub, StreamFilter("acme"))
    _, failures, t2 = await connect(
        hub, StreamFilter("acme", frozenset({"formatted", "rejected", "dead_lettered"})))
    _, by_model, t3 = await connect(hub, StreamFilter("acme", model="other-model"))
    _, clean, t4 = await connect(hub, StreamFilter("acme", has_problems=True))
    hub.publish(formatted("a-1", 0))
    hub.publish(formatted("a-2", 1, model="other-model"))
    hub.publish(rejected("r-1", 0))
    hub.publish(dead_lettered("d-1", 0))
    await settle()
    assert plain.events() == ["a-1", "a-2"]
    assert sorted(failures.events()) == ["a-1", "a-2", "d-1", "r-1"]
    assert failures.events("rejected") == ["r-1"]
    assert failures.events("dead_lettered") == ["d-1"]
    assert by_model.events() == ["a-2"]
    # The records' own summaries decide (the same result twice: both or neither).
    summaries = [hub._recent[(a, "acme")].summary for a in ("a-1", "a-2")]
    assert clean.events() == [a for a, s in zip(("a-1", "a-2"), summaries, strict=True)
                              if s is not None and s.problems > 0]
    for task in (t1, t2, t3, t4):
        task.cancel()


async def test_duplicate_event_ids_are_delivered_once() -> None:
    hub = make_hub()
    _, collector, task = await connect(hub)
    hub.publish(formatted("a-1", 0, event_id="same"))
    hub.publish(formatted("a-1", 1, event_id="same"))  # an at-least-once retry
    hub.publish(formatted("a-1", 1, event_id="other"))  # the same offset read again
    await settle()
    assert collector.events() == ["a-1"]
    task.cancel()


async def test_garbage_last_event_id_is_an_error_then_a_fresh_start() -> None:
    hub = make_hub()
    hub.publish(formatted("old", 0))
    for garbage in ("garbage", "1.!!!", "1.////", "1." + "A" * 9000, "1.gA", ""):
        _, collector, task = await connect(hub, last_event_id=garbage)
        hub.publish(formatted(f"new-{len(garbage)}", hub.vector[FORMATTED] + 1))
        await settle()
        events = parse_events(collector.data.decode())
        if garbage:
            assert events[1].event == "error"
            assert events[1].json()["code"] == "bad_last_event_id"
        assert collector.events() == [f"new-{len(garbage)}"]  # from now, not "old"
        task.cancel()


async def test_too_old_last_event_id_is_an_error_then_a_fresh_start() -> None:
    hub = make_hub(max_behind=10)
    old = encode_position({FORMATTED: 0})
    for i in range(1, 30):
        hub.publish(formatted(f"a-{i}", i))
    _, collector, task = await connect(hub, last_event_id=old)
    hub.publish(formatted("new", 30))
    await settle()
    events = parse_events(collector.data.decode())
    assert events[1].event == "error" and events[1].json()["code"] == "last_event_id_too_old"
    assert collector.events() == ["new"]
    task.cancel()


async def test_made_up_ids_are_refused_before_their_age_is_told() -> None:
    """An unsealed id naming offset 0, far behind the hub, was read; and one past the limit
    said `last_event_id_too_old`, telling the partition's global offset. Every id the hub
    did not seal is `bad_last_event_id` and a fresh start, whatever it names."""
    hub = make_hub(max_behind=10)
    for i in range(1, 30):
        hub.publish(formatted(f"a-{i}", i))
    for made_up in (plain_id(0, 0, 1), plain_id(0, 0, 20), plain_id(0, 0, 29)):
        _, collector, task = await connect(hub, last_event_id=made_up)
        hub.publish(formatted(f"new-{made_up}", hub.vector[FORMATTED] + 1))
        await settle()
        events = parse_events(collector.data.decode())
        assert events[1].event == "error"
        assert events[1].json()["code"] == "bad_last_event_id"
        assert "offset" not in events[1].data and "records old" not in events[1].data
        assert collector.events() == [f"new-{made_up}"]
        task.cancel()


async def test_resume_from_the_ring_gets_the_rest_in_order_once() -> None:
    hub = make_hub()
    _, first, task = await connect(hub)
    for i in range(10):
        hub.publish(formatted(f"a-{i}", i))
    await settle()
    task.cancel()
    events = parse_events(first.data.decode())
    last_seen = [e for e in events if e.event == "formatted"][3]
    assert last_seen.json()["answer_id"] == "a-3"
    _, again, task = await connect(hub, last_event_id=last_seen.id)
    hub.publish(formatted("a-10", 10))
    await settle()
    assert again.events() == [f"a-{i}" for i in range(4, 11)]
    task.cancel()


async def test_resume_older_than_the_ring_comes_from_the_store_then_the_ring() -> None:
    store = SinceStore()
    hub = make_hub(store, ring_frames=5)
    _, first, task = await connect(hub)
    for i in range(20):
        message = formatted(f"a-{i}", i, tenant="acme" if i % 3 else "other")
        store.put(message)  # what the sink wrote
        hub.publish(message)
    await settle()
    task.cancel()
    acme = [f"a-{i}" for i in range(20) if i % 3]
    assert first.events() == acme
    second_id = [e.id for e in parse_events(first.data.decode()) if e.event == "formatted"][1]
    assert hub.ring.floor[FORMATTED] > decode_position(second_id)[FORMATTED]
    _, again, task = await connect(hub, last_event_id=second_id)
    hub.publish(formatted("a-20", 20))
    await settle()
    assert again.events() == acme[2:] + ["a-20"]
    # Every id it was given resumes exactly after its event.
    events = [e for e in parse_events(again.data.decode()) if e.event == "formatted"]
    for n, event in enumerate(events[:-1]):
        _, tail, t = await connect(hub, last_event_id=event.id)
        await settle()
        assert tail.events() == [e.json()["answer_id"] for e in events[n + 1:]]
        t.cancel()
    task.cancel()


async def test_store_down_during_a_resume_ends_the_stream_without_skipping() -> None:
    store = SinceStore()
    hub = make_hub(store, ring_frames=2)
    for i in range(6):
        hub.publish(formatted(f"a-{i}", i))
    store.down = True
    _, collector, task = await connect(hub, last_event_id=encode_position({FORMATTED: 0}))
    await asyncio.wait_for(task, 5)
    events = parse_events(collector.data.decode())
    assert [e.event for e in events] == ["status", "error"]
    assert events[-1].json()["code"] == "store_unavailable"
    assert "retry:" in collector.data.decode()


async def test_a_store_behind_the_ring_is_not_read_the_client_retries_later() -> None:
    store = SinceStore()
    needed_seen = []

    async def behind(needed: object) -> bool:
        needed_seen.append(needed)
        return False

    hub = Hub(RuntimeConfig(), store, HubLimits(ring_frames=2, sink_wait_s=0.3),  # type: ignore[arg-type]
              store_written=behind)
    attach(hub)
    for i in range(6):
        hub.publish(formatted(f"a-{i}", i))
    _, collector, task = await connect(hub, last_event_id=encode_position({FORMATTED: 0}))
    await asyncio.wait_for(task, 5)
    events = parse_events(collector.data.decode())
    assert [e.event for e in events] == ["status", "error"]
    assert events[-1].json()["code"] == "store_behind"
    assert needed_seen[0] == {FORMATTED: 3}  # the ring holds 4 and 5


async def test_disconnected_client_frees_its_queue() -> None:
    hub = make_hub()
    sub, _, task = await connect(hub)
    hub.publish(formatted("a-1", 0))
    sub.end(b"")  # what the endpoint's disconnect watcher does
    await asyncio.wait_for(task, 5)
    assert hub.clients == 0 and not sub.pending
    hub.publish(formatted("a-2", 1))
    assert not sub.pending


async def test_wait_for_resolves_on_the_outcome_and_times_out_otherwise() -> None:
    hub = make_hub()
    attach(hub, [("answers.rejected", 0)])
    waiting = asyncio.create_task(hub.wait_for("a-1", "acme", 5))
    rejected_wait = asyncio.create_task(hub.wait_for("r-1", "acme", 5))
    await settle()
    hub.publish(formatted("a-1", 0))
    hub.publish(rejected("r-1", 0))
    record = await waiting
    assert record is not None and record.status == "formatted" and record.result
    failed = await rejected_wait
    assert failed is not None and failed.status == "rejected"
    assert await hub.wait_for("never", "acme", 0.05) is None
    assert not hub._waiters
    again = await hub.wait_for("a-1", "acme", 0.05)  # passed recently: at once
    assert again is record


async def test_wait_for_matches_the_tenant_of_the_answer() -> None:
    """Answer ids are per tenant: a wait for one tenant's answer is neither ended nor
    answered by another tenant's outcome of the same answer_id, now or recently passed
    (their event ids differ: derived from bodies that carry the tenant)."""
    hub = make_hub()
    theirs = asyncio.create_task(hub.wait_for("same", "evil", 5))
    ours = asyncio.create_task(hub.wait_for("same", "acme", 5))
    await settle()
    hub.publish(formatted("same", 0, tenant="evil", event_id="fmt-evil"))
    await settle()
    assert not ours.done()
    found = await theirs
    assert found is not None and found.tenant == "evil"
    # evil's outcome passed recently: acme's wait does not take it.
    assert await hub.wait_for("same", "acme", 0.05) is None
    hub.publish(formatted("same", 1, tenant="acme", event_id="fmt-acme"))
    record = await ours
    assert record is not None and record.tenant == "acme"
    again = await hub.wait_for("same", "evil", 0)
    assert again is not None and again.tenant == "evil"


async def test_history_fills_the_ring_but_is_streamed_to_nobody() -> None:
    hub = Hub(RuntimeConfig(), SinceStore())  # type: ignore[arg-type]
    hub._on_partition(FORMATTED, -1, 3)  # offsets 0..2 are history
    _, collector, task = await connect(hub)
    for i in range(4):
        hub.publish(formatted(f"a-{i}", i))
    await settle()
    assert collector.events() == ["a-3"]
    assert [f.answer_id for f in hub.ring.frames] == ["a-0", "a-1", "a-2", "a-3"]
    task.cancel()


async def test_stop_ends_every_client_with_a_status_event() -> None:
    hub = make_hub()
    _, collector, task = await connect(hub)
    await hub.stop()
    await asyncio.wait_for(task, 5)
    assert parse_events(collector.data.decode())[-1].json()["state"] == "stopping"


async def test_a_partition_whose_log_began_again_is_followed() -> None:
    hub = make_hub()
    _, collector, task = await connect(hub)
    for i in range(3):
        hub.publish(formatted(f"old-{i}", i))
    hub._on_rewind(FORMATTED, 0)  # what the feed reports when the log was lost
    hub.publish(formatted("new-0", 0))
    await settle()
    assert collector.events() == ["old-0", "old-1", "old-2", "new-0"]
    assert [f.answer_id for f in hub.ring.frames] == ["new-0"]
    task.cancel()


async def test_a_backlog_is_written_in_pieces_not_one_buffer() -> None:
    hub = make_hub(client_buffer=100)
    sub = (await hub.subscribe(ACME)).subscriber
    for i in range(40):  # ~21 KB results: a backlog of about 850 KB
        hub.publish(formatted(f"a-{i}", i))
    collector = Collector()
    sizes: list[int] = []

    async def write(data: bytes) -> None:
        sizes.append(len(data))
        await collector.write(data)

    task = asyncio.create_task(hub.pump(sub, write))
    await settle()
    task.cancel()
    frame_size = len(hub.ring.frames[-1].wire)
    assert len(sizes) > 5 and max(sizes) < WRITE_CHUNK + frame_size
    assert collector.events() == [f"a-{i}" for i in range(40)]


async def test_partitions_the_hub_does_not_read_are_dropped_from_a_resume() -> None:
    store = SinceStore()
    hub = make_hub(store, ring_frames=1)
    for i in range(3):
        message = formatted(f"a-{i}", i)
        store.put(message)
        hub.publish(message)
    forged = encode_position({FORMATTED: 0, **{("answers.formatted", p): 5
                                               for p in range(1, 1000)}})
    subscription = await hub.subscribe(ACME, forged)
    assert subscription.store_from == {FORMATTED: 0}
    collector = Collector()
    await hub.catch_up(subscription, collector.write)
    assert collector.events() == ["a-1", "a-2"]


async def test_a_model_judges_opinion_is_streamed_once_to_the_answers_clients() -> None:
    from schemas.judged import AnswerJudged
    from services.runtime.stage import Message
    from tests.services.store import records

    def judged(answer_id: str, offset: int, tenant: str) -> Message:
        data = AnswerJudged(answer_id=answer_id, tenant=tenant, judge="openai:m",
                            scope="all", disagreements=1)
        value = records.event_bytes(data, answer_id, "2026-11-25T10:00:05.000Z",
                                    f"jdg-{answer_id}")
        return Message("answers.judged", value, answer_id.encode(), 0, offset)

    hub = make_hub()
    attach(hub, [("answers.judged", 0)])
    _, acme, t1 = await connect(hub, StreamFilter("acme"))
    _, other, t2 = await connect(hub, StreamFilter("other"))
    _, by_model, t3 = await connect(hub, StreamFilter("acme", model="gpt-x"))
    hub.publish(formatted("a-1", 0))
    hub.publish(judged("a-1", 0, "acme"))
    hub.publish(judged("a-1", 1, "acme"))  # an at-least-once duplicate
    await settle()
    events = [e for e in parse_events(acme.data.decode()) if e.event in ("formatted", "judged")]
    assert [e.event for e in events] == ["formatted", "judged"]
    body = events[1].json()
    assert body["judge"] == "openai:m" and body["disagreements"] == 1
    assert body["judgement"]["answer_id"] == "a-1" and events[1].id
    assert all(e.event not in ("formatted", "judged")
               for e in parse_events(other.data.decode()))
    assert [e.event for e in parse_events(by_model.data.decode())
            if e.event in ("formatted", "judged")] == ["formatted"]
    for task in (t1, t2, t3):
        task.cancel()
