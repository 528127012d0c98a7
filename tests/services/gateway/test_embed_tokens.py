"""Embed tokens: a page embedding the component with a key gave every visitor and script
there the key's whole tenant. A token from `POST /v1/answers/{id}/embed-token` reads that
answer and the documents it cites, nothing else, and expires."""

from __future__ import annotations

import time

import orjson

from services.gateway import embed_tokens
from tests.services.gateway.conftest import Gw, answer, body

RESULT = orjson.dumps({"answer_id": "a-1", "text": "formatted", "sources": [
    {"index": 1, "doc_id": "book"}, {"index": 2, "url": "https://example.org/"}]})


async def _token(gw: Gw) -> str:
    for answer_id in ("a-1", "a-2"):
        r = await gw.client.post("/v1/answers", content=body(answer(answer_id)),
                                 headers=gw.auth())
        assert r.status_code == 202
    gw.store.finish("a-1", "formatted", RESULT)
    reader = await gw.key_for("acme", "read")
    r = await gw.client.post("/v1/answers/a-1/embed-token?ttl=600", headers=gw.auth(reader))
    assert r.status_code == 200, r.text
    issued = r.json()
    assert issued["documents"] == ["book"] and issued["answer_id"] == "a-1"
    assert r.headers["cache-control"] == "no-store"
    return str(issued["token"])


async def test_an_embed_token_reads_its_answer_and_nothing_else(gw: Gw) -> None:
    token = await _token(gw)
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth(token))
    assert r.status_code == 200 and r.content == RESULT
    assert r.headers["x-citeflow-tenant"] == "acme"
    for method, path in (("GET", "/v1/answers/a-2"), ("GET", "/v1/answers"),
                         ("GET", "/v1/stats"),
                         ("POST", "/v1/answers"), ("POST", "/v1/answers/a-1/embed-token")):
        r = await gw.client.request(method, path, headers=gw.auth(token),
                                    content=body(answer("a-3")) if method == "POST" else None)
        assert r.status_code == 403, (method, path, r.status_code)
        assert r.json()["code"] == "outside_embed_token"
    # The cited document's reader routes, and no other document's.
    grant = embed_tokens.verify(token)
    assert grant is not None
    assert grant.allows("GET", "/v1/documents/book/pages/1.png")
    assert grant.allows("GET", "/v1/documents/book/chapters/OPS/c1.xhtml")
    assert not grant.allows("GET", "/v1/documents/other/pages/1.png")
    assert not grant.allows("GET", "/v1/documents/book")  # its status: not the reader
    assert not grant.allows("GET", "/v1/documents/bookshelf/pages/1.png")


async def test_altered_expired_or_foreign_tokens_are_refused(gw: Gw) -> None:
    token = await _token(gw)
    body_text, seal = token[len(embed_tokens.PREFIX):].split(".")
    grant = orjson.loads(embed_tokens._unb64(body_text))
    grant["a"] = "a-2"  # the same seal over another answer
    altered = embed_tokens.PREFIX + embed_tokens._b64(orjson.dumps(grant)) + "." + seal
    r = await gw.client.get("/v1/answers/a-2", headers=gw.auth(altered))
    assert r.status_code == 401
    assert embed_tokens.verify(token) is not None
    assert embed_tokens.verify(token, now=time.time() + 601) is None
    other = await gw.key_for("globex", "read")
    r = await gw.client.post("/v1/answers/a-1/embed-token", headers=gw.auth(other))
    assert r.status_code == 404  # another tenant's answer: not found, as for reads
    reader = await gw.key_for("acme", "read")
    for ttl in ("0", "86401", "x"):
        r = await gw.client.post(f"/v1/answers/a-1/embed-token?ttl={ttl}",
                                 headers=gw.auth(reader))
        assert r.status_code == 400 and r.json()["path"] == "?ttl"
