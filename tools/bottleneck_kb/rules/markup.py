"""Entry and device text is Markdown that can never put markup on the site: no raw HTML, no
images, and links only to http(s) addresses and arXiv ids.

The site escapes raw HTML and drops what these rules refuse in any case; the rules say so to
the contributor, at the character where it was written, before the page is built. They read
the text with patterns, not a Markdown parser, so `kb check` stays light; code spans are left
out, since `vector<float>` in backticks is text on the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..core.diagnostics import Diagnostic
from ..records.device import Device
from ..records.entry import Entry
from ..source import Pointer
from . import Context, Scope, rule

RAW_HTML = "KB501"
IMAGE = "KB502"
LINK_SCHEME = "KB503"

ARXIV_ID = re.compile(r"(?i:arxiv:)?([0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# A tag's name ends at a space or a slash: browsers read `<img/src=x/onerror=...>` as a tag.
_TAG = re.compile(r"<(?:/?[A-Za-z][A-Za-z0-9-]*(?:[\s/][^<>]*)?>|/[A-Za-z]|!--|![A-Za-z]|\?)")
_IMAGE = re.compile(r"!\[[^\]]*\]\s*[(\[]")
_INLINE_LINK = re.compile(r"\]\(\s*<?([^\s)>]*)")
_REFERENCE_DEFINITION = re.compile(r"^[ ]{0,3}\[[^\]]+\]:\s*<?([^\s>]+)", re.MULTILINE)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]*:[^\s<>]*)>")


def safe_href(target: str) -> str | None:
    """The address a link in entry or device text may point to, or None when it may not: http(s)
    addresses as written, arXiv ids (`2503.13565`, `arXiv:2503.13565`) to their abstract."""
    if re.fullmatch(r"https?://[^\s\"'<>\\]+", target):
        return target
    arxiv = ARXIV_ID.fullmatch(target)
    return f"https://arxiv.org/abs/{arxiv.group(1)}" if arxiv else None


def _strings(data: Any, pointer: Pointer = ()) -> Iterator[tuple[Pointer, str]]:
    """Every string value below `data`, with its pointer; depth is bounded by the loader."""
    if isinstance(data, str):
        yield pointer, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _strings(value, (*pointer, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _strings(value, (*pointer, index))


def _may_hold_markup(raw: str) -> bool:
    """Whether the file's text holds what every pattern of these rules needs: `<`, `](`, `]:`
    or `![`. A string's characters come from the file's text except through backslash
    escapes, so a file holding none of them (and no backslash) has no markup, and its strings
    need not be walked at all."""
    if "<" in raw or "\\" in raw or ("!" in raw and "![" in raw):
        return True
    # One-character searches run at memory speed and two-character ones do not; a file has
    # a few `]` (its flow lists), so look behind each.
    closing = raw.find("]")
    while closing != -1:
        if raw.startswith(("(", ":"), closing + 1):
            return True
        closing = raw.find("]", closing + 1)
    return False


def _texts(subject: Entry | Device) -> list[tuple[Pointer, str]]:
    """The file's strings that could hold markup, with their pointers, code spans blanked
    out (offsets still point into the original)."""
    raw = subject.source.text
    if raw and not _may_hold_markup(raw):
        return []
    return [
        (p, _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), t))
        for p, t in _strings(subject.source.data)
        if "<" in t or "]" in t
    ]


def _kind(subject: Entry | Device) -> str:
    return "entry" if isinstance(subject, Entry) else "device"


@rule(RAW_HTML, "no-raw-html", Scope.ENTRY, also=(Scope.DEVICE,))
def no_raw_html(subject: Entry | Device, context: Context) -> Iterable[Diagnostic]:
    """Entry and device text holds no raw HTML.

    ## What it checks
    No string of an entry or a device file holds an HTML tag, comment or processing
    instruction outside code spans; a lone `<` (as in `B < 32`) is text.
    An editor cannot show this: a JSON Schema cannot read Markdown as the site renders it.
    ## Why it matters
    Entries are published on the site; a tag from a pull request must never become markup
    there (a `<script>`, an `onerror=` attribute). The site shows such text escaped; this
    rule says so where it was written.
    ## How to fix
    Write Markdown only: put code in backticks, and a space after `<` for less-than.
    ## Fails
    ```yaml
    notes: Fast <img src=x onerror=alert(1)> kernel.
    ```
    ## Passes
    ```yaml
    notes: Memory-bound while B < 32; `vector<float>` is code.
    ```
    """
    for pointer, text in _texts(subject):
        found = _TAG.search(text)
        if found:
            yield subject.source.error_at(
                RAW_HTML,
                pointer,
                f"raw HTML `{found.group(0)[:40]}` in {_kind(subject)} text",
                "write Markdown only; put code in backticks, or a space after `<` for less-than",
                offset=found.start(),
            )


@rule(IMAGE, "no-images", Scope.ENTRY, also=(Scope.DEVICE,))
def no_images(subject: Entry | Device, context: Context) -> Iterable[Diagnostic]:
    """Entry and device text holds no images.

    ## What it checks
    No string of an entry or a device file holds Markdown image syntax (`![alt](address)`)
    outside code.
    An editor cannot show this: a JSON Schema cannot read Markdown as the site renders it.
    ## Why it matters
    An image loads from another host on every view of the page: the site requests nothing
    from elsewhere, and a pull request must not be able to track its readers.
    ## How to fix
    Link to the image instead: drop the `!` before `[`.
    ## Fails
    ```yaml
    notes: See ![the plot](https://example.org/plot.png).
    ```
    ## Passes
    ```yaml
    notes: See [the plot](https://example.org/plot.png).
    ```
    """
    for pointer, text in _texts(subject):
        found = _IMAGE.search(text)
        if found:
            yield subject.source.error_at(
                IMAGE,
                pointer,
                f"image in {_kind(subject)} text; the site loads nothing from other hosts",
                "link to it instead: drop the `!` before `[`",
                offset=found.start(),
            )


@rule(LINK_SCHEME, "link-scheme", Scope.ENTRY, also=(Scope.DEVICE,))
def link_scheme(subject: Entry | Device, context: Context) -> Iterable[Diagnostic]:
    """Links in entry and device text go to http(s) addresses or arXiv ids only.

    ## What it checks
    Every Markdown link, reference definition and autolink in an entry's or a device file's
    text points to an
    `http://` or `https://` address or to an arXiv id (`arXiv:2503.13565`).
    An editor cannot show this: a JSON Schema cannot read Markdown as the site renders it.
    ## Why it matters
    A `javascript:` or `data:` link on the site would run what a pull request wrote when a
    reader clicks it; other schemes open other programs.
    ## How to fix
    Write the https address, or the arXiv id, which the site links to its abstract page.
    ## Fails
    ```yaml
    notes: See [the details](javascript:alert(1)).
    ```
    ## Passes
    ```yaml
    notes: See [the details](https://example.org/p) and [EAGLE-3](arXiv:2503.01840).
    ```
    """
    for pointer, text in _texts(subject):
        for pattern in (_INLINE_LINK, _REFERENCE_DEFINITION, _AUTOLINK):
            for found in pattern.finditer(text):
                if safe_href(found.group(1)) is None:
                    yield subject.source.error_at(
                        LINK_SCHEME,
                        pointer,
                        f"link to `{found.group(1)[:60]}`: links go to http(s) or arXiv ids only",
                        "write https://... or an arXiv id such as arXiv:2503.13565",
                        offset=found.start(1),
                    )


TEXT_BUDGET_CODE = "KB504"
#: The most characters of text an entry or a device file may hold in all its strings: the
#: cards of this repository hold 9,000 to 35,000. Every page, the search index, the export
#: and `kb fmt` handle text in proportion to its length; past this, a file would cost a build
#: tens of times what a card costs.
TEXT_BUDGET = 100_000


def within_text_budget(subject: Entry | Device, context: Context) -> Iterable[Diagnostic]:
    raw = subject.source.text
    if len(raw) <= TEXT_BUDGET:  # nearly every file: its strings are shorter than its text
        return
    strings = list(_strings(subject.source.data))
    total = sum(len(text) for _, text in strings)
    if total <= TEXT_BUDGET or not strings:
        return
    pointer, longest = max(strings, key=lambda found: len(found[1]))
    yield subject.source.error_at(
        TEXT_BUDGET_CODE,
        pointer,
        f"the {_kind(subject)}'s text is {total:,} characters in all, past the budget of "
        f"{TEXT_BUDGET:,}; this string holds {len(longest):,}",
        "keep a card to what a reader needs; link to a longer write-up instead",
    )


within_text_budget.__doc__ = f"""An entry's or a device's text stays within the budget of
    characters every page and build spends on it.

    ## What it checks
    All the strings of an entry or a device file together hold at most {TEXT_BUDGET:,}
    characters (the cards of this repository hold 9,000 to 35,000). An editor cannot show
    this: a JSON Schema cannot add up the lengths of many texts.
    ## Why it matters
    The pages, the search index, the export and `kb fmt` handle text in proportion to its
    length: a file of a megabyte of prose, within the file size limit, would make the site
    build take tens of times what a card takes, on every build.
    ## How to fix
    Keep the card to what a reader needs; link to a longer write-up instead.
    ## Fails
    ```yaml
    notes: "{"x" * (TEXT_BUDGET + 1)}"
    ```
    ## Passes
    ```yaml
    notes: A short note, with a [link](https://example.org/write-up) to the long one.
    ```
    """
rule(TEXT_BUDGET_CODE, "text-budget", Scope.ENTRY, also=(Scope.DEVICE,))(within_text_budget)
