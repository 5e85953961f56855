"""Shared test helpers: a throwaway copy of the fixture knowledge base, the repository as it
is and with a contributor's valid addition, expected diagnostics."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.rules import Rule, Scope
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY, MINIMAL_MODEL, patched

from .browser import Browser, launch_chromium, serve

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "benchmarks"))
from synthetic import without_cited_measurements as without_cited_measurements  # noqa: E402

#: The first eight cards and the catalog, frozen: inputs for hand-computed evaluator tests.
EARLY_CARDS = FIXTURES / "early-cards"


@pytest.fixture(scope="session", autouse=True)
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's cache folder of every test and the processes it starts: one of the test
    run's own, never the machine user's (the site caches its views there)."""
    folder = tmp_path_factory.mktemp("user-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before


def imported_by_check(root: Path, packages: Iterable[str]) -> tuple[object, list[str]]:
    """`kb check --root root` in a fresh process: its exit code, and which of `packages`
    (top-level names) it imported."""
    probe = (
        "import json, sys\n"
        "from bottleneck_kb.cli import main\n"
        "root, packages = sys.argv[1], sys.argv[2:]\n"
        "sys.argv = ['kb', 'check', '--root', root]\n"
        "code = None\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as done:\n"
        "    code = done.code\n"
        "loaded = {m.partition('.')[0] for m in sys.modules} & set(packages)\n"
        "print(json.dumps([code, sorted(loaded)]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, str(root), *packages],
        capture_output=True,
        text=True,
        check=True,
    )
    code, loaded = json.loads(run.stdout.splitlines()[-1])
    return code, loaded


#: Where the fixture knowledge base holds the minimal entry.
MINIMAL_PATH = "entries/fixtures/minimal.yaml"


def fixture_kb(root: Path) -> Path:
    """A knowledge base at `root`: the devices of tests/fixtures/kb and the minimal entry of
    rules/examples.py (written from there, so that a key the schema starts to require is
    one edit)."""
    shutil.copytree(FIXTURES / "kb", root)
    (root / MINIMAL_PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / MINIMAL_PATH).write_text(MINIMAL_ENTRY, encoding="utf-8")
    return root


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    """A fresh fixture knowledge base: two devices and the minimal entry."""
    return fixture_kb(tmp_path / "kb")


#: What a contribution adds to the copied entry's and device's ids.
CONTRIBUTED = "-contributed"


@pytest.fixture(scope="session", params=["as-is", "with-a-contribution"])
def repository(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's root, and a copy of it with one more valid entry, one more valid
    device and one more valid model: whatever a repository-level test asserts must hold for
    both, so that a contributor's valid addition never breaks CI."""
    if request.param == "as-is":
        return REPOSITORY
    root = copy_repository(tmp_path_factory.mktemp("contributed") / "repository")
    entry = min((root / "entries").rglob("*.yaml"))
    entry_id = entry.relative_to(root / "entries").with_suffix("").as_posix()
    _copy(entry, entry_id, "title")
    # The device copied is the one the cards are written against: a copy of a device some card
    # names as an exception to its bound_by (the MI250X, the H20) is rightly a KB406 on that
    # card until the contributor adds the same exception for the new device.
    device = root / "hardware" / "nvidia-h100-sxm.yaml"
    _copy(device, device.stem, "name")
    # Its achieved fractions rest on measurements made on the H100 itself, not on the copy.
    without_cited_measurements(root / "hardware" / f"{device.stem}{CONTRIBUTED}.yaml")
    model = min((root / "models").glob("*.yaml"))
    _copy(model, model.stem, "title")
    return root


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the children forked during the test."""
    pids: list[int] = []
    fork = os.fork

    def recording_fork() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording_fork)
    return pids


def npm_install(package: str, prefix: Path) -> Path:
    """`package` (`name@version`) installed from the npm registry under `prefix`, once; its
    folder. Without npm the test fails in CI (.ci/system installs it) and is skipped elsewhere."""
    name = package.rpartition("@")[0]
    folder = prefix / "node_modules" / name
    if folder.is_dir():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("npm is not installed (.ci/system installs it as root)")
        pytest.skip("npm is not installed: apt-get install npm")
    installed = subprocess.run(
        [npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(prefix), package],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    return folder


def console_script(*args: str, cwd: Path, **popen: object) -> subprocess.Popen[bytes]:
    """`kb` as its console script runs it (bottleneck_kb.cli:run), in a process of its own:
    it leaves through os._exit, which would end the test run in-process."""
    command = [sys.executable, "-c", "from bottleneck_kb.cli import run; run()", *args]
    # Buffered output, as on most machines: what os._exit would lose unless flushed.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["GITHUB_ACTIONS"] = ""
    return subprocess.Popen(command, cwd=cwd, env=env, **popen)  # type: ignore[call-overload,no-any-return]


def copy_repository(root: Path, folders: Iterable[str] = ("entries", "hardware", "models")) -> Path:
    """`root`, holding a copy of these folders of the repository (by default, its knowledge
    base: the entries, the catalog and the models), with its configuration where the
    catalog is copied (kb.yaml features devices of it)."""
    for folder in folders:
        shutil.copytree(REPOSITORY / folder, root / folder)
    if "hardware" in folders:
        shutil.copyfile(REPOSITORY / "kb.yaml", root / "kb.yaml")
    return root


def _copy(original: Path, original_id: str, label: str) -> None:
    """Beside `original`, the same file under a new id (and a distinguishable `label`)."""
    text = original.read_text(encoding="utf-8")
    text, ids = re.subn(
        rf"^id: {re.escape(original_id)}$", f"id: {original_id}{CONTRIBUTED}", text, flags=re.M
    )
    assert ids == 1, f"{original} does not hold id: {original_id} on a line of its own"
    # A plain or quoted one-line label gets a prefix; a folded one is left as it is.
    text = re.sub(
        rf"^{label}: ([\"']?)(?=[^>|])",
        rf"{label}: \1Contributed copy of ",
        text,
        count=1,
        flags=re.M,
    )
    original.with_name(f"{original.stem}{CONTRIBUTED}.yaml").write_text(text, encoding="utf-8")


def summary_of(output: str) -> str:
    """kb check's text output without its line on the measurements it judged (the
    repository's cards and models carry some): what is left, the summary line with anything
    else it printed."""
    return "".join(f"{line}\n" for line in output.splitlines() if not line.startswith("Judged "))


def counted(root: Path) -> str:
    """`N entries [and K models] against M devices`, counted from the files of `root` as
    `kb check` says it."""
    entries = sum(1 for _ in (root / "entries").rglob("*.yaml"))
    devices = sum(1 for _ in (root / "hardware").glob("*.yaml"))
    models = sum(1 for _ in (root / "models").glob("*.yaml"))
    held = f"{entries} {'entry' if entries == 1 else 'entries'}"
    if models:
        held += f" and {models} model{'s' * (models != 1)}"
    return f"{held} against {devices} {'device' if devices == 1 else 'devices'}"


def read_expected(path: Path) -> list[tuple[int, int, str, str | None]]:
    """`line:col CODE [fragment of the message]` per line of a .expected file."""
    expected = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        position, code, *rest = raw.split(maxsplit=2)
        line, col = position.split(":")
        expected.append((int(line), int(col), code, rest[0] if rest else None))
    return expected


#: Modules whose codes' examples are whole files as written, not patches onto the minimal
#: entry: the reading of YAML, and the files a build writes.
RAW_MODULES = frozenset({"source", "outputs", "config"})


class ExampleFile(NamedTuple):
    """One file of a rule example or one-rule fixture: its path relative to the knowledge
    base's root, and its bytes, or the target it is a symlink to; and whether it is
    committed (git tracks it)."""

    path: str
    data: bytes
    link_to: str | None
    committed: bool = False


def example_files(rule: Rule, example: str) -> list[ExampleFile]:
    """The files `example` stands for, as rule documentation and one-rule fixtures are read:
    raw text for codes found while reading YAML (module `source`), else merge patches onto the
    minimal entry (or device), one file per `---`-separated document, a first line
    `# file: PATH` naming the path (`PATH -> TARGET` makes a symlink), `# encoding: NAME`
    the bytes' encoding and `# committed` that git tracks the file."""
    files = []
    for document in example.split("\n---\n"):
        lines = document.splitlines()
        path, target, encoding, committed = None, None, "utf-8", False
        while lines and lines[0].startswith(("# file: ", "# encoding: ", "# committed")):
            key, _, value = lines.pop(0)[2:].partition(": ")
            if key == "file":
                path, _, target = value.partition(" -> ")
            elif key == "committed":
                committed = True
            else:
                encoding = value
        device = (path or "").startswith("hardware/") or (
            path is None and rule.scope is Scope.DEVICE
        )
        model = (path or "").startswith("models/") or (path is None and rule.scope is Scope.MODEL)
        text = "\n".join(lines) + "\n" if lines else ""  # an empty file stays empty
        if rule.module not in RAW_MODULES:
            base = MINIMAL_MODEL if model else MINIMAL_DEVICE if device else MINIMAL_ENTRY
            text = patched(base, text)
        default = (
            "models/fixture-model.yaml"
            if model
            else "hardware/fixture-device.yaml"
            if device
            else MINIMAL_PATH
        )
        data = text.encode(encoding)
        files.append(ExampleFile(path or default, data, target or None, committed))
    return files


def git(root: Path, *args: str) -> None:
    """git in `root`, with an author set (a test's repository has none configured)."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def write_example(root: Path, rule: Rule, example: str) -> list[str]:
    """Write `example` (see `example_files`) into the knowledge base at `root`, in place of
    its minimal entry. Returns the paths written, relative to `root`."""
    (root / MINIMAL_PATH).unlink()
    files = example_files(rule, example)
    if any(f.path.startswith("models/") for f in files):
        # A model's recipe binds real cards: its examples run in a copy of the repository's
        # knowledge base (cards and catalog) instead of the fixture one.
        for folder in ("entries", "hardware"):
            shutil.rmtree(root / folder, ignore_errors=True)
        copy_repository(root, ("entries", "hardware"))
    for written in files:
        file = root / written.path
        file.parent.mkdir(parents=True, exist_ok=True)
        if written.link_to:
            os.symlink(written.link_to, file)
        else:
            file.write_bytes(written.data)
    committed = [written.path for written in files if written.committed]
    if committed:
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run([*git, "init", "-q"], cwd=root, check=True)
        subprocess.run([*git, "add", "-f", "--", *committed], cwd=root, check=True)
    return [written.path for written in files]


@pytest.fixture(scope="module")
def kb(repository: Path) -> KnowledgeBase:
    """The repository's knowledge base (each way `repository` gives it), which loads clean."""
    loaded = KnowledgeBase.load(repository)
    assert loaded.diagnostics == []
    return loaded


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for every browser test of the session."""
    yield from launch_chromium()


@pytest.fixture(scope="module")
def served(built: Path) -> Iterator[str]:
    """The site the module built (its `built` fixture), served on localhost."""
    with serve(built) as base:
        yield base


@pytest.fixture(scope="module")
def browser(chromium: Any, served: str) -> Iterator[Browser]:
    """One browser session over the module's served site, for all its page tests."""
    session = Browser(chromium, served)
    yield session
    session.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers follow from what a test uses: one that drives Chromium is a browser test;
    one that reads the repository's own knowledge base (the `repository` fixture, as-is and
    with a contribution) grows with the catalog, one that builds a site (a module's `built`
    fixture) takes seconds, and one that installs the package a minute: all are slow. The
    fast loop, `pytest -m "not slow and not browser"`, leaves them out; tests slow for other
    reasons carry `@pytest.mark.slow` themselves."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "chromium" in used:
            item.add_marker(pytest.mark.browser)
        if used & {"repository", "built"} or item.get_closest_marker("install") is not None:
            item.add_marker(pytest.mark.slow)
