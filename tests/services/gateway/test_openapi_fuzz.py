"""Property-based requests over the whole OpenAPI surface (schemathesis): no operation
answers 5xx for any input it generates, with a valid key and without one."""

from __future__ import annotations

import asyncio

import schemathesis
from hypothesis import HealthCheck, settings

from services.gateway.app import core_routes, create_app
from tests.services.gateway.conftest import SETTINGS
from tests.services.gateway.fakes import FakeHub, FakeProducer, FakeStore

_store = FakeStore()
_app = create_app(SETTINGS, store=_store, producer=FakeProducer(),  # type: ignore[arg-type]
                  hub=FakeHub(), routes=core_routes())
_, _KEY = asyncio.run(_store.create_key("acme", frozenset({"submit", "read"}),
                                        rate_per_s=1e6))
# The batch body is JSON Lines: text as far as generating it goes.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
schema = schemathesis.openapi.from_asgi("/openapi.json", _app)


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_5xx(case: schemathesis.Case) -> None:
    for headers in ({"Authorization": f"Bearer {_KEY}"}, {}):
        response = case.call(headers=headers)
        assert response.status_code < 500, (case.method, case.path, response.text[:300])
