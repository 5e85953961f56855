"""The pieces every generated page is made of: links between pages, the page frame, tables
and cells, math; and how the site is published (Options).

Pages are Markdown with raw HTML blocks that MkDocs passes through as they are. Everything a
contributor wrote reaches a page through `prose` (Markdown made safe) or `prose.text`
(escaped); the markup around it is these helpers' own. Links between generated pages are
computed here, relative, for MkDocs's directory URLs or plain `.html` URLs alike."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...records.fields import dtype_traits, parameter_dimension
from ...schemas import BUILT_IN, Words, documented, schema
from .. import mathml
from ..prose import text

STYLESHEET = "assets/bottleneck-kb.css"
#: The pages' own scripts, below the site's root: sortable tables, and the reader's device.
SORT_SCRIPT = "assets/kb-sort-table.js"
DEVICE_SCRIPT = "assets/kb-device.js"
#: Loaded on every page (the plugin adds it to the theme's scripts): focusable scroll boxes.
PAGE_SCRIPT = "assets/kb-page.js"
EXPORT = "export/knowledge-base.json"
MATHML = "http://www.w3.org/1998/Math/MathML"


class Links:
    """Relative URLs between pages. An address in a page's markup (`href`, `src`) is relative
    to the page's source file, as a link in Markdown is and as Zensical resolves one in raw
    HTML; MkDocs takes raw HTML's addresses as they are, so its plugin makes them relative to
    the page's own URL (`served`). An address a script follows when the page runs (in JSON,
    in a data attribute) is left alone by both, so it is relative to the page's URL
    (`at_run_time`)."""

    def __init__(self, directory_urls: bool) -> None:
        self.directory_urls = directory_urls

    def url(self, page: str) -> str:
        stem = page.removesuffix(".md")
        if not self.directory_urls:
            return f"{stem}.html"
        if stem == "index" or stem.endswith("/index"):
            return stem.removesuffix("index")
        return f"{stem}/"

    def href(self, source: str, target: str, anchor: str = "") -> str:
        """From page `source` to page `target` (and an anchor in it)."""
        return self.asset(source, self.url(target)) + (f"#{anchor}" if anchor else "")

    def asset(self, source: str, path: str) -> str:
        """From page `source`'s file to the file or URL `path` below the site's root."""
        return _relative(path, posixpath.dirname(source))

    def at_run_time(self, source: str, path: str) -> str:
        """From page `source`'s URL to the file or URL `path` below the site's root."""
        return _relative(path, self._folder(source))

    def _folder(self, source: str) -> str:
        url = self.url(source)
        return url.rstrip("/") if self.directory_urls else posixpath.dirname(url)

    def served(self, source: str, markup: str) -> str:
        """`markup` of page `source` with each relative `href` and `src` of its tags made
        relative to the page's URL rather than its file: the page as MkDocs must serve it."""
        if self._folder(source) == posixpath.dirname(source):
            return markup  # an index page, or plain `.html` URLs: the same folder

        def attribute(found: re.Match[str]) -> str:
            value = found["value"]
            if not value or value.startswith(("#", "/")) or ":" in value.split("/")[0]:
                return found[0]  # a fragment, a path from the host's root, or a URL
            cut = min((i for i in (value.find("#"), value.find("?")) if i >= 0), default=len(value))
            path, rest = value[:cut], value[cut:]
            target = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
            shown = _relative(target + ("/" if path.endswith("/") else ""), self._folder(source))
            return f'{found["name"]}="{shown}{rest}"'

        return _TAG.sub(lambda tag: _ADDRESS.sub(attribute, tag[0]), markup)


#: A tag of the page's markup (text's `<` is `&lt;`), and an address among its attributes
#: (the site's markup quotes every attribute with `"`).
_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_ADDRESS = re.compile(r'(?<=\s)(?P<name>href|src)="(?P<value>[^"]*)"')


def _relative(path: str, base: str) -> str:
    """The file or URL `path` below the site's root, from the folder `base`."""
    relative = posixpath.relpath(path or ".", base or ".")
    return relative + "/" if path.endswith("/") or not path else relative


def markdown_page(title: str, body: Iterable[str]) -> str:
    """A page: front matter with its title, then its blocks separated by blank lines.

    MkDocs themes print the title as HTML, and Material's `<title>` strips tags then
    unescapes; so the title is escaped, and `</` (the only thing that can close `<title>`
    early) is broken up first.
    """
    safe = text(" ".join(title.replace("</", "< /").split()))
    return f"---\ntitle: {yaml_string(safe)}\n---\n\n" + "\n\n".join(body) + "\n"


def yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar in printable ASCII. JSON's escapes are not YAML's
    past U+FFFF: a surrogate pair (`\\ud83d\\ude80`) is no character to YAML, and MkDocs,
    failing to read the front matter, would show it as the page's first lines."""
    escaped = []
    for character in value:
        code = ord(character)
        if character in '"\\':
            escaped.append(f"\\{character}")
        elif 0x20 <= code < 0x7F:
            escaped.append(character)
        else:
            escaped.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return f'"{"".join(escaped)}"'


def table(name: str, header: Sequence[str], rows: Iterable[Sequence[str]], css: str = "") -> str:
    """An HTML table named `name` (plain text: the heading above it), for a reader moving from
    table to table; cells are HTML already (escaped by the caller). Each row's first cell
    names the row, and is its header: a screen reader says it as the reader moves along."""
    head = "".join(f'<th scope="col">{h}</th>' for h in header)
    body = "".join(
        "<tr>" + row_header(row[0]) + "".join(cell(c) for c in row[1:]) + "</tr>" for row in rows
    )
    # Named by its own label: named by the heading's id, it would be read with the heading's
    # permalink, "Checks ¶".
    table = (
        f'<table aria-label="{text(name)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
    # The theme styles tables without a class; the class goes on a wrapper.
    return f'<div class="{css}">{table}</div>' if css else table


def cell(content: str) -> str:
    return content if content.startswith("<td") else f"<td>{content}</td>"


def row_header(content: str, attributes: str = "") -> str:
    """A row's first cell, its name; `attributes` (HTML, escaped) go on the cell."""
    return content if content.startswith("<th") else f'<th scope="row"{attributes}>{content}</th>'


def number_cell(value: float, shown: str, css: str = "", title: str = "") -> str:
    """A number as shown, with its exact value for tools (and tests) in `data-value`; `css`
    adds classes, `title` (plain text) what it says on hover."""
    classes = f"kb-number {css}".strip()
    hover = f' title="{text(title)}"' if title else ""
    return f'<td class="{classes}"{hover} data-value="{text(repr(value))}">{text(shown)}</td>'


def math(nodes: list[Any], label: str) -> str:
    """A formula's MathML, written from its tree (never inserted as stored markup)."""
    # Focusable and named: a formula wider than a phone scrolls in its row, by keyboard too.
    return (
        f'<div class="kb-formula" tabindex="0" role="group" aria-label="{label} formula">'
        f'<span class="kb-formula-name">{label}</span>'
        f'<math xmlns="{MATHML}" display="block">{mathml.markup(nodes)}</math></div>'
    )


def dtype_names(dtypes: Iterable[str]) -> list[str]:
    """`dtypes` in the catalog's display order (the schema's)."""
    present = set(dtypes)
    return [t for t in dtype_traits() if t in present]


def schema_titles(kind: str, key: str, words: Words = BUILT_IN) -> dict[str, str]:
    """The titles the schema (with a knowledge base's own `words`) gives each allowed value
    of `key`."""
    node = schema(kind, words)["properties"][key]
    return {value: title for value, (title, _) in documented(node).items()}


@dataclass(frozen=True)
class Options:
    """How the site is published: its address (for the schemas' `$id`), where an entry's
    source can be edited (its path is appended), whether URLs are directories, and where
    evaluated entries are cached between builds."""

    site_url: str = ""
    edit_url: str = ""
    directory_urls: bool = True
    cache: Path | None = None


def figure_unit(parameter: str) -> str:
    """The base unit of a device figure (`B/s`, `FLOP/s`), or "" for a count."""
    dimension = parameter_dimension(parameter)
    return dimension.base_unit if dimension is not None else ""


def page_scripts() -> dict[str, str]:
    """The pages' own scripts by their path below the site's root, from the package's
    assets."""
    folder = Path(__file__).parents[1] / "assets"
    return {
        path: (folder / posixpath.basename(path)).read_text("utf-8")
        for path in (SORT_SCRIPT, DEVICE_SCRIPT, PAGE_SCRIPT)
    }
