"""A knowledge base as the site's pages and assets: the library call that makes every generated
file (`build_site`), which the MkDocs plugin only hands to MkDocs.

Pages are built from the typed records and from `view` (the evaluation), never from the YAML."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ...checking.run import check_read, checked_cards, checked_catalog
from ...core.codes import INTERNAL
from ...core.diagnostics import Diagnostic, Severity, error
from ...knowledge.addresses import (
    COMPARE,
    DEVICES,
    ENTRIES_BY_BOUND,
    ENTRIES_BY_CLASS,
    HOME,
    MEASUREMENTS,
    MODELS_INDEX,
    SCHEMA_REFERENCE,
    device_page,
    entry_page,
    model_page,
)
from ...knowledge.base import KnowledgeBase
from ...schemas import published
from .. import export, model_explorer
from ..cache import ViewCache
from ..explorer import compare_body, explorer_assets
from ..view import MeasuredOutcome, model_views, parse_all, recipe_evaluators
from .answers import featured_first
from .device_pages import render_device, render_device_index
from .entry_pages import render_entry, render_redirect
from .home_page import render_home
from .html import EXPORT, STYLESHEET, Links, Options, markdown_page, page_scripts
from .indexes import render_entry_index
from .measurement_pages import render_measurements
from .model_pages import render_model, render_model_index
from .reference_pages import (
    PUBLISHED_SCHEMAS,
    publish_schema,
    render_rule_pages,
    render_schema_reference,
)


@dataclass
class Site:
    """Generated files by path below the docs folder: Markdown pages and other assets."""

    pages: dict[str, str] = field(default_factory=dict)
    assets: dict[str, str] = field(default_factory=dict)
    #: What `kb check` finds in the knowledge base the pages were made from.
    diagnostics: list[Diagnostic] = field(default_factory=list)


def build_site(root: Path, options: Options) -> Site:
    """Every generated page and asset of the knowledge base at `root`."""
    kb = KnowledgeBase.load(root)
    # The devices kb check judges entries on: not one whose file fails its own rules.
    cards = checked_cards(root, kb.catalog.devices.values(), kb.entries)
    checked = checked_catalog(kb.catalog, published(root), cards=cards)
    catalog = checked[0]
    devices = sorted(catalog.devices.values(), key=lambda d: d.id)
    names = {d.id: d.name for d in devices}
    entries = sorted(kb.entries, key=lambda e: e.id)
    # Each entry's formulas parsed once, for its checks, its view and its explorer.
    parsed = parse_all(entries)
    views = ViewCache(options.cache).views(entries, devices, parsed)
    links = Links(options.directory_urls)
    # A page made from an entry kb check fails would show a wrong claim, or be missing.
    site = Site(diagnostics=check_read(kb, checked, parsed).diagnostics)
    failing = {d.path for d in site.diagnostics if d.severity is Severity.ERROR}
    site.diagnostics += [
        error(
            INTERNAL,
            entry.path,
            1,
            1,
            f"kb check passes this entry, but its page could not evaluate it: {view.error}",
            "this is a bug in kb; please report it with the file",
        )
        for entry in entries
        if (view := views[entry.id]).error is not None and entry.path not in failing
    ]
    entries_by_id = {e.id: e for e in entries}
    linking = export.related_from(entries)
    featured = kb.config.featured([d.id for d in devices])
    for entry in entries:
        explorable = parsed[entry.path][0] is not None
        site.pages[entry_page(entry.id)] = render_entry(
            entry,
            views[entry.id],
            devices,
            links,
            options,
            entries_by_id,
            linking,
            explorable,
            featured,
            kb.config.words,
        )
        for alias in entry.aliases:
            if alias not in views:
                path, html = render_redirect(alias, entry.id, links)
                site.assets[path] = html
    # The explorer lists (and first charts) the featured devices, as the static page does.
    ordered = featured_first(devices, lambda d: d.id, featured)
    site.assets.update(explorer_assets(entries, ordered, parsed))
    site.pages[COMPARE] = markdown_page(
        "Compare entries",
        [
            compare_body(
                entries,
                partial(links.asset, COMPARE),
                partial(links.at_run_time, COMPARE),
                parsed,
            )
        ],
    )
    for device in devices:
        site.pages[device_page(device.id)] = render_device(device, entries, views, links)
    site.pages[ENTRIES_BY_CLASS] = render_entry_index(
        entries, views, devices, links, "class", featured, kb.config.words
    )
    site.pages[ENTRIES_BY_BOUND] = render_entry_index(
        entries, views, devices, links, "bound_by", featured
    )
    site.pages[DEVICES] = render_device_index(devices, links, featured)
    # A model kb check refuses is left out: its numbers would be nobody's.
    models = [m for m in sorted(kb.models, key=lambda m: m.id) if m.path not in failing]
    recipe = recipe_evaluators(entries, parsed)
    estimates = model_views(models, devices, recipe)
    site.assets.update(model_explorer.asset_files())
    for model in models:
        page = model_page(model.id)
        estimated = estimates[model.id]
        block = ""
        if estimated.estimate is not None and estimated.estimate.results:
            site.assets[model_explorer.script_path(model.id)] = model_explorer.model_script(
                estimated, devices, recipe
            )
            block = model_explorer.model_explorer_block(model.id, partial(links.asset, page))
        site.pages[page] = render_model(
            estimated, links, block, names, {d.id: d for d in devices}, featured
        )
    site.pages[MODELS_INDEX] = render_model_index(estimates, links)
    measured: dict[str, list[MeasuredOutcome]] = {
        e.id: list(evaluation.measured)
        for e in entries
        if (evaluation := views[e.id].evaluation) is not None and evaluation.measured
    }
    measured |= {
        m.id: list(estimated.estimate.measured)
        for m in models
        if (estimated := estimates[m.id]).estimate is not None and estimated.estimate.measured
    }
    owners = {e.id: entry_page(e.id) for e in entries} | {m.id: model_page(m.id) for m in models}
    site.pages[MEASUREMENTS] = render_measurements(measured, owners, names, links)
    count = sum(len(found) for found in measured.values())
    site.pages[HOME] = render_home(entries, devices, estimates, count, featured, links)
    site.assets.update(page_scripts())
    site.pages[SCHEMA_REFERENCE] = render_schema_reference(links)
    site.pages.update(render_rule_pages(links))
    for kind, _ in PUBLISHED_SCHEMAS:
        site.assets[f"schema/{kind}.schema.json"] = publish_schema(kind, options.site_url)
    site.assets[EXPORT] = json.dumps(
        export.knowledge_base(entries, devices, views, estimates), separators=(",", ":")
    )
    site.assets[STYLESHEET] = (Path(__file__).parents[1] / "bottleneck-kb.css").read_text("utf-8")
    return site
