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
import contextlib
import difflib
import io
import itertools
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import Emitter
from ruamel.yaml.error import CommentMark, MarkedYAMLError, YAMLError
from ruamel.yaml.events import ScalarEvent
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarfloat import ScalarFloat
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
)
from ruamel.yaml.tokens import CommentToken
from yaml._yaml import CParser

from .. import schemas
from ..core.codes import INTERNAL, SYNTAX
from ..core.diagnostics import Diagnostic, error, one_line, sorted_diagnostics
from ..core.files import written_beside
from ..core.parallel import map_items
from ..knowledge.files import ENTRIES, HARDWARE, display_path, named_files
from ..knowledge.read import guarded
from ..source import MAX_FILE_BYTES, load, read_file
from ..source.characters import INVISIBLE
from ..source.positions import line_col
from ..source.scalars import LEADING_ZERO, OCTAL, YAML11_FLOAT, portable_number

#: Folded prose is wrapped to lines of at most this many columns (a longer word stands alone).
WIDTH = 100
#: What a schema line starts with; every such comment line makes way for the right one, first.
SCHEMA_LINE_START = "# yaml-language-server:"

_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_STR_TAG = "tag:yaml.org,2002:str"
_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_BLOCK_SCALARS = (FoldedScalarString, LiteralScalarString)
_COMMENT_INDENT = re.compile(r"^[ \t]*#", re.MULTILINE)
_BLOCK_INDICATORS = re.compile(r"[|>][-+0-9]*")
_SCHEMA_LINE = re.compile(re.escape(SCHEMA_LINE_START) + r"[ \t]*(?:\$schema=\S*)?[ \t]*(.*)")
_NOT_FLOW_PLAIN_IN_YAML11 = re.compile(r"^[?:]|:\?")
# PyYAML's resolver reads plain scalars as YAML 1.1 does (`yes`, `1_000`, `12:30`).
_resolve_yaml11: Callable[[Any, str, tuple[bool, bool]], str] = yaml.resolver.Resolver().resolve
_MAX_SCHEMA_DEPTH = 16


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
    root: Path, paths: Sequence[Path] | None = None, jobs: int | None = None
) -> FormatRun:
    """Canonical forms of every entry and device below `root`, or of the given paths
    (folders expanded), in `jobs` processes (by default one a core, for more than a few
    files). Nothing is written."""
    run = FormatRun()
    files = named_files(root, paths, run.diagnostics, (ENTRIES, HARDWARE))
    for formatted, problems in map_items(
        lambda path: guarded(format_file, path, root), files, jobs, PARALLEL_THRESHOLD, 4
    ):
        run.diagnostics.extend(problems)
        if formatted is not None:
            run.formatted.append(formatted)
    # A file named twice (alone and in its folder) is said once, in the order kb check says it.
    run.diagnostics = sorted_diagnostics(run.diagnostics)
    return run


def kind_of(path: Path, root: Path) -> str:
    """A file below root/hardware is a device; any other is an entry (as `kb check` reads)."""
    hardware = (root / HARDWARE).absolute()
    return schemas.HARDWARE if path.absolute().is_relative_to(hardware) else schemas.ENTRY


def format_file(path: Path, root: Path) -> tuple[Formatted | None, list[Diagnostic]]:
    """The canonical form of one file, or the located reason it is refused."""
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
        after = format_text(raw, display, kind, schemas.schema_line(root, relative, kind))
    except _Refused as refused:
        return None, [refused.diagnostic]
    return Formatted(path, display, raw.decode("utf-8"), after), []


def format_text(raw: bytes, display: str, kind: str, schema_line: str | None) -> str:
    """The canonical text of the file `raw` of `kind`, starting with `schema_line` (in place of
    any comment line naming a schema) unless that is None.

    Raises _Refused when the file does not load, or when its data would change.
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
    yaml_rt = _round_trip()
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
    schema = schemas.schema(kind)
    _canonical(tree, schema, schema, 0)
    out = io.StringIO()
    yaml_rt.dump(tree, out)
    dumped = out.getvalue()
    # Trailing white space goes, unless it is a block scalar's own (`notes: >-` over a line
    # that ends in a space): then the data would change, and the text is kept as dumped.
    for body in (_TRAILING_SPACE.sub("", dumped), dumped):
        body = body.strip("\n")
        result = f"{body}\n" if schema_line is None else f"{schema_line}\n{body}\n"
        written, _ = load(result.encode("utf-8"), display)
        if written is not None and same_data(written.data, document.data):
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


class ChangedMeanwhile(OSError):
    """The file is no longer what kb fmt read: someone saved it while kb fmt ran."""


def _extended_attributes(path: Path) -> dict[str, bytes]:
    """The file's extended attributes (a label, an ACL), which a new file must carry too;
    none where the system or the file system keeps none."""
    if not hasattr(os, "listxattr"):
        return {}
    try:
        return {name: os.getxattr(path, name) for name in os.listxattr(path)}
    except OSError:
        return {}


class KeptAsItIs(OSError):
    """The file is not replaced: a new file in its place would not be the same file to its
    other names, or to an owner who made it read-only."""


def write_atomic(path: Path, text: str, read: str | None = None) -> None:
    """Replace the file at `path` with `text`, all or nothing: a temporary file in the same
    folder, flushed to disk, then renamed over it, with the file's mode kept. An interrupted
    run leaves the old file whole (and at worst a hidden temporary file beside it).

    With `read` (the file as it was read), a file that no longer holds it is left alone and
    ChangedMeanwhile is raised: an edit saved while kb fmt ran is not overwritten. The last
    look is taken right before the rename, so only an edit in that instant could be lost.
    """
    status = os.stat(path)
    mode = stat.S_IMODE(status.st_mode)
    # A rename makes a new file: the other names of a hard-linked file would keep the old
    # text, and a file its owner made read-only would be rewritten (root may write anyway).
    if status.st_nlink > 1:
        raise KeptAsItIs(
            f"has {status.st_nlink - 1} other hard link(s), which would keep the old text"
        )
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise KeptAsItIs("is read-only")
    attributes = _extended_attributes(path)
    temporary = written_beside(path, text)
    try:
        os.chmod(temporary, mode)
        if (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
            try:  # only root may give a file away
                os.chown(temporary, status.st_uid, status.st_gid)
            except PermissionError:
                raise KeptAsItIs(
                    "belongs to another user or group, which a rewritten file cannot keep"
                ) from None
        for name, value in attributes.items():
            try:
                os.setxattr(temporary, name, value)
            except OSError:
                raise KeptAsItIs(
                    f"has the extended attribute {name}, which a rewritten file cannot keep"
                ) from None
        if read is not None and path.read_bytes() != read.encode("utf-8"):
            raise ChangedMeanwhile("changed after kb fmt read it; run kb fmt again")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


class _Emitter(Emitter):
    """ruamel's emitter, preferring double quotes (as the seed files do) to single ones, and
    writing the characters the loader refuses raw (bidirectional overrides, zero-width ones)
    as the escapes they were read from: ruamel writes them raw, in any style."""

    def analyze_scalar(self, scalar: Any) -> Any:
        analysis = super().analyze_scalar(scalar)
        # YAML 1.2 lets a plain scalar in a flow collection start with `?` or `:` before a
        # non-space, and hold `:?`; libyaml, and so the loader, reads YAML 1.1, which does not.
        if _NOT_FLOW_PLAIN_IN_YAML11.search(scalar):
            analysis.allow_flow_plain = False
        return analysis

    def choose_scalar_style(self) -> Any:
        if self.event.value is not None and INVISIBLE.search(self.event.value):
            return '"'  # only double quotes can hold escapes
        style = super().choose_scalar_style()
        return '"' if style == "'" else style

    def write_pre_comment(self, event: Any) -> bool:
        # A block scalar's own comment (a string, not a comment line above it) is written
        # after its indicator; as a list item ruamel takes it for the lines above the item.
        comments = event.comment[1] if isinstance(event, ScalarEvent) and event.comment else None
        if comments and all(isinstance(comment, str) for comment in comments):
            return False
        return bool(super().write_pre_comment(event))

    def write_post_comment(self, event: Any) -> bool:
        comment = event.comment[0]
        if isinstance(event, ScalarEvent) and event.style in ("|", ">") and comment is not None:
            # Comment lines after a block scalar as deep as its text would be read as text:
            # ruamel moves the first one a column out, and leaves the others (and those moved
            # here from elsewhere) as deep as they were written. They go to the column of the
            # scalar's key or dash.
            outside = max((self.indent or 0) - 2, 0)
            comment.column = min(comment.column, outside)
            comment.value = re.sub(
                f"^[ \t]{{{outside + 1},}}(?=#)", " " * outside, comment.value, flags=re.MULTILINE
            )
        return bool(super().write_post_comment(event))

    def write_folded(self, text: Any, comment: Any) -> None:
        super().write_folded(text, comment)
        # ruamel ends the last line only after a character other than a space: a comment
        # that follows folded prose ending in spaces would be written onto it, into the text.
        if self.column:
            self.write_line_break()

    def write_double_quoted(self, text: Any, split: Any = True) -> None:
        if not INVISIBLE.search(text):
            super().write_double_quoted(text, split)
            return
        # ruamel escapes what it takes for unprintable; with Unicode off for this one
        # string, that is everything past ASCII.
        self.allow_unicode = False
        try:
            super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = True


class _Representer(RoundTripRepresenter):
    """Numbers in the form YAML 1.1 and 1.2 read alike (what KB014 asks): `1e9` -> `1.0e+9`,
    `007` and `0o17` -> decimal. A float keeps the form it was written in (`1.0e+9`, `12.50`)
    when that denotes the float's shortest decimal; ruamel re-renders floats from their value
    and its form is not always that (`5e-324` -> `4.0e-324`), and then the shortest is written."""

    def represent_float(self, data: Any) -> Any:
        node = super().represent_float(data)
        return self._exact(node, data)

    def represent_scalar_float(self, data: Any) -> Any:
        node = super().represent_scalar_float(data)
        return self._exact(node, data)

    def _exact(self, node: Any, data: Any) -> Any:
        text = node.value
        if not YAML11_FLOAT.fullmatch(text):
            text = portable_number(text)
        shortest = repr(float(data))
        # A zero keeps no digits to anchor ruamel's form, which loses one each run
        # (`-0.000000e+00`, then `-0.00000e+00`): write the shortest form, a fixed point.
        if Decimal(text) != Decimal(shortest) or float(data) == 0:
            text = portable_number(shortest)
        node.value = text
        return node

    def represent_scalar(self, tag: Any, value: Any, style: Any = None, anchor: Any = None) -> Any:
        if tag == _INT_TAG and OCTAL.fullmatch(value):
            value = str(int(value[2:], 8))
        elif tag == _INT_TAG and LEADING_ZERO.fullmatch(value):
            value = str(int(value))
        return super().represent_scalar(tag, value, style, anchor)


_Representer.add_representer(float, _Representer.represent_float)
_Representer.add_representer(ScalarFloat, _Representer.represent_scalar_float)


def _round_trip() -> YAML:
    yaml_rt = YAML()
    yaml_rt.Emitter = _Emitter
    yaml_rt.Representer = _Representer
    yaml_rt.indent(mapping=2, sequence=4, offset=2)
    # Plain and quoted scalars stay on one line, as in the seeds; only folded prose is wrapped.
    yaml_rt.width = MAX_FILE_BYTES
    yaml_rt.allow_unicode = True
    return yaml_rt


def _canonical(
    node: Any, schema: Any, root: dict[str, Any], indent: int, lead: _Lead | None = None
) -> Any:
    """`node` in canonical form (mappings reordered in place); `indent` is the column its
    content starts at when it is written as a block, and `lead` where the comments above its
    first line are kept (None for the document: those are the file's)."""
    if isinstance(node, CommentedMap):
        _order(node, property_names(schema, root), indent, lead)
        for key in list(node):
            below = _Lead(node.ca.items, key, _ABOVE_VALUE, indent + 2)
            node[key] = _canonical(node[key], child(schema, root, key), root, indent + 2, below)
        return node
    if isinstance(node, CommentedSeq):
        items = item_schema(schema, root)
        for index, value in enumerate(node):
            above = _Lead(node.ca.items, index, _ABOVE_ITEM, indent)
            node[index] = _canonical(value, items, root, indent + 2, above)
            _keep_header_comment(node, index)
        return node
    if isinstance(node, FoldedScalarString):
        if "\n\t" in str(node):
            # ruamel folds a line that starts with a tab as if it were not more indented,
            # and so adds a line break; kept literally, the text reads back the same.
            return LiteralScalarString(str(node))
        folded = FoldedScalarString(str(node))
        written = getattr(node, "fold_pos", ())
        folded.fold_pos = fold_positions(str(node), max(WIDTH - indent, 20), written)
        return folded
    if isinstance(node, LiteralScalarString):
        return node
    if isinstance(node, str):
        return str(node) if plain_reads_back(node) else DoubleQuotedScalarString(node)
    return node


def _keep_header_comment(sequence: CommentedSeq, index: int) -> None:
    """ruamel reads the comment after a list item's block indicator (`- >- # why`) into the
    record of the lines above the item, as a string, where its representer trips on it (and
    drops every comment of the list) and its emitter never writes it. On the scalar it is
    written after the indicator, as it is for a mapping's value."""
    record = sequence.ca.items.get(index)
    value = sequence[index]
    if record and record[1] and isinstance(record[1][0], str) and isinstance(value, _BLOCK_SCALARS):
        value.comment = record[1][0]  # type: ignore[union-attr]  # a slot ruamel leaves untyped
        record[1] = None


#: The slots of ruamel's comment records that hold the lines above a value: a mapping's key
#: (its value's first line, when that is a block mapping) and a list's item (its dash).
_ABOVE_VALUE = 3
_ABOVE_ITEM = 1


@dataclass(frozen=True)
class _Lead:
    """Where ruamel keeps the comment lines above a block collection's first line: in its
    parent's record of it, at `column` (the key's, or the item's dash)."""

    records: dict[Any, list[Any]]
    at: Any
    slot: int
    column: int

    def take(self) -> str:
        return _take_lines(self.records.get(self.at), self.slot)

    def put(self, lines: str) -> None:
        if lines:
            indented = _COMMENT_INDENT.sub(" " * self.column + "#", lines)
            record = self.records.setdefault(self.at, [None] * 4)
            record[self.slot] = [CommentToken(indented, CommentMark(0), None)]


def _order(mapping: CommentedMap, known: list[str], indent: int, lead: _Lead | None) -> None:
    """Keys the schema knows in its order, then any others as they were written; the keys
    stand at column `indent`, the lines above the first one kept at `lead`.

    ruamel gives the blank lines and comments between two keys to the last value written
    before them (or to the end of a list that holds it); they are moved so that they stay
    before the key they preceded, indented as it is, and those after the last value stay at
    the end of the mapping. Those above the first key go with it too, except at the top of
    the document, where they are the file's.
    """
    present = list(mapping)
    wanted = [k for k in known if k in mapping] + [k for k in present if k not in known]
    if wanted == present:
        return
    following = {key: _take_following(mapping, key) for key in present}
    # After a flow collection (`range: [1, 2]`), ruamel gives the lines to the next key.
    above = {key: _take_above(mapping, key) for key in present}
    before = {
        key: _COMMENT_INDENT.sub(" " * indent + "#", following[previous] + above[key])
        for previous, key in itertools.pairwise(present)
    }
    if lead is not None or above[present[0]]:
        taken = lead.take() if lead is not None else ""
        before[present[0]] = _COMMENT_INDENT.sub(" " * indent + "#", taken + above[present[0]])
    for key in wanted:
        mapping.move_to_end(key)
    for previous, key in itertools.pairwise(wanted):
        _add_following(mapping, previous, before.get(key, ""))
    first = before.get(wanted[0], "")
    if lead is not None and lead.slot == _ABOVE_ITEM:
        lead.put(first)  # between `- ` and the key they would break the item: above it
    elif first:  # ruamel writes these lines before the key
        moved = CommentToken(first, CommentMark(0), None)
        mapping.ca.items.setdefault(wanted[0], [None] * 4)[1] = [moved]
    _add_following(mapping, wanted[-1], following[present[-1]])


def _end_of(mapping: CommentedMap, key: str) -> tuple[Any, Any, list[Any]]:
    """(collection, key or index) of the last value written under `key`, which ruamel gives
    the comments that follow: a scalar, or a collection written in flow style (`[1, 2]`); and
    the block collections on the way there, whose end may hold such comments too."""
    holder: Any = mapping
    at: Any = key
    path: list[Any] = []
    while True:
        value = holder[at]
        if not isinstance(value, (CommentedMap, CommentedSeq)) or not value:
            return holder, at, path
        if value.fa.flow_style():
            return holder, at, path
        path.append(value)
        at = list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1
        holder = value


def _take_following(mapping: CommentedMap, key: str) -> str:
    """Remove and return the lines after the value of `key`, leaving a comment on the value's
    own line in place."""
    holder, last, path = _end_of(mapping, key)
    lines = ""
    token = holder.ca.items.get(last, [None] * 4)[2]
    if token is not None:
        # A block scalar (>-, |) ends its own line, so its token holds only following lines.
        ends_line = isinstance(holder[last], _BLOCK_SCALARS)
        own, _, lines = ("", "", token.value) if ends_line else token.value.partition("\n")
        if own:
            token.value = own + "\n"
        else:
            holder.ca.items[last][2] = None
    for collection in path:
        if collection.ca.end:
            lines += "".join(t.value for t in collection.ca.end)
            collection.ca.end = []
    return lines


def _take_above(mapping: CommentedMap, key: str) -> str:
    """Remove and return the lines ruamel keeps above `key` itself."""
    return _take_lines(mapping.ca.items.get(key), 1)


def _take_lines(record: list[Any] | None, slot: int) -> str:
    """Remove and return the comment lines in `slot` of one of ruamel's comment records."""
    if record is None or not record[slot]:
        return ""
    tokens, record[slot] = record[slot], None
    return "".join(token.value for token in tokens)


def _add_following(mapping: CommentedMap, key: str, lines: str) -> None:
    if not lines:
        return
    holder, last, _ = _end_of(mapping, key)
    slot = holder.ca.items.setdefault(last, [None] * 4)
    if slot[2] is None:
        ends_line = isinstance(holder[last], _BLOCK_SCALARS)
        slot[2] = CommentToken(lines if ends_line else "\n" + lines, CommentMark(0), None)
    else:
        slot[2].value += lines


def branches(node: Any, root: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    """The schema `node` and every subschema that may describe the same value: its `$ref`, and
    the options of allOf, anyOf and oneOf (a value may be a string or a mapping). The node
    comes first: its own title and description say more than those of the shape it refers to."""
    if not isinstance(node, dict) or depth > _MAX_SCHEMA_DEPTH:
        return
    yield node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/"):
        target: Any = root
        for part in reference[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        yield from branches(target, root, depth + 1)
    for word in ("allOf", "anyOf", "oneOf"):
        for option in node.get(word, ()):
            yield from branches(option, root, depth + 1)


def property_names(schema: Any, root: dict[str, Any]) -> list[str]:
    """The keys `schema` knows, in the order its branches list them."""
    names: dict[str, None] = {}
    for branch in branches(schema, root):
        properties = branch.get("properties")
        if isinstance(properties, dict):
            names.update(dict.fromkeys(properties))
    return list(names)


def child(schema: Any, root: dict[str, Any], key: str) -> Any:
    """The schema of the value at `key` of a mapping that `schema` describes, or None."""
    options = list(branches(schema, root))
    for branch in options:
        properties = branch.get("properties")
        if isinstance(properties, dict) and key in properties:
            return properties[key]
    for branch in options:
        if isinstance(branch.get("additionalProperties"), dict):
            return branch["additionalProperties"]
    return None


def item_schema(schema: Any, root: dict[str, Any]) -> Any:
    """The schema of the items of a list that `schema` describes, or None."""
    return next(
        (b["items"] for b in branches(schema, root) if isinstance(b.get("items"), dict)), None
    )


def plain_reads_back(text: str) -> bool:
    """True when `text` written plain would be read as this same string by our loader and by
    YAML 1.1 readers. (Whether YAML's syntax allows it plain is the emitter's business.)"""
    if _resolve_yaml11(yaml.ScalarNode, text, (True, False)) != _STR_TAG:
        return False
    if text[:1].isalpha():  # the loader reads these as text unless YAML 1.1 reserves them
        return True
    document, _ = load(f"k: {text}\n".encode(), "")
    return document is not None and document.data == {"k": text}


def fold_positions(text: str, width: int, written: Sequence[int] = ()) -> list[int]:
    """Where to break folded prose so that lines hold at most `width` characters.

    A paragraph (text between hard line breaks) whose `written` breaks all fit keeps them: the
    author's lines stay as they are. One with a longer line is refilled, greedily, at single
    spaces between words (the only places a folded scalar can break without changing its
    text); a word longer than the width stands alone. A more-indented line is left whole.
    A written break beside another space (a line that ended in a space) cannot be kept, so it
    does not count: kept, the emitter would join the lines into one too long.
    """
    positions: list[int] = []
    # Sorted once and cut per line by bisection: a scan of every break for every line took
    # minutes on notes of many short paragraphs.
    breaks = sorted(written)
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        kept = [
            p
            for p in breaks[bisect.bisect_right(breaks, start) : bisect.bisect_left(breaks, end)]
            if _breakable(text, p)
        ]
        edges = [start - 1, *kept, end]
        if all(b - a - 1 <= width for a, b in itertools.pairwise(edges)):
            positions += kept
        elif not line.startswith((" ", "\t")):
            positions += _refill(text, start, end, width)
        start = end + 1
    return positions


def _refill(text: str, start: int, end: int, width: int) -> list[int]:
    positions = []
    line_start, last = start, -1
    for index in range(start + 1, end - 1):
        if not _breakable(text, index):
            continue
        if index - line_start > width and last > line_start:
            positions.append(last)
            line_start = last + 1
        last = index
    if end - line_start > width and last > line_start:
        positions.append(last)
    return positions


def _breakable(text: str, index: int) -> bool:
    """Whether folded prose can break at `index`: ruamel's representer takes a break only at
    a single space between two other characters."""
    return (
        0 < index < len(text) - 1
        and text[index] == " "
        and not text[index - 1].isspace()
        and not text[index + 1].isspace()
    )
