"""Architecture kinds, shipped with the package as data (`kinds/<id>.yaml`, checked against the
kind schema): the fields a recipe reads and the config names each may come from, the model's
own account of parameters and memory, and the recipe, which cards make a prefill step and a
decode step. A new model of a known kind is a YAML file of its own and no Python."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .. import schemas
from ..core.errors import KBError
from ..maths import formula
from ..source import Document, load
from .deployment import NUMERIC

#: The phases a recipe has, in the order a request runs them.
PHASES = ("prefill", "decode")


@dataclass(frozen=True, slots=True)
class Field:
    """A quantity the recipe reads: from the first of `names` the config gives, else
    `fallback` (a formula over fields listed before it)."""

    name: str
    names: tuple[str, ...]
    fallback: formula.Formula | None
    description: str


@dataclass(frozen=True, slots=True)
class Row:
    """One card of a step: `count` times, its symbols bound by `bindings`."""

    phase: str
    index: int
    card: str
    label: str
    count: formula.Formula
    bindings: Mapping[str, formula.Formula]
    #: Whether the deployment's compute dtype replaces the card's own.
    deployment_dtype: bool
    description: str | None


@dataclass(frozen=True, slots=True)
class Kind:
    id: str
    title: str
    description: str
    fields: tuple[Field, ...]
    parameters: formula.Formula
    parameters_per_device: formula.Formula
    kv_values_per_token: formula.Formula
    kv_values_per_token_per_device: formula.Formula
    activation_values_per_device: formula.Formula
    rows: tuple[Row, ...]
    source: Document

    @property
    def cards(self) -> frozenset[str]:
        """The ids of the cards the recipe binds."""
        return frozenset(r.card for r in self.rows)


@cache
def kinds() -> Mapping[str, Kind]:
    """Every kind the package ships, by id. A kind that does not load is a bug in kb's own
    data: a KBError naming the file and the place."""
    folder = resources.files(__package__).joinpath("kinds")
    found = {}
    for item in sorted(folder.iterdir(), key=lambda f: f.name):
        if item.name.endswith(".yaml"):
            kind = _read(item.name, item.read_bytes())
            found[kind.id] = kind
    return found


def _read(name: str, raw: bytes) -> Kind:
    shown = f"bottleneck_kb/composition/kinds/{name}"
    document, problems = load(raw, shown)
    if document is not None:
        problems = problems + schemas.validate(schemas.KIND, document)
    if document is None or problems:
        first = problems[0]
        raise KBError(f"{first.path}:{first.line}:{first.col}: {first.message}")
    return _build(document)


def _build(document: Document) -> Kind:
    data = document.data

    def parse(text: str, names: frozenset[str], *pointer: str | int) -> formula.Formula:
        try:
            return formula.parse(str(text), names)
        except formula.FormulaError as exc:
            line, col = document.value_at(pointer)
            raise KBError(f"{document.path}:{line}:{col}: {exc}") from None

    fields: list[Field] = []
    known: set[str] = set()
    for name, spec in data["fields"].items():
        fallback = spec.get("else")
        fields.append(
            Field(
                name,
                tuple(spec.get("from", ())),
                None
                if fallback is None
                else parse(fallback, frozenset(known), "fields", name, "else"),
                spec["description"],
            )
        )
        known.add(name)
    names = frozenset(known | set(NUMERIC))
    rows = []
    for phase in PHASES:
        for index, row in enumerate(data["recipe"][phase]):
            where = ("recipe", phase, index)
            rows.append(
                Row(
                    phase,
                    index,
                    row["card"],
                    row["as"],
                    parse(row["count"], names, *where, "count"),
                    {
                        symbol: parse(text, names, *where, "set", symbol)
                        for symbol, text in row["set"].items()
                    },
                    row.get("dtype") == "deployment",
                    row.get("description"),
                )
            )
    memory = data["memory"]
    return Kind(
        data["id"],
        data["title"],
        data["description"],
        tuple(fields),
        parse(data["parameters"]["total"], names, "parameters", "total"),
        parse(data["parameters"]["per_device"], names, "parameters", "per_device"),
        parse(memory["kv_values_per_token"], names, "memory", "kv_values_per_token"),
        parse(
            memory["kv_values_per_token_per_device"],
            names,
            "memory",
            "kv_values_per_token_per_device",
        ),
        parse(
            memory["activation_values_per_device"], names, "memory", "activation_values_per_device"
        ),
        tuple(rows),
        document,
    )
