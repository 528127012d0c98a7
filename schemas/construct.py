"""Building event models from trusted, complete values without validation.

`model_construct` re-walks every field in Python (about 5 us per model here); the stages
build hundreds of small models per answer from already-validated values, so this module
sets the instance state directly, exactly as `model_construct` leaves it when every field
is given. A test keeps the two equal.

Hot-path notes: interpreted, the four instance slots are set through their slot descriptors
(cheaper than `object.__setattr__`, which looks the name up first and builds an argument
tuple); compiled, `object.__setattr__(model, name, value)` is the cheaper one, as mypyc makes
it a direct C call of the generic attribute setter (about 1,200 instructions less per model,
0.95 M per benchmark answer). Every instance of a class shares one fields-set. Sharing is safe:
every field is set, so pydantic's own updates of the set (`__setattr__` adding a field name)
change nothing, and `model_copy` copies it.

The native build compiles this module with the stage logic (`services.native`), so the stages'
`make(values)` calls are compiled calls; `schemas/__init__.py` activates that build, so the
compiled module is used whichever package a process imports first. The slot setters are
`Final`, which mypyc keeps in C statics rather than looking them up in the module dict.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType, UnionType
from typing import Any, Final, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_SLOTS: Final = BaseModel.__dict__
_new: Final = object.__new__
_set_dict: Final = _SLOTS["__dict__"].__set__
_set_fields: Final = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra: Final = _SLOTS["__pydantic_extra__"].__set__
_set_private: Final = _SLOTS["__pydantic_private__"].__set__
_FIELDS_SET: Final[dict[type[BaseModel], set[str]]] = {}


def fields_set(cls: type[BaseModel]) -> set[str]:
    """The fields-set shared by every instance of `cls` built here (all its fields)."""
    found = _FIELDS_SET.get(cls)
    if found is None:
        found = _FIELDS_SET[cls] = set(cls.model_fields)
    return found


# Whether this module runs compiled: its functions are Python functions only when interpreted.
_COMPILED: Final = not isinstance(fields_set, FunctionType)


def construct(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of `cls` holding `values`, which must name every field of `cls`."""
    return maker(cls)(values)


def maker(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """`make(values)`: `construct(cls, values)` without the per-call class lookups."""
    shared = fields_set(cls)

    def make(values: dict[str, Any]) -> M:
        model = _new(cls)
        if _COMPILED:  # (see the module docstring)
            object.__setattr__(model, "__dict__", values)
            object.__setattr__(model, "__pydantic_fields_set__", shared)
            object.__setattr__(model, "__pydantic_extra__", None)
            object.__setattr__(model, "__pydantic_private__", None)
        else:
            _set_dict(model, values)
            _set_fields(model, shared)
            _set_extra(model, None)
            _set_private(model, None)
        return model

    return make


# -- trusted JSON: models rebuilt from values a stage of this pipeline wrote -----------------

# How one field's JSON value becomes its model value (see `_kind`): kept, one model, a list of
# them, a dict of them, a dict of lists of them, a float (a JSON integer in a float field), a
# list of tuples (JSON arrays, as validation makes them).
PLAIN: Final = 0
MODEL: Final = 1
MODEL_LIST: Final = 2
MODEL_DICT: Final = 3
MODEL_LIST_DICT: Final = 4
FLOAT: Final = 5
TUPLE_LIST: Final = 6
_PLANS: Final[dict[type[BaseModel], list[tuple[str, int, Any]]]] = {}


def _model_in(annotation: Any) -> Any:
    """The model class `annotation` names (alone or `| None`), else None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, UnionType) and len(args) == 1:
        return _model_in(args[0])
    return None


def _kind(annotation: Any) -> tuple[int, Any]:
    """The conversion a field of this annotation (alone or `| None`) needs, and its model."""
    present = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, UnionType) and len(present) == 1:
        annotation = present[0]
    model = _model_in(annotation)
    if model is not None:
        return MODEL, model
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is list and args and _model_in(args[0]) is not None:
        return MODEL_LIST, _model_in(args[0])
    if origin is dict and len(args) == 2:
        if _model_in(args[1]) is not None:
            return MODEL_DICT, _model_in(args[1])
        if get_origin(args[1]) is list and _model_in(get_args(args[1])[0]) is not None:
            return MODEL_LIST_DICT, _model_in(get_args(args[1])[0])
    if origin is list and args and get_origin(args[0]) is tuple:
        return TUPLE_LIST, None
    if annotation is float:
        # pydantic turns a JSON integer into a float here; so does the trusted build
        return FLOAT, None
    return PLAIN, None


def plan(cls: type[BaseModel]) -> list[tuple[str, int, Any]]:
    """The fields of `cls` whose JSON value needs converting: name, kind, model class."""
    found = _PLANS.get(cls)
    if found is None:
        found = _PLANS[cls] = [
            (name, *_kind(field.annotation))
            for name, field in cls.model_fields.items()
            if _kind(field.annotation)[0] != PLAIN
        ]
    return found


def convert(kind: int, model: Any, value: Any) -> Any:
    """One field's parsed JSON value as its model value (`kind` and `model` from `plan`)."""
    if value is None:
        return None
    if kind == MODEL:
        return rebuild(model, value)
    if kind == MODEL_LIST:
        return [None if v is None else rebuild(model, v) for v in value]
    if kind == MODEL_DICT:
        return {k: rebuild(model, v) for k, v in value.items()}
    if kind == MODEL_LIST_DICT:
        return {k: [rebuild(model, v) for v in vs] for k, vs in value.items()}
    if kind == TUPLE_LIST:
        return [tuple(v) for v in value]
    return float(value) if type(value) is int else value


def adopt(model_obj: BaseModel, values: dict[str, Any]) -> None:
    """Give a new instance (`object.__new__`) the field values `values`, nothing validated.
    Its fields-set is the one its class shares when `values` names as many fields as the
    class has: a stage writes every field, and a writer of another minor version adds
    fields, never drops one (a set built per model was a third of the formatting stage's
    model building; comparing the names costs more than building it). Values naming fewer
    get the defaults of the fields they lack."""
    cls = type(model_obj)
    shared = fields_set(cls)
    if len(values) == len(shared):
        named = shared
    else:
        named = set(values)
        fill_defaults(cls, values)
    if _COMPILED:  # (see the module docstring)
        object.__setattr__(model_obj, "__dict__", values)
        object.__setattr__(model_obj, "__pydantic_fields_set__", named)
        object.__setattr__(model_obj, "__pydantic_extra__", None)
        object.__setattr__(model_obj, "__pydantic_private__", None)
    else:
        _set_dict(model_obj, values)
        _set_fields(model_obj, named)
        _set_extra(model_obj, None)
        _set_private(model_obj, None)


def fill_defaults(cls: type[BaseModel], values: dict[str, Any]) -> None:
    """Give `values` the default of each field it lacks that has one, as validation would:
    a record of an older minor version lacks the fields added since. A required field
    stays missing (reading it fails, and the record is then validated: a dead letter)."""
    for name, field in cls.model_fields.items():
        if name not in values and not field.is_required():
            values[name] = field.get_default(call_default_factory=True)


def rebuild(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of `cls` from the parsed JSON object of an instance a stage of this
    pipeline wrote: nested models rebuilt the same way, nothing validated (`schemas.trusted`
    says which records qualify; anything else is validated). `values` (and the objects in
    it) become the models' own: they are changed in place."""
    for name, kind, model in plan(cls):
        value = values.get(name)
        if value is not None:
            values[name] = convert(kind, model, value)
    model_obj = _new(cls)
    adopt(model_obj, values)
    return model_obj
