"""Work shared among forked processes: every span's result once, in order, whatever a child
does, and no child left behind."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from bottleneck_kb.core.parallel import forked_map, map_items, spans

PARENT = os.getpid()


def _squares(span: tuple[int, int]) -> list[int]:
    time.sleep(0.002)  # long enough that every process gets spans to claim
    return [i * i for i in range(*span)]


def _all_reaped(pids: list[int]) -> bool:
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False  # still ours to wait for: running, or a zombie
    return True


@pytest.mark.parametrize(("count", "workers", "most"), [(0, 2, 50), (1, 2, 50), (103, 3, 7)])
def test_spans_cover_every_item_once_in_order(count: int, workers: int, most: int) -> None:
    parts = spans(count, workers, most)

    assert [i for start, stop in parts for i in range(start, stop)] == list(range(count))
    assert all(0 < stop - start <= most for start, stop in parts)


def test_spans_shrink_towards_the_end() -> None:
    """The last spans are short, so no worker waits long for the others."""
    sizes = [stop - start for start, stop in spans(10_000, 2, 50)]

    assert sizes[0] == 50 and sizes[-1] == 1
    assert sizes == sorted(sizes, reverse=True)
    assert len(sizes) < 10_000 // 50 + 50  # a few more claims than spans of 50, not many


def test_results_come_back_in_the_order_of_the_spans(forked: list[int]) -> None:
    parts = spans(200, 3, 5)

    assert forked_map(_squares, parts, 3) == [i * i for i in range(200)]
    assert len(forked) == 2  # the caller is the third
    assert _all_reaped(forked)


def test_spans_of_a_child_that_dies_are_done_again_by_the_caller(
    tmp_path: Path, forked: list[int]
) -> None:
    def dies_in_a_child(span: tuple[int, int]) -> list[int]:
        if os.getpid() != PARENT:
            (tmp_path / str(os.getpid())).touch()
            os._exit(3)  # as if killed: no results, no clean-up
        return _squares(span)

    result = forked_map(dies_in_a_child, spans(120, 3, 4), 3)

    assert result == [i * i for i in range(120)]
    assert list(tmp_path.iterdir()), "no child claimed a span: the test proved nothing"
    assert len(forked) == 2
    assert _all_reaped(forked)


def test_an_error_in_the_caller_stops_the_children_and_is_raised(forked: list[int]) -> None:
    def fails_in_the_caller(span: tuple[int, int]) -> list[int]:
        if os.getpid() == PARENT and span[0] >= 40:
            raise ValueError("broken span")
        return _squares(span)

    with pytest.raises(ValueError, match="broken span"):
        forked_map(fails_in_the_caller, spans(400, 2, 4), 2)
    assert len(forked) == 1
    assert _all_reaped(forked)


def test_without_a_temporary_file_for_the_lock_the_caller_does_it_all(
    monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    def unwritable() -> None:
        raise PermissionError("read-only temporary folder")

    monkeypatch.setattr(tempfile, "TemporaryFile", unwritable)

    assert forked_map(_squares, spans(40, 2, 4), 2) == [i * i for i in range(40)]
    assert forked == []


def test_map_items_gives_each_item_to_a_function_the_children_inherit(forked: list[int]) -> None:
    offset = 1000  # in a lambda, which pickle refuses: the children get it by forking

    assert map_items(lambda i: i + offset, range(30), 2, 100, 4) == [i + 1000 for i in range(30)]
    assert len(forked) == 1
    assert _all_reaped(forked)


def test_map_items_stays_in_one_process_below_its_threshold(forked: list[int]) -> None:
    assert map_items(lambda i: i + 1, range(7), None, 8, 4) == list(range(1, 8))
    assert forked == []


def test_no_more_processes_than_spans(forked: list[int]) -> None:
    assert forked_map(_squares, [(0, 1), (1, 2), (2, 3)], 500) == [0, 1, 4]
    assert len(forked) == 2  # and the caller: one process a span


def test_when_no_more_processes_can_be_forked_those_started_do_the_work(
    monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    recording_fork = os.fork
    calls: list[int] = []

    def fork_once() -> int:
        calls.append(len(calls))
        if len(calls) > 1:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return recording_fork()

    monkeypatch.setattr(os, "fork", fork_once)
    descriptors = len(os.listdir("/proc/self/fd"))

    assert forked_map(_squares, spans(200, 4, 5), 4) == [i * i for i in range(200)]
    assert len(calls) == 2  # the second fork failed, and no third was tried
    assert len(forked) == 1
    assert _all_reaped(forked)
    assert len(os.listdir("/proc/self/fd")) == descriptors  # the failed fork's pipe is closed


CALLER_KILLED = textwrap.dedent(
    """
    import os, sys, time
    from bottleneck_kb.core.parallel import forked_map, spans

    caller = os.getpid()

    def slow(span):
        if os.getpid() != caller:
            print(os.getpid(), flush=True)  # the child's output goes where the caller's does
        time.sleep(0.05)
        return []

    forked_map(slow, spans(4000, 2, 1), 2)  # 200 s of spans for each process
    """
)


def test_a_child_stops_soon_after_its_caller_is_killed() -> None:
    caller = subprocess.Popen([sys.executable, "-c", CALLER_KILLED], stdout=subprocess.PIPE)
    assert caller.stdout is not None
    caller.stdout.readline()  # the child is working
    caller.kill()  # SIGKILL: the caller's clean-up never runs
    caller.wait()

    # The output closes when the last process holding it ends: the child, once it sees.
    output = caller.stdout.fileno()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready, _, _ = select.select([output], [], [], deadline - time.monotonic())
        if ready and not os.read(output, 1 << 16):
            break
    else:
        pytest.fail("the child worked on for 30 s after its caller was killed")
    caller.stdout.close()
