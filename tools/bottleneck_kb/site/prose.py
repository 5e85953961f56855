"""Entry text (Markdown written by strangers) as HTML that carries no markup of its own.

A CommonMark parser of our own (markdown-it-py) renders it with raw HTML switched off (so
`<script>` and `B < 32` come out as text), image syntax switched off (nothing loads from
another host) and every link's address passed through `safe_href` (http(s) and arXiv ids;
any other link keeps its text and loses its address). The pages embed the result as raw
HTML, which MkDocs's own Markdown passes through untouched, so nothing in it is read as
Markdown a second time.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from ..rules.markup import safe_href

#: Text in which Markdown finds nothing to do: no inline markup characters, no entity, and no
#: block syntax at its start (headings, lists, quotes).
_PLAIN = re.compile(r"(?![-+*#>=]|[0-9]+[.)]\s)[^`*_\[\]<>&\\!~|]*")


class _EntryRenderer(RendererHTML):
    """CommonMark's HTML, with every link's address through `safe_href` (or, with
    `keep_links` False, every link as its text)."""

    def __init__(self, parser: Any = None, keep_links: bool = True) -> None:
        super().__init__(parser)
        self.keep_links = keep_links

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # Quotes are text outside attributes, as the pages write them elsewhere.
        return html.escape(tokens[idx].content, quote=False)

    def link_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        href = safe_href(str(token.attrGet("href") or "")) if self.keep_links else None
        title = token.attrGet("title")
        # What each open link became, for its closing token: links are rendered in order.
        env.setdefault("spans", []).append(href is None)
        if href is None:
            return "<span>"
        token.attrs = {"href": href, "rel": "nofollow noopener"}
        if title is not None:
            token.attrs["title"] = title
        opened: str = self.renderToken(tokens, idx, options, env)
        return opened

    def link_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        spans = env.get("spans")
        return "</span>" if spans and spans.pop() else "</a>"


@cache
def _renderer(keep_links: bool) -> MarkdownIt:
    """CommonMark (markdown-it-py, whose parsing is linear in the text however it is
    written: a stranger's prose cannot make a page take minutes), with raw HTML off (`<script>`
    and `B < 32` come out as text) and images off (nothing loads from another host)."""
    parser = MarkdownIt("commonmark", {"html": False}, renderer_cls=_EntryRenderer)
    parser.disable("image")
    parser.renderer = _EntryRenderer(parser, keep_links)
    return parser


@lru_cache(maxsize=4096)
def block(text: str, keep_links: bool = True) -> str:
    """Paragraphs of entry text as HTML; with `keep_links` False, its links as their text."""
    # One line: MkDocs's Markdown extensions that act on lines (fences, snippets, admonitions)
    # then never see a line of entry text; a newline as a character reference is the same
    # character to the browser, inside <pre> too.
    rendered: str = _renderer(keep_links).render(text)
    return rendered.rstrip("\n").replace("\n", "&#10;")


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
