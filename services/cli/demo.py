"""The read side under `citeflow up`: the store migrated before anything writes it, the
gateway as a supervised process, and the demo: a few hours of history in the store, a key
for the `demo` tenant, the demo answer submitted over HTTP with `?wait=`, its result and the
URLs a person opens next."""

from __future__ import annotations

import asyncio
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import orjson
from rich.console import Console

from services.runtime.supervisor import Child

err = Console(stderr=True)
DEMO_TENANT = "demo"
DEMO_SCOPES = frozenset({"submit", "read", "stream", "ops"})  # ops: the dashboard's pipeline panel
READY_TIMEOUT_S = 60.0


def migrate_store() -> str:
    """Bring the results store (CITEFLOW_STORE_URL or the SQLite file) to the newest schema
    once, before the sink and the gateway start; returns its URL, password masked."""
    from services.store.api import StoreUnavailable
    from services.store.engine import STORE_URL_ENV, shown_url, store_url
    from services.store.sql import SqlStore

    async def go() -> None:
        store = SqlStore()
        try:
            await store.migrate()
        finally:
            await store.close()

    try:
        asyncio.run(go())
    except StoreUnavailable as exc:
        raise click.ClickException(f"{STORE_URL_ENV}={shown_url(store_url())}: {exc}") from None
    return shown_url(store_url())


def seed_history(now: datetime | None = None) -> int:
    """Write the demo's history (services.examples.history) into the results store: each
    answer through the five stages in-process, stored with the times it is dated (spread over
    the last hours), so the dashboard's charts have shape from the start. Returns how many
    answers were written."""
    from schemas.answers import AnswerRejected
    from schemas.formatted import AnswerFormatted
    from services.examples.history import history
    from services.pipeline import process_answer
    from services.store.api import Position, ResultUpdate
    from services.store.sql import SqlStore
    from services.store.summary import summarize

    now = now or datetime.now(UTC)
    answers, rejected = history(now, now.strftime("%Y%m%d%H%M"))
    updates = []
    for n, entry in enumerate([*answers, *rejected]):
        result = process_answer(orjson.dumps(entry.answer), event_id=f"demo-history-{n}")
        answer_id = entry.answer["answer_id"]
        common = {"answer_id": answer_id, "tenant": DEMO_TENANT, "model": entry.model,
                  "event_id": f"demo-history:{answer_id}", "submitted_at": entry.submitted_at,
                  "event_time": entry.submitted_at + timedelta(seconds=entry.latency_s),
                  "position": Position("demo.history", 0, n)}
        if isinstance(result, AnswerFormatted):
            data = orjson.loads(result.model_dump_json())
            updates.append(ResultUpdate(status="formatted", result=orjson.dumps(data),
                                        summary=summarize(data), **common))
        elif isinstance(result, AnswerRejected):
            updates.append(ResultUpdate(status="rejected", reason=result.code, detail={
                "code": result.code, "message": result.message, "path": result.path},
                **common))

    async def go() -> None:
        store = SqlStore()
        try:
            await store.apply(updates)
        finally:
            await store.close()

    asyncio.run(go())
    return len(updates)


def seed_history_once(now: datetime | None = None) -> int | None:
    """`seed_history` unless the store already holds a demo history (from an earlier `make
    run`): the answers written, or None when it was there."""
    from services.examples.history import HISTORY_PREFIX, MODELS
    from services.store.api import AnswerQuery
    from services.store.sql import SqlStore

    async def seeded() -> bool:
        store = SqlStore()
        try:
            page = await store.query(AnswerQuery(tenant=DEMO_TENANT, model=MODELS[0],
                                                 limit=50))
        finally:
            await store.close()
        return any(item.answer_id.startswith(HISTORY_PREFIX) for item in page.items)

    return None if asyncio.run(seeded()) else seed_history(now)


def gateway_child(env: dict[str, str], host: str, port: int, log_path: Path) -> Child:
    """`citeflow serve` as a supervised child of `citeflow up`."""
    argv = [sys.executable, "-m", "services.cli", "serve", "--host", host, "--port", str(port)]
    return Child("gateway", 0, env, log_path, argv=argv)


def demo_key(saved: Path) -> tuple[str, bool]:
    """The demo tenant's key (submit, read, stream, ops): the one saved at `saved` by an
    earlier run while the store still holds it live for that tenant, else a new one, saved
    there (owner-only). Returns (secret, whether it was reused)."""
    from services.store.sql import SqlStore

    try:
        secret: str | None = saved.read_text().strip() or None
    except OSError:  # none saved yet (or unreadable: a new one replaces it)
        secret = None

    async def go() -> tuple[str, bool]:
        store = SqlStore()
        try:
            known = await store.verify_key(secret) if secret else None
            if secret and known is not None and known.tenant == DEMO_TENANT \
                    and DEMO_SCOPES <= known.scopes:
                return secret, True
            _key, fresh = await store.create_key(DEMO_TENANT, DEMO_SCOPES, name="citeflow up")
            return fresh, False
        finally:
            await store.close()

    found, reused = asyncio.run(go())
    if not reused:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.touch(mode=0o600)
        saved.chmod(0o600)
        saved.write_text(found + "\n")
    return found, reused


def wait_ready(base: str, timeout: float = READY_TIMEOUT_S) -> bool:
    """Poll `/readyz` until the gateway reaches its broker and store."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/readyz", timeout=2) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    return False


def _post(url: str, key: str, body: bytes, timeout: float) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, orjson.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, orjson.loads(exc.read() or b"{}")


def _line(text: str) -> None:
    """One unwrapped line on stderr (URLs and keys must survive copy and paste)."""
    click.echo(text, err=True)


def print_access(base: str, key: str, sample_id: str | None = None) -> None:
    """The URL, a ready curl line with the key, and the pages."""
    _line(f"gateway on {base}  (API docs: {base}/docs)")
    _line(f"demo key (tenant {DEMO_TENANT}): {key}")
    target = f"/v1/answers/{sample_id}" if sample_id else "/v1/answers"
    _line(f"try:  curl -H 'Authorization: Bearer {key}' {base}{target}")
    _line(f"dashboard:  {base}/dashboard#key={key}")


def submit_demo(base: str, key: str, lines: list[str], wait_s: float = 60.0) -> None:
    """POST each demo answer with `?wait=` and print its result: a readable summary and the
    viewer URL on stderr, and the formatted data as JSON on stdout when it is not a
    terminal."""
    from services.cli.summary import summary
    from services.gateway.documents.demo import upload_demo_documents

    # The EPUB and PDF the demo cites, built from its sources and ingested first, so every
    # chip of the demo lands on a real highlight in the viewer.
    try:
        documents = upload_demo_documents(base, key, [orjson.loads(line) for line in lines])
    except (RuntimeError, OSError, ValueError) as exc:
        err.print(f"[yellow]demo documents not uploaded: {exc}[/]")
        documents = {}
    for doc_id, state in documents.items():
        _line(f"document {doc_id}: {state}")
    for line in lines:
        status, body = _post(f"{base}/v1/answers?wait={int(min(wait_s, 30))}", key,
                             line.encode(), timeout=wait_s + 10)
        answer_id = body.get("answer_id") or orjson.loads(line).get("answer_id")
        if status == 200:
            if not sys.stdout.isatty():  # the JSON for a pipe; a terminal reads the summary
                sys.stdout.buffer.write(orjson.dumps(body) + b"\n")
                sys.stdout.buffer.flush()
            err.print(summary(body))
        elif status == 202:
            err.print(f"[yellow]{answer_id}: accepted, result not ready within the wait[/]")
        else:
            err.print(f"[red]{answer_id}: HTTP {status}[/] {orjson.dumps(body).decode()}")
            continue
        _line(f"viewer:  {base}/answers/{answer_id}#key={key}")
        print_access(base, key, answer_id)
