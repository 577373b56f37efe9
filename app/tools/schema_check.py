"""Do a call's arguments fit its tool's JSON Schema? A deliberately small check.

Triptych adds no dependency for this (the `jsonschema` library is not required): it checks the
keywords tool schemas use in practice — `type`, `properties`, `required`,
`additionalProperties: false`, `items`, `enum`, `const` — and ignores the rest, so a schema it
does not understand never blocks a call. The model's arguments are untrusted: depth and the
number of problems reported are bounded.
"""

from __future__ import annotations

from typing import Any

MAX_PROBLEMS = 5
MAX_DEPTH = 32
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
}


def schema_problems(value: Any, schema: Any) -> list[str]:
    """What is wrong with `value` under `schema`, each as `$.path: what`; [] when it fits."""
    problems: list[str] = []
    _check(value, schema, "$", problems, 0)
    return problems[:MAX_PROBLEMS]


def _type_fits(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    kinds = _TYPES.get(name)
    if kinds is None:
        return True  # a type this check does not know: not its business
    if name != "boolean" and isinstance(value, bool):
        return False
    return isinstance(value, kinds)


def _kind(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _type_fits(value, name):
            return name
    return type(value).__name__


def _check(value: Any, schema: Any, path: str, problems: list[str], depth: int) -> None:
    if not isinstance(schema, dict) or len(problems) >= MAX_PROBLEMS or depth > MAX_DEPTH:
        return
    expected = schema.get("type")
    names = [expected] if isinstance(expected, str) else expected
    if isinstance(names, list) and names and not any(_type_fits(value, n) for n in names):
        problems.append(f"{path}: expected {' or '.join(map(str, names))}, got {_kind(value)}")
        return
    if "enum" in schema and isinstance(schema["enum"], list) and value not in schema["enum"]:
        problems.append(f"{path}: must be one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{path}: must be {schema['const']!r}")
    if isinstance(value, dict):
        _check_object(value, schema, path, problems, depth)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", problems, depth + 1)


def _check_object(
    value: dict[str, Any], schema: dict[str, Any], path: str, problems: list[str], depth: int
) -> None:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if isinstance(name, str) and name not in value:
            problems.append(f"{path}: missing required property {name!r}")
    extra = schema.get("additionalProperties")
    for name, item in value.items():
        if name in properties:
            _check(item, properties[name], f"{path}.{name}", problems, depth + 1)
        elif extra is False:
            problems.append(f"{path}: unexpected property {name!r}")
        elif isinstance(extra, dict):
            _check(item, extra, f"{path}.{name}", problems, depth + 1)


__all__ = ["schema_problems"]
