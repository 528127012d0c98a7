"""Provider-native citations: one adapter per LLM API turns the provider's own
response (and the request, where the sources live only there) into one `answer.submitted`.

`normalize(provider, line)` is the entry point (the CLI's `process --from`, ingest and the
HTTP gateway use it): `line` is `{"response": …, "request": … (optional), "answer_id",
"query", "options", "metadata"}`. A line or response that cannot be read raises
`ProviderError` with the reason and the JSON path; a citation that can be read but not tied
to a source or to the text is kept and flagged by the citations stage, never dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from schemas.answers import PROVIDERS, AnswerSubmitted, ProviderAnswer
from services.providers import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    langchain,
    openai,
    perplexity,
)
from services.providers.draft import Draft, ProviderError

Adapter = Callable[[Draft, Any, Any], None]

ADAPTERS: dict[str, Adapter] = {
    "anthropic": anthropic.normalize,
    "openai": openai.normalize,
    "gemini": gemini.normalize,
    "cohere": cohere.normalize,
    "perplexity": perplexity.normalize,
    "bedrock": bedrock.normalize,
    "langchain": langchain.normalize,
}
assert tuple(ADAPTERS) == PROVIDERS, "one adapter per provider the schema names"

__all__ = ["ADAPTERS", "PROVIDERS", "ProviderError", "normalize", "normalize_data"]


def normalize_data(line: ProviderAnswer) -> dict[str, Any]:
    """The `answer.submitted` data object (not yet validated) of a provider line."""
    draft = Draft()
    try:
        ADAPTERS[line.provider](draft, line.response, line.request)
    except RecursionError:
        raise ProviderError("nested too deep") from None
    return draft.answer(line.model_dump(exclude={"response", "request"}))


def normalize(provider: str, line: dict[str, Any]) -> AnswerSubmitted:
    """The `answer.submitted` of one provider line; `ProviderError` when it cannot be read
    (an unknown provider, a line that is not `{response, answer_id, …}`, a malformed
    response), pydantic's `ValidationError` when the normalised answer breaks a limit."""
    if provider not in ADAPTERS:
        raise ProviderError(f"unknown provider {provider!r}; known: {', '.join(PROVIDERS)}", "$")
    if not isinstance(line, dict):
        raise ProviderError("a provider line must be a JSON object", "$")
    try:
        parsed = ProviderAnswer.model_validate({**line, "provider": provider})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
        raise ProviderError(error["msg"], where) from None
    return AnswerSubmitted.model_validate(normalize_data(parsed))
