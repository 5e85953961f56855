"""MkDocs adapter: hands the generated pages and assets to MkDocs at build time.

Everything theme- or MkDocs-specific about the site is here and in mkdocs.yml; the pages
themselves come from `pages`, which knows nothing of MkDocs. Moving to another generator
(Zensical) means another adapter of this size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files

from ..diagnostics import Severity, located_line
from ..kb import ENTRIES, HARDWARE
from .pages import STYLESHEET, Options, build_site

_LOG = get_plugin_logger(__name__)


class PluginConfig(Config):  # type: ignore[no-untyped-call]
    root = config_options.Optional(config_options.Type(str))
    edit_url = config_options.Type(str, default="")
    cache_dir = config_options.Type(str, default="build/.kb-site-cache")


class BottleneckKBPlugin(BasePlugin[PluginConfig]):  # type: ignore[no-untyped-call]
    """`plugins: [bottleneck-kb]` in mkdocs.yml. Options: `root` (the knowledge base, default
    the folder of mkdocs.yml), `edit_url` (prefix of an entry's source path for its edit
    link), `cache_dir` (evaluated entries kept between builds, relative to the root)."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)
        return config

    def _root(self, config: MkDocsConfig) -> Path:
        return Path(config.config_file_path).parent / (self.config.root or ".")

    def on_serve(
        self, server: LiveReloadServer, /, *, config: MkDocsConfig, builder: Callable[..., Any]
    ) -> LiveReloadServer:
        # `mkdocs serve` rebuilds when an entry or a device changes, not only a page.
        for folder in (ENTRIES, HARDWARE):
            server.watch(str(self._root(config) / folder))
        return server

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        root = self._root(config)
        site = build_site(
            root,
            Options(
                site_url=config.site_url or "",
                edit_url=self.config.edit_url,
                directory_urls=config.use_directory_urls,
                cache=root / self.config.cache_dir if self.config.cache_dir else None,
            ),
        )
        # As warnings, so that `mkdocs build --strict` fails where `kb check` does; kb's own
        # warnings (which kb check passes) are information.
        for diagnostic in site.diagnostics:
            report = _LOG.warning if diagnostic.severity is Severity.ERROR else _LOG.info
            report("kb check: %s", located_line(diagnostic))
        for path, content in (*site.pages.items(), *site.assets.items()):
            existing = files.get_file_from_path(path)
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, path, content=content))
        return files
