"""libyaml's composer, for a file the layout reader gives up on: the node tree of its one
document, whose nodes keep every line and column."""

from __future__ import annotations

from typing import Any

import yaml
from yaml._yaml import CParser

from ..core.codes import EMPTY, SYNTAX
from ..core.diagnostics import error
from .problems import Stop, libyaml_error, stop_at


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
