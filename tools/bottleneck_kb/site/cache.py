"""The site's cache of evaluated entries: a view is computed once per content and kept on disk.

Evaluating an entry runs sympy, which costs far more than writing its page, so each view is
stored under a key made of everything it was computed from (the entry's text, the catalog's
texts and the package's code): a rebuild after one entry changed computes that one entry
again.

A cache file is input like any other: a pull request can commit one. So the cache lives in the
user's cache folder, outside the checkout, unless the site's configuration names another
(inside the repository, never tracked, never through a link: `core.outputs.guard_output`);
each file is signed with a key kept in the user's cache folder, never in a repository, and one
whose signature does not hold is computed again; and what a page inserts as markup (the
formulas' MathML) is kept as data and written out by `mathml.markup`, escaped."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import platform
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.files import written_beside
from ..records.device import Device
from ..records.entry import Entry
from ..report.evaluation import evaluated_from_data, evaluation_data
from . import mathml
from .view import EntryView, Parsed, Sweep, compute_all

#: Raised when the shape of a cached view changes, so old cache files are never misread.
VIEW_FORMAT = 3


#: A cached view's file name: its key, a SHA-256 in hexadecimal.
_KEY_FILE = re.compile(r"[0-9a-f]{64}\.json")


@cache
def _code_digest() -> str:
    """A digest of the code a view is computed by (the package, less the rest of the site,
    which only lays views out): an evaluation changed without a new version number (a working
    tree) must not be served from the cache of the old one."""
    # sympy writes the MathML, and a new release writes it otherwise (`<mfenced>` went).
    versions = (__version__, metadata.version("sympy"), platform.python_version())
    digest = hashlib.sha256("\0".join(versions).encode())
    package = Path(__file__).parents[1]
    site = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        if not path.is_relative_to(site) or path.name in _COMPUTING:
            digest.update(path.read_bytes())
    return digest.hexdigest()


#: The modules of the site that compute what a view holds (the rest lay views out).
_COMPUTING = frozenset({"view.py", "mathml.py", "cache.py"})


def user_cache() -> Path:
    """kb's folder in the user's cache (`$XDG_CACHE_HOME/bottleneck-kb`, by default
    `~/.cache/bottleneck-kb`): outside every repository."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(os.path.abspath(base), "bottleneck-kb")


def default_folder(root: Path) -> Path:
    """Where the views of the knowledge base at `root` are cached when the configuration
    names no folder: a folder of the user's cache of its own, so that pruning the views one
    knowledge base no longer uses leaves another's alone."""
    name = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogatepass")).hexdigest()
    return user_cache() / "site-views" / name[:32]


#: The signing key's file in the user's cache folder, and its length in bytes.
_KEY = "view-signing-key"


_KEY_BYTES = 32


def signing_key(folder: Path | None = None) -> bytes | None:
    """The key that signs cached views: random, made on first use, readable by the user
    alone, kept in the user's cache folder (never in a repository, so that no file a pull
    request commits can carry a signature that holds). None when it cannot be read or made:
    the cache is then not used."""
    path = (folder or user_cache()) / _KEY
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(os.urandom(_KEY_BYTES))
    except FileExistsError:
        pass  # another build made it first: read theirs
    except OSError:
        return None
    try:
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: Path) -> bytes | None:
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(descriptor, "rb") as handle:
        key = handle.read(_KEY_BYTES + 1)
    return key if len(key) == _KEY_BYTES else None


class ViewCache:
    """Entry views on disk, one signed JSON file per key; writes are atomic, reads that fail
    (no file, a signature that does not hold, a shape that is not a view's) are misses: a
    cache can always be thrown away, and is never believed without its signature. No folder,
    or no key, is no cache."""

    def __init__(self, folder: Path | None, key: bytes | None = None) -> None:
        self.folder = folder
        self.secret = signing_key() if folder is not None and key is None else key

    def key(self, entry: Entry, devices: Sequence[Device]) -> str:
        digest = hashlib.sha256(f"{VIEW_FORMAT}\0{_code_digest()}\0".encode())
        for text in (entry.source.text, *(d.source.text for d in devices)):
            digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
        return digest.hexdigest()

    def views(
        self,
        entries: Sequence[Entry],
        devices: Sequence[Device],
        parsed: Mapping[str, Parsed] | None = None,
    ) -> dict[str, EntryView]:
        """Every entry's view by id: from the cache where it holds one, computed (in worker
        processes when there are many) and stored where it does not. Views no entry of this
        build uses are removed (each edit under `mkdocs serve` leaves one behind). Where two
        files claim one id (kb check refuses it), the last one's view is kept, as its page is."""
        used = self.folder is not None and self.secret is not None
        keys = [self.key(entry, devices) if used else "" for entry in entries]
        views = [self._read(key) if used else None for key in keys]
        missing = [index for index, view in enumerate(views) if view is None]
        computed = compute_all([entries[index] for index in missing], devices, parsed or {})
        for index, view in zip(missing, computed, strict=True):
            views[index] = view
            if used:
                self._store(keys[index], json.dumps(_to_json(view)))
        if used:
            self._prune({f"{key}.json" for key in keys})
        return {entry.id: view for entry, view in zip(entries, views, strict=True) if view}

    def _signature(self, key: str, text: bytes) -> str:
        assert self.secret is not None
        return hmac.new(self.secret, key.encode() + b"\n" + text, hashlib.sha256).hexdigest()

    def _read(self, key: str) -> EntryView | None:
        """A cached view whose signature holds, or None."""
        assert self.folder is not None
        try:
            raw = (self.folder / f"{key}.json").read_bytes()
        except OSError:
            return None
        signature, _, text = raw.partition(b"\n")
        if not hmac.compare_digest(signature, self._signature(key, text).encode()):
            return None
        try:
            return _from_json(json.loads(text.decode("utf-8")))
        except (ValueError, KeyError, TypeError, IndexError):
            return None

    def _store(self, key: str, text: str) -> None:
        """Write a view, signed; a cache that cannot be written (a full disk, a file in the
        way) only means the next build computes it again."""
        assert self.folder is not None
        path = self.folder / f"{key}.json"
        body = text.encode("utf-8")
        signed = self._signature(key, body) + "\n" + text
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = written_beside(path, signed, durable=False)
        except OSError:
            return
        try:
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _prune(self, used: set[str]) -> None:
        """Remove the views not in `used`: only files named as this cache names them, since
        the folder is the user's to choose."""
        assert self.folder is not None
        with contextlib.suppress(OSError):
            for stale in self.folder.glob("*.json"):
                if stale.name not in used and _KEY_FILE.fullmatch(stale.name):
                    with contextlib.suppress(OSError):
                        stale.unlink()


def _to_json(view: EntryView) -> dict[str, Any]:
    """A view as plain data: its evaluation as `kb eval --format json` writes it."""
    sweep = view.sweep
    return {
        "entry_id": view.entry_id,
        "dtype": view.dtype,
        "skipped": view.skipped,
        "evaluation": None if view.evaluation is None else evaluation_data(view.evaluation),
        "flops_mathml": view.flops_mathml,
        "bytes_mathml": view.bytes_mathml,
        "sweep": None
        if sweep is None
        else {"symbol": sweep.symbol, "log": sweep.log, "points": sweep.points},
        "error": view.error,
        "intensity_mathml": view.intensity_mathml,
    }


def _from_json(data: dict[str, Any]) -> EntryView:
    """A view from its JSON; a ValueError (MathMLError) where its formulas are not MathML
    that `mathml.markup` writes."""
    sweep = data["sweep"]
    formulas = [data[name] for name in ("flops_mathml", "bytes_mathml", "intensity_mathml")]
    for tree in formulas:
        mathml.markup(tree)
    return EntryView(
        data["entry_id"],
        data["dtype"],
        data["skipped"],
        None if data["evaluation"] is None else evaluated_from_data(data["evaluation"]),
        formulas[0],
        formulas[1],
        None
        if sweep is None
        else Sweep(sweep["symbol"], sweep["log"], [(x, y) for x, y in sweep["points"]]),
        data["error"],
        formulas[2],
    )
