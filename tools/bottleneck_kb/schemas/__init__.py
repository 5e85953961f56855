"""The JSON Schemas, a fast validity test, and located explanations of what is invalid.

jsonschema-rs decides valid or not (about 0.01 ms an entry); only a file that fails is handed
to the reference validator, jsonschema, whose errors are turned into located diagnostics. A
test holds the two to the same verdict on every fixture, so the fast path never changes what
a user is told.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from ..core.codes import (
    BAD_FORM,
    DEVICE_PLACEHOLDER,
    EARLIER_VERSION,
    ENTRY_PLACEHOLDER,
    MISSING_KEY,
    NOT_ALLOWED,
    UNKNOWN_KEY,
    WRONG_TYPE,
)
from ..core.diagnostics import Diagnostic, error
from ..core.numbers import exact_number
from ..core.text import suggest
from ..source import Document
from .units import unit_error, with_units
from .words import BUILT_IN as BUILT_IN
from .words import Word as Word
from .words import Words as Words
from .words import with_words

ENTRY = "entry"
HARDWARE = "hardware"
MODEL = "model"
#: The knowledge base's own settings: one file, kb.yaml at its root.
CONFIG = "config"
#: Architecture kinds: package data of kb, checked against their schema, never published.
KIND = "kind"
#: The kinds of file a knowledge base holds (and publishes the schemas of).
FILE_KINDS = (ENTRY, HARDWARE, MODEL, CONFIG)

_TYPE_NAMES = {
    "string": "a string",
    "number": "a number",
    "integer": "a whole number",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
    "null": "null",
}


#: The annotation of a property whose allowed values are the keys of a mapping in another
#: schema, named as `<file>#<JSON pointer>` (the entry's dtype: the hardware schema's
#: peak_flops rows). The package's source schema names the mapping and `schema` writes the
#: `enum` after it, so a value is added in one place and the published schema still holds
#: the list (editors complete from it; other teams' validators read no second file).
ENUM_KEYS_OF = "x-enum-keys-of"


#: The annotation of a part of the entry schema that the roof table (`$defs/roof`, its
#: `x-roofs`) writes: the allowed values of bound_by (`verdicts`), the roofs' formulas of
#: arithmetic_intensity (`formulas`) and of a workaround's model (`replacements`), and the
#: bounds a check may expect (`bounds`). A roof is one row of the table, and `schema`
#: writes the rest after it, as it writes an `x-enum-keys-of` list.
ROOF_TABLE = "x-roof-table"
#: The formulas every entry gives, which the table's compute and memory rows name.
_BASE_FORMULAS = ("flops", "bytes")


@lru_cache(maxsize=64)
def schema(kind: str, words: Words = BUILT_IN) -> dict[str, Any]:
    """The schema of `kind`: the package's source, read from its data (an installed `kb`, a
    wheel or a pre-commit environment, carries its schemas and works in any folder), with
    the `enum` of each `x-enum-keys-of` filled in, the parts the roof table writes, the units
    of each quantity's `x-dimension` (`units`), and (the entry schema) a knowledge base's own
    namespaces and classes. What `kb` checks with and publishes."""
    source = _source(f"{kind}.schema.json")
    roofs = source.get("$defs", {}).get("roof", {}).get("x-roofs", [])
    with_enums: dict[str, Any] = with_units(_with_roofs(_with_enums(source), roofs))
    return with_words(with_enums, words) if kind == ENTRY else with_enums


def roofs() -> list[dict[str, Any]]:
    """The roof table of the entry schema: a row per roof, in the order that breaks ties."""
    rows: list[dict[str, Any]] = schema(ENTRY)["$defs"]["roof"]["x-roofs"]
    return rows


def _with_roofs(node: Any, table: list[dict[str, Any]]) -> Any:
    """`node` with what the roof table writes after each `x-roof-table`."""
    if isinstance(node, list):
        return [_with_roofs(item, table) for item in node]
    if not isinstance(node, dict):
        return node
    written = {key: _with_roofs(value, table) for key, value in node.items()}
    view = node.get(ROOF_TABLE)
    if view == "verdicts":
        said = [f"{row['title']}. {row['description']}" for row in table]
        extra = {
            "enum": [row["name"] for row in table],
            "markdownEnumDescriptions": said,
            "enumDescriptions": said,
        }
        return _after(written, ROOF_TABLE, extra)
    others = [row for row in table if row["formula"] not in _BASE_FORMULAS]
    if view == "formulas":
        formulas = {
            row["formula"]: _formula(
                row["formula_title"],
                f"{row['formula_description']} Like every formula here it may read the "
                "device figures of $defs/device_figure by name.",
            )
            for row in others
        }
        written["properties"] = _after(written["properties"], "bytes", formulas)
    elif view == "replacements":
        replacements = {
            row["formula"]: _formula(
                row["formula_title"],
                row.get("replacement_description")
                or f"Replacement {row['formula']} formula under the workaround.",
            )
            for row in others
        }
        written["properties"] = _after(written["properties"], "bytes", replacements)
    elif view == "bounds":
        bounds = {
            row["formula"]: {
                "$ref": "#/$defs/bounds",
                "title": row["formula_title"],
                "description": row["bounds_description"],
            }
            for row in others
        }
        written["properties"] = _after(written["properties"], "time", bounds)
    return written


def _formula(title: str, description: str) -> dict[str, Any]:
    return {
        "title": title,
        "description": description,
        "type": "string",
        "minLength": 1,
        "maxLength": 1000,
    }


def _after(mapping: dict[str, Any], key: str, added: dict[str, Any]) -> dict[str, Any]:
    """`mapping` with `added` right after `key`."""
    result: dict[str, Any] = {}
    for name, value in mapping.items():
        result[name] = value
        if name == key:
            result.update(added)
    return result


def schema_text(kind: str, words: Words = BUILT_IN) -> str:
    """The published text of `kind`'s schema: what `kb schema` prints, for a knowledge base
    to write in its schema/ folder (this repository's is held to it by a test). Generated
    from `schema`, never edited: the source is the package's file."""
    return published_text(schema(kind, words))


def published_text(document: Mapping[str, Any]) -> str:
    """A schema as kb publishes one, in the repository's schema/ and on the site alike."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _source(file_name: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath(file_name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def at_pointer(document: Any, pointer: str) -> Any:
    """The node of `document` a JSON pointer (RFC 6901: `/$defs/a~1b/0`, `""` the whole
    document) names: the one place kb follows a `$ref` or an address into a schema. Raises
    LookupError where it names nothing."""
    node = document
    for token in pointer.split("/")[1:] if pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        # A list index is digits only: Python's node[-1] would name the last item.
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            raise LookupError(pointer)
    return node


def _with_enums(node: Any) -> Any:
    """A copy of `node` with an `enum` right after each `x-enum-keys-of`, which stays so that
    a reader of the published schema sees where the list comes from."""
    if isinstance(node, list):
        return [_with_enums(item) for item in node]
    if not isinstance(node, dict):
        return node
    resolved = {}
    for key, value in node.items():
        resolved[key] = _with_enums(value)
        if key == ENUM_KEYS_OF:
            resolved["enum"] = _keys_at(value)
    return resolved


def _keys_at(address: str) -> list[str]:
    """The keys, in order, of the mapping at `address`: a source schema of the package and a
    JSON pointer (RFC 6901) into it. No mapping there is a mistake in kb's own schemas."""
    file_name, _, pointer = address.partition("#")
    if pointer[:1] != "/":
        raise ValueError(f"{ENUM_KEYS_OF}: {address!r}: a JSON pointer starts with '/'")
    try:
        node = at_pointer(_source(file_name), pointer)
    except LookupError:
        raise ValueError(f"{ENUM_KEYS_OF}: {address!r} names nothing") from None
    if not isinstance(node, dict):
        raise ValueError(f"{ENUM_KEYS_OF}: {address!r} is not a mapping")
    return list(node)


@lru_cache(maxsize=64)
def _fast_validator(kind: str, words: Words = BUILT_IN) -> Any:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(kind, words))


@lru_cache(maxsize=64)
def _reference_validator(kind: str, words: Words = BUILT_IN) -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema(kind, words))


def is_valid(kind: str, data: Any, words: Words = BUILT_IN) -> bool:
    """The fast verdict."""
    return bool(_fast_validator(kind, words).is_valid(data))


def validate(kind: str, document: Document, words: Words = BUILT_IN) -> list[Diagnostic]:
    """Located diagnostics for every schema problem of `document`; [] when it is valid. A
    file written to an earlier version of the schema gets one diagnostic, at its top, that
    says which and how to upgrade; a placeholder where a value of a set form belongs is said
    as a placeholder (see `placeholders`)."""
    if is_valid(kind, document.data, words):
        return []
    version = versions.written_to(kind, document.data)
    if version is not None:
        return [_earlier_version(kind, version, document)]
    # Where the two regex dialects differ (Python's `$` also matches before a final line
    # break), the reference validator may find nothing: the fast one's verdict still stands.
    found = located_errors(kind, document, words) or [
        document.error_at(
            BAD_FORM,
            tuple(problem.instance_path),
            f"{_name(tuple(problem.instance_path))}: {_clean(problem.message)}",
        )
        for problem in _fast_validator(kind, words).iter_errors(document.data)
    ]
    return _placeholders_said(kind, document, found)


#: The code a placeholder left in a file of each kind is reported with.
_PLACEHOLDER_CODES = {ENTRY: ENTRY_PLACEHOLDER, HARDWARE: DEVICE_PLACEHOLDER}


def _placeholders_said(kind: str, document: Document, found: list[Diagnostic]) -> list[Diagnostic]:
    """`found`, where an error is about a placeholder's value (`TODO` where a date, a source
    id or an allowed word belongs): that placeholder, and every other in the file, said as a
    placeholder instead, since the file is refused before the rule that says them runs."""
    code = _PLACEHOLDER_CODES.get(kind)
    if code is None or not placeholders.may_hold_placeholders(document.text):
        return found
    marked = {document.value_at(pointer) for pointer in placeholders.placeholders(document.data)}
    kept = [d for d in found if (d.line, d.col) not in marked]
    if len(kept) == len(found):
        return found
    return kept + list(placeholders.placeholder_errors(code, document))


def _earlier_version(kind: str, version: int, document: Document) -> Diagnostic:
    word = versions.KIND_WORDS[kind]
    return error(
        EARLIER_VERSION,
        document.path,
        1,
        1,
        f"written to version {version} of the {word} schema; this kb reads version "
        f"{versions.current_version(kind)}",
        f"run `kb fmt --upgrade {document.path}`: it rewrites the file to today's shape, "
        "keeping every value and comment, and marks with TODO what only you can supply "
        "(the CHANGELOG's Upgrading section says what changed)",
    )


def located_errors(kind: str, document: Document, words: Words = BUILT_IN) -> list[Diagnostic]:
    """The reference validator's errors, each turned into diagnostics at the right key or value."""
    found: list[Diagnostic] = []
    for problem in _reference_validator(kind, words).iter_errors(document.data):
        found.extend(_located(problem, document, schema(kind, words)))
    return found


def _located(problem: Any, document: Document, root: Mapping[str, Any]) -> Iterator[Diagnostic]:
    pointer = tuple(problem.absolute_path)
    validator = problem.validator
    value = problem.validator_value
    subject = _name(pointer)
    error_at = document.error_at

    if validator == "required":
        for key in value:
            if key not in problem.instance:
                yield error_at(
                    MISSING_KEY,
                    pointer,
                    f"{subject} is missing the required key '{key}'",
                    _describe(root, problem, key),
                    key=True,
                )
        return
    if validator == "additionalProperties":
        allowed = sorted(problem.schema.get("properties", {}))
        for key in problem.instance:
            if key in allowed:
                continue
            yield error_at(
                UNKNOWN_KEY,
                (*pointer, key),
                f"unknown key '{key}' in {subject}",
                suggest(key, allowed, "keys"),
                key=True,
            )
        return
    if validator in ("enum", "oneOf") and _is_vocabulary(validator, value):
        choices = list(value) if validator == "enum" else [option["const"] for option in value]
        yield error_at(
            NOT_ALLOWED,
            pointer,
            f"{_show(problem.instance)} is not an allowed {subject}",
            suggest(str(problem.instance), [str(c) for c in choices], "values"),
        )
        return
    if validator == "anyOf" and all(set(option) == {"required"} for option in value):
        names = " or ".join(f"'{option['required'][0]}'" for option in value)
        yield error_at(MISSING_KEY, pointer, f"{subject} needs {names}", key=True)
        return
    if validator == "type":
        expected = value if isinstance(value, str) else value[0]
        yield error_at(
            WRONG_TYPE,
            pointer,
            f"{subject} must be {_TYPE_NAMES.get(expected, expected)}, "
            f"not {_kind_of(problem.instance)} ({_show(problem.instance)})",
            _type_hint(expected, _schema_at(root, list(problem.absolute_schema_path)[:-1])),
        )
        return
    if validator == "pattern":
        # propertyNames errors point at the mapping; the offending name is the instance.
        name_error = bool(problem.schema_path) and "propertyNames" in problem.schema_path
        wrong_unit = unit_error(problem.schema, problem.instance)
        if wrong_unit is not None:  # a number and a unit, of the wrong dimension or none
            said, hint = wrong_unit
            yield error_at(BAD_FORM, pointer, f"{subject}: {_show(problem.instance)} {said}", hint)
            return
        yield error_at(
            BAD_FORM,
            (*pointer, problem.instance) if name_error else pointer,
            f"{_show(problem.instance)} is not a valid {subject}",
            problem.schema.get("description") or _parent_description(problem),
            key=name_error,
        )
        return
    if validator == "not" and isinstance(problem.instance, str) and "pattern" in value:
        # What a text may not contain (a line break, in a one-line field): said at the first
        # occurrence. An unanchored search, since `$` differs between regex dialects.
        found = re.search(value["pattern"], problem.instance)
        yield error_at(
            BAD_FORM,
            pointer,
            f"{subject} {value.get('description', 'has a character that is not allowed')}",
            problem.schema.get("description"),
            offset=found.start() if found else None,
        )
        return
    sizes = _SIZE_MESSAGES.get(validator)
    if sizes is not None:
        unit = (
            "characters"
            if validator.endswith("Length")
            else ("keys" if validator.endswith("Properties") else "items")
        )
        yield error_at(
            BAD_FORM,
            pointer,
            f"{subject} {sizes} {value} {unit} (it has {len(problem.instance):,})",
        )
        return
    yield error_at(BAD_FORM, pointer, f"{subject}: {_clean(problem.message)}")


_SIZE_MESSAGES = {
    "maxLength": "is too long: at most",
    "minLength": "is too short: at least",
    "maxItems": "has too many items: at most",
    "minItems": "has too few items: at least",
    "maxProperties": "has too many keys: at most",
    "minProperties": "has too few keys: at least",
}


def _name(pointer: tuple[Any, ...]) -> str:
    """`('scales_with', 2, 'symbol')` -> `scales_with[2].symbol`; the root -> `the entry`."""
    if not pointer:
        return "the file"
    text = ""
    for part in pointer:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _is_vocabulary(validator: str, value: Any) -> bool:
    if validator == "enum":
        return True
    return all(isinstance(option, Mapping) and "const" in option for option in value)


def _type_hint(expected: str, node: Mapping[str, Any]) -> str | None:
    """What to write instead of a value of the wrong type: for text of a set form (a pattern)
    or a value of another type, what the schema says of it; for free text, that quoting makes
    text of anything."""
    if expected == "string" and "pattern" not in node:
        return "quote the value if you mean text"
    said: str | None = node.get("patternErrorMessage") or node.get("description")
    return said


def _describe(root: Mapping[str, Any], problem: Any, key: str) -> str | None:
    """`key: its description`, from the properties the object defines: beside the `required`
    that names it, or around it when a `then`, `else` or `allOf` part requires it."""
    path = list(problem.absolute_schema_path)
    for end in range(len(path) - 1, -1, -1):
        properties = _schema_at(root, path[:end]).get("properties", {})
        if key in properties:
            description = _schema_at(root, [*path[:end], "properties", key]).get("description")
            return f"{key}: {description}" if description else None
    return None


def _schema_at(root: Mapping[str, Any], path: Sequence[Any]) -> Mapping[str, Any]:
    """The schema node at a validator's schema path (keys and list indexes), seen with the
    definition its local `$ref` names (its own keys first): the path steps through a
    reference without naming it. Not a mapping (inside `allOf`'s list, say): an empty node."""
    node: Any = root
    for part in path:
        node = _with_definition(root, node)[part] if isinstance(node, Mapping) else node[part]
    return _with_definition(root, node) if isinstance(node, Mapping) else {}


def _with_definition(root: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    if "$ref" not in node:
        return node
    return {**_with_definition(root, at_pointer(root, node["$ref"].removeprefix("#"))), **node}


def _parent_description(problem: Any) -> str | None:
    parent = problem.parent
    return parent.schema.get("description") if parent is not None else None


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "empty"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _show(value: Any) -> str:
    if isinstance(value, str):
        text = f"'{value}'"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        text = exact_number(value)  # 3.35e+12, not 3350000000000.0
    else:
        text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _clean(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "..."


# The publishing and vocabulary parts, one module each (they read the schemas above), named
# here as before: what other code takes from `schemas` stays where it was.
from . import placeholders, versions  # noqa: E402
from .publish import line_to_schema as line_to_schema  # noqa: E402
from .publish import published as published  # noqa: E402
from .publish import published_path as published_path  # noqa: E402
from .publish import schema_line as schema_line  # noqa: E402
from .publish import stale as stale  # noqa: E402
from .publish import unpublished as unpublished  # noqa: E402
from .vocabularies import bound_by_values as bound_by_values  # noqa: E402
from .vocabularies import built_in_words as built_in_words  # noqa: E402
from .vocabularies import default_dtype as default_dtype  # noqa: E402
from .vocabularies import documented as documented  # noqa: E402
from .vocabularies import is_id as is_id  # noqa: E402
from .vocabularies import open_namespaces as open_namespaces  # noqa: E402
from .vocabularies import shared_quantities as shared_quantities  # noqa: E402
from .vocabularies import unknown_namespace as unknown_namespace  # noqa: E402
from .vocabularies import vocabulary as vocabulary  # noqa: E402
