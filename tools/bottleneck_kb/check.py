"""`kb check` as a library: read the catalog, check every entry, then the knowledge base.

Entries are independent once the catalog is read, so they are checked in worker processes
when there are enough of them to repay the start-up; workers send back only diagnostics and
small summaries. A file that breaks a check in a way the code did not foresee becomes an
internal-error diagnostic for that file, and the other files' results still stand.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from pathlib import Path

from .diagnostics import Diagnostic, sorted_diagnostics
from .kb import ENTRIES, Catalog, discover, entry_ids, entry_paths, guarded, read_entry
from .model import Entry
from .results import CheckResult
from .roofline import parse_formulas, runnable
from .rules import Context, Scope, rules_for
from .rules.identity import Summary, summarize

#: Below this many entries one process is faster than starting workers.
PARALLEL_THRESHOLD = 400


#: The codes to report, or None for all: `kb check --select` and one-rule tests.
Selection = frozenset[str] | None


def check_entry(
    entry: Entry, catalog: Catalog, select: Selection = None, root: Path | None = None
) -> list[Diagnostic]:
    """Every entry-scope rule (or the selected ones) on one typed entry (of the knowledge
    base at `root`)."""
    formulas, problems = parse_formulas(entry)
    devices = catalog.devices.values()
    able = () if formulas is None else tuple(runnable(entry, formulas, devices))
    context = Context(
        catalog.devices,
        formulas,
        tuple(problems),
        able,
        broken_devices=catalog.broken,
        root=root,
    )
    found: list[Diagnostic] = []
    for rule in rules_for(Scope.ENTRY, select):
        found.extend(rule.run(entry, context))
    return found


def _check_file(
    path: Path, root: Path, catalog: Catalog, select: Selection
) -> tuple[list[Diagnostic], Summary | None]:
    def read_and_check(path: Path, root: Path) -> tuple[Summary | None, list[Diagnostic]]:
        entry, problems = read_entry(path, root)
        if entry is None:
            return None, problems
        return summarize(entry), problems + check_entry(entry, catalog, select, root)

    summary, found = guarded(read_and_check, path, root)
    return found, summary


# Set before checking; forked workers inherit it instead of re-reading the catalog.
_WORKER_STATE: tuple[Path, Catalog, Selection] | None = None


def _check_chunk(paths: list[Path]) -> list[tuple[list[Diagnostic], Summary | None]]:
    assert _WORKER_STATE is not None
    root, catalog, select = _WORKER_STATE
    # A file's objects die with it, freed by reference counts (node trees and models hold no
    # cycles), so the collector's many passes while reading are pure cost: pause it, and
    # collect what is young once a chunk in case an error path left a cycle.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return [_check_file(path, root, catalog, select) for path in paths]
    finally:
        gc.collect(0)
        if was_enabled:
            gc.enable()


def _chunks(files: list[Path], workers: int) -> list[list[Path]]:
    # Small chunks keep every worker busy to the end; a chunk costs one message each way.
    size = max(1, min(50, len(files) // (workers * 4)))
    return [files[i : i + size] for i in range(0, len(files), size)]


def _jobs(requested: int | None, count: int) -> int:
    if not hasattr(os, "fork"):  # workers inherit the catalog by forking
        return 1
    if requested is not None:
        return requested
    if count < PARALLEL_THRESHOLD:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, 8)


def check(
    root: Path,
    paths: Sequence[Path] | None = None,
    jobs: int | None = None,
    select: Selection = None,
) -> CheckResult:
    """Check the knowledge base at `root` (or only `paths`, against the whole catalog),
    reporting every code or only those in `select`."""
    global _WORKER_STATE
    catalog = Catalog.load(root)
    diagnostics = list(catalog.diagnostics)
    devices = catalog.devices
    device_context = Context(devices, root=root)
    for device in [*devices.values(), *catalog.duplicates]:
        for rule in rules_for(Scope.DEVICE, select):
            diagnostics.extend(rule.run(device, device_context))

    files = entry_paths(root, paths, diagnostics)
    workers = _jobs(jobs, len(files))
    _WORKER_STATE = (root, catalog, select)
    try:
        if workers == 1:
            results = [r for part in map(_check_chunk, _chunks(files, 1)) for r in part]
        else:
            import multiprocessing

            # What the workers inherit is never garbage: frozen, their collections skip it.
            gc.freeze()
            try:
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    chunks = _chunks(files, workers)
                    results = [r for part in pool.imap(_check_chunk, chunks) for r in part]
            finally:
                gc.unfreeze()
    finally:
        _WORKER_STATE = None

    summaries = []
    for found, summary in results:
        diagnostics.extend(found)
        if summary is not None:
            summaries.append(summary)
    # Knowledge-base checks get every entry's id, checked this run or not, for related links.
    every_entry = files if paths is None else discover(root, ENTRIES)
    knowledge_base_context = Context(devices, entry_ids=entry_ids(every_entry, root))
    for rule in rules_for(Scope.KNOWLEDGE_BASE, select):
        diagnostics.extend(rule.run(summaries, knowledge_base_context))
    if select is not None:  # codes found while reading are not rules that can be skipped
        diagnostics = [d for d in diagnostics if d.code in select]
    return CheckResult(sorted_diagnostics(diagnostics), len(files), len(devices))
