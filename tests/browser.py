"""One headless Debian Chromium for the whole test session, and a recording view of it per
site under test: every request any page makes is recorded, and any that would leave
localhost is refused and remembered."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch_chromium() -> Iterator[Any]:
    """The session's browser (a generator for a session fixture)."""
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Debian's chromium is not installed (.ci/run installs it as root)")
        pytest.skip("Debian's chromium is not installed: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """`directory` served on localhost; yields its base URL."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


class Browser:
    """A context of the session's Chromium on one served site."""

    def __init__(self, chromium: Any, base: str) -> None:
        self.base = base
        self.browser = chromium
        self.context = chromium.new_context(viewport={"width": 1280, "height": 1600})
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.new_page()

    def _route(self, route: Any) -> None:
        url = route.request.url
        self.requests.append(url)
        if urlsplit(url).hostname == "127.0.0.1" or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    def new_page(self) -> Any:
        page = self.context.new_page()

        def dismissed(dialog: Any) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dismissed)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page

    def open(self, path: str, page: Any = None) -> Any:
        page = page or self.page
        # A new document each time: a change of fragment alone would not reload the page.
        page.goto("about:blank")
        page.goto(self.base + path)
        page.wait_for_load_state("load")
        return page

    def off_localhost(self) -> list[str]:
        return [
            u
            for u in self.requests
            if urlsplit(u).hostname != "127.0.0.1"
            and not u.startswith(("data:", "blob:"))
            and u != "about:blank"
        ]

    def close(self) -> None:
        self.context.close()


def row_headers(table: Any) -> list[list[str]]:
    """The text of each body row's leading row headers (`th scope=row`) in `table` (a
    locator), checked against the row headers the browser's accessibility roles find."""
    headers: list[list[str]] = table.locator("tbody tr").evaluate_all(
        """rows => rows.map(r => {
            const lead = [];
            for (const c of r.cells) {
                if (c.tagName !== 'TH' || c.scope !== 'row') break;
                lead.push(c.textContent);
            }
            return lead;
        })"""
    )
    assert table.get_by_role("rowheader").all_text_contents() == [h for row in headers for h in row]
    return headers
