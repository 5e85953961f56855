"""MathML as data: the site keeps a formula's presentation MathML as a tree of elements and
text, never as markup, and writes the markup itself when a page is made.

The view cache stores what sympy printed; a page must not insert a stored string as HTML
(a cache file is something a pull request could have committed). So sympy's output is read
once into a tree of allowed MathML elements, that tree is what is stored, and `markup`
writes it back with every text and attribute escaped: whatever a tree holds, the markup it
gives is MathML and text.
"""

from __future__ import annotations

import html
import re
from typing import Any, TypeAlias

#: A node: [tag, {attribute: value}, [children]], each child a node or a text.
Node: TypeAlias = list[Any]

#: The presentation elements sympy's printer writes, and those of their family it may.
ELEMENTS = frozenset(
    {
        "mrow", "mi", "mn", "mo", "mtext", "mspace", "ms", "mfrac", "msqrt", "mroot", "msup",
        "msub", "msubsup", "munder", "mover", "munderover", "mfenced", "mstyle", "mpadded",
        "mphantom", "mtable", "mtr", "mtd",
    }
)  # fmt: skip
#: Attributes of those elements that change how a formula reads; nothing that runs or loads.
ATTRIBUTES = frozenset(
    {
        "mathvariant", "stretchy", "fence", "separator", "separators", "open", "close",
        "lspace", "rspace", "linethickness", "form", "accent", "accentunder", "width",
        "columnalign", "displaystyle", "scriptlevel", "largeop", "movablelimits", "symmetric",
    }
)  # fmt: skip
#: Characters sympy writes as named references, written back the same way.
_NAMED = {"\u2062": "&InvisibleTimes;", "\u2061": "&ApplyFunction;"}
#: Deepest tree read or written: a formula's nesting is bounded long before this.
MAX_DEPTH = 200

_TOKEN = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+=\"[^\"<>]*\")*)\s*(/?)>|([^<]+)")
_ATTRIBUTE = re.compile(r"([a-zA-Z-]+)=\"([^\"<>]*)\"")


class MathMLError(ValueError):
    """A tree or a markup that is not of allowed MathML elements and text."""


def tree(markup: str) -> list[Node | str]:
    """The nodes of `markup` (sympy's printed MathML, the content of a <math> element)."""
    top: list[Node | str] = []
    stack: list[Node] = []
    position = 0
    while position < len(markup):
        found = _TOKEN.match(markup, position)
        if found is None:
            raise MathMLError(f"not MathML at character {position}")
        position = found.end()
        closing, tag, attributes, empty, text = found.groups()
        children = stack[-1][2] if stack else top
        if text is not None:
            children.append(html.unescape(text))
            continue
        if closing:
            if not stack or stack[-1][0] != tag:
                raise MathMLError(f"</{tag}> closes nothing")
            stack.pop()
            continue
        node: Node = [tag, dict(_ATTRIBUTE.findall(attributes)), []]
        _allowed(node)
        children.append(node)
        if not empty:
            if len(stack) >= MAX_DEPTH:
                raise MathMLError("MathML nested too deeply")
            stack.append(node)
    if stack:
        raise MathMLError(f"<{stack[-1][0]}> is not closed")
    return top


def markup(nodes: Any) -> str:
    """The markup of `nodes` (as `tree` gives them, or as a cache file holds them): allowed
    elements and attributes only, every text and value escaped. A MathMLError for anything
    else."""
    if not isinstance(nodes, list):
        raise MathMLError("MathML content is not a list")
    out: list[str] = []
    for node in nodes:
        _write(node, out, 0)
    return "".join(out)


def _write(node: Any, out: list[str], depth: int) -> None:
    if isinstance(node, str):
        escaped = html.escape(node, quote=False)
        for character, name in _NAMED.items():
            escaped = escaped.replace(character, name)
        out.append(escaped)
        return
    if depth >= MAX_DEPTH:
        raise MathMLError("MathML nested too deeply")
    if not (isinstance(node, list) and len(node) == 3 and isinstance(node[1], dict)):
        raise MathMLError("a MathML node is [tag, attributes, children]")
    _allowed(node)
    tag, attributes, children = node
    if not isinstance(children, list):
        raise MathMLError("a MathML node's children are a list")
    said = "".join(f' {name}="{html.escape(value)}"' for name, value in attributes.items())
    out.append(f"<{tag}{said}>")
    for child in children:
        _write(child, out, depth + 1)
    out.append(f"</{tag}>")


def _allowed(node: Node) -> None:
    tag, attributes = node[0], node[1]
    if tag not in ELEMENTS:
        raise MathMLError(f"<{tag}> is not an allowed MathML element")
    for name, value in attributes.items():
        if name not in ATTRIBUTES or not isinstance(value, str):
            raise MathMLError(f"{name} is not an allowed attribute of <{tag}>")
