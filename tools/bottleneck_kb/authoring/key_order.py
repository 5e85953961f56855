"""The keys a schema knows for a value, in the order its `properties` list them (followed
through `$ref`, allOf, anyOf and oneOf), and the schemas of a mapping's values and a list's
items: the order `kb fmt` writes keys in and `kb new` lays a skeleton out in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..schemas import at_pointer

_MAX_SCHEMA_DEPTH = 16


def branches(node: Any, root: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    """The schema `node` and every subschema that may describe the same value: its `$ref`, and
    the options of allOf, anyOf and oneOf (a value may be a string or a mapping). The node
    comes first: its own title and description say more than those of the shape it refers to."""
    if not isinstance(node, dict) or depth > _MAX_SCHEMA_DEPTH:
        return
    yield node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/"):
        try:
            target = at_pointer(root, reference[1:])
        except LookupError:  # a reference to nothing describes nothing
            target = None
        yield from branches(target, root, depth + 1)
    for word in ("allOf", "anyOf", "oneOf"):
        for option in node.get(word, ()):
            yield from branches(option, root, depth + 1)


def property_names(schema: Any, root: dict[str, Any]) -> list[str]:
    """The keys `schema` knows, in the order its branches list them."""
    names: dict[str, None] = {}
    for branch in branches(schema, root):
        properties = branch.get("properties")
        if isinstance(properties, dict):
            names.update(dict.fromkeys(properties))
    return list(names)


def child(schema: Any, root: dict[str, Any], key: str) -> Any:
    """The schema of the value at `key` of a mapping that `schema` describes, or None."""
    options = list(branches(schema, root))
    for branch in options:
        properties = branch.get("properties")
        if isinstance(properties, dict) and key in properties:
            return properties[key]
    for branch in options:
        if isinstance(branch.get("additionalProperties"), dict):
            return branch["additionalProperties"]
    return None


def item_schema(schema: Any, root: dict[str, Any]) -> Any:
    """The schema of the items of a list that `schema` describes, or None."""
    return next(
        (b["items"] for b in branches(schema, root) if isinstance(b.get("items"), dict)), None
    )
