"""`kb new`: a skeleton entry or device, read off the schema, for the author to fill in.

Every field the schema requires (and every field with a default) is written with a comment
above it taken from the schema's title and description, and a placeholder that `kb check`
reports (KB015, KB017) until it is replaced. The skeleton is passed through `kb fmt`, so it is
in canonical form and loads. An existing file is never overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import textwrap
from pathlib import Path
from typing import Any

from .. import schemas
from ..core.errors import KBError
from ..core.files import written_beside
from ..core.text import suggest
from ..knowledge.config import words_of
from ..knowledge.files import ENTRIES, HARDWARE, MODELS, SUFFIX, display_path
from ..schemas.placeholders import PLACEHOLDER
from .fmt import format_text
from .folding import WIDTH
from .key_order import branches, child, item_schema, property_names

FOLDERS = {schemas.ENTRY: ENTRIES, schemas.HARDWARE: HARDWARE, schemas.MODEL: MODELS}


class ScaffoldError(KBError):
    """What is wrong with what `kb new` was asked for, and what is allowed (exit status 1)."""


def choices(kind: str, key: str, words: schemas.Words = schemas.BUILT_IN) -> list[str]:
    """The allowed values of the top-level `key` of `kind`, read from the schema (with a
    knowledge base's own `words`)."""
    schema = schemas.schema(kind, words)
    return _allowed(child(schema, schema, key), schema)


def _allowed(node: Any, root: dict[str, Any]) -> list[str]:
    """The values of a vocabulary: the consts of its options, or its enum."""
    found: list[str] = []
    for branch in branches(node, root):
        if "const" in branch:
            found.append(str(branch["const"]))
        found.extend(str(value) for value in branch.get("enum", ()))
    return found


def new_file(root: Path, kind: str, identifier: str, given: dict[str, str]) -> Path:
    """Write the skeleton of a new `kind` file with id `identifier` below `root` and return its
    path. `given` holds values of top-level fields with a fixed vocabulary (class, bound_by);
    the namespaces and classes allowed are kb's and those root's kb.yaml adds."""
    words = words_of(root)
    if not schemas.is_id(kind, identifier):
        id_schema = schemas.schema(kind)["properties"]["id"]
        longest = id_schema.get("maxLength", len(identifier))
        raise ScaffoldError(
            f"'{identifier}' is not a valid {kind} id",
            f"an id is at most {longest} characters"
            if len(identifier) > longest
            else id_schema.get("description"),
        )
    unknown = schemas.unknown_namespace(identifier, words) if kind == schemas.ENTRY else None
    if unknown is not None:
        raise ScaffoldError(*unknown)
    namespace = identifier.partition("/")[0]
    if kind == schemas.ENTRY and namespace not in schemas.open_namespaces(words):
        open_ones = ", ".join(schemas.open_namespaces(words))
        raise ScaffoldError(
            f"'{namespace}' is reserved for kb's own test fixtures",
            f"choose the namespace of the entry's family: {open_ones}",
        )
    for key, value in given.items():
        allowed = choices(kind, key, words)
        if value not in allowed:
            raise ScaffoldError(
                f"'{value}' is not an allowed {key}", suggest(value, allowed, "values")
            )
    path = root / FOLDERS[kind] / f"{identifier}{SUFFIX}"
    display = display_path(path, root)
    if path.exists() or path.is_symlink():
        raise ScaffoldError(f"{display} already exists", "edit it, or choose another id")
    linked = _linked_folder(root, path.parent)
    if linked is not None:
        raise ScaffoldError(
            f"{display_path(linked, root)} is a symlink; kb new writes only inside the repository",
            "make it a folder of the repository (kb check does not read entries through links)",
        )
    relative = f"{FOLDERS[kind]}/{identifier}{SUFFIX}"
    line = schemas.schema_line(root, relative, kind)
    text = skeleton(kind, {"id": identifier, **given}, line, words)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _create(path, text)
    except (FileExistsError, NotADirectoryError):  # a file where a folder must be
        blocking = next((p for p in path.parents if p.is_file()), path.parent)
        raise ScaffoldError(
            f"{display_path(blocking, root)} is a file, where kb new makes a folder",
            "move it aside, or choose another id",
        ) from None
    except OSError as exc:  # said of the file asked for, not of the temporary one beside it
        raise ScaffoldError(f"cannot write {display}: {exc.strerror or exc}") from None
    return path


def _linked_folder(root: Path, folder: Path) -> Path | None:
    """The first folder between `root` and `folder` (itself included) that is a symlink: a
    write through it would land wherever the link points, outside the repository."""
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


def skeleton(
    kind: str,
    given: dict[str, str],
    schema_line: str | None,
    words: schemas.Words = schemas.BUILT_IN,
) -> str:
    """The canonical text of a new file of `kind`: the `given` values, and a commented
    placeholder for every other field that the schema requires (its comment listing the
    allowed values, a knowledge base's own `words` among them)."""
    schema = schemas.schema(kind, words)
    lines: list[str] = []
    _mapping(schema, schema, given, 0, "", lines)
    return format_text(("\n".join(lines) + "\n").encode(), "new", kind, schema_line)


def _mapping(
    node: Any, root: dict[str, Any], given: dict[str, str], indent: int, dash: str, lines: list[str]
) -> None:
    """The keys of a mapping `node` describes, at column `indent`; the first one after `dash`
    (`- ` when the mapping is a list item)."""
    names = property_names(node, root)
    required = {k for b in branches(node, root) if "properties" in b for k in b.get("required", ())}
    for key in names:
        value = child(node, root, key)
        default = next((b["default"] for b in branches(value, root) if "default" in b), None)
        # A mapping that requires no key (peak FLOP/s per dtype) shows all it may hold.
        if required and key not in required and key not in given and default is None:
            continue
        pad = " " * (indent - len(dash))
        lines.extend(f"{pad}# {text}" for text in _comment(value, root, WIDTH - indent - 2))
        head = f"{pad}{dash}{key}:"
        dash = ""
        items = item_schema(value, root)
        if key in given or default is not None:
            lines.append(f"{head} {json.dumps(given.get(key, default))}")
        elif property_names(value, root):
            lines.append(head)
            _mapping(value, root, {}, indent + 2, "", lines)
        elif items is not None and property_names(items, root):
            lines.append(head)
            _mapping(items, root, {}, indent + 4, "- ", lines)
        elif items is not None:
            lines.append(f"{head} [{json.dumps(_placeholder(items, root))}]")
        else:
            lines.append(f"{head} {json.dumps(_placeholder(value, root))}")


def _placeholder(node: Any, root: dict[str, Any]) -> str:
    """The placeholder word, in upper case unless the field's pattern asks for lower case."""
    patterns = [b["pattern"] for b in branches(node, root) if "pattern" in b]
    for word in (PLACEHOLDER, PLACEHOLDER.lower()):
        if all(re.search(pattern, word) for pattern in patterns):
            return word
    return PLACEHOLDER


def _comment(node: Any, root: dict[str, Any], width: int) -> list[str]:
    """The field's title and description, and its allowed values, wrapped to `width`."""
    parts = list(branches(node, root))
    title = next((b["title"] for b in parts if "title" in b), None)
    description = next((b["description"] for b in parts if "description" in b), None)
    allowed = _allowed(node, root)
    text = ": ".join(part for part in (title, description) if part)
    if allowed:
        text += f" One of: {', '.join(allowed)}."
    return textwrap.wrap(text, max(width, 40)) if text else []


def _create(path: Path, text: str) -> None:
    """Write a new file whole or not at all, and never over one that appeared meanwhile: the
    text goes to a temporary file, which is then linked to `path` (refused if it exists)."""
    temporary = written_beside(path, text)
    try:
        umask = os.umask(0)  # mkstemp makes the file private; a new file gets the usual mode
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise ScaffoldError(f"{path} already exists", "edit it, or choose another id") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
