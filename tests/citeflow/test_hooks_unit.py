"""The framework hooks' mapping, without a gateway (scripted HTTP): loader metadata become
source hints (1-based pages, hrefs, offsets, web URLs), a chain whose model gives native
citation annotations goes through the gateway's LangChain provider route, submit errors are
said at once and raised by `wait` rather than breaking the user's chain."""

from __future__ import annotations

import httpx
import orjson
import pytest

from citeflow.client import CiteflowError, Client
from citeflow.integrations.langchain import CiteflowWarning
from citeflow.integrations.sources import sources_of

ACCEPTED = {"answer_id": "x", "event_id": "e", "status": "submitted", "location": "/v1/x"}


def _client(seen: list[httpx.Request], status: int = 202,
            code: str = "invalid_answer") -> Client:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if status != 202:
            return httpx.Response(status, json={"status": status, "code": code,
                                                "detail": "no"})
        return httpx.Response(202, json=ACCEPTED)

    return Client("http://gw", "k", transport=httpx.MockTransport(handle))


def test_loader_metadata_become_source_hints() -> None:
    sources = sources_of([
        ("a", {"source": "/x/book.pdf", "page": 0, "start_index": 12}, 0.5),
        ("b", {"file_name": "paper.pdf", "page_label": "7"}, None),
        ("c", {"source": "https://example.org/a?b", "title": "A page"}, None),
        ("d", {"source": "/x/moby.epub", "doc_id": "moby", "href": "OPS/c1.xhtml"}, None),
        ("a", {"source": "/x/book.pdf", "page": 0, "start_index": 12}, 0.5),
    ])
    assert [s["index"] for s in sources] == [1, 2, 3, 4]  # the repeated passage once
    assert sources[0]["chunks"] == [{"text": "a", "page": 1, "start_char": 12}]
    assert sources[0]["format"] == "pdf" and sources[0]["title"] == "book.pdf"
    assert sources[0]["score"] == 0.5
    assert sources[1]["chunks"][0]["page"] == 7
    assert sources[2]["kind"] == "web" and sources[2]["url"] == "https://example.org/a?b"
    assert sources[3]["doc_id"] == "moby" and sources[3]["format"] == "epub"
    assert sources[3]["chunks"][0]["href"] == "OPS/c1.xhtml"


def test_native_citations_go_through_the_langchain_provider_route() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from citeflow.integrations.langchain import CiteflowCallbackHandler

    message = AIMessage(content=[{
        "type": "text", "text": "Whales are mammals.",
        "annotations": [{"type": "citation", "url": "https://example.org/whales",
                         "title": "Whales", "start_index": 0, "end_index": 18,
                         "cited_text": "Whales are mammals"}]}])
    model = GenericFakeChatModel(messages=iter([message]))
    seen: list[httpx.Request] = []
    handler = CiteflowCallbackHandler(_client(seen), answer_id="native-1")
    (model | (lambda m: m)).invoke("whales?", config={"callbacks": [handler]})
    assert [r.url.path for r in seen] == ["/v1/providers/langchain/answers"]
    body = orjson.loads(seen[0].content)
    assert body["answer_id"] == "native-1" and body["query"] == "whales?"
    annotations = [a for b in body["response"]["content"] for a in b.get("annotations", [])]
    assert annotations[0]["url"] == "https://example.org/whales"
    assert handler.answer_id == "native-1"


def test_a_refused_submit_is_kept_not_raised() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser

    from citeflow.integrations.langchain import CiteflowCallbackHandler

    seen: list[httpx.Request] = []
    handler = CiteflowCallbackHandler(_client(seen, status=422))
    chain = FakeListChatModel(responses=["An answer [1]."]) | StrOutputParser()
    with pytest.warns(CiteflowWarning, match="fix the field"):
        assert chain.invoke("q", config={"callbacks": [handler]}) == "An answer [1]."
    assert len(handler.errors) == 1 and handler.errors[0].status == 422
    assert handler.answer_id and handler.result is None and not handler.answer_ids


def test_a_conflicting_resubmit_is_said_at_once_and_raised_by_wait() -> None:
    """The README's snippet run again with one word changed: same answer_id, another body."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser

    from citeflow.integrations.langchain import CiteflowCallbackHandler

    seen: list[httpx.Request] = []
    client = _client(seen, status=409, code="answer_id_conflict")
    handler = CiteflowCallbackHandler(client, answer_id="quickstart-rag")
    chain = FakeListChatModel(responses=["Another answer [1]."]) | StrOutputParser()
    with pytest.warns(CiteflowWarning, match="quickstart-rag.*answer_id_conflict.*new answer_id"):
        chain.invoke("q", config={"callbacks": [handler]})
    with pytest.raises(CiteflowError) as raised:
        client.wait(handler.answer_id, timeout=60)
    assert raised.value.status == 409 and raised.value.code == "answer_id_conflict"
    assert "new answer_id" in str(raised.value)
    assert [r.method for r in seen] == ["POST"]  # no polling for an answer not coming
    with pytest.raises(CiteflowError, match="no_answer_id"):
        client.wait(None, timeout=60)  # type: ignore[arg-type]


def test_each_common_loader_s_metadata_is_read_its_own_way() -> None:
    """The metadata as each loader writes it (its own keys, its own format values)."""
    loaders = {
        # LangChain PyMuPDFLoader: the PDF version in `format`, 0-based `page`, `file_path`
        "pymupdf": {"source": "/x/paper.pdf", "file_path": "/x/paper.pdf", "page": 2,
                    "total_pages": 9, "format": "PDF 1.6", "title": "", "author": "A"},
        # LangChain PyPDFLoader: `page_label` beside the 0-based `page`
        "pypdf": {"source": "/x/paper.pdf", "page": 2, "page_label": "3", "total_pages": 9},
        # LlamaIndex SimpleDirectoryReader: `file_type` a MIME type, `page_label`
        "llamaindex": {"file_path": "/x/moby.epub", "file_name": "moby.epub",
                       "file_type": "application/epub+zip", "file_size": 1},
        # Unstructured: `filetype` a MIME type, `filename`, 1-based `page_number`
        "unstructured": {"filename": "report", "filetype": "application/pdf",
                         "page_number": 3, "category": "NarrativeText"},
        # LangChain WebBaseLoader: the page's url in `source`
        "web": {"source": "https://example.org/a", "title": "A", "language": "en"},
        # a loader's format citeflow does not read, on a file name it does
        "other": {"source": "/x/notes.md", "format": "Markdown 1.0"},
    }
    sources = sources_of([(name, metadata, None) for name, metadata in loaders.items()])
    got = {s["chunks"][0]["text"]: (s.get("format"), s["chunks"][0].get("page"), s["title"])
           for s in sources}
    assert got == {"pymupdf": ("pdf", 3, "paper.pdf"), "pypdf": ("pdf", 3, "paper.pdf"),
                   "llamaindex": ("epub", None, "moby.epub"),
                   "unstructured": ("pdf", 3, "report"), "web": (None, None, "A"),
                   "other": ("text", None, "notes.md")}
    assert [s["kind"] for s in sources] == ["document"] * 4 + ["web", "document"]
