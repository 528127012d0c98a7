"""LlamaIndex: `CiteflowQueryEngine` wraps a query engine; every query's response is
submitted as one citeflow answer (the response text, its `source_nodes` as sources in order,
so `[1]` is the first node) and the answer id is attached to the response's metadata
(`response.metadata["citeflow_answer_id"]`, and `citeflow_result`).

    engine = CiteflowQueryEngine(index.as_query_engine(), Client())
    response = engine.query("...")
    response.metadata["citeflow_answer_id"]
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeWithScore, QueryBundle

from citeflow.client import AsyncClient, Client
from citeflow.client.models import Accepted, Result
from citeflow.integrations.sources import sources_of

ANSWER_ID = "citeflow_answer_id"
RESULT = "citeflow_result"


def answer_of(query: str | None, text: str, nodes: Sequence[NodeWithScore],
              answer_id: str | None = None, metadata: Mapping[str, Any] | None = None,
              options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A response (its text and source nodes) as an `answer.submitted`."""
    answer: dict[str, Any] = {
        "answer_id": answer_id or f"li-{uuid.uuid4().hex}", "text": text,
        "sources": sources_of([(n.node.get_content(), n.node.metadata, n.score)
                               for n in nodes])}
    for name, value in (("query", query), ("metadata", dict(metadata or {}) or None),
                        ("options", dict(options) if options else None)):
        if value is not None:
            answer[name] = value
    return answer


def _attach(response: Any, answer_id: str, result: Accepted | Result) -> Any:
    if response.metadata is None:
        response.metadata = {}
    response.metadata[ANSWER_ID] = answer_id
    response.metadata[RESULT] = result
    return response


def _query_text(query: str | QueryBundle) -> str:
    return query.query_str if isinstance(query, QueryBundle) else query


class CiteflowQueryEngine:
    """A query engine (anything with `query`/`aquery` returning a Response) whose responses
    are verified by citeflow. Streaming responses are not submitted (no final text)."""

    def __init__(self, engine: Any, client: Client | None = None, *,
                 async_client: AsyncClient | None = None, wait: float | None = None,
                 metadata: Mapping[str, Any] | None = None,
                 options: Mapping[str, Any] | None = None) -> None:
        self.engine = engine
        self.client = client
        self.async_client = async_client
        self.wait = wait
        self.metadata = dict(metadata or {})
        self.options = options

    def query(self, query: str | QueryBundle) -> Any:
        response = self.engine.query(query)
        if not isinstance(response, Response) or response.response is None:
            return response
        answer = answer_of(_query_text(query), response.response, response.source_nodes,
                           metadata=self.metadata, options=self.options)
        client = self.client or Client()
        return _attach(response, answer["answer_id"], client.submit(answer, wait=self.wait))

    async def aquery(self, query: str | QueryBundle) -> Any:
        response = await self.engine.aquery(query)
        if not isinstance(response, Response) or response.response is None:
            return response
        answer = answer_of(_query_text(query), response.response, response.source_nodes,
                           metadata=self.metadata, options=self.options)
        client = self.async_client or AsyncClient()
        result = await client.submit(answer, wait=self.wait)
        return _attach(response, answer["answer_id"], result)
