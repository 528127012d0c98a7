"""LangChain and LlamaIndex over a real gateway (the five stages, the store sink, SQLite and
PostgreSQL): a RAG chain over the corpus's real documents, with each framework's fake model
and in-memory vector store, is submitted by the hook as one answer whose every citation is
valid and linked to the passage it quotes; its sources carry the loaders' hints (document
id, EPUB href, 1-based PDF page)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from citeflow.client import Client
from tests.citeflow.rag import QUESTION, answer_over, check_linked, passages
from tests.citeflow.test_client_gateway import _key
from tests.conftest import CORPUS_DIR
from tests.integration.conftest import WAIT_S, Harness
from tests.integration.test_gateway_pipeline import Gateway, pipeline  # noqa: F401

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason="no test corpus")]


def _langchain(client: Client) -> tuple[str, Any]:
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore

    from citeflow.integrations.langchain import CiteflowCallbackHandler

    store = InMemoryVectorStore.from_documents(
        [Document(text, metadata=metadata) for text, metadata in passages()],
        DeterministicFakeEmbedding(size=64))
    retriever = store.as_retriever(search_kwargs={"k": 2})
    retrieved = [d.page_content for d in retriever.invoke(QUESTION)]
    model = FakeListChatModel(responses=[answer_over(retrieved)])
    prompt = ChatPromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}")
    chain = ({"context": retriever | (lambda docs: "\n".join(d.page_content for d in docs)),
              "question": RunnablePassthrough()} | prompt | model | StrOutputParser())
    handler = CiteflowCallbackHandler(client, raise_error=True)
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    assert handler.answer_id is not None and not handler.errors
    return handler.answer_id, retrieved


def _llamaindex(client: Client) -> tuple[str, Any]:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.base.llms.types import CompletionResponse
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.schema import TextNode

    from citeflow.integrations.llamaindex import ANSWER_ID, CiteflowQueryEngine

    class CannedLLM(MockLLM):  # the fake model, answering what the test wrote
        answer: str = ""

        def complete(self, prompt: str, formatted: bool = False,
                     **kwargs: Any) -> CompletionResponse:
            return CompletionResponse(text=self.answer)

    nodes = [TextNode(text=text, metadata=metadata) for text, metadata in passages()]
    index = VectorStoreIndex(nodes, embed_model=MockEmbedding(embed_dim=16))
    retrieved = [n.node.get_content() for n in
                 index.as_retriever(similarity_top_k=2).retrieve(QUESTION)]
    llm = CannedLLM()
    llm.answer = answer_over(retrieved)
    engine = CiteflowQueryEngine(index.as_query_engine(llm=llm, similarity_top_k=2), client)
    response = engine.query(QUESTION)
    assert response.response == llm.answer
    return response.metadata[ANSWER_ID], retrieved


@pytest.mark.parametrize("framework", ["langchain", "llamaindex"])
def test_a_rag_chain_gains_verification(harness: Harness, pipeline: str,  # noqa: F811
                                        framework: str) -> None:
    gateway = Gateway(harness, pipeline)
    gateway.start()
    with Client(gateway.url, asyncio.run(_key(pipeline))) as client:
        answer_id, retrieved = (_langchain if framework == "langchain" else _llamaindex)(client)
        result = client.wait(answer_id, WAIT_S)
        check_linked(result, len(retrieved))
        assert result.query == QUESTION
        by_text = {text: metadata for text, metadata in passages()}
        for source, text in zip(sorted(result.sources, key=lambda s: s.index), retrieved,
                                strict=True):
            assert source.doc_id == by_text[text]["doc_id"]
        for link in result.links:
            hint = by_text[retrieved[link.source_index - 1]]
            assert link.doc_id == hint["doc_id"]
            if "page" in hint:  # a 0-based loader page became the 1-based page
                assert link.locator.page == hint["page"] + 1
            if "href" in hint:
                assert link.locator.href == hint["href"]
