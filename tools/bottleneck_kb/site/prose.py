"""Entry text (Markdown written by strangers) as HTML that carries no markup of its own.

A Markdown instance of our own renders it with raw HTML switched off (so `<script>` and
`B < 32` come out as text), image syntax switched off (nothing loads from another host) and
every link's address passed through `safe_href` (http(s) and arXiv ids; any other link keeps
its text and loses its address). The pages embed the result as raw HTML, which MkDocs's own
Markdown passes through untouched, so nothing in it is read as Markdown a second time.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from functools import cache, lru_cache

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from ..rules.markup import safe_href

#: Python-Markdown's processors that would let text become markup or load from elsewhere.
_REFUSED_INLINE = ("html", "image_link", "image_reference", "short_image_ref", "automail")


#: Text in which Markdown finds nothing to do: no inline markup characters, no entity, and no
#: block syntax at its start (headings, lists, quotes).
_PLAIN = re.compile(r"(?![-+*#>=]|[0-9]+[.)]\s)[^`*_\[\]<>&\\!~|]*")


class _Links(Treeprocessor):
    def __init__(self, md: markdown.Markdown, keep: bool) -> None:
        super().__init__(md)
        self.keep = keep

    def run(self, root: ET.Element) -> None:
        for element in root.iter("a"):
            href = safe_href(element.get("href", "")) if self.keep else None
            title = element.get("title")
            element.attrib.clear()
            if href is None:
                element.tag = "span"
                continue
            element.set("href", href)
            element.set("rel", "nofollow noopener")
            if title is not None:
                element.set("title", title)


class _EntryText(Extension):
    def __init__(self, keep_links: bool) -> None:
        super().__init__()
        self.keep_links = keep_links

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        for name in _REFUSED_INLINE:
            md.inlinePatterns.deregister(name)
        md.treeprocessors.register(_Links(md, self.keep_links), "entry_links", 0)


@cache
def _renderer(keep_links: bool) -> markdown.Markdown:
    return markdown.Markdown(extensions=[_EntryText(keep_links)], output_format="html")


@lru_cache(maxsize=4096)
def block(text: str, keep_links: bool = True) -> str:
    """Paragraphs of entry text as HTML; with `keep_links` False, its links as their text."""
    renderer = _renderer(keep_links)
    renderer.reset()
    # One line: MkDocs's Markdown extensions that act on lines (fences, snippets, admonitions)
    # then never see a line of entry text; a newline as a character reference is the same
    # character to the browser, inside <pre> too.
    return renderer.convert(text).replace("\n", "&#10;")


def inline(text: str, keep_links: bool = True) -> str:
    """A short piece of entry text (a title, a claim) as HTML without its paragraph. Shown
    inside a link of the page (an entry's title in a list), its own links are kept as their
    text (`keep_links` False): a link inside a link ends the outer one, and the rest of the
    text would lead where the contributor's link does."""
    line = " ".join(text.split())
    if _PLAIN.fullmatch(line):  # most short texts: nothing Markdown would change but escapes
        return html.escape(line, quote=False)
    rendered = block(line, keep_links)
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        return rendered[3:-4]
    # A heading, a rule or a list (`# Title`, `---`, `1. First`): block markup would break out
    # of the heading, cell or line the text is shown in, so the text is shown as written.
    return html.escape(line, quote=False)


def plain(value: str) -> str:
    """A short piece of entry text as a reader sees it, without markup: what a page's
    `<title>` or a script's label shows (`vector<float>` for `` `vector<float>` ``)."""
    return html.unescape(_TAGS.sub("", inline(value, keep_links=False)))


_TAGS = re.compile(r"<[^<>]*>")


def text(value: str) -> str:
    """Plain text (ids, names, numbers) escaped for HTML, attributes included."""
    return html.escape(value, quote=True)
