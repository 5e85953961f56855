"""Codes found while reading a file, before any rule runs: YAML, schema and quantities."""

from __future__ import annotations

from .. import source
from ..core import codes
from ..core.diagnostics import Severity
from . import emitted

emitted(
    codes.SYNTAX,
    "yaml-syntax",
    "source",
    """
    The file is not well-formed YAML.

    ## What it checks
    That libyaml can read the file as one YAML document: no tab indentation, no unclosed
    bracket or quote, no second document.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    Nothing else can be checked in a file that cannot be read.
    ## How to fix
    Indent with spaces, close what was opened, keep one document a file.
    ## Fails
    ```yaml
    a: [1, 2
    ```
    ## Passes
    ```yaml
    a: [1, 2]
    ```
    """,
)
emitted(
    codes.DUPLICATE_KEY,
    "duplicate-key",
    "source",
    """
    A key appears twice in one mapping.

    ## What it checks
    Every key of a mapping is written once.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    YAML readers silently keep one of the two values (PyYAML the last), so a reviewer and the
    checker can read different entries from the same text.
    ## How to fix
    Delete one of the two, keeping the value you mean.
    ## Fails
    ```yaml
    title: A
    title: B
    ```
    ## Passes
    ```yaml
    title: A
    ```
    """,
)
emitted(
    codes.ALIAS,
    "anchor-or-alias",
    "source",
    """
    Anchors (`&name`) and aliases (`*name`) are refused.

    ## What it checks
    The file uses no YAML anchors or aliases.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    They hide structure from a reviewer and allow "billion laughs" documents that expand to
    gigabytes.
    ## How to fix
    Write the value out where it is used.
    ## Fails
    ```yaml
    a: &x 1
    b: *x
    ```
    ## Passes
    ```yaml
    a: 1
    b: 1
    ```
    """,
)
emitted(
    codes.TAG,
    "tag",
    "source",
    """
    Explicit tags and directives are refused.

    ## What it checks
    No value carries a tag (`!!python/object`, `!custom`, a lone `!`) and the file has no
    `%YAML` or `%TAG` directive.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    Tags ask a reader to build objects of its choosing; unsafe readers run code for some.
    ## How to fix
    Remove the tag; quote the value if it is text.
    ## Fails
    ```yaml
    title: !!str x
    ```
    ## Passes
    ```yaml
    title: x
    ```
    """,
)
emitted(
    codes.YAML11_BOOLEAN,
    "yaml11-boolean",
    "source",
    """
    `yes`, `no`, `on`, `off` are read as text, as YAML 1.2 reads them.

    ## What it checks
    No plain value is one of the words YAML 1.1 reads as a boolean.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    YAML 1.1 readers (PyYAML, many CI tools) read them as true and false, so the same file
    means different things to different readers.
    ## How to fix
    Write `true` or `false` for a boolean, or quote the word for text.
    ## Fails
    ```yaml
    answer: yes
    ```
    ## Passes
    ```yaml
    answer: "yes"
    ```
    """,
    Severity.WARNING,
)
emitted(
    codes.ENCODING,
    "encoding",
    "source",
    """
    The file is not UTF-8, or has a byte-order mark after its start.

    ## What it checks
    The bytes of the file decode as UTF-8.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    Other encodings read as different text on different machines.
    ## How to fix
    Save the file as UTF-8.
    ## Fails
    ```yaml
    # encoding: latin-1
    title: café
    ```
    ## Passes
    ```yaml
    title: café
    ```
    """,
)
emitted(
    codes.EMPTY,
    "empty-file",
    "source",
    """
    The file has no content.

    ## What it checks
    The file holds a document, not only comments or nothing.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    An empty file in entries/ or hardware/ is almost always a mistake.
    ## How to fix
    Write the entry, or delete the file.
    ## Fails
    ```yaml
    # nothing here
    ```
    ## Passes
    ```yaml
    id: fixtures/minimal
    ```
    """,
)
emitted(
    codes.NOT_A_MAPPING,
    "top-level-not-mapping",
    "source",
    """
    The top level of the file is not a mapping.

    ## What it checks
    The document is a mapping of keys to values.
    An editor shows this as you type: it is the published schema's own rule.
    ## Why it matters
    An entry or a device is a set of named fields.
    ## How to fix
    Remove the leading `- ` or the brackets around the whole document.
    ## Fails
    ```yaml
    - id: fixtures/minimal
    ```
    ## Passes
    ```yaml
    id: fixtures/minimal
    ```
    """,
)
emitted(
    codes.TOO_LARGE,
    "too-large",
    "source",
    f"""
    The file is over {source.MAX_FILE_BYTES // 1024 // 1024} MiB or holds more than
    {source.MAX_NODES:,} keys and values.

    ## What it checks
    The file's size, and the number of values in it, against fixed limits.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    Entries are a few kilobytes; a huge file is a mistake or an attempt to exhaust CI.
    ## How to fix
    Split what is really several entries; remove generated data.
    ## Fails
    ```yaml
    values: [{", ".join(["1"] * 50_001)}]
    ```
    ## Passes
    ```yaml
    values: [1, 2, 3]
    ```
    """,
)
emitted(
    codes.TOO_DEEP,
    "too-deep",
    "source",
    f"""
    Nesting deeper than {source.MAX_DEPTH} levels.

    ## What it checks
    How deeply lists and mappings nest.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    The schema needs a few levels; deep nesting only exhausts a reader's stack.
    ## How to fix
    Flatten the structure the schema describes.
    ## Fails
    ```yaml
    a: {"[" * 40}{"]" * 40}
    ```
    ## Passes
    ```yaml
    a: [[1]]
    ```
    """,
)
emitted(
    codes.NOT_A_FILE,
    "not-a-file",
    "source",
    """
    A path that is not a readable regular file inside the repository.

    ## What it checks
    Each file to check is a regular file (not a directory, device or pipe), readable, and,
    if reached through a symlink, inside the repository. Links to folders under `entries/`
    or `hardware/` are not followed, nor are `entries/` or `hardware/` themselves when they
    lead out of the repository; a path given to `kb check` that leads out is not read.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    A symlink or a `..` can make CI read and print files outside the checkout.
    ## How to fix
    Commit the file itself, not a link to it.
    ## Fails
    ```yaml
    # file: entries/fixtures/link.yaml -> /etc/passwd
    ```
    ## Passes
    ```yaml
    id: fixtures/minimal
    ```
    """,
)
emitted(
    codes.NOT_READ,
    "not-read",
    "kb",
    """
    A file under entries/ or hardware/ that looks like an entry or a device but is not read.

    ## What it checks
    Every file under `entries/` or `hardware/` whose name ends in `.yaml`, `.yml` or `.json`
    (in any case) is read, or reported: one ending otherwise than `.yaml`, a hidden file, a
    file in a hidden folder, a file in a subfolder of `hardware/`, and every file of
    `hardware/` when `kb check --catalog` takes the devices from another knowledge base.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A file kb does not read is never checked: a contributor's entry saved as `.yml` would
    pass CI without a single rule run on it.
    ## How to fix
    Rename the file as the hint says (`x.yaml`, not hidden), or move it to
    `entries/<namespace>/<slug>.yaml` or `hardware/<id>.yaml`.
    ## Fails
    ```yaml
    # file: entries/fixtures/draft.yml
    id: fixtures/draft
    ```
    ## Passes
    ```yaml
    # file: entries/fixtures/draft.yaml
    id: fixtures/draft
    ```
    """,
)
emitted(
    codes.COMMITTED_OUTPUT,
    "build-output-committed",
    "outputs",
    """
    A file committed under build/, where the site build writes its output and caches.

    ## What it checks
    No file under `build/` is tracked by git (`git ls-files build`), in a full run and for
    the paths a change touches.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A fresh clone has every committed file: one under `build/` is where the site build
    writes its pages, and where a cache it believed would decide what readers see. A pull
    request could replace the published site that way for pages it never touched, or commit
    `build/site` as a link so that the build empties and writes a folder elsewhere. kb
    refuses to build over such files; this says so at review time.
    ## How to fix
    Remove them from git and keep them out: `git rm -r --cached build` (`build/` is in
    `.gitignore`; `git add -f` is what put them there).
    ## Fails
    ```yaml
    # file: build/site/index.html
    # committed
    <p>a page that was never built here</p>
    ```
    ## Passes
    ```yaml
    # file: build/site/index.html
    <p>a page the last build wrote, not committed</p>
    ```
    """,
)
emitted(
    codes.BAD_NUMBER,
    "bad-number",
    "source",
    """
    A number that is infinite, NaN, or longer than 30 digits.

    ## What it checks
    Every number is finite and of a length a person can mean.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    Non-finite and absurdly long numbers poison every result computed from them.
    ## How to fix
    Write the number in scientific notation, e.g. `1.0e+9`.
    ## Fails
    ```yaml
    typical: .nan
    ```
    ## Passes
    ```yaml
    typical: 1.0e+9
    ```
    """,
)
emitted(
    codes.CONTROL_CHARACTER,
    "control-character",
    "source",
    """
    A control character or an invisible separator in the text.

    ## What it checks
    No value or key holds a control character (raw or escaped), a bidi override or an
    invisible line separator.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    They would reach a terminal, a CI log or a page raw, where they can rewrite what a
    reader sees.
    ## How to fix
    Delete the character; write plain text.
    ## Fails
    ```yaml
    title: "\\x1b[31mred"
    ```
    ## Passes
    ```yaml
    title: red
    ```
    """,
)
emitted(
    codes.PORTABLE_NUMBER,
    "portable-number",
    "source",
    """
    A number written so that YAML 1.1 and YAML 1.2 readers disagree on it.

    ## What it checks
    Numbers such as `1e9` (a number in YAML 1.2, text in YAML 1.1) are written in a form both
    read as the same number; and plain text that YAML 1.1 reads as a number or a date
    (`1_000`, `0b1`, `12:30` in base 60, `2001-12-14`) is quoted.
    An editor cannot show this: a JSON Schema sees the data the YAML reads, not the text it is
    written in (an editor's YAML parser flags some of it itself).
    ## Why it matters
    Editors, PyYAML and other tools would see text where kb sees a number, or a number or a
    date where kb sees text.
    ## How to fix
    Write `1.0e+9`: a digit after the point and a sign on the exponent. Quote text that looks
    like a number (`"12:30"`); write a number with digits alone (`1000`).
    ## Fails
    ```yaml
    typical: 1e9
    ```
    ```yaml
    title: 12:30
    ```
    ## Passes
    ```yaml
    typical: 1.0e+9
    ```
    ```yaml
    title: "12:30"
    ```
    """,
    Severity.WARNING,
)
emitted(
    codes.MISSING_KEY,
    "missing-key",
    "schemas",
    """
    A required key is missing.

    ## What it checks
    Every key the schema requires is there; the diagnostic is placed at the mapping that
    lacks it.
    An editor shows this as you type: it is the published schema's own rule.
    ## Why it matters
    Every entry must say what it is bound by, how it scales and what it computes.
    ## How to fix
    Add the key; the hint says what it holds.
    ## Fails
    ```yaml
    bound_by: null
    ```
    ## Passes
    ```yaml
    bound_by: memory
    ```
    """,
)
emitted(
    codes.UNKNOWN_KEY,
    "unknown-key",
    "schemas",
    """
    A key the schema does not define.

    ## What it checks
    Every key is one the schema defines at that place; the hint offers the closest one.
    An editor shows this as you type: it is the published schema's own rule.
    ## Why it matters
    A misspelt key is silently ignored by lenient readers, and what it held is lost.
    ## How to fix
    Correct the spelling, or remove the key.
    ## Fails
    ```yaml
    scales_wth: []
    ```
    ## Passes
    ```yaml
    workarounds: []
    ```
    """,
)
emitted(
    codes.NOT_ALLOWED,
    "not-allowed",
    "schemas",
    """
    A value outside a controlled vocabulary.

    ## What it checks
    Values of `class`, `bound_by`, `basis`, `dtype` and the like are ones the schema lists.
    An editor shows this as you type: it is the published schema's own rule.
    ## Why it matters
    The site indexes and the evaluation act on these words.
    ## How to fix
    Use one of the allowed values the hint lists.
    ## Fails
    ```yaml
    bound_by: memroy
    ```
    ## Passes
    ```yaml
    bound_by: memory
    ```
    """,
)
emitted(
    codes.WRONG_TYPE,
    "wrong-type",
    "schemas",
    """
    A value of the wrong type.

    ## What it checks
    Each value is text, a number, a list or a mapping as the schema says.
    An editor shows this as you type: it is the published schema's own rule.
    ## Why it matters
    A number where text belongs (or the reverse) is read differently by different tools.
    ## How to fix
    Write the value in the form the hint quotes from the schema: a figure's value with its
    unit (`989.4 TFLOP/s`), a number unquoted; free text (a title) only needs quotes.
    ## Fails
    ```yaml
    title: 3
    ```
    ## Passes
    ```yaml
    title: "3"
    ```
    """,
)
emitted(
    codes.BAD_FORM,
    "bad-form",
    "schemas",
    """
    A value of the right type but the wrong form.

    ## What it checks
    Patterns (ids, symbols), lengths and item counts the schema sets, and that each
    quantity is a number and a unit of its dimension: bytes for a capacity or a message
    size, bytes per second for a bandwidth (`3.35 TB/s`, `400 Gbit/s`), FLOP per second for
    a peak (`989.4 TFLOP/s`, never `TFLOPS`), a time, and a measured result of the
    dimension its `counts` names. An editor shows each of these as you type: they are the
    published schema's own patterns and sentences.
    ## Why it matters
    Ids become paths and URLs; symbols become names in formulas; a bandwidth in FLOP/s, or
    a capacity in B/s, would make every verdict on the device wrong.
    ## How to fix
    Follow the form the hint describes; for a quantity, write a unit of the dimension the
    hint names.
    ## Fails
    ```yaml
    id: Fixtures/Minimal Entry
    ```
    ## Passes
    ```yaml
    id: fixtures/minimal
    ```
    """,
)
emitted(
    codes.EARLIER_VERSION,
    "earlier-schema-version",
    "schemas",
    """
    The file is written to an earlier version of its schema.

    ## What it checks
    A file that fails today's schema but passes the whole schema of an earlier released
    version (the package keeps each: entries and devices have versions 1 and 2) was written
    to that version. It gets this one diagnostic, at its top, instead of an error per field:
    its shape is not wrong, only old. A file that passes no version gets today's errors.
    An editor shows today's errors instead: it reads one version of the schema, and this rule tries
    the earlier ones.
    ## Why it matters
    Other teams keep knowledge bases written to what kb published then; one line that names
    the version and the command tells them what happened and what to do.
    ## How to fix
    Run `kb fmt --upgrade PATH`: it rewrites the file to today's shape, keeping every value
    and comment, and marks with `TODO` what only a person can supply (a source's id and
    title, a paper's first author), which `kb check` then reports at its line. The
    CHANGELOG's Upgrading section says what each version changed.
    ## Fails
    ```yaml
    # Version 1: references had a title and an id or address only.
    references:
      - title: "Roofline: An Insightful Visual Performance Model for Multicore Architectures"
        url: https://doi.org/10.1145/1498765.1498785
    ```
    ## Passes
    ```yaml
    references:
      - title: "Roofline: An Insightful Visual Performance Model for Multicore Architectures"
        first_author: Williams
        year: 2009
        url: https://doi.org/10.1145/1498765.1498785
    ```
    """,
)
emitted(
    codes.BUILT_IN_WORD,
    "built-in-word",
    "config",
    """
    kb.yaml adds a namespace or class kb already has, or the reserved `fixtures`.

    ## What it checks
    That each namespace and class under `namespaces:` and `classes:` of kb.yaml is a word
    kb does not have, named once; `fixtures` stays kb's own test fixtures'. The word is
    left out; the others still count.
    An editor cannot show this: a JSON Schema cannot compare the words of kb.yaml with kb's own.
    ## Why it matters
    kb's own words mean the same in every knowledge base: a page, a filter or another
    team's tool that reads `gemm` reads kb's GEMM family, whoever wrote the entry.
    ## How to fix
    Use kb's word as it is (drop it from kb.yaml), or name a family kb does not have.
    ## Fails
    ```yaml
    # file: kb.yaml
    namespaces:
      - name: gemm
        title: Our GEMMs
        description: The GEMM kernels of our stack.
    ```
    ## Passes
    ```yaml
    # file: kb.yaml
    namespaces:
      - name: bench
        title: Benchmarks
        description: Whole-system benchmark harnesses.
    ```
    """,
)
emitted(
    codes.BAD_QUANTITY,
    "bad-quantity",
    "model",
    """
    A hardware figure whose number is zero or past what a float holds.

    ## What it checks
    Each figure of a device, written with a unit of its dimension (the schema holds the unit,
    KB105), is a positive, finite quantity in that unit. An editor cannot show this: a JSON
    Schema's pattern cannot do the arithmetic that finds `1e400 TB/s` past a float or
    `1e-400 TB/s` zero.
    ## Why it matters
    A zero or infinite bandwidth or peak would make every verdict on the device wrong.
    ## How to fix
    Write the figure the source gives, e.g. `3.35 TB/s` for a bandwidth.
    ## Fails
    ```yaml
    # file: hardware/fixture-device.yaml
    memory_bandwidth: {value: 0 TB/s}
    ```
    ## Passes
    ```yaml
    # file: hardware/fixture-device.yaml
    memory_bandwidth: {value: 3.35 TB/s}
    ```
    """,
)
emitted(
    codes.INTERNAL,
    "internal-error",
    "check",
    """
    kb itself failed on this file; the other files' results still stand.

    ## What it checks
    Nothing: it reports a bug in kb met while checking the file.
    An editor cannot show this: it is a fault of kb, not of the file.
    ## Why it matters
    The file may hold problems that could not be checked.
    ## How to fix
    Report it with the file; it makes `kb check` exit 2.
    """,
)
