"""What an editor shows while an entry is written: yaml-language-server (the engine of VS Code's
YAML extension), driven over its stdio protocol with the repository's .vscode/settings.json, on
the repository's files and on mutated copies. One server process serves every test.

The server comes from npm, pinned to 1.x (2.x needs a newer Node than these machines have), and
is installed into build/ the first time.

Every wait is for one answer with a deadline, never a sleep: a request's reply by its id, a
document's diagnostics by its version. The client opens each document once, at version 1,
under a URI of its own (a mutated copy gets a new one), so the diagnostics published for that
URI are those of that version: the server names the version when it says one (1.15 does not),
and any other is dropped.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from bottleneck_kb import schemas
from bottleneck_kb.checking.run import check

from ..conftest import REPOSITORY, copy_repository, npm_install

#: Every test here talks to a real yaml-language-server process: the slow tier.
pytestmark = pytest.mark.slow

SERVER_PACKAGE = "yaml-language-server@1.15.0"
SERVER_HOME = REPOSITORY / "build" / "yaml-language-server"
SERVER = SERVER_HOME / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
#: Seconds to wait for any one answer of the server, in all.
TIMEOUT = 30

ENTRY_SCHEMA = schemas.schema(schemas.ENTRY)
SEED = "entries/flops/speculative-draft.yaml"


def install_server() -> None:
    npm_install(SERVER_PACKAGE, SERVER_HOME)


class LanguageServer:
    """A minimal LSP client: JSON-RPC messages with Content-Length headers over pipes."""

    def __init__(self, workspace: Path, settings: dict[str, Any]) -> None:
        self.process = subprocess.Popen(
            ["node", str(SERVER), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin
        self.settings = settings
        self.last_id = 0
        self.answers: dict[int, dict[str, Any]] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        #: The text and version of each document opened.
        self.opened: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self.read, args=(self.process.stdout,), daemon=True).start()
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": workspace.as_uri(),
                "workspaceFolders": [{"uri": workspace.as_uri(), "name": workspace.name}],
                "capabilities": {
                    "workspace": {"configuration": True},
                    "textDocument": {
                        "hover": {"contentFormat": ["markdown", "plaintext"]},
                        "completion": {"completionItem": {"snippetSupport": True}},
                        "publishDiagnostics": {"versionSupport": True},
                    },
                },
            },
        )
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": settings})

    def read(self, stream: IO[bytes]) -> None:
        while True:
            length = None
            while line := stream.readline().strip():
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                return  # the server has gone
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def wait(self, done: Callable[[], bool]) -> None:
        """Handle the server's messages until `done`, for at most TIMEOUT seconds in all."""
        deadline = time.monotonic() + TIMEOUT
        while not done():
            try:
                message = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("yaml-language-server did not answer in time")
            if "method" in message and "id" in message:  # a request of the server's
                result: Any = None
                if message["method"] == "workspace/configuration":
                    items = message["params"]["items"]
                    result = [self.settings.get(item.get("section", ""), {}) for item in items]
                self.send({"id": message["id"], "result": result})
            elif message.get("method") == "textDocument/publishDiagnostics":
                published = message["params"]
                uri, version = published["uri"], published.get("version")
                if uri in self.versions and version in (None, self.versions[uri]):
                    self.diagnostics[uri] = published["diagnostics"]
            elif "id" in message:
                self.answers[message["id"]] = message

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.last_id += 1
        asked = self.last_id
        self.send({"id": asked, "method": method, "params": params})
        self.wait(lambda: asked in self.answers)
        answer = self.answers.pop(asked)
        assert "error" not in answer, answer
        return answer.get("result")

    def open(self, path: Path, text: str) -> list[dict[str, Any]]:
        """Show the server `text` as the content of `path`; the diagnostics it publishes."""
        uri = path.as_uri()
        if uri in self.opened:  # a close would clear its diagnostics late: open each once
            assert self.opened[uri] == text, f"{path} is open with other text"
            return self.diagnostics[uri]
        self.opened[uri] = text
        self.versions[uri] = 1
        document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        self.wait(lambda: uri in self.diagnostics)
        return self.diagnostics[uri]

    def at(self, method: str, path: Path, line: int, character: int) -> Any:
        position = {"line": line, "character": character}
        return self.request(method, {"textDocument": {"uri": path.as_uri()}, "position": position})

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self.process.wait(timeout=TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folders = ("entries", "hardware", "models", "schema", ".vscode")
    return copy_repository(tmp_path_factory.mktemp("workspace"), folders)


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[LanguageServer]:
    """The server, configured as VS Code configures it from .vscode/settings.json."""
    install_server()
    settings = json.loads((workspace / ".vscode" / "settings.json").read_text("utf-8"))
    yaml_settings = {
        k.removeprefix("yaml."): v for k, v in settings.items() if k.startswith("yaml.")
    }
    language_server = LanguageServer(workspace, {"yaml": yaml_settings})
    yield language_server
    language_server.close()


def position(text: str, needle: str, into: int = 0) -> tuple[int, int]:
    """(line, character) of `into` characters into the first `needle` of `text`."""
    offset = text.index(needle) + into
    line = text.count("\n", 0, offset)
    return line, offset - (text.rindex("\n", 0, offset) + 1 if line else 0)


def mutated(server: LanguageServer, workspace: Path, old: str, new: str) -> tuple[Path, str]:
    text = (workspace / SEED).read_text(encoding="utf-8")
    assert old in text
    path = workspace / "entries" / "mutated" / f"case-{len(server.opened)}.yaml"
    return path, text.replace(old, new, 1)


def repository_files() -> list[str]:
    found = sorted((REPOSITORY / "entries").rglob("*.yaml"))
    found += sorted((REPOSITORY / "hardware").glob("*.yaml"))
    found += sorted((REPOSITORY / "models").glob("*.yaml"))
    return [p.relative_to(REPOSITORY).as_posix() for p in found]


@pytest.mark.slow
@pytest.mark.parametrize("name", repository_files())
def test_repository_files_show_no_errors(
    server: LanguageServer, workspace: Path, name: str
) -> None:
    path = workspace / name
    assert server.open(path, path.read_text(encoding="utf-8")) == []


def hover_text(server: LanguageServer, path: Path, text: str, needle: str, into: int = 0) -> str:
    hover = server.at("textDocument/hover", path, *position(text, needle, into))
    assert hover is not None, needle
    value: str = hover["contents"]["value"]
    return value.replace("\\", "")  # markdown escapes


def test_hovering_bound_by_shows_the_field_and_its_allowed_values(
    server: LanguageServer, workspace: Path
) -> None:
    path = workspace / SEED
    text = path.read_text(encoding="utf-8")
    server.open(path, text)
    field = ENTRY_SCHEMA["properties"]["bound_by"]
    for into in (2, len("bound_by: m")):  # on the key, and on the value
        shown = hover_text(server, path, text, "\nbound_by:", 1 + into)
        assert shown.startswith(
            f"#### {field['title']}\n\n{field['description']}\n\nAllowed Values:"
        )
        for value, description in zip(
            field["enum"], field["markdownEnumDescriptions"], strict=True
        ):
            assert f"* `{value}`: {description}" in shown


def test_hovering_any_top_level_key_shows_its_title_and_description(
    server: LanguageServer, workspace: Path
) -> None:
    path = workspace / SEED
    text = path.read_text(encoding="utf-8")
    server.open(path, text)
    keys = [k for k in yaml.safe_load(text)]
    assert len(keys) >= 8
    for key in keys:
        field = ENTRY_SCHEMA["properties"][key]
        shown = hover_text(server, path, text, f"\n{key}:", 1)
        assert shown.startswith(f"#### {field['title']}\n\n{field['description']}"), key


def messages(diagnostics: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    return [(d["range"]["start"]["line"], d["source"], d["message"]) for d in diagnostics]


def test_a_mistyped_value_is_told_what_is_allowed(server: LanguageServer, workspace: Path) -> None:
    path, text = mutated(server, workspace, "bound_by: memory", "bound_by: memroy")
    allowed = ", ".join(f'"{v}"' for v in ENTRY_SCHEMA["properties"]["bound_by"]["enum"])
    line, _ = position(text, "bound_by: memroy")
    assert messages(server.open(path, text)) == [
        (line, "yaml-schema: Bound by", f"Value is not accepted. Valid values: {allowed}.")
    ]


def pattern_messages() -> Iterator[tuple[str, str, str]]:
    entry = ENTRY_SCHEMA["properties"]
    symbol = entry["scales_with"]["items"]["properties"]["symbol"]
    device = entry["hardware_parameters"]["items"]["properties"]["values_for"]["items"]
    yield "id: flops/speculative-draft", "id: Flops/Draft", entry["id"]["patternErrorMessage"]
    yield "symbol: N_d", "symbol: 2N", symbol["patternErrorMessage"]
    yield "[nvidia-h100-sxm,", "[NVIDIA_H100,", device["patternErrorMessage"]


@pytest.mark.parametrize(("old", "new", "message"), list(pattern_messages()))
def test_a_malformed_value_gets_a_sentence_not_a_regular_expression(
    server: LanguageServer, workspace: Path, old: str, new: str, message: str
) -> None:
    path, text = mutated(server, workspace, old, new)
    found = [m for _, _, m in messages(server.open(path, text))]
    assert message in found
    assert not [m for m in found if "^" in m or "pattern" in m]


def expand(snippet: str) -> str:
    """A snippet as an editor inserts it with every placeholder left at its default."""
    snippet = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", snippet)
    return re.sub(r"\$\{?\d+\}?", "", snippet)


def test_completing_a_key_inserts_valid_yaml(server: LanguageServer, workspace: Path) -> None:
    path, text = mutated(server, workspace, "class: speculative_draft\n", "cl\n")
    text = text.replace("\nnotes: >-", "\nnotez: >-")  # so that notes is offered too
    line, _ = position(text, "\ncl\n", 1)
    server.open(path, text)
    result = server.at("textDocument/completion", path, line, 2)
    items = result["items"] if isinstance(result, dict) else result
    keys = {i["label"]: i for i in items if i["label"] in ENTRY_SCHEMA["properties"]}
    assert {"class", "notes"} <= set(keys)
    lines = text.split("\n")
    for key, item in keys.items():
        inserted = expand(item.get("insertText") or item["label"])
        assert inserted.startswith(f"{key}:"), inserted
        lines[line] = inserted + ("x" if inserted.endswith(": ") else "")
        data = yaml.safe_load("\n".join(lines).replace("\nnotez:", "\nnotes:"))
        assert key in data, inserted


@pytest.mark.parametrize(
    ("written", "offered"),
    [
        ("class: speculative_draft", ENTRY_SCHEMA["properties"]["class"]["enum"]),
        # The entry schema's source names the hardware rows; the published copy lists them.
        (
            "  dtype: bf16",
            list(schemas.schema(schemas.HARDWARE)["properties"]["peak_flops"]["properties"]),
        ),
    ],
)
def test_completing_a_value_offers_the_allowed_ones(
    server: LanguageServer, workspace: Path, written: str, offered: list[str]
) -> None:
    key = written.partition(":")[0] + ": "
    path, text = mutated(server, workspace, f"{written}\n", f"{key}\n")
    server.open(path, text)
    line, character = position(text, f"{key}\n", len(key))
    result = server.at("textDocument/completion", path, line, character)
    items = result["items"] if isinstance(result, dict) else result
    assert [i["label"] for i in items] == offered


def test_device_files_are_mapped_to_the_hardware_schema(
    server: LanguageServer, workspace: Path
) -> None:
    device = next((workspace / "hardware").glob("*.yaml"))
    path = workspace / "hardware" / "mutated.yaml"
    text = "\n".join(
        line for line in device.read_text(encoding="utf-8").split("\n") if not line.startswith("#")
    )
    found = server.open(path, text + "colour: blue\n")
    assert [d["message"] for d in found] == ["Property colour is not allowed."]


@pytest.fixture(scope="module")
def checked_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the knowledge base that `kb check` reads a mutated file in, at its place."""
    return copy_repository(
        tmp_path_factory.mktemp("checked"), ("entries", "hardware", "models", "schema")
    )


def unit_sentence(dimension: str) -> str:
    """What the published schemas say of a quantity of `dimension` written otherwise."""
    said = {
        str(node["patternErrorMessage"])
        for kind in (schemas.ENTRY, schemas.HARDWARE, schemas.MODEL)
        for node in strings_of(schemas.schema(kind))
        if node.get("x-dimension") == dimension
    }
    assert len(said) == 1, said
    return said.pop()


def strings_of(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "string":
            yield node
        for value in node.values():
            yield from strings_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings_of(value)


H100 = "hardware/nvidia-h100-sxm.yaml"
#: (file, text, the same text with a quantity of another dimension, the dimension it must have)
WRONG_DIMENSIONS = [
    (
        H100,
        "memory_bandwidth:\n  value: 3.35 TB/s",
        "memory_bandwidth:\n  value: 3.35 TFLOP/s",
        "bandwidth",
    ),
    (H100, "memory_capacity:\n  value: 80 GB\n", "memory_capacity:\n  value: 80 GB/s\n", "bytes"),
    (H100, "    value: 989.4 TFLOP/s", "    value: 989.4 GB", "flop_rate"),
    (
        H100,
        "vendor: NVIDIA\n",
        "vendor: NVIDIA\nlaunch_latency: {value: 4 KB, source: hpctech-h100}\n",
        "time",
    ),
    (H100, "  measured:\n    value: 2.8 TB/s", "  measured:\n    value: 2.8 TFLOP/s", "bandwidth"),
    (H100, "message: [32 MiB, 128 MiB]", "message: [32 MiB/s, 128 MiB]", "bytes"),
    ("entries/collective/all-gather.yaml", "    time: 2663.8 us", "    time: 2663.8 kB", "time"),
    (
        "entries/gemm/decode-weight-gemm.yaml",
        "    throughput: 336 TFLOP/s",
        "    throughput: 336 TB/s",
        "flop_rate",
    ),
    ("models/llama-2-7b.yaml", "    time: 36 ms", "    time: 36 MB", "time"),
    (
        "models/llama-3.1-70b.yaml",
        "    throughput: 58.78 tok/s",
        "    throughput: 58.78 TB/s",
        "token_rate",
    ),
]


@pytest.mark.parametrize(
    ("name", "old", "new", "dimension"),
    WRONG_DIMENSIONS,
    ids=[f"{n.rpartition('/')[2]}-{d}-{i}" for i, (n, _, _, d) in enumerate(WRONG_DIMENSIONS)],
)
def test_a_quantity_of_the_wrong_dimension_is_flagged_by_the_editor_and_by_kb_check(
    server: LanguageServer,
    workspace: Path,
    checked_root: Path,
    name: str,
    old: str,
    new: str,
    dimension: str,
) -> None:
    original = (REPOSITORY / name).read_text(encoding="utf-8")
    assert original.count(old) >= 1, old
    text = original.replace(old, new, 1)
    # The line the new text ends on: the quantity's.
    line = text.count("\n", 0, text.index(new) + len(new.rstrip("\n")))
    sentence = unit_sentence(dimension)

    # The editor: a copy of its own, in the same folder, so the same schema applies.
    folder, _, stem = name.rpartition("/")
    path = workspace / folder / f"mutated-{len(server.opened)}-{stem}"
    found = [
        (d["range"]["start"]["line"], d["range"]["start"]["character"], d["message"])
        for d in server.open(path, text)
    ]
    assert [(at, message) for at, _, message in found] == [(line, sentence)]

    # kb check, on the file at its own place in a copy of the knowledge base.
    written = checked_root / name
    try:
        written.write_text(text, encoding="utf-8")
        result = check(checked_root, paths=[written])
    finally:
        written.write_text(original, encoding="utf-8")
    said = [(d.line - 1, d.col - 1, d.code, d.hint) for d in result.diagnostics if d.path == name]
    # At the same place: LSP counts lines and characters from 0, kb from 1.
    assert said == [(line, found[0][1], "KB105", sentence)]


def test_the_editor_completes_a_namespace_the_knowledge_base_adds(
    server: LanguageServer, workspace: Path
) -> None:
    """kb.yaml's namespaces are in the entry schema `kb schema entry` publishes for that
    knowledge base, as completions of an id."""
    from click.testing import CliRunner

    from bottleneck_kb.cli import main

    own = workspace / "own"
    (own / "entries" / "bench").mkdir(parents=True)
    (own / "kb.yaml").write_text(
        "namespaces:\n  - name: bench\n    title: Benchmarks\n"
        "    description: Whole-system benchmark harnesses.\n",
        "utf-8",
    )
    published = CliRunner().invoke(main, ["schema", "entry", "--root", str(own)])
    assert published.exit_code == 0
    (own / "schema").mkdir()
    (own / "schema" / "entry.schema.json").write_text(published.output, "utf-8")
    path = own / "entries" / "bench" / "new.yaml"
    text = "# yaml-language-server: $schema=../../schema/entry.schema.json\nid: \n"
    server.open(path, text)
    result = server.at("textDocument/completion", path, 1, 4)
    items = result["items"] if isinstance(result, dict) else result
    labels = [i["label"] for i in items]
    assert "bench/" in labels and "gemm/" in labels
    assert "fixtures/" not in labels
