"""The site's one door into the evaluation.

Every call the site makes into the roofline arithmetic and the symbolic code is in this
module, so a change of the evaluation's API is met here alone. What it hands the pages is
plain data (numbers in base units, MathML text), which is also what it caches: evaluating an
entry runs sympy, which costs far more than writing its page, so each view is stored on disk
under a key made of everything it was computed from (the entry's text, the catalog's texts and
the package's code). A rebuild after one entry changed computes that one entry again.
"""

from __future__ import annotations

import contextlib
import hashlib
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
from ..atomic import written_beside
from ..errors import KBError
from ..evaluation import evaluate_entry, sweep
from ..formula import FormulaError
from ..model import Device, Entry
from ..numbers import format_quantity, format_seconds, number
from ..parallel import map_items
from ..report.evaluation import evaluation_data
from ..roofline import EvaluationError, Formulas, work

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
VIEW_FORMAT = 1
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
    MathML and the sweep its chart draws. `error` says why there are no numbers, if so."""

    entry_id: str
    dtype: str
    skipped: dict[str, str] = field(default_factory=dict)
    evaluation: dict[str, Any] | None = None
    flops_mathml: str = ""
    bytes_mathml: str = ""
    sweep: Sweep | None = None
    error: str | None = None

    def result(self, device_id: str) -> dict[str, Any] | None:
        """The evaluation's row for one device, or None when it was skipped."""
        if self.evaluation is None:
            return None
        return next((r for r in self.evaluation["results"] if r["device"] == device_id), None)


def compute_view(entry: Entry, devices: Sequence[Device]) -> EntryView:
    """Evaluate `entry` on every device of `devices` that has the figures it reads."""
    from ..symbolic import to_mathml, to_sympy

    dtype = entry.intensity.dtype
    try:
        evaluation = evaluate_entry(entry, {d.id: d for d in devices})
        formulas = evaluation.formulas
        flops_mathml = to_mathml(to_sympy(formulas.flops))
        bytes_mathml = to_mathml(to_sympy(formulas.bytes))
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


class ViewCache:
    """Entry views on disk, one JSON file per key; writes are atomic, reads that fail are
    misses (a cache can always be thrown away)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

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
        paths = [
            None if self.folder is None else self.folder / f"{self.key(entry, devices)}.json"
            for entry in entries
        ]
        views = [None if path is None else _read(path) for path in paths]
        missing = [index for index, view in enumerate(views) if view is None]
        computed = _compute_all([entries[index] for index in missing], devices)
        for index, view in zip(missing, computed, strict=True):
            views[index] = view
            path = paths[index]
            if path is not None:
                self._store(path, json.dumps(view, default=_fields))
        if self.folder is not None:
            self._prune({path.name for path in paths if path is not None})
        return {entry.id: view for entry, view in zip(entries, views, strict=True) if view}

    def _store(self, path: Path, text: str) -> None:
        """Write a view; a cache that cannot be written (a full disk, a file in the way) only
        means the next build computes it again."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = written_beside(path, text, durable=False)
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


def _read(path: Path) -> EntryView | None:
    """A cached view, or None when there is none or it cannot be read."""
    try:
        return _from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _from_json(data: dict[str, Any]) -> EntryView:
    sweep = data["sweep"]
    return EntryView(
        data["entry_id"],
        data["dtype"],
        data["skipped"],
        data["evaluation"],
        data["flops_mathml"],
        data["bytes_mathml"],
        None
        if sweep is None
        else Sweep(sweep["symbol"], sweep["log"], [(x, y) for x, y in sweep["points"]]),
        data["error"],
    )


def ridge_points(device: Device) -> dict[str, float]:
    """The device's ridge point (FLOP/B) per dtype: dense peak over memory bandwidth."""
    bandwidth = device.quantities["memory_bandwidth"].value
    return {dtype: peak.value / bandwidth for dtype, peak in device.peak_flops.items()}
