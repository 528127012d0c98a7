"""Backward-compatibility check between a committed schema and the current one.

Compatible (same major version) means every payload valid under the old schema is still
accepted and means the same: no property removed or retyped, no new required property,
no enum value removed. Anything else needs a new `.vN` and an upcaster.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]


def _resolve(node: Schema, root: Schema) -> Schema:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return root.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
    return node


def _types(node: Schema) -> set[str]:
    """The JSON types a (resolved) node admits; empty means unconstrained."""
    found: set[str] = set()
    if isinstance(node.get("type"), str):
        found.add(node["type"])
    elif isinstance(node.get("type"), list):
        found.update(node["type"])
    for key in ("anyOf", "oneOf"):
        for option in node.get(key, []):
            found.update(_types(option) or {"object" if "$ref" in option else "any"})
    if "const" in node or "enum" in node:
        found.add("enum")
    return found


def incompatibilities(old: Schema, new: Schema) -> list[str]:
    """Every way `new` breaks payloads written against `old` (empty when compatible)."""
    problems: list[str] = []
    _compare(old, new, old, new, "$", problems, set())
    return problems


def _compare(
    old: Schema, new: Schema, old_root: Schema, new_root: Schema, path: str,
    problems: list[str], seen: set[tuple[str, str]],
) -> None:
    key = (path, str(old.get("$ref", "")))
    if key in seen:
        return
    seen.add(key)
    old, new = _resolve(old, old_root), _resolve(new, new_root)
    old_types, new_types = _types(old), _types(new)
    if old_types and new_types and not old_types <= new_types | {"any"}:
        problems.append(f"{path}: type changed from {sorted(old_types)} to {sorted(new_types)}")
    old_enum = set(map(repr, old.get("enum", [])))
    new_enum = set(map(repr, new.get("enum", [])))
    if old_enum and new_enum and not old_enum <= new_enum:
        problems.append(f"{path}: enum values removed: {sorted(old_enum - new_enum)}")
    old_props, new_props = old.get("properties", {}), new.get("properties", {})
    for name, old_prop in old_props.items():
        if name not in new_props:
            problems.append(f"{path}.{name}: property removed")
            continue
        _compare(old_prop, new_props[name], old_root, new_root, f"{path}.{name}", problems, seen)
    for name in set(new.get("required", [])) - set(old.get("required", [])):
        problems.append(f"{path}.{name}: new required property")
    if "items" in old and "items" in new:
        _compare(old["items"], new["items"], old_root, new_root, f"{path}[]", problems, seen)
    for key_word in ("anyOf", "oneOf"):
        old_refs = [o for o in old.get(key_word, []) if "$ref" in o]
        new_refs = {o["$ref"]: o for o in new.get(key_word, []) if "$ref" in o}
        for option in old_refs:
            if option["$ref"] in new_refs:
                _compare(option, new_refs[option["$ref"]], old_root, new_root, path, problems,
                         seen)
