"""`POST /v1/answers` and `POST /v1/answers:batch`: validation is the ingest
stage's own (`admit_data`), the key's tenant is stamped on the answer, the answer is produced
and acknowledged by the broker before the response, and recorded as `submitted` at once.

`POST /v1/providers/{provider}/answers` and `.../answers:batch` take an LLM
provider's own response instead: one `{"response", "request" (optional), "answer_id",
"query", "options", "metadata"}` line, the line `citeflow process --from PROVIDER` reads. Both
kinds of route run the same path (`submit_one`, `submit_lines`) and differ only in the ingest
function that admits the bytes (`Ingest`): `admit_data`, or `admit_provider` for the provider.

What a provider route produces is the normalised `answer.submitted`, not the
`citeflow.answer.provider.v1` event: the gateway has already normalised and validated the
line with the code ingest runs on that event (`admit_provider`), so the answer it produces is
the very `AnswerSubmitted` `citeflow process --from` makes of the same line (with the key's
tenant stamped as on any submit), and everything downstream of the submit — the 409 on
another body under the answer_id (the body is the normalised answer), `?wait=`, the stored
model, the store's record — is the plain submit's, unchanged. Ingest re-validates it as it
does every answer. An unknown provider is a 404 like an unknown route (before the key is
checked), its problem listing the known providers. A normalised answer over the answer
limit is refused (413) here rather than by ingest after a 202, since the normalised answer is
what goes on the topic."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NotRequired, Protocol

import orjson
import structlog
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from typing_extensions import TypedDict

from schemas.answers import PROVIDERS, AnswerAccepted, AnswerRejected, AnswerSubmitted
from schemas.envelope import derived_event_id
from services.gateway.auth import Principal
from services.gateway.batching import Batcher
from services.gateway.body import read_limited
from services.gateway.context import Gateway, gateway_of
from services.gateway.idempotency import idempotent
from services.gateway.observability import note
from services.gateway.problems import ProblemDocument, ProblemError, unavailable
from services.gateway.producer import body_sha256, canonical_json
from services.gateway.representation import (
    STATUS_HEADER,
    answer_body,
    etag,
    is_final,
    location,
)
from services.ingest.answers import admit_data, admit_provider
from services.ingest.budget import answer_weight
from services.ingest.input_forms import InputFormError, split_records
from services.store.api import AnswerRecord, Claim, StoreUnavailable, Submission
from services.store.decode import model_of

# Rejection codes that mean "not a readable JSON object" (400); every other one is a
# readable answer with invalid content (422).
_MALFORMED = frozenset({"invalid_utf8", "invalid_json", "not_an_object"})
log = structlog.get_logger("citeflow", stage="gateway")


class AcceptedDocument(TypedDict):
    """The body of a 202: where to read the answer's status and result."""

    answer_id: str
    event_id: str
    status: Literal["submitted"]
    location: str


class BatchLine(TypedDict):
    """One line's outcome: 202 with the answer's location, or the line's problem."""

    line: int
    status: int
    answer_id: NotRequired[str]
    event_id: NotRequired[str]
    location: NotRequired[str]
    problem: NotRequired[ProblemDocument]


class BatchDocument(TypedDict):
    accepted: int
    refused: int
    results: list[BatchLine]


@dataclass(frozen=True)
class Accepted:
    """A submission the broker acknowledged (now or the first time the same body came)."""

    answer_id: str
    event_id: str

    def document(self) -> AcceptedDocument:
        return {"answer_id": self.answer_id, "event_id": self.event_id,
                "status": "submitted", "location": location(self.answer_id)}


def rejection_problem(rejected: AnswerRejected, limit: int) -> ProblemError:
    """The ingest stage's rejection as a problem: its code, message, path and every error
    (and the `limit` in bytes, when the answer is too large)."""
    too_large = rejected.code == "too_large"
    status = 413 if too_large else (400 if rejected.code in _MALFORMED else 422)
    extra: dict[str, Any] = {"answer_id": rejected.answer_id} if rejected.answer_id else {}
    if too_large:
        extra["limit_bytes"] = limit
    return ProblemError(status, rejected.code, rejected.message, path=rejected.path,
                        errors=[{"code": e.code, "message": e.message, "path": e.path}
                                for e in rejected.errors],
                        extra=extra or None)


class Ingest(Protocol):
    """The ingest stage's admission of one submitted input (its bytes, under a byte limit)."""

    def __call__(self, raw: bytes, *, max_bytes: int) -> AnswerAccepted | AnswerRejected: ...


_EVENT_ID = "gateway"  # not kept: the produced event's id is derived from the answer


def ingest_answer(raw: bytes, *, max_bytes: int) -> AnswerAccepted | AnswerRejected:
    """One `answer.submitted` data object (`POST /v1/answers`)."""
    return admit_data(raw, event_id=_EVENT_ID, max_bytes=max_bytes)


def provider_ingest(provider: str) -> Ingest:
    """One line of `provider`'s responses, normalised by `admit_provider` (what `citeflow
    process --from PROVIDER` and ingest run); an unknown provider is a 404."""
    if provider not in PROVIDERS:
        raise ProblemError(404, "unknown_provider",
                           f"no provider {provider!r}; known: {', '.join(PROVIDERS)}",
                           path="provider", extra={"providers": list(PROVIDERS)})

    def ingest(raw: bytes, *, max_bytes: int) -> AnswerAccepted | AnswerRejected:
        # The normalised answer is what goes on the topic, and may be larger than the line
        # it came from: admit_provider weighs it (services.ingest.budget).
        return admit_provider(raw, provider, event_id=_EVENT_ID, max_bytes=max_bytes)

    return ingest


def admit(raw: bytes, principal: Principal, max_bytes: int,
          ingest: Ingest = ingest_answer) -> AnswerSubmitted:
    """Validate (and normalise) with the ingest stage's code and stamp the key's tenant into
    `metadata.tenant`; an answer naming another tenant is refused (403)."""
    outcome = ingest(raw, max_bytes=max_bytes)
    if isinstance(outcome, AnswerRejected):
        raise rejection_problem(outcome, max_bytes)
    assert isinstance(outcome, AnswerAccepted)
    answer = outcome.answer
    metadata = dict(answer.metadata or {})
    if "tenant" in metadata and metadata["tenant"] != principal.tenant:
        raise ProblemError(403, "tenant_mismatch",
                           "metadata.tenant names another tenant than this API key's",
                           path="$.metadata.tenant")
    model = metadata.get("model")
    if isinstance(model, str) and "\x00" in model:  # a column of the store: NUL not storable
        raise ProblemError(422, "invalid_value", "metadata.model must not hold NUL characters",
                           path="$.metadata.model")
    metadata["tenant"] = principal.tenant
    answer.metadata = metadata  # the answer was just validated from the bytes: ours alone
    return answer


# How many answers a process remembers having had acknowledged by the broker (a same-body
# repeat of one of them is answered without producing again, before the sink marks it stored).
_ACKED_MEMORY = 65_536


class Submitter:
    """Produces admitted answers at most once per (answer_id, body) in this process, and
    refuses another body under a known answer_id of the same tenant (409, not produced).
    Answer ids are per tenant: everything here is keyed by (answer_id, tenant), so another
    tenant's answer of the same id is neither waited for, nor compared, nor reported.

    One store write per submit, before producing, batched over concurrent requests: the
    claim records the answer as `submitted` (visible at once) and tells new / same body /
    conflict. A produce that fails releases the claim (so a retry is processed anew), and
    only then is the 503 sent. A same-body repeat is answered without producing when the
    broker is known to hold the answer (the sink saw it, or this process had the ack);
    otherwise it is produced again (same key and event id: a duplicate the pipeline and
    the store absorb), since the first claimant may have died or still be in flight: no 202
    goes out for an answer the broker did not store. The store down is a 503 and nothing
    is produced: without the claim a 409 could not be told."""

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        # The (answer id, tenant)s being submitted now, each with a future done when its
        # submit ends: a second submit of the same answer waits for the first (then finds
        # its claim).
        self._busy: dict[tuple[str, str], asyncio.Future[None]] = {}
        store = gateway.store
        self._claims: Batcher[Submission, dict[tuple[str, str], Claim]] = Batcher(
            store.claim_submissions)
        self._releases: Batcher[tuple[str, str, str], None] = Batcher(
            store.release_submissions)
        # (answer_id, tenant) -> body hash, oldest first
        self._acked: dict[tuple[str, str], str] = {}

    async def submit(self, answer: AnswerSubmitted, principal: Principal) -> Accepted:
        gateway = self._gateway
        answer_id = answer.answer_id
        key = (answer_id, principal.tenant)
        canonical = canonical_json(answer)
        limit = gateway.settings.max_answer_bytes
        weight = answer_weight(answer, limit, json_bytes=len(canonical))
        if weight.total > limit:
            # What ingest measures: the answer as produced (every field written, the tenant
            # stamped in), which a body of many small sources and chunks can make larger
            # than the body itself, with its text, sentences and citations.
            raise ProblemError(413, "too_large", f"the answer {weight.describe()}, over the "
                               f"limit of {limit}", extra={"limit_bytes": limit})
        body_sha = body_sha256(canonical)
        event_id = derived_event_id(body_sha, "gateway")
        while (busy := self._busy.get(key)) is not None:
            await asyncio.shield(busy)  # shielded: a waiter gone must not cancel the others
        done = self._busy[key] = asyncio.get_running_loop().create_future()
        try:
            submission = Submission(
                answer_id=answer_id, tenant=principal.tenant, submitted_at=datetime.now(UTC),
                body_sha256=body_sha, model=model_of(answer.metadata), event_id=event_id,
                body=canonical,
            )
            try:
                claim = (await self._claims.call(submission))[key]
            except StoreUnavailable:
                raise unavailable("store", gateway.settings.retry_after_s) from None
            if claim.outcome == "conflict":
                raise ProblemError(409, "answer_id_conflict",
                                   f"answer_id {answer_id!r} was already submitted by "
                                   "this tenant with another body", path="$.answer_id",
                                   extra={"answer_id": answer_id})
            if claim.outcome == "same" and (claim.stored
                                            or self._acked.get(key) == body_sha):
                return Accepted(answer_id, event_id)
            try:
                await gateway.producer.send(answer, principal.tenant, body_sha, canonical)
            except BaseException:
                if claim.outcome == "created":
                    await self._release(key, body_sha)
                raise
            self._remember(key, body_sha)
        finally:
            del self._busy[key]
            done.set_result(None)
        return Accepted(answer_id, event_id)

    async def _release(self, key: tuple[str, str], body_sha: str) -> None:
        # Shielded: a request cancelled mid-produce (client gone) still releases its claim.
        answer_id, tenant = key
        try:
            await asyncio.shield(self._releases.call((answer_id, tenant, body_sha)))
        except StoreUnavailable as exc:
            # The claim stays, not `stored`: a retry of the same body produces again.
            log.warning("claim of an unproduced answer not released: store unavailable",
                        answer_id=answer_id, tenant=tenant, error=str(exc))

    def _remember(self, key: tuple[str, str], body_sha: str) -> None:
        acked = self._acked
        acked[key] = body_sha
        if len(acked) > _ACKED_MEMORY:
            del acked[next(iter(acked))]


def _wait_seconds(request: Request, limit: float) -> float:
    raw = request.query_params.get("wait")
    if raw is None:
        return 0.0
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= limit:
        raise ProblemError(400, "invalid_parameter", f"wait must be a number of seconds "
                           f"from 0 to {limit:g}", path="?wait")
    return seconds


async def _wait_for_result(gateway: Gateway, answer_id: str, tenant: str,
                           seconds: float) -> AnswerRecord | None:
    """The tenant's answer's final record if it arrives within `seconds`: the wait is
    registered with the hub first, then the store is read once, so a result that was
    already there (or arrives between the two) is not missed. Both look by (answer_id,
    tenant): another tenant's outcome of the same id is not this answer's."""
    waiting = asyncio.create_task(gateway.hub.wait_for(answer_id, tenant, seconds))
    await asyncio.sleep(0)  # let the hub register the wait
    try:
        try:
            record = await gateway.store.get(answer_id, tenant)
        except StoreUnavailable:
            record = None
        if is_final(record):
            return record
        found = await waiting
        return found if found is not None and is_final(found) and found.tenant == tenant \
            else None
    finally:
        waiting.cancel()


async def submit_answer(request: Request) -> Response:
    """`POST /v1/answers[?wait=SECONDS]`: 202 + Location once the broker stored it; with
    `wait`, 200 and the result when it is ready in time."""
    return await submit_one(request, ingest_answer)


async def submit_provider_answer(request: Request) -> Response:
    """`POST /v1/providers/{provider}/answers[?wait=SECONDS]`: one provider line, submitted
    as its normalised answer."""
    return await submit_one(request, provider_ingest(request.path_params["provider"]))


async def submit_one(request: Request, ingest: Ingest) -> Response:
    """One input admitted by `ingest`: 202 + Location once the broker stored the answer; with
    `wait`, 200 and the result when it is ready in time."""
    gateway = gateway_of(request)
    principal = await gateway.authorize(request, "submit")
    settings = gateway.settings
    wait = _wait_seconds(request, settings.max_wait_s)
    raw = await read_limited(request, settings.max_answer_bytes,
                             lambda tokens: gateway.charge(principal, tokens))

    async def handle() -> Response:
        answer = admit(raw, principal, settings.max_answer_bytes, ingest)
        note(request, answer_id=answer.answer_id)
        accepted = await request.app.state.submitter.submit(answer, principal)
        if wait > 0:
            record = await _wait_for_result(gateway, answer.answer_id, principal.tenant, wait)
            if record is not None:
                body = answer_body(record)
                return Response(body, 200, {"Location": location(answer.answer_id),
                                            "ETag": etag(body), STATUS_HEADER: record.status},
                                media_type="application/json")
        return Response(orjson.dumps(accepted.document()), 202,
                        {"Location": location(answer.answer_id)}, media_type="application/json")

    return await idempotent(request, gateway.store, principal.tenant, raw,
                            settings.retry_after_s, handle)


async def submit_batch(request: Request) -> Response:
    """`POST /v1/answers:batch`: many answers (a JSON array, JSON Lines, or one object); 200
    with one result per answer (its own status: 202, or the problem of that answer)."""
    return await submit_lines(request, ingest_answer)


async def submit_provider_batch(request: Request) -> Response:
    """`POST /v1/providers/{provider}/answers:batch`: JSON Lines of provider lines."""
    return await submit_lines(request, provider_ingest(request.path_params["provider"]))


async def submit_lines(request: Request, ingest: Ingest) -> Response:
    """Answers in any form `split_records` reads, each admitted by `ingest`; 200 with one
    result per answer (its own status: 202, or the problem of that answer)."""
    gateway = gateway_of(request)
    settings = gateway.settings
    principal = await gateway.authorize(request, "submit")
    raw = await read_limited(request, settings.max_batch_bytes,
                             lambda tokens: gateway.charge(principal, tokens))
    try:  # one object, a JSON array or JSON Lines; `line` is an array item's position
        lines = [(record.number, record.raw) for record in split_records(raw)]
    except InputFormError as exc:
        raise ProblemError(400, "invalid_batch", str(exc)) from None
    if len(lines) > settings.max_batch_lines:
        raise ProblemError(413, "too_many_lines", f"a batch holds at most "
                           f"{settings.max_batch_lines} answers, not {len(lines)}")
    # Every line costs a token: the request itself paid for one.
    gateway.charge(principal, len(lines) - 1)

    async def one(number: int, line: bytes) -> BatchLine:
        try:
            answer = admit(line.rstrip(b"\r"), principal, settings.max_answer_bytes, ingest)
            accepted = await request.app.state.submitter.submit(answer, principal)
        except ProblemError as exc:
            return {"line": number, "status": exc.status, "problem": exc.body()}
        return {"line": number, "status": 202, "answer_id": accepted.answer_id,
                "event_id": accepted.event_id, "location": location(accepted.answer_id)}

    async def handle() -> Response:
        results = list(await asyncio.gather(*(one(n, line) for n, line in lines)))
        accepted = sum(1 for r in results if r["status"] == 202)
        doc: BatchDocument = {"accepted": accepted, "refused": len(results) - accepted,
                              "results": results}
        return Response(orjson.dumps(doc), 200, media_type="application/json")

    return await idempotent(request, gateway.store, principal.tenant, raw,
                            settings.retry_after_s, handle)


def routes() -> list[Route]:
    return [
        Route("/v1/answers", submit_answer, methods=["POST"], name="submit_answer"),
        Route("/v1/answers:batch", submit_batch, methods=["POST"], name="submit_batch"),
        Route("/v1/providers/{provider}/answers", submit_provider_answer, methods=["POST"],
              name="submit_provider_answer"),
        Route("/v1/providers/{provider}/answers:batch", submit_provider_batch,
              methods=["POST"], name="submit_provider_batch"),
    ]

