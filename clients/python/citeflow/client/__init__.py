"""`Client` and `AsyncClient` over a citeflow gateway (httpx): submit answers, read results,
follow the live stream; typed with the schemas' pydantic models."""

from citeflow.client.aio import AsyncClient
from citeflow.client.errors import CiteflowError
from citeflow.client.models import (
    Accepted,
    AnswerState,
    BatchLine,
    BatchResult,
    Document,
    Result,
    Stats,
    StreamEvent,
)
from citeflow.client.retry import RetryInfo, RetryPolicy
from citeflow.client.sync import Client

__all__ = [
    "Accepted", "AnswerState", "AsyncClient", "BatchLine", "BatchResult", "CiteflowError",
    "Client", "Document", "Result", "RetryInfo", "RetryPolicy", "Stats", "StreamEvent",
]
