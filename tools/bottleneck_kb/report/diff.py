"""`kb diff` results -> text for a terminal, Markdown for a pull request's comment, or JSON.

The Markdown is read on a page a stranger's pull request writes to: every piece of text that
came from a file (ids, claims, paths, messages) is a code span (`code`), where GitHub renders
no markup, HTML, link, mention or reference, one line and cut short; tables and lists are
capped so that a comment stays under GitHub's size limit, pointing at `kb diff` for the rest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..checking.results import DIFF_KINDS, Diff, Move, Turn
from ..core.diagnostics import Diagnostic, inert_json, located_line, one_line
from ..core.numbers import format_seconds
from . import DIFF, aligned_columns, reporter
from .check import as_dict

#: Rows a Markdown table shows, and files a list of errors names, before a line counts the
#: rest; characters of a file's text a code span shows.
MARKDOWN_ROWS = 40
ERROR_FILES = 20
CODE_LENGTH = 160

_NAMES = {
    "cards": ("card", "cards"),
    "devices": ("device", "devices"),
    "models": ("model", "models"),
}


def _count(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _change(move: Move) -> str:
    change = move.change
    return "from 0 s" if change is None else f"{change:+.1%}"


def _pass(passed: bool | None) -> str:
    return "absent" if passed is None else "passes" if passed else "fails"


def headline(found: Diff) -> str:
    """What moves, in one sentence of kb's own words and counts (nothing a file wrote)."""
    parts = []
    if found.verdicts:
        parts.append(
            f"{_count(len(found.verdicts), 'verdict')} flip{'s' * (len(found.verdicts) == 1)}"
        )
    moved = [
        _count(len(found.times), "lower bound"),
        _count(len(found.estimates), "estimate"),
    ]
    if found.times or found.estimates:
        said = " and ".join(m for m in moved if not m.startswith("0 "))
        one = len(found.times) + len(found.estimates) == 1
        parts.append(f"{said} move{'s' * one} by more than {found.threshold * 100:.4g}%")
    for what, turns in (("check", found.checks), ("measurement", found.measurements)):
        failing = sum(not t.after for t in turns)
        if failing:
            parts.append(f"{_count(failing, what)} newly fail{'s' * (failing == 1)}")
        if len(turns) - failing:
            passing = len(turns) - failing
            parts.append(f"{_count(passing, what)} newly pass{'es' * (passing == 1)}")
    for label, changed in (("added", found.added), ("removed", found.removed)):
        files = [_count(len(changed[k]), *_NAMES[k]) for k in DIFF_KINDS if changed[k]]
        if files:
            parts.append(f"{', '.join(files)} {label}")
    said = "; ".join(parts) if parts else "nothing moves"
    compared = ", ".join(_count(found.compared[k], *_NAMES[k]) for k in DIFF_KINDS)
    return f"{said}; {compared} compared"


def _rows(found: Diff) -> list[tuple[str, list[str], list[list[str]]]]:
    """Each section's title, header and rows, as plain text (not yet made safe)."""

    def seconds(move: Move) -> list[str]:
        return [format_seconds(move.before), format_seconds(move.after), _change(move)]

    def turns(items: Iterable[Turn]) -> list[list[str]]:
        return [[t.subject, t.device, t.what, _pass(t.before), t.detail] for t in items]

    sections = [
        (
            "Verdicts that flip",
            ["entry", "device", "from", "to"],
            [[f.entry, f.device, f.before, f.after] for f in found.verdicts],
        ),
        (
            "Lower bounds that move",
            ["entry", "device", "before", "after", "change"],
            [[m.subject, m.device, *seconds(m)] for m in found.times],
        ),
        (
            "Estimates that move (typical deployment; decode is a token's time)",
            ["model", "device", "phase", "before", "after", "change"],
            [[m.subject, m.device, m.quantity, *seconds(m)] for m in found.estimates],
        ),
    ]
    for title, what, items in (
        ("Checks", "claim", found.checks),
        ("Measurements", "measurement", found.measurements),
    ):
        for after, verb in ((False, "newly fail"), (True, "newly pass")):
            header = [
                "card" if what == "claim" else "card or model",
                "device",
                what,
                "before",
                "detail",
            ]
            chosen = [t for t in items if t.after is after]
            sections.append((f"{title} that {verb}", header, turns(chosen)))
    sections.append(
        (
            "Not compared (one side cannot evaluate it)",
            ["kind", "id", "side", "why"],
            [[u.kind.removesuffix("s"), u.subject, u.side, u.why] for u in found.unmatched],
        )
    )
    return [s for s in sections if s[2]]


def _by_file(diagnostics: Sequence[Diagnostic]) -> list[tuple[Diagnostic, str]]:
    """Each file's first error, and how many more it has said in words, in the order kb
    check says them."""
    files: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        files.setdefault(d.path, []).append(d)
    return [
        (found[0], f" (and {len(found) - 1} more)" * (len(found) > 1)) for found in files.values()
    ]


def _errors_said(found: Diff) -> list[tuple[str, Sequence[Diagnostic]]]:
    return [
        (
            "The merge base's files that this kb refuses (compared where both sides evaluate)",
            found.base_errors,
        ),
        (
            "The working tree's files that kb check refuses (run kb check for the hints)",
            found.errors,
        ),
    ]


@reporter(DIFF, "text")
def as_text(found: Diff) -> str:
    lines = [one_line(f"kb diff {found.ref} (merge base {found.base[:12]}): {headline(found)}")]
    for label, changed in (("added", found.added), ("removed", found.removed)):
        for kind in DIFF_KINDS:
            if changed[kind]:
                lines.append(
                    one_line(f"{_NAMES[kind][1].capitalize()} {label}: {', '.join(changed[kind])}")
                )
    for title, header, rows in _rows(found):
        lines += ["", f"{title}:"]
        # A detail or a reason is prose: on its own line below its row.
        prose = header[-1] in ("detail", "why")
        shown = aligned_columns(header[:-1], [r[:-1] for r in rows]) if prose else None
        if shown is None:
            lines += ["  " + one_line(line) for line in aligned_columns(header, rows)]
            continue
        lines += ["  " + one_line(line) for line in shown[:2]]
        for line, row in zip(shown[2:], rows, strict=True):
            lines += ["  " + one_line(line), "      " + one_line(row[-1])]
    if found.unread:
        lines += ["", "Files of the merge base not read:"]
        lines += [one_line(f"  {path} {why}") for path, why in found.unread.items()]
    for title, diagnostics in _errors_said(found):
        if diagnostics:
            lines += ["", f"{title}: {_count(len(diagnostics), 'error')}"]
            lines += [f"  {located_line(first)}{more}" for first, more in _by_file(diagnostics)]
    return "\n".join(lines) + "\n"


_BACKTICKS = re.compile("`+")


def code(text: str, in_table: bool = True) -> str:
    """`text` from a file as a Markdown code span, where GitHub renders no markup, HTML, link,
    mention (`@name`) or reference (`#12`): one line (controls as escapes, `one_line`), cut
    at CODE_LENGTH characters, fenced by more backticks than it holds in a row, and its pipes
    escaped in a table (where a pipe would end the cell, even in a code span)."""
    shown = one_line(text)
    if len(shown) > CODE_LENGTH:
        shown = shown[: CODE_LENGTH - 1] + "…"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(shown)), default=0) + 1)
    if shown.startswith(("`", " ")) or shown.endswith(("`", " ")):
        shown = f" {shown} "
    if in_table:
        shown = shown.replace("|", "\\|")
    return f"{fence}{shown}{fence}"


#: The columns that hold kb's own words and numbers (verdicts, times, pass or fail); the
#: others (ids, claims, details, reasons) hold a file's text.
_OWN_COLUMNS = {"before", "after", "change", "from", "to", "phase", "kind", "side"}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table of MARKDOWN_ROWS rows at most, a file's text in code spans."""
    shown = rows[:MARKDOWN_ROWS]
    own = [h in _OWN_COLUMNS for h in header]
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
        *(
            "| " + " | ".join(c if o else code(c) for o, c in zip(own, row, strict=True)) + " |"
            for row in shown
        ),
    ]
    if len(rows) > len(shown):
        lines += ["", f"_and {len(rows) - len(shown)} more: `kb diff` lists every one_"]
    return lines


@reporter(DIFF, "markdown")
def as_markdown(found: Diff) -> str:
    lines = [
        f"### kb diff against {code(found.ref, False)}",
        "",
        f"Merge base {code(found.base[:12], False)}: {headline(found)}.",
    ]
    if found.errors:
        lines += [
            "",
            f"**The working tree's files have {_count(len(found.errors), 'error')}** (below): "
            "what they hold is compared where it can be evaluated.",
        ]
    for label, changed in (("added", found.added), ("removed", found.removed)):
        for kind in DIFF_KINDS:
            if changed[kind]:
                ids = [code(i, False) for i in changed[kind][:MARKDOWN_ROWS]]
                rest = len(changed[kind]) - len(ids)
                lines += [
                    "",
                    f"**{_NAMES[kind][1].capitalize()} {label}:** {', '.join(ids)}"
                    + (f" and {rest} more" if rest > 0 else ""),
                ]
    for title, header, rows in _rows(found):
        lines += ["", f"#### {title}", "", *_table(header, rows)]
    if found.unread:
        lines += ["", "#### Files of the merge base not read", ""]
        lines += [
            f"- {code(path, False)} {code(why, False)}"
            for path, why in list(found.unread.items())[:ERROR_FILES]
        ]
    for title, diagnostics in _errors_said(found):
        if diagnostics:
            files = _by_file(diagnostics)
            lines += ["", f"#### {title}", ""]
            for first, more in files[:ERROR_FILES]:
                where = code(f"{first.path}:{first.line}:{first.col}", False)
                lines.append(f"- {where} {first.code} {code(first.message, False)}{more}")
            if len(files) > ERROR_FILES:
                lines.append(f"- and {len(files) - ERROR_FILES} more files")
    return "\n".join(lines) + "\n"


def _json_move(move: Move, subject: str, quantity: bool) -> dict[str, Any]:
    found: dict[str, Any] = {subject: move.subject, "device": move.device}
    if quantity:
        found["phase"] = move.quantity
    return {**found, "from_s": move.before, "to_s": move.after, "change": move.change}


def _json_turn(turn: Turn, subject: str, what: str) -> dict[str, Any]:
    def said(passed: bool | None) -> str | None:
        return None if passed is None else "pass" if passed else "fail"

    return {
        subject: turn.subject,
        what: turn.what,
        "device": turn.device,
        "from": said(turn.before),
        "to": said(turn.after),
        "detail": turn.detail,
    }


@reporter(DIFF, "json")
def as_json(found: Diff) -> str:
    document = {
        "version": 1,
        "ref": found.ref,
        "base": found.base,
        "threshold": found.threshold,
        "compared": found.compared,
        "added": found.added,
        "removed": found.removed,
        "verdicts": [
            {"entry": f.entry, "device": f.device, "from": f.before, "to": f.after}
            for f in found.verdicts
        ],
        "times": [_json_move(m, "entry", False) for m in found.times],
        "estimates": [_json_move(m, "model", True) for m in found.estimates],
        "checks": [_json_turn(t, "entry", "claim") for t in found.checks],
        "measurements": [_json_turn(t, "subject", "measurement") for t in found.measurements],
        "not_compared": [
            {"kind": u.kind, "id": u.subject, "side": u.side, "why": u.why} for u in found.unmatched
        ],
        "unread": [{"path": p, "why": w} for p, w in found.unread.items()],
        "base_errors": [as_dict(d) for d in found.base_errors],
        "errors": [as_dict(d) for d in found.errors],
    }
    text = json.dumps(document, indent=2, ensure_ascii=True, allow_nan=False)
    return inert_json(text) + "\n"
