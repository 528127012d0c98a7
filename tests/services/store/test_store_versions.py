"""Earlier results kept when a recomputed one replaces them (`CITEFLOW_STORE_VERSIONS`), on
SQLite and on a real PostgreSQL server (`store_url`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest

from services.store.decode import decode_record
from services.store.sql import SqlStore
from services.store.versions import versions_kept
from tests.services.store import records as r

T0 = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _result(answer_id: str, n: int, text: str) -> object:
    """The `n`th computation of the answer's result (a --recompute replay: a new event id,
    a later time)."""
    data = r.answer(answer_id, tenant="acme")
    data["text"] = text
    return decode_record(r.formatted(data, _iso(T0 + timedelta(minutes=n)), offset=n,
                                     event_id=f"fmt-{answer_id}~r{n}"))


TEXTS = ("Paris is the capital of France [1].", "Paris is in France [1].",
         "France's capital is Paris [1].", "The capital is Paris [1].")


async def _versions(store: SqlStore, answer_id: str) -> list[tuple[str, str, str]]:
    return [(v.event_id, v.replaced_by, orjson.loads(v.result)["text"])
            for v in await store.versions(answer_id, "acme")]


async def test_replaced_results_are_kept_up_to_the_setting(store_url: str) -> None:
    store = SqlStore(store_url, versions=2)
    await store.migrate()
    try:
        await store.apply_batch([_result("v-1", 0, TEXTS[0])])
        assert await _versions(store, "v-1") == []
        await store.apply_batch([_result("v-1", 1, TEXTS[1])])
        assert await _versions(store, "v-1") == [("fmt-v-1~r0", "fmt-v-1~r1", TEXTS[0])]
        # Two recomputations in one batch: both replaced results kept, the oldest dropped
        # beyond two; the same batch again changes nothing.
        batch = [_result("v-1", 2, TEXTS[2]), _result("v-1", 3, TEXTS[3])]
        await store.apply_batch(batch)
        await store.apply_batch(batch)
        assert await _versions(store, "v-1") == [("fmt-v-1~r2", "fmt-v-1~r3", TEXTS[2]),
                                                 ("fmt-v-1~r1", "fmt-v-1~r2", TEXTS[1])]
        current = await store.get("v-1", "acme")
        assert current is not None and current.event_id == "fmt-v-1~r3"
        assert current.result is not None and orjson.loads(current.result)["text"] == TEXTS[3]
        # An older result arriving late replaces nothing, so it is no version either.
        await store.apply_batch([_result("v-1", 1, TEXTS[1])])
        assert len(await _versions(store, "v-1")) == 2
        # A new answer whose first results arrive in one batch keeps the replaced one too.
        await store.apply_batch([_result("v-2", 0, TEXTS[0]), _result("v-2", 1, TEXTS[1])])
        assert await _versions(store, "v-2") == [("fmt-v-2~r0", "fmt-v-2~r1", TEXTS[0])]
        assert await store.versions("v-2", "other") == []
    finally:
        await store.close()


async def test_by_default_only_the_current_result_is_kept(store: SqlStore) -> None:
    assert store.versions_kept == 0
    await store.apply_batch([_result("v-3", 0, TEXTS[0])])
    await store.apply_batch([_result("v-3", 1, TEXTS[1])])
    assert await store.versions("v-3", "acme") == []
    current = await store.get("v-3", "acme")
    assert current is not None and current.event_id == "fmt-v-3~r1"


def test_the_setting_is_a_count() -> None:
    assert versions_kept({}) == 0
    assert versions_kept({"CITEFLOW_STORE_VERSIONS": "5"}) == 5
    with pytest.raises(ValueError, match="CITEFLOW_STORE_VERSIONS='all'"):
        versions_kept({"CITEFLOW_STORE_VERSIONS": "all"})
