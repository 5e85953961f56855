"""Characters an entry may not hold, refused where they stand: bytes that are not UTF-8, a
byte-order mark past the start, invisible characters that make the text on screen differ from
the text read, and control characters made by escapes in double-quoted strings. (libyaml
itself refuses raw control characters; `problems.libyaml_error` locates those.)"""

from __future__ import annotations

import re
from typing import Any

from ..core.codes import CONTROL_CHARACTER, ENCODING
from ..core.diagnostics import CONTROL_CHARACTERS, error
from .positions import content_column, flow_scalar_position, line_col
from .problems import MAX_FILE_BYTES, Stop, too_large

# Characters libyaml accepts raw that change what a reader sees: NEL, line and paragraph
# separators (libyaml breaks lines at them, editors mostly do not) and bidirectional overrides.
INVISIBLE = re.compile("[\x85\u200b\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069]")


def decode(raw: bytes, display: str) -> str:
    """The text of `raw`, which must be UTF-8 without invisible characters."""

    def stop(code: str, text: str, offset: int, message: str, hint: str) -> Stop:
        line, col = line_col(text, offset)
        return Stop(error(code, display, line, col, message, hint))

    if len(raw) > MAX_FILE_BYTES:
        raise Stop(too_large(display, len(raw)))
    if raw.isascii():
        return raw.decode("ascii")  # what the checks below look for is all outside ASCII
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise stop(ENCODING, "", 0, "file is UTF-16, not UTF-8", "save it as UTF-8") from None
        before = raw[: exc.start].decode("utf-8", "replace")
        raise stop(
            ENCODING,
            before,
            len(before),
            f"byte 0x{raw[exc.start]:02x} is not valid UTF-8",
            "save the file as UTF-8",
        ) from None
    # Some editors write a leading byte-order mark; anywhere else it is an invisible character.
    text = text.removeprefix("\ufeff")
    inner = text.find("\ufeff")
    if inner >= 0:
        raise stop(
            ENCODING,
            text,
            inner,
            "byte-order mark (U+FEFF) inside the file",
            "delete the invisible character",
        )
    hidden = INVISIBLE.search(text)
    if hidden:
        raise stop(
            CONTROL_CHARACTER,
            text,
            hidden.start(),
            f"invisible control character U+{ord(hidden.group()):04X} in the file",
            "delete it: line separators and direction overrides make the text on screen "
            "differ from the text read",
        )
    return text


def refuse_control_characters(value: str, node: Any, text: str, display: str) -> None:
    """Stop at the first control character in `value`, the double-quoted scalar `node` of the
    file `text`, pointing at the escape that wrote it."""
    # An escape writes what the file may not hold raw: a control, or an invisible character
    # (a direction override would reorder the text on every page and terminal).
    found = min(
        (m for m in (CONTROL_CHARACTERS.search(value), INVISIBLE.search(value)) if m),
        key=lambda m: m.start(),
        default=None,
    )
    if found:
        line, col = flow_scalar_position(
            text, node.start_mark.line + 1, content_column(node), found.start()
        )
        raise Stop(
            error(
                CONTROL_CHARACTER,
                display,
                line,
                col,
                f"{'invisible ' * bool(INVISIBLE.match(found.group()))}control character "
                f"U+{ord(found.group()):04X} in text",
                "remove it; escape sequences for control characters are not allowed",
            )
        )
