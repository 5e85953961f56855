"""The site's one door into the evaluation.

Every call the site makes into the roofline arithmetic and the symbolic code is in this
module, so a change of the evaluation's API is met here alone. What it hands the pages is
plain data (numbers in base units, MathML as a tree of elements), which is also what it
caches: evaluating an entry runs sympy, which costs far more than writing its page, so each
view is stored on disk under a key made of everything it was computed from (the entry's text,
the catalog's texts and the package's code). A rebuild after one entry changed computes that
one entry again.

A cache file is input like any other: a pull request can commit one. So the cache lives in
the user's cache folder, outside the checkout, unless the site's configuration names another
(inside the repository, never tracked, never through a link: `outputs.guard_output`); each
file is signed with a key kept in the user's cache folder, never in a repository, and one
whose signature does not hold is computed again; and what a page inserts as markup (the
formulas' MathML) is kept as data and written out by `mathml.render`, escaped.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import os
import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.errors import KBError
from ..core.files import written_beside
from ..core.numbers import format_quantity, format_seconds, number
from ..core.parallel import map_items
from ..evaluation.crossovers import sweep
from ..evaluation.entry import evaluate_entry
from ..evaluation.formulas import EvaluationError, Formulas
from ..evaluation.roofline import work
from ..maths.formula import FormulaError
from ..records.device import Device
from ..records.entry import Entry
from ..report.evaluation import evaluation_data
from . import mathml

__all__ = [
    "EntryView",
    "Sweep",
    "ViewCache",
    "format_quantity",
    "format_seconds",
    "number",
    "ridge_points",
]

#: Raised when the shape of a cached view changes, so old cache files are never misread.
VIEW_FORMAT = 2
#: A cached view's file name: its key, a SHA-256 in hexadecimal.
_KEY_FILE = re.compile(r"[0-9a-f]{64}\.json")

#: Points on an entry chart's curve: enough for a smooth line, few enough to stay cheap.
SWEEP_POINTS = 48


@dataclass(frozen=True)
class Sweep:
    """The intensity as one symbol moves through its range, the others at typical values."""

    symbol: str
    log: bool
    points: list[tuple[float, float]]


@dataclass(frozen=True)
class EntryView:
    """What the pages show of one entry: its evaluation on the devices that have the figures
    it reads (as `kb eval --format json` gives it), the devices skipped and why, its formulas as
    MathML (trees: `mathml.render` writes their markup) and the sweep its chart draws.
    `error` says why there are no numbers, if so."""

    entry_id: str
    dtype: str
    skipped: dict[str, str] = field(default_factory=dict)
    evaluation: dict[str, Any] | None = None
    flops_mathml: list[Any] = field(default_factory=list)
    bytes_mathml: list[Any] = field(default_factory=list)
    sweep: Sweep | None = None
    error: str | None = None
    intensity_mathml: list[Any] = field(default_factory=list)

    def result(self, device_id: str) -> dict[str, Any] | None:
        """The evaluation's row for one device, or None when it was skipped."""
        if self.evaluation is None:
            return None
        return next((r for r in self.evaluation["results"] if r["device"] == device_id), None)


def compute_view(entry: Entry, devices: Sequence[Device]) -> EntryView:
    """Evaluate `entry` on every device of `devices` that has the figures it reads."""
    from ..maths.symbolic import to_mathml, to_sympy

    dtype = entry.intensity.dtype
    try:
        evaluation = evaluate_entry(entry, {d.id: d for d in devices})
        formulas = evaluation.formulas
        flops_mathml = mathml.tree(to_mathml(to_sympy(formulas.flops)))
        bytes_mathml = mathml.tree(to_mathml(to_sympy(formulas.bytes)))
        rendered = evaluation.intensity
        intensity_mathml = mathml.tree(rendered.mathml) if rendered is not None else []
    except (KBError, FormulaError) as exc:
        return EntryView(entry.id, dtype, error=str(exc))
    except Exception as exc:  # one entry's surprise must not stop the site of all the others
        return EntryView(entry.id, dtype, error=f"internal error: {type(exc).__name__}: {exc}")
    skipped = {s.device: s.reason for s in evaluation.skipped}
    sweeps = [
        sweep
        for symbol in entry.scales_with
        if symbol.symbol in formulas.symbols
        and symbol.range is not None
        and (sweep := _sweep(entry, formulas, symbol.symbol, symbol.range)) is not None
    ]
    return EntryView(
        entry.id,
        dtype,
        skipped,
        evaluation_data(evaluation),
        flops_mathml,
        bytes_mathml,
        # The chart follows the symbol that moves the intensity most.
        max(sweeps, key=_spread) if sweeps else None,
        intensity_mathml=intensity_mathml,
    )


def _spread(sweep: Sweep) -> float:
    values = [y for _, y in sweep.points]
    return max(values) / min(values) if min(values) > 0 else math.inf


def _sweep(
    entry: Entry, formulas: Formulas, symbol: str, bounds: tuple[float, float]
) -> Sweep | None:
    lo, hi = bounds
    log = lo > 0 and math.log10(hi) - math.log10(lo) >= 2  # spans decades: a log axis
    points = []
    for x in sweep(lo, hi, SWEEP_POINTS, log):
        try:
            done = work(entry, formulas, {symbol: x})
        except EvaluationError:
            continue  # a point where the model is undefined is left out of the curve
        if done.flops > 0:
            points.append((x, done.flops / done.bytes))
    return Sweep(symbol, log, points) if len(points) >= 2 else None


@cache
def _code_digest() -> str:
    """A digest of the code a view is computed by (the package, less the rest of the site,
    which only lays views out): an evaluation changed without a new version number (a working
    tree) must not be served from the cache of the old one."""
    # sympy writes the MathML, and a new release writes it otherwise (`<mfenced>` went).
    versions = (__version__, metadata.version("sympy"), platform.python_version())
    digest = hashlib.sha256("\0".join(versions).encode())
    package = Path(__file__).parents[1]
    for path in sorted(package.rglob("*.py")):
        if path.parent != Path(__file__).parent or path.name == Path(__file__).name:
            digest.update(path.read_bytes())
    return digest.hexdigest()


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

    def views(self, entries: Sequence[Entry], devices: Sequence[Device]) -> dict[str, EntryView]:
        """Every entry's view by id: from the cache where it holds one, computed (in worker
        processes when there are many) and stored where it does not. Views no entry of this
        build uses are removed (each edit under `mkdocs serve` leaves one behind). Where two
        files claim one id (kb check refuses it), the last one's view is kept, as its page is."""
        used = self.folder is not None and self.secret is not None
        keys = [self.key(entry, devices) if used else "" for entry in entries]
        views = [self._read(key) if used else None for key in keys]
        missing = [index for index, view in enumerate(views) if view is None]
        computed = _compute_all([entries[index] for index in missing], devices)
        for index, view in zip(missing, computed, strict=True):
            views[index] = view
            if used:
                self._store(keys[index], json.dumps(view, default=_fields))
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


#: Below this many entries to evaluate, one process: an entry takes milliseconds here (sympy),
#: not the fraction of one it takes `kb check`, so forking repays itself much sooner (16
#: entries: 0.10 s in one process, 0.07 s in two).
PARALLEL_THRESHOLD = 16


def _compute_all(entries: Sequence[Entry], devices: Sequence[Device]) -> list[EntryView]:
    """compute_view of each entry; sympy makes it slow, so many are shared among processes."""
    return map_items(
        lambda entry: compute_view(entry, devices), entries, None, PARALLEL_THRESHOLD, 8
    )


def _fields(value: object) -> dict[str, Any]:
    """A dataclass's fields for json.dumps, which walks their values itself: asdict would
    first deep-copy every view's evaluation, and took longer than writing it out."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _from_json(data: dict[str, Any]) -> EntryView:
    """A view from its JSON; a ValueError (MathMLError) where its formulas are not MathML
    that `mathml.render` writes."""
    sweep = data["sweep"]
    formulas = [data[name] for name in ("flops_mathml", "bytes_mathml", "intensity_mathml")]
    for tree in formulas:
        mathml.render(tree)
    return EntryView(
        data["entry_id"],
        data["dtype"],
        data["skipped"],
        data["evaluation"],
        formulas[0],
        formulas[1],
        None
        if sweep is None
        else Sweep(sweep["symbol"], sweep["log"], [(x, y) for x, y in sweep["points"]]),
        data["error"],
        formulas[2],
    )


def ridge_points(device: Device) -> dict[str, float]:
    """The device's ridge point (FLOP/B) per dtype: dense peak over memory bandwidth."""
    bandwidth = device.quantities["memory_bandwidth"].value
    return {dtype: peak.value / bandwidth for dtype, peak in device.peak_flops.items()}
