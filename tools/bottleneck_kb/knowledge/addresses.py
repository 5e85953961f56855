"""Where the site's generated pages lie: one place for the path of every page made from a
knowledge base (a page per entry, alias, device and code, and the fixed pages beside them),
which the site writes and `kb check` holds free of collisions (KB215).

Paths are of Markdown pages below the docs folder (`entries/gemm/x.md`); `output_files` gives
the HTML files MkDocs writes for one, with directory URLs (`entries/gemm/x/index.html`) or
without (`entries/gemm/x.html`), since a collision in either is a page lost.
"""

from __future__ import annotations

ENTRIES_BY_CLASS = "entries/index.md"
ENTRIES_BY_BOUND = "entries/bound-by.md"
DEVICES = "devices/index.md"
COMPARE = "compare.md"
SCHEMA_REFERENCE = "reference/schema.md"
RULES = "reference/rules.md"
MODELS_INDEX = "models/index.md"
MEASUREMENTS = "measurements.md"
HOME = "index.md"
#: The pages made once for the whole knowledge base.
FIXED_PAGES = (
    HOME,
    ENTRIES_BY_CLASS,
    ENTRIES_BY_BOUND,
    DEVICES,
    COMPARE,
    SCHEMA_REFERENCE,
    RULES,
    MODELS_INDEX,
    MEASUREMENTS,
)


def entry_page(entry_id: str) -> str:
    """An entry's page; a former id (alias) redirects from the page of that id."""
    return f"entries/{entry_id}.md"


def device_page(device_id: str) -> str:
    return f"devices/{device_id}.md"


def model_page(model_id: str) -> str:
    return f"models/{model_id}.md"


def rule_page(code: str) -> str:
    return f"reference/rules/{code}.md"


def output_files(page: str) -> tuple[str, str]:
    """The HTML file MkDocs writes for `page`, with directory URLs and without."""
    stem = page.removesuffix(".md")
    plain = f"{stem}.html"
    if stem == "index" or stem.endswith("/index"):
        return plain, plain
    return f"{stem}/index.html", plain
