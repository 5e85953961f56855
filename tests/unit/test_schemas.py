"""The schemas are plain, portable JSON Schema, documented on every property, and the fast
validator and the reference validator agree on every file we have."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bottleneck_kb import schemas
from bottleneck_kb.core.diagnostics import sorted_diagnostics
from bottleneck_kb.knowledge.read import read_document
from bottleneck_kb.rules import REGISTRY
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY
from bottleneck_kb.source import load

from ..conftest import FIXTURES, REPOSITORY, example_files

KINDS = [schemas.ENTRY, schemas.HARDWARE]
FIGURES = schemas.schema(schemas.HARDWARE)["$defs"]


def _properties(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{where}.{name}", sub
        for key, value in node.items():
            yield from _properties(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _properties(item, f"{where}[{i}]")


def _mappings(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping in `node`, `node` first, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _mappings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _mappings(item)


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = schemas.schema(kind)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("kind", KINDS)
def test_every_property_has_a_title_and_a_description(kind: str) -> None:
    undocumented = [
        where
        for where, prop in _properties(schemas.schema(kind))
        if not prop.get("title") or not prop.get("description")
    ]
    assert undocumented == []


@pytest.mark.parametrize("kind", KINDS)
def test_every_object_forbids_additional_properties(kind: str) -> None:
    objects = [node for node in _mappings(schemas.schema(kind)) if node.get("type") == "object"]
    assert objects
    assert all(
        node.get("additionalProperties") is False or "propertyNames" in node for node in objects
    )


def test_every_class_and_bound_by_value_is_documented() -> None:
    """An enum with a description per value (what editors show beside each value), not a
    oneOf of consts (editors then show one value's title when the field is hovered)."""
    properties = schemas.schema(schemas.ENTRY)["properties"]
    for field in ("class", "bound_by"):
        values = properties[field]["enum"]
        for descriptions in ("markdownEnumDescriptions", "enumDescriptions"):
            assert len(properties[field][descriptions]) == len(values)
            assert all(properties[field][descriptions])
    classes = set(properties["class"]["enum"])
    assert {"speculative_draft", "decode_gemm"} <= classes
    assert set(properties["bound_by"]["enum"]) == {
        "memory",
        "compute",
        "interconnect",
        "host_link",
        "network",
        "latency",
        "capacity",
    }


def _repository_documents(folder: str) -> list[Path]:
    return sorted((REPOSITORY / folder).rglob("*.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "path"),
    [(schemas.ENTRY, p) for p in _repository_documents("entries")]
    + [(schemas.HARDWARE, p) for p in _repository_documents("hardware")],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_repository_files_pass_a_standard_validator(kind: str, path: Path) -> None:
    """Plain jsonschema on the data PyYAML reads: our schema needs nothing of our loader."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, schemas.schema(kind), cls=jsonschema.Draft202012Validator)


def _all_fixture_documents() -> list[tuple[str, str, bytes]]:
    """(kind, name, bytes) of every whole fixture file and every file a one-rule fixture
    writes (symlinks left out)."""
    cases = []
    for folder in ("valid", "hostile"):
        for path in sorted((FIXTURES / folder).glob("*.yaml")):
            cases.append((schemas.ENTRY, path.name, path.read_bytes()))
    for case in sorted((FIXTURES / "rules").glob("*/*.yaml")):
        rule = REGISTRY[case.parent.name]
        for written in example_files(rule, case.read_text(encoding="utf-8")):
            if written.link_to is None:
                kind = schemas.HARDWARE if written.path.startswith("hardware/") else schemas.ENTRY
                cases.append((kind, f"{case.parent.name}/{case.name}", written.data))
    return cases


def test_fast_and_explaining_validators_agree_on_every_fixture() -> None:
    """jsonschema-rs says invalid exactly when jsonschema finds errors, so the fast path never
    changes what a user is told."""
    compared = 0
    for kind, name, data in _all_fixture_documents():
        document, _ = load(data, name)
        if document is None:
            continue
        fast_says_valid = schemas.is_valid(kind, document.data)
        explained = schemas.located_errors(kind, document)
        assert fast_says_valid == (explained == []), name
        said = schemas.validate(kind, document)
        # A file of an earlier version, or one with a placeholder where a set form belongs, is
        # told so instead (tests/integration/test_upgrade.py).
        if not {d.code for d in said} & {"KB106", "KB015", "KB017"}:
            assert said == explained, name
        compared += 1
    assert compared >= 30


@pytest.mark.parametrize("kind", KINDS)
def test_published_schema_is_the_packaged_one(kind: str) -> None:
    """`schema/` is what editors and other repositories point at; the package validates with
    the schema its source makes. The published file is that schema as `kb schema` writes it."""
    published = (REPOSITORY / "schema" / f"{kind}.schema.json").read_text(encoding="utf-8")
    assert published == schemas.schema_text(kind), (
        f"run kb schema {kind} > schema/{kind}.schema.json"
    )


def test_each_enum_the_shipped_schemas_take_from_another_is_filled_in() -> None:
    rows = list(schemas.schema(schemas.HARDWARE)["properties"]["peak_flops"]["properties"])
    assert {kind: _enums_of_keys(schemas.schema(kind)) for kind in KINDS} == {
        schemas.ENTRY: [("hardware.schema.json#/properties/peak_flops/properties", rows)],
        schemas.HARDWARE: [],
    }


def _enums_of_keys(node: Any) -> list[tuple[str, list[str]]]:
    """(address, enum) of each node of `node` that takes its enum from another schema."""
    return [
        (n[schemas.ENUM_KEYS_OF], n["enum"]) for n in _mappings(node) if schemas.ENUM_KEYS_OF in n
    ]


SOURCES = {
    "rows.json": {
        "$defs": {"a/b": {"~1": {"z": {}, "a": {}, "m": {}}}},
        "listed": [{"title": "x"}, {"keys": {"y": 1, "x": 2}}],
        "text": "not a mapping",
    },
}


@pytest.fixture
def sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's source schemas are SOURCES."""
    monkeypatch.setattr(schemas, "_source", lambda name: copy.deepcopy(SOURCES[name]))


@pytest.mark.usefixtures("sources")
def test_an_enum_is_the_keys_at_the_address_in_their_order_after_the_annotation() -> None:
    written: dict[str, Any] = {
        "properties": {
            "escaped": {
                "type": "string",
                "x-enum-keys-of": "rows.json#/$defs/a~1b/~01",
                "default": "a",
            },
            "indexed": {"oneOf": [{"x-enum-keys-of": "rows.json#/listed/1/keys"}]},
        }
    }
    resolved = schemas._with_enums(written)
    assert json.dumps(resolved) == json.dumps(
        {
            "properties": {
                "escaped": {
                    "type": "string",
                    "x-enum-keys-of": "rows.json#/$defs/a~1b/~01",
                    "enum": ["z", "a", "m"],
                    "default": "a",
                },
                "indexed": {
                    "oneOf": [{"x-enum-keys-of": "rows.json#/listed/1/keys", "enum": ["y", "x"]}]
                },
            }
        }
    )
    assert "enum" not in written["properties"]["escaped"]


@pytest.mark.usefixtures("sources")
@pytest.mark.parametrize(
    ("address", "error"),
    [
        ("rows.json#/$defs/a/b", "'rows.json#/$defs/a/b' names nothing"),
        ("rows.json#/listed/2", "'rows.json#/listed/2' names nothing"),
        ("rows.json#/listed/keys", "'rows.json#/listed/keys' names nothing"),
        ("rows.json#/listed/-1", "'rows.json#/listed/-1' names nothing"),
        ("rows.json#/text/0", "'rows.json#/text/0' names nothing"),
        ("rows.json#/text", "'rows.json#/text' is not a mapping"),
        ("rows.json#listed", "'rows.json#listed': a JSON pointer starts with '/'"),
    ],
)
def test_an_address_that_names_no_mapping_is_an_error(address: str, error: str) -> None:
    with pytest.raises(ValueError) as raised:
        schemas._with_enums({"x-enum-keys-of": address})
    assert str(raised.value) == f"x-enum-keys-of: {error}"


def test_the_bounds_a_check_may_expect_are_the_quantities_the_model_gives() -> None:
    """roofline.UNITS (each bound's unit, which Result.quantity answers for) copies the
    schema's `expect` keys for speed: a key added to one and not the other fails here rather
    than as an internal error on the first entry that uses it."""
    from bottleneck_kb.evaluation.roofs import UNITS
    from bottleneck_kb.records.entry import _NOT_BOUNDS

    expect = schemas.schema(schemas.ENTRY)["properties"]["checks"]["items"]["properties"]
    keys = set(expect["expect"]["properties"])
    assert keys >= _NOT_BOUNDS
    assert set(UNITS) == keys - _NOT_BOUNDS


def _said(kind: str, text: str) -> list[tuple[int, int, str, str, str | None]]:
    """(line, col, code, message, hint) of each schema problem of `text`, in order."""
    document, problems = load(text.encode(), "file.yaml")
    assert document is not None, problems
    return [
        (d.line, d.col, d.code, d.message, d.hint)
        for d in sorted_diagnostics(schemas.validate(kind, document))
    ]


def _line_of(start: str, text: str) -> int:
    """The line (from 1) of `text` that starts with `start`."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_a_bare_number_for_text_of_a_set_form_is_told_the_form() -> None:
    """A figure's value needs its unit: quoting the number would only trade KB104 for KB105."""
    device = MINIMAL_DEVICE.replace("{value: 989.4 TFLOP/s,", "{value: 31.2e+12,")
    assert _said(schemas.HARDWARE, device) == [
        (
            _line_of("  bf16:", device),
            17,
            "KB104",
            "peak_flops.bf16.value must be a string, not a number (3.12e+13)",
            FIGURES["flop_rate_figure"]["properties"]["value"]["patternErrorMessage"],
        )
    ]


def test_a_bare_number_for_a_figure_is_not_also_told_to_respell_it(tmp_path: Path) -> None:
    """KB014's hint (write 3.12e+13) would lead to the same KB104: only the schema speaks."""
    device = tmp_path / "hardware" / "x.yaml"
    device.parent.mkdir()
    device.write_text(MINIMAL_DEVICE.replace("{value: 989.4 TFLOP/s,", "{value: 31.2e12,"))
    document, said = read_document(device, tmp_path, schemas.HARDWARE)
    assert document is None
    assert [(d.line, d.col, d.code, d.message) for d in said] == [
        (
            _line_of("  bf16:", MINIMAL_DEVICE),
            17,
            "KB104",
            "peak_flops.bf16.value must be a string, not a number (3.12e+13)",
        )
    ]


def test_a_number_the_schema_accepts_is_still_told_to_be_portable(tmp_path: Path) -> None:
    entry = tmp_path / "entries" / "gemm" / "x.yaml"
    entry.parent.mkdir(parents=True)
    assert "typical: 1.0e+9\n" in MINIMAL_ENTRY
    entry.write_text(MINIMAL_ENTRY.replace("typical: 1.0e+9\n", "typical: 1e9\n"))
    document, said = read_document(entry, tmp_path, schemas.ENTRY)
    assert document is not None
    assert [(d.code, d.hint) for d in said] == [("KB014", "write 1.0e+9")]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        # A field of a set form: its pattern's own message.
        (
            "id: 5",
            (
                1,
                5,
                "KB104",
                "id must be a string, not a number (5)",
                "An id is namespace/slug: lower-case letters and digits in words joined by "
                "hyphens, one '/', e.g. gemm/decode-weight-stream; not a name Windows reserves "
                "for devices (con, prn, aux, nul, com1 to com9, lpt1 to lpt9).",
            ),
        ),
        # Free text: quoting makes text of anything.
        (
            "title: 42",
            (
                2,
                8,
                "KB104",
                "title must be a string, not a number (42)",
                "quote the value if you mean text",
            ),
        ),
    ],
)
def test_a_number_where_text_belongs_is_told_what_to_write(
    written: str, said: tuple[int, int, str, str, str]
) -> None:
    key = written.split(":")[0]
    line = next(line for line in MINIMAL_ENTRY.splitlines() if line.startswith(f"{key}: "))
    assert _said(schemas.ENTRY, MINIMAL_ENTRY.replace(line, written)) == [said]


def test_text_for_a_number_is_told_what_number_to_write() -> None:
    entry = MINIMAL_ENTRY.replace("typical: 8\n", "typical: 8k\n")
    line = entry.splitlines().index("    typical: 8k") + 1
    assert _said(schemas.ENTRY, entry) == [
        (
            line,
            14,
            "KB104",
            "scales_with[0].typical must be a number, not a string ('8k')",
            "The value used when an entry is evaluated without overrides: a plain number in the "
            "variable's unit, e.g. 4 (tokens) or 1.0e+9 (parameters; write the exponent with a "
            "sign and a decimal point so YAML 1.1 and 1.2 both read a number).",
        )
    ]


def test_a_key_required_by_a_then_or_else_part_is_described() -> None:
    """`claims` requires `source` or `check` depending on the verdict (if/then/else): the
    description is the object's, around the part that requires it."""
    claims = (
        "claims:\n"
        "  - {card: A sourced claim., verdict: agrees, reference: '2302.01318'}\n"
        "  - {card: A computed claim., verdict: computed}\n"
    )
    line = len(MINIMAL_ENTRY.splitlines()) + 2
    assert _said(schemas.ENTRY, MINIMAL_ENTRY + claims) == [
        (
            line,
            5,
            "KB101",
            "claims[0] is missing the required key 'source'",
            "source: What the cited source says on the point, quoted or closely paraphrased "
            "from what was read; say which part was read (abstract, table, code).",
        ),
        (
            line + 1,
            5,
            "KB101",
            "claims[1] is missing the required key 'check'",
            "check: Index (from 0) into checks of the check that computes the statement, "
            "rather than restating it.",
        ),
    ]


@pytest.mark.parametrize(
    ("kind", "name"),
    [(kind, name) for kind in ("entry", "hardware") for name in ("con", "aux", "com1", "lpt9")],
)
def test_an_id_is_no_file_name_windows_reserves(kind: str, name: str) -> None:
    """A file entries/gemm/con.yaml cannot be checked out on Windows: the whole repository
    then fails to clone there. Names that only start like one are ids."""
    prefix = "gemm/" if kind == "entry" else ""
    assert not schemas.is_id(kind, f"{prefix}{name}")
    assert schemas.is_id(kind, f"{prefix}{name}x")
    assert schemas.is_id(kind, f"{prefix}{name}-loss")
    assert schemas.is_id(kind, f"{prefix}com10")


def test_a_bound_that_is_not_a_count_is_refused_with_the_counts() -> None:
    """Editors complete `at_most` from the same list: only figures that count."""
    entry = MINIMAL_ENTRY.replace(
        "    typical: 1.0e+9\n", "    typical: 1.0e+9\n    at_most: memory_capacity\n"
    )
    assert _said(schemas.ENTRY, entry) == [
        (
            _line_of("    at_most:", entry),
            14,
            "KB103",
            "'memory_capacity' is not an allowed scales_with[1].at_most",
            "allowed values: scale_up_domain",
        )
    ]
