"""`payload_json` (orjson over the models' field values) writes exactly what pydantic's
serializer writes, for every registered event model: checked on the models' declarations and
on real events of every pipeline hop."""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterator

import orjson
import pytest
from pydantic import BaseModel

from schemas.answers import AnswerAccepted
from schemas.documents import ChunkingOptions
from schemas.envelope import encode, make_event, payload_json
from schemas.registry import EVENT_TYPES
from services.bench.e2e import ANSWER_SHAPE
from services.bench.workload import bench_answer
from services.citations.logic import cite_answer
from services.formatting.logic import format_answer
from services.ingest.answers import admit_data
from services.ingest.documents.ingest import ingest_document
from services.scoring.logic import score_answer
from services.spans.logic import resolve_answer
from tests.conftest import corpus_path

_JSON_LEAVES = (str, int, float, bool, type(None))
_FREE_FORM = (".metadata", "ProviderAnswer.response", "ProviderAnswer.request")


def _models(model: type[BaseModel], seen: set[type[BaseModel]]) -> Iterator[type[BaseModel]]:
    if model in seen:
        return
    seen.add(model)
    yield model
    for name, info in model.model_fields.items():
        for leaf in _leaves(info.annotation, f"{model.__name__}.{name}"):
            yield from _models(leaf, seen)


def _leaves(annotation: object, where: str) -> Iterator[type[BaseModel]]:
    """The model types inside a field annotation; fails on anything orjson would write
    differently from pydantic (or not at all)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        assert all(isinstance(v, str | int) for v in typing.get_args(annotation)), where
    elif origin in (list, tuple, dict, typing.Union, types.UnionType):  # orjson writes tuples as arrays
        args = typing.get_args(annotation)
        if origin is dict:
            assert args[0] is str, f"{where}: dict keys must be str"
            args = args[1:]
        for arg in args:
            yield from _leaves(arg, where)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    elif annotation is typing.Any:
        # Free-form metadata and a provider's own response and request: values parsed from
        # JSON, which orjson writes as pydantic does (see the big-integer test for the one it
        # cannot).
        assert where.endswith(_FREE_FORM), f"{where}: Any outside metadata"
    else:
        assert annotation in _JSON_LEAVES, f"{where}: {annotation!r} is not a JSON-native type"


def test_event_models_declare_nothing_the_field_values_would_miss() -> None:
    seen: set[type[BaseModel]] = set()
    models = [m for etype in EVENT_TYPES.values() for m in _models(etype.model, seen)]
    assert len(models) > 20
    for model in models:
        decorators = model.__pydantic_decorators__
        assert not decorators.field_serializers and not decorators.model_serializers, model
        assert not model.model_computed_fields, model
        assert model.model_config.get("extra") != "allow", model
        for name, info in model.model_fields.items():
            assert info.serialization_alias is None and info.alias is None, (model, name)
            assert not info.exclude, (model, name)


def _answers() -> Iterator[bytes]:
    for seed in range(3):
        yield orjson.dumps(bench_answer(f"spec-{seed}", seed=seed))
        yield orjson.dumps(bench_answer(f"e2e-{seed}", seed=seed, **ANSWER_SHAPE))
        derived = bench_answer(f"derived-{seed}", seed=seed)
        derived.pop("answer_units", None)
        yield orjson.dumps(derived)
    yield b'{"answer_id": "bad", "text": 5}'  # rejected


def _chain(raw: bytes) -> Iterator[BaseModel]:
    admitted = admit_data(raw, event_id="e")
    yield admitted
    if isinstance(admitted, AnswerAccepted):
        scored = score_answer(admitted)
        cited = cite_answer(scored)
        resolved = resolve_answer(cited)
        yield from (scored, cited, resolved, format_answer(resolved))


def _assert_same(model: BaseModel) -> None:
    assert payload_json(model) == model.__pydantic_serializer__.to_json(model)


def test_every_hop_of_generated_answers_encodes_as_pydantic_does() -> None:
    for raw in _answers():
        for model in _chain(raw):
            _assert_same(model)


def test_real_answers_and_documents_encode_as_pydantic_does() -> None:
    for record in json.loads(corpus_path("answers", "alce_demos.json").read_text())[
        "records"
    ][:5]:
        sources = [{"index": k, "title": d["title"], "chunks": [{"text": d["text"]}]}
                   for k, d in enumerate(record["docs"], start=1)]
        raw = orjson.dumps({"answer_id": "alce", "query": record["question"],
                            "text": record["answer"], "sources": sources})
        for model in _chain(raw):
            _assert_same(model)
    options = ChunkingOptions(chunk_size=800, chunk_overlap=80, include_chunk_text=True)
    for kind, name in (("pdf", "tracemonkey.pdf"), ("epub", "moby-dick.epub")):
        _assert_same(ingest_document(corpus_path(kind, name).read_bytes(), "doc", options=options))


def test_what_orjson_cannot_write_falls_back_to_pydantic() -> None:
    raw = b'{"answer_id": "big", "text": "t", "sources": [], "metadata": {"n": 123456789012345678901234567890}}'
    accepted = admit_data(raw, event_id="e")
    event = make_event(accepted, source="t", subject="big")
    assert b'"n":123456789012345678901234567890' in encode(event)
    _assert_same(accepted)


@pytest.mark.parametrize("text", ["plain", "é\u2028\x00\"\\</script>", "\U0001f600 emoji"])
def test_the_envelope_carries_the_payload_unchanged(text: str) -> None:
    event = make_event(next(_chain(orjson.dumps({"answer_id": "a", "text": text,
                                                 "sources": []}))), source="t", subject="a")
    body = orjson.loads(encode(event))
    assert body["data"] == json.loads(event.data.model_dump_json())
