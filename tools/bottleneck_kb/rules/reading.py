"""Codes found while reading a file, before any rule runs: YAML, schema and quantities."""

from __future__ import annotations

from .. import diagnostics, model, schemas, source
from . import emitted

_LOADER = "source.py (reading YAML)"
_SCHEMA = "schemas.py (JSON Schema)"

emitted(
    source.SYNTAX,
    "yaml-syntax",
    _LOADER,
    """
    The file is not well-formed YAML (tabs for indentation, unclosed brackets, a second document).

    Fails: `a:\\n\\tb: 1` (a tab indents b)
    Passes: `a:\\n  b: 1`
""",
)
emitted(
    source.DUPLICATE_KEY,
    "duplicate-key",
    _LOADER,
    """
    A key appears twice in one mapping; YAML would silently keep only the last.

    Fails: `title: A\\ntitle: B`
    Passes: `title: A`
""",
)
emitted(
    source.ALIAS,
    "anchor-or-alias",
    _LOADER,
    """
    Anchors (`&name`) and aliases (`*name`) are refused: they hide structure and allow bombs.

    Fails: `a: &x 1\\nb: *x`
    Passes: `a: 1\\nb: 1`
""",
)
emitted(
    source.TAG,
    "tag",
    _LOADER,
    """
    Explicit tags such as `!!python/object` or `!custom` are refused.

    Fails: `title: !!str x`
    Passes: `title: x`
""",
)
emitted(
    source.YAML11_BOOLEAN,
    "yaml11-boolean",
    _LOADER,
    """
    Warning: `yes`, `no`, `on`, `off` are read as strings (YAML 1.2), not booleans.

    Fails: `enabled: yes`
    Passes: `enabled: true` or `answer: "yes"`
""",
)
emitted(
    source.ENCODING,
    "encoding",
    _LOADER,
    """
    The file is not UTF-8, or has a byte-order mark after its start.

    Fails: a Latin-1 byte `\\xff` in a value
    Passes: the same text saved as UTF-8
""",
)
emitted(
    source.EMPTY,
    "empty-file",
    _LOADER,
    """
    The file has no content (or only comments).

    Fails: an empty file
    Passes: `id: ns/slug` ...
""",
)
emitted(
    source.NOT_A_MAPPING,
    "top-level-not-mapping",
    _LOADER,
    """
    The top level must be a mapping of keys to values.

    Fails: `- id: ns/slug`
    Passes: `id: ns/slug`
""",
)
emitted(
    source.TOO_LARGE,
    "too-large",
    _LOADER,
    """
    The file is over 1 MiB or holds more than 50,000 keys and values.

    Fails: a 2 MB entry
    Passes: an entry of a few kilobytes
""",
)
emitted(
    source.TOO_DEEP,
    "too-deep",
    _LOADER,
    """
    Nesting deeper than 32 levels.

    Fails: `a: [[[[...]]]]` 40 levels deep
    Passes: the shallow structure the schema describes
""",
)
emitted(
    source.NOT_A_FILE,
    "not-a-file",
    _LOADER,
    """
    A path that is not a readable regular file inside the repository (a directory, a device,
    a symlink pointing outside, an unreadable or missing file).

    Fails: `entries/x.yaml -> /etc/passwd`
    Passes: a committed regular file
""",
)
emitted(
    source.BAD_NUMBER,
    "bad-number",
    _LOADER,
    """
    A number that is infinite, NaN, or longer than 30 digits.

    Fails: `typical: 1e400`, `typical: .nan`
    Passes: `typical: 1.0e9`
""",
)
emitted(
    source.CONTROL_CHARACTER,
    "control-character",
    _LOADER,
    """
    A control character (such as an escape sequence) in the text; it would reach a terminal
    or a page raw.

    Fails: `title: "\\x1b[31mred"`
    Passes: `title: red`
""",
)
emitted(
    schemas.MISSING_KEY,
    "missing-key",
    _SCHEMA,
    """
    A required key is missing (reported at the mapping that lacks it).

    Fails: an entry without `bound_by`
    Passes: `bound_by: memory`
""",
)
emitted(
    schemas.UNKNOWN_KEY,
    "unknown-key",
    _SCHEMA,
    """
    A key the schema does not define (reported at the key, with a did-you-mean).

    Fails: `scales_wth: [...]`
    Passes: `scales_with: [...]`
""",
)
emitted(
    schemas.NOT_ALLOWED,
    "not-allowed",
    _SCHEMA,
    """
    A value outside a controlled vocabulary (class, bound_by, basis, dtype).

    Fails: `bound_by: memroy`
    Passes: `bound_by: memory`
""",
)
emitted(
    schemas.WRONG_TYPE,
    "wrong-type",
    _SCHEMA,
    """
    A value of the wrong type.

    Fails: `title: 3`
    Passes: `title: "3"`
""",
)
emitted(
    schemas.BAD_FORM,
    "bad-form",
    _SCHEMA,
    """
    A value of the right type but the wrong form (pattern, length, item count).

    Fails: `id: Flops/Speculative Draft`
    Passes: `id: flops/speculative-draft`
""",
)
emitted(
    model.BAD_QUANTITY,
    "bad-quantity",
    "model.py (hardware quantities)",
    """
    A hardware figure that is not a quantity of the right dimension.

    Fails: `memory_bandwidth: 3.35 TFLOP/s`
    Passes: `memory_bandwidth: 3.35 TB/s`
""",
)
emitted(
    diagnostics.INTERNAL,
    "internal-error",
    "check.py (any stage)",
    """
    kb itself failed on this file; the other files' results still stand. Please report it.

    Fails: (a bug in kb)
    Passes: every other file
""",
)
