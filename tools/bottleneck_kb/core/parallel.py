"""Work shared among forked processes, the calling process one of them.

`kb check`, `kb fmt` and the site cut their work into spans of items. Each process claims the next
span until none is left, so a process slowed down by a busy machine takes fewer; the children
send their results once, at the end, and the caller keeps its own. The caller working too,
instead of waiting on a pool's threads, leaves both cores of a two-core machine to the work.

A child pickles each span's results as it finishes it, while the others still work, so that
the caller waits at the end only for the bytes and for reading them.

A child that dies (killed, out of memory) loses only time: the spans it claimed are done again
by the caller, where an error is raised as usual. The claim lock is a POSIX record lock, which
the kernel releases when its holder dies, so no death can leave the others waiting.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import os
import signal
import struct
import tempfile
from collections.abc import Callable, Sequence
from typing import IO, TypeVar

T = TypeVar("T")
Item = TypeVar("Item")

#: How many spans have been claimed, in memory the processes share.
_COUNTER = struct.Struct("i")


def worker_count(requested: int | None, count: int, threshold: int) -> int:
    """How many processes share `count` items: `requested` if given, one below `threshold`
    items (starting workers would cost more than they save), else one a core, up to eight."""
    if not hasattr(os, "fork"):  # workers inherit what the caller set up by forking
        return 1
    if requested is not None:
        return requested
    if count < threshold:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, 8)


def spans(count: int, workers: int, most: int) -> list[tuple[int, int]]:
    """[start, stop) spans covering `count` items, each one claim: at most `most` items, and
    at most 1/(4 x workers) of the items still left, so that spans shrink towards the end and
    the workers finish within an item or two of each other (the caller waits for the last)."""
    parts = []
    start = 0
    while start < count:
        size = max(1, min(most, (count - start) // (workers * 4)))
        parts.append((start, start + size))
        start += size
    return parts


def map_items(
    function: Callable[[Item], T],
    items: Sequence[Item],
    jobs: int | None,
    threshold: int,
    most: int,
) -> list[T]:
    """`function` of every item, in the items' order: in `jobs` processes, or by default in one
    below `threshold` items and one a core above, claiming spans of at most `most` items.

    `function` and `items` reach the children by forking, so neither needs to be picklable;
    the results do.
    """
    workers = worker_count(jobs, len(items), threshold)

    def work(span: tuple[int, int]) -> list[T]:
        return [function(items[index]) for index in range(*span)]

    return forked_map(work, spans(len(items), workers, most), workers)


def forked_map(
    work: Callable[[tuple[int, int]], list[T]], parts: Sequence[tuple[int, int]], workers: int
) -> list[T]:
    """`work` of every span, concatenated in the spans' order, in `workers` processes.

    The children are forked, so `work` reads what the caller set up before the call (a
    catalog, a list of files) without it being sent.
    """
    workers = min(workers, len(parts))  # a process with no span to claim is pure cost
    lock = _claim_lock() if workers > 1 else None
    if lock is None:
        return [item for part in parts for item in work(part)]
    # Imported here: a check of a few files never forks, and starts faster without them.
    import mmap

    claimed = mmap.mmap(-1, _COUNTER.size)  # shared with the children: MAP_SHARED
    with lock:

        def claim() -> int | None:
            fcntl.lockf(lock, fcntl.LOCK_EX)
            try:
                index: int = _COUNTER.unpack_from(claimed, 0)[0]
                if index >= len(parts):
                    return None
                _COUNTER.pack_into(claimed, 0, index + 1)
                return index
            finally:
                fcntl.lockf(lock, fcntl.LOCK_UN)

        caller = os.getpid()

        def orphaned() -> bool:
            """A child whose caller is gone (killed, so its clean-up never ran): it stops at
            its next claim instead of working on for no one with the caller's output open."""
            return os.getpid() != caller and os.getppid() != caller

        def run() -> dict[int, list[T]]:
            done: dict[int, list[T]] = {}
            while not orphaned() and (index := claim()) is not None:
                done[index] = work(parts[index])
            return done

        def run_pickled() -> dict[int, bytes]:
            import pickle  # loaded by the caller, before forking

            done: dict[int, bytes] = {}
            while not orphaned() and (index := claim()) is not None:
                done[index] = pickle.dumps(work(parts[index]), pickle.HIGHEST_PROTOCOL)
            return done

        children: dict[int, int] = {}  # pid: the read end of its pipe
        # What the children inherit is never garbage: frozen, their collections skip it.
        gc.freeze()
        try:
            for _ in range(workers - 1):
                try:
                    pid, incoming = _fork(run_pickled)
                except OSError:  # no process to be had (a process limit, memory): go on
                    break  # with those started; the caller claims what they do not
                children[pid] = incoming
            results = run()
            for pid in list(children):
                results.update(_receive(pid, children[pid]))
                os.close(children.pop(pid))
        finally:
            gc.unfreeze()
            for pid, incoming in children.items():  # the caller was interrupted
                os.close(incoming)
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
    # Spans a dead child claimed but never sent.
    for index in range(len(parts)):
        if index not in results:
            results[index] = work(parts[index])
    return [item for index in range(len(parts)) for item in results[index]]


def _claim_lock() -> IO[bytes] | None:
    """A file to lock while claiming a span, or None where no temporary file can be made
    (then one process does all the work)."""
    try:
        return tempfile.TemporaryFile()
    except OSError:
        return None


def _fork(run: Callable[[], dict[int, bytes]]) -> tuple[int, int]:
    """Start a worker; its pid and the read end of the pipe its results (each span's, pickled)
    come through."""
    import pickle  # in the caller, before forking: the child finds it loaded

    incoming, outgoing = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(incoming)
        os.close(outgoing)
        raise
    if pid:
        os.close(outgoing)
        return pid, incoming
    code = 1
    try:  # the child: never returns into the caller's code, whatever happens
        os.close(incoming)
        gc.disable()  # it exits when done; its objects die with it
        data = pickle.dumps(run(), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(outgoing, "wb") as out:
            out.write(data)
        code = 0
    finally:
        os._exit(code)


def _receive(pid: int, incoming: int) -> dict[int, list[T]]:
    """A child's results, or none if it did not finish."""
    import pickle

    data = b"".join(iter(lambda: os.read(incoming, 1 << 20), b""))
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return {}
    spans: dict[int, bytes] = pickle.loads(data)
    return {index: pickle.loads(results) for index, results in spans.items()}
