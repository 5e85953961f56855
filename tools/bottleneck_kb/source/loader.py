"""The loader's stages in order, from bytes to a Document: decode; read the layout `kb fmt`
writes, if the file keeps it; otherwise scan the events, compose with libyaml, build the data.

libyaml composes the node tree in C (with a resolver that tags nothing, so only tags the user
wrote survive); the data is then built from the same nodes, which keep every line and column.
A file read by `layout` has no node tree: the reader kept the lines of its keys and items,
which say where each node would start, and the composer is called only for a pointer into a
flow collection.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml._yaml import CParser

from ..diagnostics import Diagnostic, error
from .build import Builder
from .characters import decode
from .layout import read_layout
from .positions import Document
from .problems import EMPTY, NOT_A_MAPPING, SYNTAX, Stop, libyaml_error, stop_at
from .scan import scan


def load(raw: bytes, display: str) -> tuple[Document | None, list[Diagnostic]]:
    """Parse `raw` into a Document; on any problem return None and the located diagnostics.

    Warnings (such as a YAML 1.1 boolean word) come back beside a Document.
    """
    try:
        text = decode(raw, display)
    except Stop as stop:
        return None, [stop.diagnostic]
    layout = read_layout(text)
    if layout is not None:
        return Document(display, layout.data, None, text, layout), []
    return read_with_libyaml(text, display)


def read_with_libyaml(text: str, display: str) -> tuple[Document | None, list[Diagnostic]]:
    """`load` for any text, whatever its layout: scanned, composed and built."""
    try:
        scan(text, display)
        root = compose(text, display)
        builder = Builder(display, text)
        data = builder.value(root, 0)
        if not isinstance(data, dict):
            kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
            raise stop_at(
                NOT_A_MAPPING,
                display,
                root.start_mark,
                f"the top level is {kind}, not a mapping of keys to values",
            )
    except Stop as stop:
        return None, [stop.diagnostic]
    return Document(display, data, root, text), builder.warnings


class _Composer(CParser):
    """libyaml's composer with a resolver that resolves nothing: a node's tag is "" unless the
    user wrote one, and the builder types plain scalars itself (YAML 1.2)."""

    # The composer calls these three for every node. `"".format` takes any arguments and
    # returns "" without a Python frame: a builtin method is not a descriptor, so it is not
    # bound to the instance. This is a tenth of the composing time.
    resolve = "".format
    descend_resolver = "".format
    ascend_resolver = "".format


def compose(text: str, display: str) -> Any:
    """The root node of the one document in `text`."""
    composer = _Composer(text)
    try:
        root = composer.get_node() if composer.check_node() else None
        following = composer.peek_event()
        if root is not None and following and type(following) is not yaml.StreamEndEvent:
            raise stop_at(
                SYNTAX,
                display,
                following.start_mark,
                "more than one YAML document in the file",
                "keep one entry per file and remove the '---' separator",
            )
    except yaml.YAMLError as exc:
        raise libyaml_error(text, exc, display) from None
    finally:
        composer.dispose()
    if root is None or (type(root) is yaml.ScalarNode and root.value == "" and not root.style):
        raise Stop(error(EMPTY, display, 1, 1, "file is empty", "an entry is a YAML mapping"))
    return root
