"""The reference pages: the schemas as published (with the site's `$id`), the fields of each,
and one page per rule of `kb check`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...knowledge.addresses import (
    RULES,
    SCHEMA_REFERENCE,
    rule_page,
)
from ...schemas import ENTRY, HARDWARE, documented, published_text, schema
from .. import export
from ..prose import inline, text
from .html import EXPORT, Links, markdown_page, table

PUBLISHED_SCHEMAS = ((ENTRY, "Entry"), (HARDWARE, "Device"), (export.KIND, "JSON export"))


def _schema_of(kind: str) -> dict[str, Any]:
    return export.export_schema() if kind == export.KIND else schema(kind)


def publish_schema(kind: str, site_url: str) -> str:
    """A schema as published on the site: its `$id` is the address it is served from."""
    published = dict(_schema_of(kind))
    if site_url:
        published["$id"] = f"{site_url.rstrip('/')}/schema/{kind}.schema.json"
    return published_text(published)


def _schema_rows(node: dict[str, Any], path: str) -> Iterable[list[str]]:
    """One row per property, depth first; the schemas are ours, so depth is small."""
    if not isinstance(node, dict):
        return
    for name, prop in node.get("properties", {}).items():
        here = f"{path}.{name}" if path else name
        required = name in node.get("required", [])
        yield [
            f'<code id="{text(here)}">{text(here)}</code>' + (" (required)" if required else ""),
            text(prop.get("title", "")),
            text(prop.get("description", "")),
            text(_allowed(prop)),
        ]
        items = prop.get("items", {})
        yield from _schema_rows(prop, here)
        yield from _schema_rows(items, f"{here}[]")
        additional = prop.get("additionalProperties")
        if isinstance(additional, dict):
            yield from _schema_rows(additional, f"{here}.*")


def _allowed(prop: dict[str, Any]) -> str:
    if "enum" in prop or ("oneOf" in prop and all("const" in o for o in prop["oneOf"])):
        return ", ".join(str(v) for v in documented(prop))
    kind = prop.get("type", "")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def render_rule_pages(links: Links) -> dict[str, str]:
    """A page per diagnostic code and their index, from each rule's own documentation (what
    `kb check --explain CODE` prints); the documentation is the project's text, not an
    entry's, so its Markdown (YAML examples in fences) is rendered as written."""
    from ...rules import REGISTRY

    rows = []
    pages = {}
    for code in sorted(REGISTRY):
        rule = REGISTRY[code]
        page = rule_page(code)
        rows.append(
            [
                f'<a href="{text(links.href(RULES, page))}">{text(code)}</a>',
                f"<code>{text(rule.name)}</code>",
                text(rule.severity.value),
                # The summary's Markdown (`&name` in code) made safe, not shown as backticks.
                inline(rule.summary),
            ]
        )
        pages[page] = markdown_page(
            f"{code} {rule.name}",
            [f"# {code} {rule.name}", f"*{rule.severity.value}*", rule.doc.text],
        )
    pages[RULES] = markdown_page(
        "Diagnostic codes",
        [
            "# Diagnostic codes",
            "Every code `kb check` can report. `kb check --explain CODE` prints the same page.",
            table("Diagnostic codes", ["code", "name", "severity", "summary"], rows, "kb-rules"),
        ],
    )
    return pages


def render_schema_reference(links: Links) -> str:
    body = [
        "# Schema reference",
        "Generated from the JSON Schemas' own titles and descriptions, so it cannot drift "
        "from what `kb check` enforces. The schema files are published with the site: point "
        "an editor's YAML language server at them, or validate the JSON export.",
    ]
    for kind, heading in PUBLISHED_SCHEMAS:
        document = _schema_of(kind)
        href = links.asset(SCHEMA_REFERENCE, f"schema/{kind}.schema.json")
        body += [
            f"## {heading}",
            f"<p>{text(document.get('description', ''))} Published at "
            f'<a href="{text(href)}">schema/{kind}.schema.json</a>.</p>',
            table(
                heading,
                ["property", "title", "description", "type or values"],
                _schema_rows(document, ""),
            ),
        ]
    body.append(
        f"<p>The whole knowledge base, with every entry evaluated on every device, is at "
        f'<a href="{text(links.asset(SCHEMA_REFERENCE, EXPORT))}">'
        f"{EXPORT}</a>.</p>"
    )
    return markdown_page("Schema reference", body)
