"""kb new: a commented skeleton read off the schema, placeholders that kb check reports, and a
newcomer's path from scaffold to a clean check, in a temporary copy of the repository."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb import schemas
from bottleneck_kb.authoring.fmt import format_text
from bottleneck_kb.authoring.scaffold import choices, skeleton
from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main
from bottleneck_kb.source import load

from ..conftest import copy_repository, summary_of


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"GITHUB_ACTIONS": ""})


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A copy of the repository's knowledge base, with its published schemas."""
    return copy_repository(tmp_path / "repo", ("entries", "hardware", "schema"))


def _positions(text: str, word: str) -> list[tuple[int, int]]:
    """(line, column) of each value `word` on a line that is not a comment."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.lstrip().startswith("#") and line.endswith(f": {word}"):
            found.append((number, len(line) - len(word) + 1))
    return found


def test_the_skeleton_is_canonical_and_loads() -> None:
    line = "# yaml-language-server: $schema=../../schema/entry.schema.json"
    text = skeleton(schemas.ENTRY, {"id": "flops/x", "class": "decode_gemm"}, line)

    assert format_text(text.encode(), "x.yaml", schemas.ENTRY, line) == text
    document, problems = load(text.encode(), "x.yaml")
    assert document is not None, problems
    assert text.startswith(f"{line}\n# Entry id: ")
    assert "\n# Title: A one-line name of the bottleneck as a reader would search for it.\n" in text


def test_choices_are_read_from_the_schema() -> None:
    schema = schemas.schema(schemas.ENTRY)
    assert choices(schemas.ENTRY, "bound_by") == list(schema["properties"]["bound_by"]["enum"])


def _placeholders(data: object, word: str, at: str = "") -> list[str]:
    """The names, as KB015 gives them (`scales_with[0].symbol`), of the values that are
    `word`, in the file's order."""
    if isinstance(data, dict):
        return [
            name
            for key, value in data.items()
            for name in _placeholders(value, word, f"{at}.{key}" if at else key)
        ]
    if isinstance(data, list):
        return [n for i, item in enumerate(data) for n in _placeholders(item, word, f"{at}[{i}]")]
    return [at] if data == word else []


def test_a_new_entry_reports_exactly_its_placeholders(repository: Path) -> None:
    result = run(
        "new", "flops/test-card", "--class", "decode_gemm", "--bound-by", "memory",
        "--root", str(repository),
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert result.output == (
        "wrote entries/flops/test-card.yaml; replace each TODO, then run kb check\n"
        "  it holds the required keys; the optional ones (the other roofs' formulas, checks, "
        "derived values, bounds, ...) are in CONTRIBUTING.md, 'What each field means', and "
        "the schema\n"
    )
    path = repository / "entries" / "flops" / "test-card.yaml"
    text = path.read_text(encoding="utf-8")
    upper, lower = _positions(text, "TODO"), _positions(text, "todo")
    document, _ = load(text.encode("utf-8"), "test-card.yaml")
    assert document is not None
    names = _placeholders(document.data, "TODO")
    assert names[0] == "title" and "scales_with[0].symbol" in names  # in the file's order
    (name_line, name_col) = lower[0]
    expected = [
        (line, col, "KB015", f"{name} is still a placeholder")
        for (line, col), name in zip(upper, names, strict=True)
    ]
    expected += [
        (name_line, name_col, "KB015", "scales_with[0].name is still a placeholder"),
        (name_line, name_col - 6, "KB402", "symbol 'TODO' is used in the formulas but has no "
         "typical value"),
        (text.splitlines().index("references: []") + 1, 1, "KB223", "the entry cites no source"),
    ]  # fmt: skip

    found = check(repository).diagnostics

    assert [(d.line, d.col, d.code, d.message) for d in found] == sorted(expected)
    assert {d.path for d in found} == {"entries/flops/test-card.yaml"}


@pytest.mark.slow
def test_a_newcomer_scaffolds_fills_checks_and_formats(repository: Path) -> None:
    root = str(repository)
    assert run("new", "gemm/test-card", "--class", "decode_gemm", "--root", root).exit_code == 0
    path = repository / "entries" / "gemm" / "test-card.yaml"
    text = path.read_text(encoding="utf-8")
    for placeholder, value in [
        ("title: TODO", "title: A test card"),
        ("summary: TODO", "summary: Streams N bf16 weights once."),
        ("flops: TODO", "flops: 2 * N"),
        ("bytes: TODO", "bytes: 2 * N"),
        ("name: todo", "name: weights"),
        ("symbol: TODO", "symbol: N"),
        ("description: TODO", "description: Weights streamed.\n    typical: 1.0e+9"),
        ("title: TODO", "title: Fewer bytes"),
        ("description: TODO", "description: Quantize the weights."),
        (
            "references: []",
            "references:\n  - title: Roofline\n    first_author: Williams\n    year: 2009\n"
            "    url: https://doi.org/10.1145/1498765.1498785",
        ),
    ]:
        assert placeholder in text
        text = text.replace(placeholder, value, 1)
    # --bound-by was not given: the skeleton asks for it, naming what is allowed.
    assert "\nbound_by: TODO\n" in text
    comments = " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))
    allowed = ", ".join(choices(schemas.ENTRY, "bound_by"))
    assert "Bound by: " in comments and f"One of: {allowed}." in comments
    text = text.replace("bound_by: TODO", "bound_by: memory")
    # Text the schema comes to require is filled in as a newcomer would: with text.
    text = re.sub(r": TODO$", ": Filled in.", text, flags=re.MULTILINE)
    path.write_text(text, encoding="utf-8")

    checked = run("check", "--root", root)
    formatted = run("fmt", "--check", "--root", root)

    assert checked.exit_code == 0, checked.output
    assert summary_of(checked.output).startswith("All clear: checked ")
    assert formatted.exit_code == 0, formatted.output
    assert formatted.output == ""


def test_a_new_device_loads_and_is_canonical(repository: Path) -> None:
    result = run("new", "--hardware", "acme-x1", "--root", str(repository))

    assert result.exit_code == 0, result.output
    path = repository / "hardware" / "acme-x1.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../schema/hardware.schema.json\n")
    assert "\nname: TODO\n" in text
    assert run("fmt", "--check", "--root", str(repository), str(path)).exit_code == 0
    document, problems = load(path.read_bytes(), "acme-x1.yaml")
    assert document is not None, problems
    assert document.data["id"] == "acme-x1"


def test_an_existing_file_is_never_overwritten(repository: Path) -> None:
    path = repository / "entries" / "flops" / "speculative-draft.yaml"
    before = path.read_bytes()

    result = run("new", "flops/speculative-draft", "--root", str(repository))

    assert result.exit_code == 1
    assert result.output == (
        "Error: entries/flops/speculative-draft.yaml already exists\n"
        "    hint: edit it, or choose another id\n"
    )
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("linked", "args"),
    [("entries/speculative", ["speculative/x"]), ("hardware", ["--hardware", "x-device"])],
)
def test_nothing_is_written_through_a_linked_folder(
    repository: Path, tmp_path: Path, linked: str, args: list[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = repository / linked
    if folder.exists():
        folder.rename(tmp_path / "moved")
    folder.symlink_to(elsewhere, target_is_directory=True)

    result = run("new", *args, "--root", str(repository))

    assert result.exit_code == 1
    assert result.output.startswith(
        f"Error: {linked} is a symlink; kb new writes only inside the repository\n"
    )
    assert list(elsewhere.iterdir()) == []


def test_a_malformed_id_is_refused_with_what_is_allowed(repository: Path) -> None:
    before = sorted(repository.rglob("*"))

    result = run("new", "Flops/../x", "--root", str(repository))

    description = schemas.schema(schemas.ENTRY)["properties"]["id"]["description"]
    assert result.exit_code == 1
    assert result.output == (
        f"Error: 'Flops/../x' is not a valid entry id\n    hint: {description}\n"
    )
    assert sorted(repository.rglob("*")) == before


def test_an_unknown_class_gets_a_did_you_mean(repository: Path) -> None:
    result = run("new", "flops/x", "--class", "decode_gem", "--root", str(repository))

    allowed = ", ".join(choices(schemas.ENTRY, "class"))
    assert result.exit_code == 1
    assert result.output == (
        "Error: 'decode_gem' is not an allowed class\n"
        f"    hint: did you mean 'decode_gemm'? allowed values: {allowed}\n"
    )
    assert not (repository / "entries" / "flops" / "x.yaml").exists()


def test_an_unknown_namespace_gets_a_did_you_mean(repository: Path) -> None:
    """As kb check would (KB211) once the file was written."""
    result = run("new", "attn/x", "--root", str(repository))

    allowed = ", ".join(schemas.open_namespaces())
    assert "fixtures" not in allowed  # reserved: not offered
    assert result.exit_code == 1
    assert result.output == (
        "Error: 'attn' is not a namespace\n"
        f"    hint: did you mean 'attention'? allowed namespaces: {allowed}\n"
    )
    assert not (repository / "entries" / "attn").exists()


def test_kb_new_with_a_root_starts_a_knowledge_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team's first entry: no folder had entries/ yet, and kb new refused every way."""
    empty = tmp_path / "ours"
    empty.mkdir()
    monkeypatch.chdir(empty)
    lost = run("new", "gemm/acme-int4-decode")
    assert lost.exit_code == 2
    assert "pass --root (kb new --root DIR starts one)" in lost.output
    started = run("new", "gemm/acme-int4-decode", "--root", str(empty))
    assert started.exit_code == 0, started.output
    assert (empty / "entries" / "gemm" / "acme-int4-decode.yaml").is_file()
    missing = run("new", "gemm/a", "--root", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2
    assert f"Invalid value for --root: {tmp_path / 'nowhere'} is not a folder" in missing.output


def test_kb_new_says_what_stands_in_its_way(repository: Path) -> None:
    """A file where a folder must be gave `kb: File exists` (exit 2); an id past the length
    limit was told the id's pattern."""
    namespace = schemas.open_namespaces()[0]
    folder = repository / "entries" / namespace
    if folder.exists():
        folder.rename(repository / "aside")
    folder.write_text("not a folder\n", encoding="utf-8")
    blocked = run("new", f"{namespace}/x", "--root", str(repository))
    assert (blocked.exit_code, blocked.output) == (
        1,
        f"Error: entries/{namespace} is a file, where kb new makes a folder\n"
        "    hint: move it aside, or choose another id\n",
    )
    longest = schemas.schema(schemas.ENTRY)["properties"]["id"]["maxLength"]
    long_id = "gemm/" + "x" * longest
    too_long = run("new", long_id, "--root", str(repository))
    assert (too_long.exit_code, too_long.output) == (
        1,
        f"Error: '{long_id}' is not a valid entry id\n"
        f"    hint: an id is at most {longest} characters\n",
    )


def test_a_reserved_namespace_is_refused(repository: Path) -> None:
    """CONTRIBUTING reserves fixtures/ for kb's tests; kb new offered it and wrote the file."""
    result = run("new", "fixtures/x", "--root", str(repository))

    assert result.exit_code == 1
    assert result.output == (
        "Error: 'fixtures' is reserved for kb's own test fixtures\n"
        "    hint: choose the namespace of the entry's family: "
        f"{', '.join(schemas.open_namespaces())}\n"
    )
    assert not (repository / "entries" / "fixtures" / "x.yaml").exists()


def test_class_is_not_an_option_for_devices(repository: Path) -> None:
    result = run(
        "new", "--hardware", "acme-x1", "--class", "decode_gemm", "--root", str(repository)
    )

    assert result.exit_code == 2
    assert "--class and --bound-by are for entries, not --hardware" in result.output


def test_the_skeleton_follows_the_schema_whatever_its_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A device figure that may be a mapping (value and source) is scaffolded as one: nothing
    in kb new names a field."""
    schema = copy.deepcopy(schemas.schema(schemas.HARDWARE))
    schema["properties"]["memory_bandwidth"] = {
        "title": "Memory bandwidth",
        "oneOf": [
            {"type": "string"},
            {
                "type": "object",
                "required": ["value", "source"],
                "properties": {
                    "value": {"title": "Value", "type": "string"},
                    "source": {"title": "Source", "type": "string"},
                    "note": {"type": "string"},
                },
            },
        ],
    }
    monkeypatch.setattr(schemas, "schema", lambda kind, words=schemas.BUILT_IN: schema)

    text = skeleton(schemas.HARDWARE, {"id": "acme-x1"}, None)

    assert "\n# Memory bandwidth\nmemory_bandwidth:\n  # Value\n  value: TODO\n" in text
    assert "\n  # Source\n  source: TODO\n" in text
    assert "note" not in text
