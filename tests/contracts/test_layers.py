"""The folders of the package are its layers, and the layers hold: no module imports one of a
higher layer (lazy imports inside functions included), and nothing but `cli` is above all.

The order is ARCHITECTURE.md's, lowest first; folders on one rank may not import each other.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = REPOSITORY / "tools" / "bottleneck_kb"

#: The layers, lowest first; a tuple holds folders of one rank, which import neither the
#: other. The package's own `__init__` (the public surface) and `__main__` stand apart.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("source", "maths"),
    ("schemas",),
    ("records",),
    ("knowledge",),
    ("evaluation",),
    ("composition",),
    ("rules",),
    ("checking",),
    ("authoring", "report"),
    ("site",),
    ("cli",),
)
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}


def imports(path: Path, package: Path) -> list[tuple[str, int]]:
    """The package modules `path` imports (`bottleneck_kb.x.y`), each with its line: every
    import statement, at the top or inside a function."""
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts if is_package else parts[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                # `from . import x` names a module x when there is one.
                module = f"{target}.{alias.name}"
                found.append((module if _is_module(module, package) else target, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
    return [(module, line) for module, line in found if module.startswith(package.name)]


def _is_module(module: str, package: Path) -> bool:
    where = package.parent.joinpath(*module.split("."))
    return where.with_suffix(".py").is_file() or where.is_dir()


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward(package: Path) -> list[str]:
    """Every import of a higher layer, or of a folder of the same rank, as `path:line`."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if len(relative.parts) == 1:
            continue  # __init__ (the public surface) and __main__ stand above the layers
        here = relative.parts[0]
        for module, line in imports(path, package):
            there = _folder(module)
            if there == here or there == "":
                continue
            if RANK[there] >= RANK[here]:
                found.append(f"{relative}:{line} imports {module} ({here} -> {there})")
    return found


def test_every_folder_is_a_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(RANK)
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert top == {"__init__.py", "__main__.py"}


def test_no_layer_imports_a_higher_one() -> None:
    assert upward(PACKAGE) == []


#: The doors: a folder reaches another only through the modules listed (its own door).
DOORS = {("site", "evaluation"): {"site/view.py"}}


def test_the_site_reaches_the_evaluation_only_through_its_view() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        here = relative.parts[0]
        for module, line in imports(path, PACKAGE):
            allowed = DOORS.get((here, _folder(module)))
            if allowed is not None and relative.as_posix() not in allowed:
                found.append(f"{relative}:{line} imports {module}")
    assert found == []


def test_every_code_comes_from_the_one_table() -> None:
    """A diagnostic code is defined once, in core/codes.py, and every layer that reports one
    (the rules, and the readers below them) imports it from there."""
    table = (PACKAGE / "core" / "codes.py").read_text("utf-8")
    constants = set(re.findall(r"^([A-Z_0-9]+) = \"KB\d+\"$", table, re.M))
    defined = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "core" / "codes.py":
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not (node.module or "").endswith("codes"):
                taken = [a.name for a in node.names if a.name in constants]
                if taken:
                    defined.append(f"{path.relative_to(PACKAGE)}:{node.lineno} takes {taken}")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if set(names) & constants:
                    defined.append(f"{path.relative_to(PACKAGE)}:{node.lineno} defines {names}")
    assert defined == []


def test_architecture_lists_the_layers_in_order() -> None:
    text = (REPOSITORY / "ARCHITECTURE.md").read_text("utf-8")
    headings = re.findall(r"^### `([a-z]+)/`", text, re.M)
    assert headings == [folder for folders in LAYERS for folder in folders]


def test_an_upward_import_added_to_a_copy_is_found(tmp_path: Path) -> None:
    """The walk finds what it is for: a lower layer importing a higher one, lazily too."""
    copy = tmp_path / "bottleneck_kb"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert upward(copy) == []
    numbers = copy / "core" / "numbers.py"
    numbers.write_text(
        numbers.read_text("utf-8") + "\n\ndef late() -> None:\n    from ..cli import main\n",
        "utf-8",
    )
    lines = numbers.read_text("utf-8").count("\n")
    assert upward(copy) == [
        f"core/numbers.py:{lines} imports bottleneck_kb.cli.main (core -> cli)",
    ]
