"""`kb fmt`: every entry and device file in one canonical form, the seed files' style.

Keys in the order of their schema's `properties` (read recursively, so a change of shape in a
schema changes the order with no change here), two-space indentation with sequences indented
under their key, folded prose (`>-`) wrapped at 100 columns, quotes only where a plain scalar
would be read as something else (by this loader or by YAML 1.1 readers), numbers in a form that
YAML 1.1 and 1.2 read alike, and the `# yaml-language-server: $schema=...` line first.

Comments survive because the file is re-written by ruamel.yaml's round-trip mode. ruamel is
pure Python and many times slower than libyaml (benchmarks/bench_fmt.py), so it is imported
here only and never on `kb check`'s path. The data the loader reads is never changed: every
result is read back with the loader and compared with the file as it was, and a file whose
data would change is refused, not written. A file that does not load is refused too; writes
are atomic.
"""

from __future__ import annotations

import bisect
import collections
import difflib
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from yaml._yaml import CParser

from .. import schemas
from ..core.codes import INTERNAL, SYNTAX
from ..core.diagnostics import Diagnostic, error, one_line, sorted_diagnostics
from ..core.parallel import map_items
from ..knowledge.files import ENTRIES, HARDWARE, MODELS, display_path, named_files
from ..knowledge.read import guarded
from ..schemas import versions
from ..source import load, read_file
from ..source.positions import line_col
from .canonical import canonical, round_trip
from .upgrade import STEPS, scalars, upgrade_tree

#: What a schema line starts with; every such comment line makes way for the right one, first.
SCHEMA_LINE_START = "# yaml-language-server:"

_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_BLOCK_INDICATORS = re.compile(r"[|>][-+0-9]*")
_SCHEMA_LINE = re.compile(re.escape(SCHEMA_LINE_START) + r"[ \t]*(?:\$schema=\S*)?[ \t]*(.*)")


@dataclass(frozen=True, slots=True)
class Formatted:
    """One file as it is and in canonical form."""

    path: Path
    display: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff that `git apply` takes: lines are split at line feeds only (a CRLF
        line keeps its carriage return, as git shows it), and a last line without one is
        marked as git marks it."""
        lines = difflib.unified_diff(
            io.StringIO(self.before, newline="\n").readlines(),
            io.StringIO(self.after, newline="\n").readlines(),
            f"a/{one_line(self.display)}",  # a name's line break would end the header
            f"b/{one_line(self.display)}",
        )
        return "".join(
            line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
            for line in lines
        )


@dataclass
class FormatRun:
    """Every file formatted, and why each refused file was refused."""

    formatted: list[Formatted] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> list[Formatted]:
        return [f for f in self.formatted if f.changed]


class _Refused(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


#: Below this many files, one process: a file takes about 16 ms (ruamel.yaml's round trip in
#: pure Python), so a second process repays its start-up from a handful of files on.
PARALLEL_THRESHOLD = 8


def format_paths(
    root: Path,
    paths: Sequence[Path] | None = None,
    jobs: int | None = None,
    upgrade: bool = False,
) -> FormatRun:
    """Canonical forms of every entry, device and model below `root`, or of the given paths
    (folders expanded), in `jobs` processes (by default one a core, for more than a few
    files), each upgraded to today's schema first with `upgrade`. Nothing is written."""
    run = FormatRun()
    files = named_files(root, paths, run.diagnostics, (ENTRIES, HARDWARE, MODELS))
    for formatted, problems in map_items(
        lambda path: guarded(lambda p, r: format_file(p, r, upgrade), path, root),
        files,
        jobs,
        PARALLEL_THRESHOLD,
        4,
    ):
        run.diagnostics.extend(problems)
        if formatted is not None:
            run.formatted.append(formatted)
    # A file named twice (alone and in its folder) is said once, in the order kb check says it.
    run.diagnostics = sorted_diagnostics(run.diagnostics)
    return run


def kind_of(path: Path, root: Path) -> str:
    """A file below root/hardware is a device, one below root/models a model; any other is an
    entry (as `kb check` reads)."""
    where = path.absolute()
    if where.is_relative_to((root / HARDWARE).absolute()):
        return schemas.HARDWARE
    if where.is_relative_to((root / MODELS).absolute()):
        return schemas.MODEL
    return schemas.ENTRY


def format_file(
    path: Path, root: Path, upgrade: bool = False
) -> tuple[Formatted | None, list[Diagnostic]]:
    """The canonical form of one file (upgraded first with `upgrade`), or the located reason
    it is refused."""
    display = display_path(path, root)
    if path.is_symlink():
        # What kb check reads through the link is formatted where it is kept (an entry of its
        # own, or a file kb does not format); a link is never rewritten into a file.
        return None, []
    raw, problems = read_file(path, display, root)
    if raw is None:
        return None, problems
    kind = kind_of(path, root)
    relative = Path(os.path.relpath(path.absolute(), root.absolute())).as_posix()
    try:
        schema_line = schemas.schema_line(root, relative, kind)
        after = format_text(raw, display, kind, schema_line, upgrade)
    except _Refused as refused:
        return None, [refused.diagnostic]
    return Formatted(path, display, raw.decode("utf-8"), after), []


def format_text(
    raw: bytes, display: str, kind: str, schema_line: str | None, upgrade: bool = False
) -> str:
    """The canonical text of the file `raw` of `kind`, starting with `schema_line` (in place of
    any comment line naming a schema) unless that is None; with `upgrade`, a file written to
    an earlier version of its schema is first rewritten to today's (`upgrade.py`).

    Raises _Refused when the file does not load, or when its data would change (beyond what
    the upgrade changes, which keeps every value).
    """
    document, problems = load(raw, display)
    if document is None:
        raise _Refused(problems[0])
    # A file keeps its line endings, as its first line ends (ruff's formatter does the
    # same): git's core.autocrlf checks files out with CRLF on Windows, and a formatter that
    # wrote LF would fail every file there, and be undone at the next checkout.
    first_line, newline, _ = document.text.partition("\n")
    ending = "\r\n" if newline and first_line.endswith("\r") else "\n"
    text = document.text.replace("\r\n", "\n").replace("\r", "\n")
    removed: list[int] = []
    if schema_line is not None:
        text, removed = _without_schema_lines(text)
    yaml_rt = round_trip()
    try:
        tree = yaml_rt.load(_without_separating_tabs(text))
    except YAMLError as exc:
        line, col, said = 1, 1, str(exc)
        if isinstance(exc, MarkedYAMLError):
            mark = exc.problem_mark
            line, col = (_line_before(removed, mark.line + 1), mark.column + 1) if mark else (1, 1)
            said = exc.problem or exc.context or said
        raise _Refused(
            error(SYNTAX, display, line, col, f"cannot be formatted: {said}".splitlines()[0])
        ) from None
    expected = document.data
    version = _earlier_version(kind, document.data)
    if version is not None and not upgrade:
        # Today's key order laid over an earlier shape is no canonical form: the file is
        # told what `kb check` tells it.
        raise _Refused(schemas.validate(kind, document)[0])
    if version is not None:
        upgrade_tree(kind, version, tree)
        expected = _upgraded_data(yaml_rt, tree, document.data, display)
    schema = schemas.schema(kind)
    canonical(tree, schema, schema, 0)
    out = io.StringIO()
    yaml_rt.dump(tree, out)
    dumped = out.getvalue()
    # Trailing white space goes, unless it is a block scalar's own (`notes: >-` over a line
    # that ends in a space): then the data would change, and the text is kept as dumped.
    for body in (_TRAILING_SPACE.sub("", dumped), dumped):
        body = body.strip("\n")
        result = f"{body}\n" if schema_line is None else f"{schema_line}\n{body}\n"
        written, _ = load(result.encode("utf-8"), display)
        if written is not None and same_data(written.data, expected):
            _refuse_lost_comments(text, body, removed, display)
            return result.replace("\n", ending)
    raise _Refused(
        error(
            INTERNAL,
            display,
            1,
            1,
            "formatting would change what the file means, so it is left as it is",
            "this is a bug in kb fmt; please report it with the file",
        )
    )


def _earlier_version(kind: str, data: Any) -> int | None:
    """The earlier version of `kind`'s schema a file's `data` was written to, if any."""
    if kind not in STEPS or schemas.is_valid(kind, data):
        return None
    return versions.written_to(kind, data)


def _upgraded_data(yaml_rt: Any, tree: Any, before: Any, display: str) -> Any:
    """The data of the upgraded `tree`, as the loader reads it, once every value of `before`
    is seen to be kept: as a value, or in a comment (a version-1 source's `supports`)."""
    out = io.StringIO()
    yaml_rt.dump(tree, out)
    text = out.getvalue()
    upgraded, _ = load(text.encode("utf-8"), display)
    if upgraded is None:
        raise _Refused(error(INTERNAL, display, 1, 1, "the upgrade does not load back"))
    kept = scalars(upgraded.data)
    words = " ".join(text.split())
    for value, count in scalars(before).items():
        if kept[value] < count and " ".join(value.strip("'").split()) not in words:
            raise _Refused(
                error(
                    INTERNAL,
                    display,
                    1,
                    1,
                    f"upgrading would lose the value {value}, so the file is left as it is",
                    "this is a bug in kb fmt --upgrade; please report it with the file",
                )
            )
    return upgraded.data


def _scalar_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of every scalar libyaml reads in `text`, in order. A block
    scalar's are two: its indicators (`>-`) and its lines; what follows the indicators on their
    line (white space, a comment) is not the scalar's, though libyaml's span holds it."""
    spans: list[tuple[int, int]] = []
    parser = CParser(text)
    try:
        while not isinstance(token := parser.get_token(), yaml.StreamEndToken):
            if isinstance(token, yaml.ScalarToken):
                start, end = token.start_mark.index, token.end_mark.index
                if token.style in ("|", ">"):
                    indicators = _BLOCK_INDICATORS.match(text, start)
                    assert indicators is not None  # libyaml's span starts at `|` or `>`
                    spans.append((start, indicators.end()))
                    line_end = text.find("\n", start, end)
                    start = end if line_end < 0 else line_end + 1
                spans.append((start, end))
    finally:
        parser.dispose()
    return spans


def _outside(spans: list[tuple[int, int]], starts: list[int], offset: int) -> bool:
    at = bisect.bisect_right(starts, offset) - 1
    return at < 0 or not spans[at][0] <= offset < spans[at][1]


def _comments(text: str, spans: list[tuple[int, int]] | None = None) -> list[tuple[str, int]]:
    """The comments of YAML `text` (from `#` to the end of the line) with their offsets: a `#`
    at a line's start or after white space, outside every scalar libyaml reads (`spans`)."""
    spans = _scalar_spans(text) if spans is None else spans
    starts = [start for start, _ in spans]
    return [
        (match.group().rstrip(), match.start())
        for match in re.finditer(r"(?:^|(?<=[ \t]))#[^\r\n]*", text, re.MULTILINE)
        if _outside(spans, starts, match.start())
    ]


def _without_separating_tabs(text: str) -> str:
    """`text` with each tab that separates tokens (`key:<tab>value`, `[a,<tab>b]`) made a
    space: YAML and libyaml allow them there, ruamel does not. Tabs inside a scalar or a
    comment are the user's text and stay. Offsets, and so positions, do not change."""
    if "\t" not in text:
        return text
    spans = _scalar_spans(text)
    starts = [start for start, _ in spans]
    comments = [(at, at + len(comment)) for comment, at in _comments(text, spans)]
    comment_starts = [start for start, _ in comments]
    chars = list(text)
    for match in re.finditer("\t", text):
        at = match.start()
        if _outside(spans, starts, at) and _outside(comments, comment_starts, at):
            chars[at] = " "
    return "".join(chars)


def _without_schema_lines(text: str) -> tuple[str, list[int]]:
    """`text` without the comment lines that name a schema (the right one is written first,
    and a second would be stale), and the numbers of the lines taken out. What such a line
    says after the schema is kept, as a comment line in its place."""
    pieces: list[str] = []
    removed: list[int] = []
    done = line = 0  # the text is copied, and its lines counted, up to `done`
    for comment, offset in _comments(text):
        line_start = text.rfind("\n", 0, offset) + 1
        if not comment.startswith(SCHEMA_LINE_START) or text[line_start:offset].strip(" \t"):
            continue
        pieces.append(text[done:line_start])
        line += text.count("\n", done, line_start)
        line_end = text.find("\n", offset)
        line_end = len(text) if line_end < 0 else line_end
        said = _SCHEMA_LINE.fullmatch(comment)
        assert said is not None  # any text matches after the start
        extra = said.group(1)
        if extra:
            pieces.append(text[line_start:offset] + (extra if extra[0] == "#" else f"# {extra}"))
            done = line_end
        else:
            removed.append(line + 1)
            done = line_end + 1
            line += 1
    pieces.append(text[done:])
    return "".join(pieces), removed


def _line_before(removed: list[int], line: int) -> int:
    """The number that `line` of a text had before the lines numbered `removed` (in order)
    were taken out of it."""
    for number in removed:
        if number > line:
            break
        line += 1
    return line


def _refuse_lost_comments(before: str, after: str, removed: list[int], display: str) -> None:
    """Refuse the formatting if a comment of `before` is not in `after`: ruamel keeps most
    comments, but drops some (one inside a flow list), and what a user wrote is not lost."""
    kept = collections.Counter(comment for comment, _ in _comments(after))
    for comment, offset in _comments(before):
        if kept[comment] > 0:
            kept[comment] -= 1
            continue
        line, col = line_col(before, offset)
        raise _Refused(
            error(
                SYNTAX,
                display,
                _line_before(removed, line),
                col,
                f"cannot be formatted without losing the comment {comment!r}",
                "move the comment to a line of its own, above the key it explains",
            )
        )


def same_data(a: Any, b: Any) -> bool:
    """Equal as data, types included (1, 1.0 and True are three different values)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_data(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
