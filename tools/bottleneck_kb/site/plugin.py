"""MkDocs adapter: hands the generated pages and assets to MkDocs at build time.

Everything MkDocs-specific about the site is here and in mkdocs.yml; the pages themselves
come from `pages`, which knows nothing of MkDocs, as files `kb site DIR` writes for any
builder (`files`). What MkDocs needs beyond them: the published address set from the
repository's (`address`), and each generated page's addresses made relative to its URL
(`Links.served`: MkDocs, unlike Zensical, leaves raw HTML's links as they are written).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from ..core.diagnostics import Severity, located_line
from ..core.errors import KBError
from ..core.outputs import guard_output
from ..knowledge.files import ENTRIES, HARDWARE
from .address import Address, repository_address
from .cache import default_folder
from .files import generated, refuse_collision
from .pages.build import build_site
from .pages.html import PAGE_SCRIPT, STYLESHEET, Links, Options

_LOG = get_plugin_logger(__name__)


class PluginConfig(Config):  # type: ignore[no-untyped-call]
    root = config_options.Optional(config_options.Type(str))
    repository = config_options.Optional(config_options.Type(str))
    cache_dir = config_options.Type(str, default="")


class BottleneckKBPlugin(BasePlugin[PluginConfig]):  # type: ignore[no-untyped-call]
    """`plugins: [bottleneck-kb]` in mkdocs.yml. Options: `root` (the knowledge base, default
    the folder of mkdocs.yml), `repository` (`OWNER/NAME` on GitHub, which sets `site_url`
    and the entries' edit links; by default `KB_REPOSITORY`, else `GITHUB_REPOSITORY`, else
    the project's own: `address`), `cache_dir` (evaluated entries kept between builds: by
    default a folder of the user's cache, outside the checkout; a folder named here is
    relative to the root and must lie inside the repository, untracked and reached through
    no link)."""

    _address: Address
    #: The generated pages of the build, by their path below the docs folder.
    _pages: frozenset[str] = frozenset()
    _links: Links

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        # Before MkDocs empties the output folder (it does so after this event): a folder
        # the repository committed, or a link it committed in its place, is refused here.
        repository = Path(config.config_file_path).parent
        named = os.path.abspath(config.site_dir) != _configured_site_dir(config)
        try:
            guard_output(Path(config.site_dir), repository, "the site", named=named)
            if self.config.cache_dir:
                guard_output(self._cache(config), repository, "the cache of views")
            self._address = repository_address(self.config.repository)
        except KBError as exc:
            raise PluginError(f"bottleneck-kb: {exc}") from None
        # The canonical links, the sitemap and the schemas' $id: under the repository's site.
        config.site_url = self._address.site_url
        if STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)
        if PAGE_SCRIPT not in config.extra_javascript:
            config.extra_javascript.append(PAGE_SCRIPT)
        return config

    def _cache(self, config: MkDocsConfig) -> Path:
        if self.config.cache_dir:
            return self._root(config) / self.config.cache_dir
        return default_folder(self._root(config))

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
                site_url=self._address.site_url,
                edit_url=self._address.edit_url,
                directory_urls=config.use_directory_urls,
                cache=self._cache(config),
            ),
        )
        # kb check's errors as errors, so that `mkdocs build --strict` fails where `kb check`
        # does, with --quiet too (it drops warnings before strict mode counts them); kb's own
        # warnings (which kb check passes) are information.
        for diagnostic in site.diagnostics:
            report = _LOG.error if diagnostic.severity is Severity.ERROR else _LOG.info
            report("kb check: %s", located_line(diagnostic))
        try:
            refuse_collision(
                site, lambda path: files.get_file_from_path(path) is not None, config.docs_dir
            )
        except KBError as exc:
            raise PluginError(f"bottleneck-kb: {exc}") from None
        for path, content in generated(site).items():
            files.append(File.generated(config, path, content=content))
        self._pages = frozenset(site.pages)
        self._links = Links(config.use_directory_urls)
        return files

    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        # A generated page's addresses are relative to its file; MkDocs serves them as written.
        if page.file.src_uri in self._pages:
            return self._links.served(page.file.src_uri, html)
        return html


#: Configuration files followed through `INHERIT` before the site folder is taken as named.
_MAX_INHERITED = 10


class _Lenient(yaml.SafeLoader):
    """Reads a configuration file's plain keys, whatever tags it uses (`!ENV`,
    `!!python/name:`), without constructing them."""


_Lenient.add_multi_constructor("", lambda loader, suffix, node: None)


def _configured_site_dir(config: MkDocsConfig) -> str | None:
    """The output folder the configuration file (or a file it inherits) names, as MkDocs
    resolves it; None where it cannot be read. A site folder other than this one was named
    on the command line (`mkdocs build -d DIR`), by the user rather than the repository."""
    path = config.config_file_path
    for _ in range(_MAX_INHERITED):
        try:
            with open(path, encoding="utf-8") as handle:
                data = yaml.load(handle, Loader=_Lenient)
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict):
            return None
        folder = os.path.dirname(os.path.abspath(path))
        if isinstance(data.get("site_dir"), str):
            return os.path.abspath(os.path.join(folder, data["site_dir"]))
        parent = data.get("INHERIT")
        if not isinstance(parent, str):
            return os.path.abspath(os.path.join(folder, "site"))  # MkDocs's default
        path = os.path.join(folder, parent)
    return None
