"""`kb check` results -> text, JSON, GitHub Actions annotations or SARIF."""

from __future__ import annotations

import json
from typing import Any

from ..checking.results import CheckResult
from ..core.diagnostics import Diagnostic, Severity, inert_json, located_line, one_line
from . import CHECK, reporter


def summary(result: CheckResult) -> str:
    entries = "entry" if result.entries == 1 else "entries"
    devices = "device" if result.devices == 1 else "devices"
    checked = f"{result.entries} {entries}"
    if result.models:
        checked += f" and {result.models} model{'s' * (result.models != 1)}"
    checked += f" against {result.devices} {devices}"
    if result.entries and not result.devices:
        checked += " (no claim was evaluated)"
    if not result.diagnostics:
        return f"All clear: checked {checked}."
    parts = [
        f"{count} {word}{'s' * (count != 1)}"
        for count, word in ((result.errors, "error"), (result.warnings, "warning"))
        if count
    ]
    files = f"{result.files} file{'s' * (result.files != 1)}"
    return f"Found {' and '.join(parts)} in {files}; checked {checked}."


def measured(result: CheckResult) -> str | None:
    """The line on the measurements judged: how many, and the range of their achieved
    fractions of the bound; None when none was."""
    if not result.measured:
        return None
    low = min(result.measured, key=lambda m: m[1])
    high = max(result.measured, key=lambda m: m[1])
    count = len(result.measured)
    return (
        f"Judged {count} measurement{'s' * (count != 1)} against their bounds: achieved "
        f"fraction of the bound {low[1]:.2f} ({low[0]}) to {high[1]:.2f} ({high[0]}); "
        "kb eval CARD and kb estimate MODEL show each."
    )


@reporter(CHECK, "text")
def as_text(result: CheckResult) -> str:
    lines = []
    for d in result.diagnostics:
        lines.append(located_line(d))
        if d.hint:
            lines.append(f"    hint: {one_line(d.hint)}")
    judged = measured(result)
    if judged is not None:
        lines.append(one_line(judged))
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def as_dict(d: Diagnostic) -> dict[str, Any]:
    return {
        "code": d.code,
        "severity": d.severity.value,
        "path": d.path,
        "line": d.line,
        "col": d.col,
        "message": d.message,
        "hint": d.hint,
        "fixable": d.fixable,
    }


@reporter(CHECK, "json")
def json_report(result: CheckResult) -> str:
    document = {
        "version": 1,
        "diagnostics": [as_dict(d) for d in result.diagnostics],
        "summary": {
            "errors": result.errors,
            "warnings": result.warnings,
            "entries": result.entries,
            "models": result.models,
            "devices": result.devices,
            "text": summary(result),
        },
        "measurements": [
            {"key": key, "fraction_of_bound": fraction} for key, fraction in result.measured
        ],
    }
    return inert_json(json.dumps(document, indent=2, ensure_ascii=True)) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


@reporter(CHECK, "github")
def github(result: CheckResult) -> str:
    """GitHub Actions workflow commands: each diagnostic becomes an annotation on its line."""
    lines = []
    for d in result.diagnostics:
        command = "error" if d.severity is Severity.ERROR else "warning"
        # The one line break a message may hold is kb's own, between message and hint, and
        # it is escaped as the runner expects; whatever the file held is escaped before.
        message = one_line(d.message) + (f"\n{one_line(d.hint)}" if d.hint else "")
        lines.append(
            f"::{command} file={_escape_property(one_line(d.path))},line={d.line},col={d.col},"
            f"title={_escape_property(d.code)}::{_escape_data(message)}"
        )
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


@reporter(CHECK, "sarif")
def sarif(result: CheckResult) -> str:
    """SARIF 2.1.0, for code-scanning dashboards."""
    from ..rules import REGISTRY

    used = sorted({d.code for d in result.diagnostics})
    rules = [
        {
            "id": code,
            "name": REGISTRY[code].name,
            "shortDescription": {"text": REGISTRY[code].summary},
            "fullDescription": {"text": REGISTRY[code].doc.text},
        }
        for code in used
    ]
    results = [
        {
            "ruleId": d.code,
            "level": d.severity.value,
            "message": {"text": d.message + (f" ({d.hint})" if d.hint else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": d.path},
                        "region": {"startLine": d.line, "startColumn": d.col},
                    }
                }
            ],
        }
        for d in result.diagnostics
    ]
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "kb", "rules": rules}}, "results": results}],
    }
    return inert_json(json.dumps(document, indent=2, ensure_ascii=True)) + "\n"
