"""Documents through the ingest stage process on a real broker: a reference in, sections and
chunks (or a clear rejection) out."""

from __future__ import annotations

import orjson
import pytest

from schemas.documents import DocumentSubmitted
from schemas.envelope import encode, headers_for, make_event
from services.runtime.dead_letters import Record
from tests.integration.conftest import Harness
from tests.services.ingest.documents.builders import build_pdf

pytestmark = pytest.mark.integration


def _submitted(doc_id: str, uri: str) -> Record:
    event = make_event(DocumentSubmitted(doc_id=doc_id, uri=uri), subject=doc_id,
                       source="test/upstream")
    return Record("documents.submitted", encode(event), doc_id.encode(), headers_for(event))


def test_documents_are_ingested_or_rejected_by_the_ingest_process(harness: Harness) -> None:
    store = harness.logs / "store"
    store.mkdir()
    (store / "paper.pdf").write_bytes(build_pdf([["Retrieval evidence on page one."],
                                                 ["Second page text."]]))
    (store / "fake.pdf").write_bytes(b"this is not a pdf")
    harness.create_topics(["ingest"])
    harness.start("ingest", CITEFLOW_DOCUMENT_STORE=str(store))
    harness.publish([_submitted("paper-1", "paper.pdf"), _submitted("fake-1", "fake.pdf"),
                     _submitted("escape-1", "../outside.pdf")])
    ingested = harness.wait_for_keys("documents.ingested", {"paper-1"})
    data = orjson.loads(ingested[0].value)["data"]
    assert [s["page"] for s in data["sections"]] == [1, 2]
    assert "Retrieval evidence" in data["sections"][0]["text"]
    assert data["chunks"] and all(c["doc_id"] == "paper-1" for c in data["chunks"])
    rejected = harness.wait_for_keys("documents.rejected", {"fake-1", "escape-1"})
    reasons = {r.key.decode(): orjson.loads(r.value)["data"] for r in rejected}
    assert all(reason["code"] and reason["message"] for reason in reasons.values())
