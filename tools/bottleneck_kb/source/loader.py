"""The loader's stages in order, from bytes to a Document: decode; read the layout `kb fmt`
writes, if the file keeps it; otherwise scan the events, compose with libyaml, build the data.

libyaml composes the node tree in C (with a resolver that tags nothing, so only tags the user
wrote survive); the data is then built from the same nodes, which keep every line and column.
A file read by `layout` has no node tree: the reader kept the lines of its keys and items,
which say where each node would start, and the composer is called only for a pointer into a
flow collection.
"""

from __future__ import annotations

from ..core.codes import NOT_A_MAPPING
from ..core.diagnostics import Diagnostic
from .characters import decode
from .document import Document
from .layout import read_layout
from .problems import Stop, stop_at


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
    # Imported with PyYAML when a file first needs them: a check of files that all keep the
    # layout never loads it (12 ms, a tenth of a large check's start).
    from .build import Builder
    from .composer import compose
    from .scan import scan

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
