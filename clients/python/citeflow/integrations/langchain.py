"""LangChain: `CiteflowCallbackHandler` watches a RAG chain run (the retrievers' documents,
the chat model's message, the chain's final answer) and submits it as one citeflow answer
when the outermost run ends. Documents become sources in retrieval order (so `[1]` in the
answer is the first document); a chat model message whose content blocks carry native
citation annotations goes through the gateway's LangChain provider adapter instead.

    handler = CiteflowCallbackHandler(Client())
    answer = chain.invoke(question, config={"callbacks": [handler]})
    handler.answer_id  # -> the citeflow answer id (handler.result: the 202 or the result)
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from citeflow.client import Client
from citeflow.client.errors import CiteflowError
from citeflow.client.models import Accepted, Result
from citeflow.integrations.sources import sources_of

QUESTION_KEYS = ("question", "query", "input")
ANSWER_KEYS = ("answer", "output", "result", "text")


def _text(value: Any, keys: Sequence[str]) -> str | None:
    """The text of a chain's input or output (a string, a message, or a dict holding one)."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        text = value.text  # a property (1.x, str-like) or a method (0.3)
        return str(text() if callable(text) and not isinstance(text, str) else text)
    if isinstance(value, Mapping):
        for key in keys:
            if key in value:
                return _text(value[key], keys)
    return None


def _cited_blocks(message: BaseMessage | None) -> bool:
    """Whether a message's content blocks carry native citation annotations."""
    if message is None:
        return False
    try:
        blocks: list[Any] = list(message.content_blocks)
    except (AttributeError, ValueError, TypeError):
        return False
    notes: list[Any] = [a for b in blocks if b.get("type") == "text"
                        for a in (b.get("annotations") or [])]
    return any(isinstance(a, Mapping) and a.get("type") == "citation" for a in notes)


class _Run:
    def __init__(self, question: str | None) -> None:
        self.question = question
        self.documents: list[Document] = []
        self.message: BaseMessage | None = None
        self.model: str | None = None


class CiteflowWarning(UserWarning):
    """A run the handler could not submit (the chain's own result is unaffected)."""


class CiteflowCallbackHandler(BaseCallbackHandler):
    """Submits every outermost chain run it sees as one answer. `answer_ids` maps each
    submitted run's id to its answer id; `answer_id` and `result` are the last run's (the
    result None when its submit was refused). A refused submit is warned of at once
    (`CiteflowWarning`), kept in `errors`, raised by the client's `wait(answer_id)`, and
    raised from the chain when `raise_error`."""

    def __init__(self, client: Client | None = None, *, wait: float | None = None,
                 metadata: Mapping[str, Any] | None = None,
                 options: Mapping[str, Any] | None = None,
                 answer_id: str | None = None, raise_error: bool = False) -> None:
        self.client = client or Client()
        self.wait = wait
        self.metadata = dict(metadata or {})
        self.options = dict(options) if options else None
        self.fixed_id = answer_id
        self.raise_error = raise_error
        self.answer_ids: dict[UUID, str] = {}
        self.answer_id: str | None = None
        self.result: Accepted | Result | None = None
        self.errors: list[CiteflowError] = []
        self._parents: dict[UUID, UUID | None] = {}
        self._runs: dict[UUID, _Run] = {}

    def _root(self, run_id: UUID) -> UUID:
        while (parent := self._parents.get(run_id)) is not None:
            run_id = parent
        return run_id

    def on_chain_start(self, serialized: dict[str, Any] | None, inputs: Any, *,
                       run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        self._parents[run_id] = parent_run_id
        if parent_run_id is None:
            self._runs[run_id] = _Run(_text(inputs, QUESTION_KEYS))

    def on_retriever_start(self, serialized: dict[str, Any] | None, query: str, *,
                           run_id: UUID, parent_run_id: UUID | None = None,
                           **kwargs: Any) -> None:
        self._parents[run_id] = parent_run_id
        root = self._runs.get(self._root(run_id))
        if root is not None and root.question is None:
            root.question = query

    def on_retriever_end(self, documents: Sequence[Document], *, run_id: UUID,
                         parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        root = self._runs.get(self._root(run_id))
        if root is not None:
            root.documents.extend(documents)

    def on_chat_model_start(self, serialized: dict[str, Any] | None,
                            messages: list[list[BaseMessage]], *, run_id: UUID,
                            parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        self._parents[run_id] = parent_run_id
        root = self._runs.get(self._root(run_id))
        params = kwargs.get("invocation_params") or {}
        if root is not None:
            root.model = (params.get("model") or params.get("model_name")
                          or params.get("_type") or root.model)

    def on_llm_start(self, serialized: dict[str, Any] | None, prompts: list[str], *,
                     run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        self._parents[run_id] = parent_run_id

    def on_llm_end(self, response: LLMResult, *, run_id: UUID,
                   parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        root = self._runs.get(self._root(run_id))
        generation = response.generations[0][0] if response.generations and \
            response.generations[0] else None
        if root is not None and isinstance(generation, ChatGeneration):
            root.message = generation.message

    def on_chain_end(self, outputs: Any, *, run_id: UUID,
                     parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        run = self._runs.pop(run_id, None) if parent_run_id is None else None
        if run is None:
            return
        self._forget(run_id)
        text = _text(outputs, ANSWER_KEYS) or (
            _text(run.message, ANSWER_KEYS) if run.message is not None else None)
        if text is None:
            return
        answer_id = self.fixed_id or f"lc-{uuid.uuid4().hex}"
        self.answer_id, self.result = answer_id, None
        try:
            self.result = self._submit(answer_id, run, text)
        except CiteflowError as exc:
            self.errors.append(exc)
            if self.raise_error:
                raise
            # Said at once, where the chain's caller sees it (the chain's own result stands);
            # `client.wait(handler.answer_id)` raises the same error.
            warnings.warn(f"citeflow did not take answer {answer_id}: {exc}", CiteflowWarning,
                          stacklevel=2)
            return
        self.answer_ids[run_id] = answer_id

    def on_chain_error(self, error: BaseException, *, run_id: UUID,
                       parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        if parent_run_id is None:
            self._runs.pop(run_id, None)
            self._forget(run_id)

    def _forget(self, root: UUID) -> None:
        for run in [r for r in self._parents if self._root(r) == root]:
            self._parents.pop(run, None)

    def _submit(self, answer_id: str, run: _Run, text: str) -> Accepted | Result:
        metadata = {**({"model": run.model} if run.model else {}), **self.metadata}
        if _cited_blocks(run.message):
            assert run.message is not None
            return self.client.submit_provider(
                "langchain", run.message.model_dump(mode="json"), answer_id=answer_id,
                query=run.question, options=self.options, metadata=metadata or None,
                wait=self.wait)
        answer: dict[str, Any] = {
            "answer_id": answer_id, "query": run.question, "text": text,
            "sources": sources_of([(d.page_content, d.metadata, d.metadata.get("score"))
                                   for d in run.documents])}
        if metadata:
            answer["metadata"] = metadata
        if self.options:
            answer["options"] = self.options
        return self.client.submit({k: v for k, v in answer.items() if v is not None},
                                  wait=self.wait)
