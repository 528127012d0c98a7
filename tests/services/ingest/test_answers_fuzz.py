"""Admission never raises: random bytes and random JSON become acceptances or rejections."""

from __future__ import annotations

import base64

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.answers import AnswerAccepted, AnswerRejected
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_REJECTED
from services.ingest.answers import admit_data, handle_submitted
from services.runtime.stage import Message

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
answer_like = st.fixed_dictionaries(
    {},
    optional={
        "answer_id": st.text(max_size=5) | st.integers(-5, 5),
        "query": st.none() | st.text(),
        "text": st.text() | st.integers(-5, 5),
        "sources": st.lists(
            st.fixed_dictionaries({}, optional={"index": st.integers(-1, 3), "chunks": json_values})
            | json_values,
            max_size=3,
        )
        | json_values,
        "options": json_values,
        "metadata": json_values,
    },
)


def _check(raw: bytes, result: AnswerAccepted | AnswerRejected) -> None:
    if isinstance(result, AnswerRejected):
        assert base64.b64decode(result.original_base64) == raw
        assert result.code and result.path.startswith("$")
    else:
        AnswerAccepted.model_validate_json(result.model_dump_json())


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_raise(raw: bytes) -> None:
    _check(raw, admit_data(raw, event_id="e"))
    [out] = handle_submitted(Message("answers.submitted", raw))
    assert out.topic == ANSWERS_REJECTED


@settings(max_examples=150, deadline=None)
@given(answer_like | json_values)
def test_random_json_never_raises(data: object) -> None:
    raw = orjson.dumps(data)
    _check(raw, admit_data(raw, event_id="e"))
    for version in (0, 1, 2):
        envelope = {
            "specversion": "1.0", "id": "i", "source": "s", "subject": "x",
            "type": f"citeflow.answer.submitted.v{version}", "data": data,
        }
        [out] = handle_submitted(Message("answers.submitted", orjson.dumps(envelope)))
        assert out.topic in (ANSWERS_ACCEPTED, ANSWERS_REJECTED)
        if version == 2:
            assert out.data.code == "unknown_version"
