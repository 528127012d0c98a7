"""The document routes over a minimal app: upload, status, chapters with marks, images, page
images and highlight rectangles, per tenant, and clear errors for bad input."""

from __future__ import annotations

from pathlib import Path

import orjson
import pymupdf
import pytest
from starlette.testclient import TestClient

from services.ingest.documents.ingest import ingest_document
from tests.services.ingest.documents.builders import Chapter, EpubSpec, build_epub
from tests.services.gateway.documents.reader_app import ingested, make_app
from tests.conftest import CORPUS_DIR

CORPUS = CORPUS_DIR
A = {"Authorization": "Bearer key-a"}
B = {"Authorization": "Bearer key-b"}
needs_corpus = pytest.mark.usefixtures("corpus")


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path, max_document_bytes=2 * 1024 * 1024)


@pytest.fixture
def client(app):
    with TestClient(app) as client:
        yield client


def _upload(client, data: bytes, doc_id: str | None = None, headers=A, ready: bool = True):
    """Upload; `ready`: then mark it ingested, as the store sink would (content is served
    only once ingested)."""
    fields = {"doc_id": doc_id} if doc_id else {}
    response = client.post("/v1/documents", files={"file": ("doc.bin", data)}, data=fields,
                           headers=headers)
    if ready and response.status_code == 202:
        ingested(client.app, response.json()["doc_id"])
    return response


def _pdf(text_pages: list[str]) -> bytes:
    document = pymupdf.open()
    for text in text_pages:
        page = document.new_page()
        page.insert_text((72, 72), text)
    return document.tobytes()


def test_upload_stores_by_content_publishes_and_reports_status(app, client):
    data = _pdf(["Call me Ishmael."])
    response = _upload(client, data, "paper-1", ready=False)
    assert response.status_code == 202, response.text
    assert response.headers["location"] == "/v1/documents/paper-1"
    body = response.json()
    assert body["status"] == "submitted" and body["format"] == "pdf"
    submitted, tenant = app.state.reader.publisher.published[0]
    assert tenant == "a" and submitted.metadata == {"tenant": "a"}
    assert submitted.uri.startswith("store://sha256/")
    assert app.state.reader.store.read(submitted.uri) == data
    ingested(app, "paper-1")
    status = client.get("/v1/documents/paper-1", headers=A).json()
    assert status["status"] == "ingested" and status["sections"] == 1
    # The same bytes again: the same document, nothing published twice.
    assert _upload(client, data, "paper-1").status_code == 200
    assert len(app.state.reader.publisher.published) == 1


def test_an_upload_still_submitted_is_produced_again(app, client):
    data = _pdf(["x"])
    assert _upload(client, data, "again", ready=False).status_code == 202
    # Recorded, but say the broker never took it: the same upload produces it again.
    retry = _upload(client, data, "again", ready=False)
    assert retry.status_code == 202 and retry.json()["status"] == "submitted"
    published = app.state.reader.publisher.published
    assert [s.doc_id for s, _ in published] == ["again", "again"]
    assert published[0][0].uri == published[1][0].uri


def test_other_tenant_sees_nothing(client):
    _upload(client, _pdf(["x"]), "mine")
    assert client.get("/v1/documents/mine", headers=B).status_code == 404
    assert client.get("/v1/documents/mine/pages/1.png", headers=B).status_code == 404


def test_doc_ids_are_per_tenant(client):
    """A doc_id another tenant used was a 409 (an existence oracle, and a way to
    take a tenant's ids first); each tenant has its own now."""
    a = _upload(client, _pdf(["from a"]), "shared")
    b = _upload(client, _pdf(["from b"]), "shared", headers=B)
    assert (a.status_code, b.status_code) == (202, 202)
    assert a.json()["sha256"] != b.json()["sha256"]
    for headers, other in ((A, b), (B, a)):
        own = client.get("/v1/documents/shared", headers=headers).json()
        assert own["sha256"] != other.json()["sha256"]


@pytest.mark.parametrize("headers, status", [({}, 401), ({"Authorization": "Bearer no"}, 401)])
def test_keys_are_required(client, headers, status):
    assert client.get("/v1/documents/x", headers=headers).status_code == status


def test_reading_needs_the_read_scope(client):
    response = client.get("/v1/documents/x", headers={"Authorization": "Bearer key-submit-only"})
    assert response.status_code == 403


def test_bad_uploads_are_clear_problems(client, app):
    too_big = _upload(client, b"%PDF-" + b"0" * (2 * 1024 * 1024))
    assert too_big.status_code == 413
    assert too_big.headers["content-type"] == "application/problem+json"
    assert _upload(client, b"hello world").status_code == 415
    assert _upload(client, _pdf(["x"]), "bad id!").status_code == 400
    not_multipart = client.post("/v1/documents", content=b"%PDF-1.4", headers=A)
    assert not_multipart.status_code == 415
    empty = client.post("/v1/documents", files={"other": ("x", b"1")}, headers=A)
    assert empty.status_code == 400
    broken = client.post("/v1/documents", content=b"--zz\r\nbroken",
                         headers={**A, "Content-Type": "multipart/form-data; boundary=zz"})
    assert broken.status_code == 400
    # Nothing of the refused uploads is left behind.
    assert not list((app.state.reader.upload_dir).glob("*"))


def test_pdf_highlights_found_moved_and_absent(client):
    _upload(client, _pdf(["The first page says hello.", "Second page: a quoted passage."]),
            "two")
    found = client.get("/v1/documents/two/pages/2/highlights",
                       params={"exact": "a quoted passage"}, headers=A).json()
    assert found["found"] and found["rects"] and not found["moved"]
    moved = client.get("/v1/documents/two/pages/1/highlights",
                       params={"exact": "a quoted passage"}, headers=A).json()
    assert moved["found"] and moved["moved"] and list(moved["pages"]) == ["2"]
    assert moved["rects"] == [] and "page 2" in moved["note"]
    absent = client.get("/v1/documents/two/pages/1/highlights",
                        params={"exact": "not in this document at all"}, headers=A).json()
    assert not absent["found"] and absent["note"] == "passage not located on this page"
    assert client.get("/v1/documents/two/pages/9/highlights", params={"exact": "x"},
                      headers=A).status_code == 404
    assert client.get("/v1/documents/two/pages/1/highlights", headers=A).status_code == 400


def test_page_png_rendered_once_and_scale_checked(client, app):
    _upload(client, _pdf(["x"]), "one")
    first = client.get("/v1/documents/one/pages/1.png?scale=1", headers=A)
    assert first.status_code == 200 and first.content.startswith(b"\x89PNG")
    cached = list((app.state.reader.library.cache_dir).rglob("*.png"))
    assert len(cached) == 1
    assert client.get("/v1/documents/one/pages/1.png?scale=1", headers=A).content == first.content
    assert client.get("/v1/documents/one/pages/1.png?scale=99", headers=A).status_code == 400
    assert client.get("/v1/documents/one/pages/1.png?scale=x", headers=A).status_code == 400
    assert client.get("/v1/documents/one/pages/2.png", headers=A).status_code == 404


def _epub() -> bytes:
    return build_epub(EpubSpec(
        [Chapter("c1.xhtml", (
            '<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>One</h1>'
            '<p onclick="alert(1)">It was a <em>dark and</em> stormy ﬁ\u00adnal night.</p>'
            '<img src="pic.png" alt="a picture"/><script>alert(2)</script></body></html>')),
         Chapter("c2.xhtml",
                 '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Two.</p></body></html>')],
        opf_dir="OPS",
        extra_manifest=[("img", "pic.png", "image/png"), ("svg", "pic.svg", "image/svg+xml")],
        extra_files={"OPS/pic.png": b"\x89PNG\r\n\x1a\nfake",
                     "OPS/pic.svg": b"<svg onload='alert(1)'/>"},
    ))


def test_chapter_marked_across_elements_ligatures_and_soft_hyphens(client):
    _upload(client, _epub(), "book")
    response = client.get("/v1/documents/book/chapters/OPS/c1.xhtml",
                          params={"exact": "a dark and stormy final", "prefix": "It was "},
                          headers=A)
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["highlight"]["found"] and view["highlight"]["marks"] == 3
    assert view["next_href"] == "OPS/c2.xhtml" and view["prev_href"] is None
    html = view["html"]
    assert "<script" not in html and "onclick" not in html and "alert(2)" not in html
    assert 'data-citeflow-src="/v1/documents/book/resources/OPS/pic.png"' in html
    assert " src=" not in html
    plain = client.get("/v1/documents/book/chapters/OPS/c1.xhtml", headers=A).json()
    assert plain["highlight"] is None and "<mark" not in plain["html"]
    absent = client.get("/v1/documents/book/chapters/OPS/c1.xhtml",
                        params={"exact": "never written"}, headers=A).json()
    assert not absent["highlight"]["found"] and "<mark" not in absent["html"]
    for bad in ("OPS/../META-INF/container.xml", "OPS/pic.png", "nope.xhtml"):
        assert client.get(f"/v1/documents/book/chapters/{bad}", headers=A).status_code in (
            404, 422)


def test_resources_serve_raster_images_only(client):
    _upload(client, _epub(), "book")
    image = client.get("/v1/documents/book/resources/OPS/pic.png", headers=A)
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.headers["x-content-type-options"] == "nosniff"
    for name in ("OPS/pic.svg", "OPS/c1.xhtml", "META-INF/container.xml", "../x.png"):
        assert client.get(f"/v1/documents/book/resources/{name}", headers=A).status_code == 404


def test_selector_from_a_stored_answer(client, app):
    _upload(client, _epub(), "book")
    selector = {"type": "TextQuoteSelector", "exact": "stormy", "prefix": "dark and ",
                "suffix": " final"}
    locator = {"type": "epub_text", "href": "OPS/c1.xhtml", "selector": selector}
    result = {"answer_id": "ans-1", "links": [
        {"citation_id": 1, "sentence_index": 0, "doc_id": "book", "locator": locator}],
        "answer_units": {"units": [{"id": "S1", "source_spans": [
            {"doc_id": "book", "locator": locator}]}]}}
    app.state.gateway.store.add_answer(orjson.dumps(result))
    url = "/v1/documents/book/chapters/OPS/c1.xhtml"
    by_citation = client.get(url, params={"answer_id": "ans-1", "citation_id": 1}, headers=A)
    assert by_citation.json()["highlight"]["found"]
    assert "<mark data-citeflow-highlight>stormy</mark>" in by_citation.json()["html"] or \
        '<mark data-citeflow-highlight="">stormy</mark>' in by_citation.json()["html"]
    by_unit = client.get(url, params={"answer_id": "ans-1", "unit_id": "S1"}, headers=A)
    assert by_unit.json()["highlight"]["found"]
    assert client.get(url, params={"answer_id": "ans-1", "citation_id": 7},
                      headers=A).status_code == 404
    assert client.get(url, params={"answer_id": "ans-1", "citation_id": "x"},
                      headers=A).status_code == 400
    assert client.get(url, params={"answer_id": "ans-1", "citation_id": 1},
                      headers=B).status_code == 404


@needs_corpus
def test_corpus_pdf_rectangles_are_the_words_pymupdf_finds(client):
    data = (CORPUS / "pdf" / "tracemonkey.pdf").read_bytes()
    _upload(client, data, "tm")
    text = ingest_document(data, "tm").sections[2].text
    exact = "Finally, the LIR records guards"
    view = client.get("/v1/documents/tm/pages/3/highlights", params={"exact": exact},
                      headers=A).json()
    expected = pymupdf.open(stream=data)[2].search_for(exact)
    assert exact in text and view["found"] and len(view["rects"]) == len(expected) == 1
    for got, want in zip(view["rects"], expected, strict=True):
        assert all(abs(g - w) < 1.5 for g, w in zip(got, want, strict=True)), (got, want)


@needs_corpus
def test_corpus_scanned_page_says_page_only(client):
    _upload(client, (CORPUS / "pdf" / "c02-22.pdf").read_bytes(), "scan")
    view = client.get("/v1/documents/scan/pages/1/highlights", params={"exact": "Tom"},
                      headers=A).json()
    assert not view["found"] and view["note"] == "page only, no text layer"
    assert not view["has_text_layer"]


def test_a_wrong_chapter_hint_says_where_the_quote_is(client):
    _upload(client, _epub(), "book")
    wrong = client.get("/v1/documents/book/chapters/OPS/c2.xhtml",
                       params={"exact": "stormy final night"}, headers=A).json()["highlight"]
    assert not wrong["found"] and wrong["found_in"] == "OPS/c1.xhtml"
    assert wrong["note"] == "passage found in OPS/c1.xhtml, not in this chapter"
    nowhere = client.get("/v1/documents/book/chapters/OPS/c2.xhtml",
                         params={"exact": "in no chapter at all"}, headers=A).json()
    assert nowhere["highlight"]["found_in"] is None


def test_the_limit_holds_for_a_streamed_body_without_a_length(client, app):
    boundary = "zzz"
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"'
            "\r\n\r\n%PDF-").encode()
    def body():
        yield head
        for _ in range(64):  # 4 MiB in all, twice the limit, chunked: no Content-Length
            yield b"0" * 65536

    response = client.post("/v1/documents", content=body(), headers={
        **A, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert response.status_code == 413
    assert not list(app.state.reader.upload_dir.glob("*"))


def test_a_stored_epub_that_is_not_one_is_refused_not_a_server_error(client):
    # Stored under the EPUB magic bytes before ingest read it (found by schemathesis).
    response = _upload(client, b"PK\x03\x04" + b"\x00" * 200, "broken")
    assert response.status_code < 300, response.text
    for path in ("resources/OPS/pic.png", "chapters/OPS/c1.xhtml"):
        refused = client.get(f"/v1/documents/broken/{path}", headers=A)
        assert refused.status_code == 422, (path, refused.text)
        assert refused.json()["code"] == "not_a_zip"


def test_content_is_served_only_once_ingested_and_outcomes_say_so(app, client):
    """The reader served documents whatever their status, and a document ingest
    dead-lettered stayed `submitted`."""
    from dataclasses import replace

    assert _upload(client, _pdf(["x"]), "early", ready=False).status_code == 202
    early = client.get("/v1/documents/early/pages/1.png", headers=A)
    assert early.status_code == 409 and early.json()["code"] == "document_submitted"
    assert early.headers["retry-after"] == "2"
    store = app.state.gateway.store
    for status, code in (("dead_lettered", "document_dead_lettered"),
                         ("rejected", "document_rejected")):
        key = store.key_of("early")
        store.documents[key] = replace(store.documents[key], status=status,
                                           reason="MessageSizeTooLargeError")
        refused = client.get("/v1/documents/early/pages/1/highlights?exact=x", headers=A)
        assert refused.status_code == 409 and refused.json()["code"] == code
        assert refused.json()["reason"] == "MessageSizeTooLargeError"
        assert client.get("/v1/documents/early", headers=A).json()["status"] == status


@pytest.mark.parametrize("doc_id", [".", "..", "..."])
def test_doc_ids_of_only_dots_are_refused(client, doc_id):
    response = _upload(client, _pdf(["x"]), doc_id)
    assert response.status_code == 400 and response.json()["code"] == "invalid_parameter"


def test_cache_headers_keep_nothing_past_a_revoked_key(client):
    _upload(client, _pdf(["x"]), "cached")
    assert client.get("/v1/documents/cached", headers=A).headers["cache-control"] == "no-store"
    page = client.get("/v1/documents/cached/pages/1.png", headers=A)
    assert page.headers["cache-control"] == "private, no-cache"
    etag = page.headers["etag"]
    again = client.get("/v1/documents/cached/pages/1.png",
                       headers={**A, "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    # Revalidation is authorised like any request: without a valid key, nothing.
    assert client.get("/v1/documents/cached/pages/1.png",
                      headers={"Authorization": "Bearer revoked", "If-None-Match": etag}
                      ).status_code == 401


def test_an_atoms_evidence_is_opened_from_a_stored_answer(client, app):
    _upload(client, _epub(), "book")
    locator = {"type": "epub_text", "href": "OPS/c1.xhtml", "selector": {
        "type": "TextQuoteSelector", "exact": "stormy", "prefix": "dark and ", "suffix": ""}}
    other = {"type": "epub_text", "href": "OPS/c2.xhtml", "selector": {
        "type": "TextQuoteSelector", "exact": "Two.", "prefix": "", "suffix": ""}}
    atoms = [{"text": "a", "start": 0, "end": 1, "verdict": "supported", "link": 0},
             {"text": "b", "start": 2, "end": 3, "verdict": "supported",
              "evidence": {"doc_id": "book", "locator": other}},
             {"text": "c", "start": 4, "end": 5, "verdict": "unsupported"}]
    result = {"answer_id": "ans-2", "links": [
        {"citation_id": 1, "sentence_index": 0, "doc_id": "book", "locator": locator}],
        "citations": [{"id": 1, "sentence_index": 0, "support": {"atoms": atoms}}]}
    app.state.gateway.store.add_answer(orjson.dumps(result))
    query = {"answer_id": "ans-2", "citation_id": 1, "sentence_index": 0}
    first = client.get("/v1/documents/book/chapters/OPS/c1.xhtml",
                       params={**query, "atom": 0}, headers=A).json()
    assert first["highlight"]["found"] and ">stormy</mark>" in first["html"]
    second = client.get("/v1/documents/book/chapters/OPS/c2.xhtml",
                        params={**query, "atom": 1}, headers=A).json()
    assert second["highlight"]["found"] and ">Two.</mark>" in second["html"]
    for atom in (2, 3, -1):  # no evidence, no such atom
        assert client.get("/v1/documents/book/chapters/OPS/c2.xhtml",
                          params={**query, "atom": atom}, headers=A).status_code == 404


def test_the_chapter_shows_bidi_controls_and_writes_marks_as_references(client):
    book = build_epub(EpubSpec([Chapter("c1.xhtml", (
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Evil \u202etxt.exe</title>'
        '</head><body><p title="a\u202eb">Open \u202egnp.exe\u202c or \u2066x\u2069 now'
        '\u200f\u061c.</p></body></html>'))], opf_dir="OPS"))
    _upload(client, book, "bidi")
    view = client.get("/v1/documents/bidi/chapters/OPS/c1.xhtml",
                      params={"exact": "gnp.exe"}, headers=A).json()
    html = view["html"]
    assert view["highlight"]["found"]
    assert not any(ch in html for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068"
                   "\u2069\u200e\u200f\u061c")
    assert "Open \u27e8U+202E\u27e9<mark" in html and "\u27e8U+2066\u27e9x\u27e8U+2069\u27e9" in html
    assert "&#x200f;&#x61c;" in html
    assert "\u202e" not in (view["title"] or "")
