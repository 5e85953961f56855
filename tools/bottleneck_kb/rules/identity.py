"""Ids: an entry's id is its path, a device's id is its file name, and ids are unique."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .. import schemas
from ..core.codes import DUPLICATE_ID
from ..core.diagnostics import Diagnostic, error
from ..knowledge.addresses import FIXED_PAGES, device_page, entry_page, output_files
from ..records.device import Device
from ..records.entry import Entry
from . import Context, Scope, rule

ID_PATH = "KB201"
ALIAS_TAKEN = "KB214"
DEVICE_ID = "KB203"
PAGE_COLLISION = "KB215"


class Summary(NamedTuple):
    """What the knowledge-base checks need of an entry; small, so workers can send it back (a
    tuple: one crosses between processes for every entry)."""

    id: str
    path: str
    line: int
    col: int
    #: The ids of `related`, each with the line and column where it is written.
    related: tuple[tuple[str, int, int], ...] = ()
    #: The entry's former ids, each with the line and column where it is written.
    aliases: tuple[tuple[str, int, int], ...] = ()
    #: Each of the entry's measurements that kb check judged: its key and its achieved
    #: fraction of the bound.
    measured: tuple[tuple[str, float], ...] = ()


def summarize(entry: Entry) -> Summary:
    line, col = entry.source.value_at(("id",))
    related = tuple(
        (link.id, *entry.source.value_at((*link.where.pointer, "id"))) for link in entry.related
    )
    aliases = tuple(
        (alias, *entry.source.value_at(("aliases", index)))
        for index, alias in enumerate(entry.aliases)
    )
    return Summary(entry.id, entry.path, line, col, related, aliases)


def _expected(path: str, folder: str) -> str | None:
    prefix = f"{folder}/"
    if not path.startswith(prefix) or not path.endswith(".yaml"):
        return None
    return path.removeprefix(prefix).removesuffix(".yaml")


@rule(ID_PATH, "id-matches-path", Scope.ENTRY)
def entry_id_matches_path(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry's id is its path below entries/, without .yaml.

    ## What it checks
    That `id` equals the file's path below `entries/` without the `.yaml` suffix.
    An editor cannot show this: a JSON Schema does not see the file's name.
    ## Why it matters
    The id is how entries link to each other and the URL of the entry's page; a file that
    says another id than its path cannot be found from either.
    ## How to fix
    Set `id` to the path, or move the file to `entries/<id>.yaml`.
    ## Fails
    ```yaml
    id: fixtures/draft
    ```
    ## Passes
    ```yaml
    id: fixtures/minimal
    ```
    """
    expected = _expected(entry.path, "entries")
    if expected is None:
        yield entry.source.error_at(
            ID_PATH,
            ("id",),
            "entry files live at entries/<namespace>/<slug>.yaml",
            f"move the file to entries/{entry.id}.yaml",
        )
    elif expected != entry.id:
        yield entry.source.error_at(
            ID_PATH,
            ("id",),
            f"id '{entry.id}' does not match the file's path (expected '{expected}')",
            # The file's own path is nobody else's id, so it is the hint when it is an id.
            f"set id: {expected}" if _is_entry_id(expected) else _MOVE,
        )


@rule(DEVICE_ID, "device-id-matches-file", Scope.DEVICE)
def device_id_matches_file(device: Device, context: Context) -> Iterable[Diagnostic]:
    """A device's id is its file name below hardware/, without .yaml.

    ## What it checks
    That `id` equals the device file's name without `.yaml`.
    An editor cannot show this: a JSON Schema does not see the file's name.
    ## Why it matters
    Entries name devices by id; the id must say which file holds the figures.
    ## How to fix
    Set `id` to the file name, or rename the file.
    ## Fails
    ```yaml
    # file: hardware/fixture-device.yaml
    id: h100
    ```
    ## Passes
    ```yaml
    # file: hardware/fixture-device.yaml
    id: fixture-device
    ```
    """
    # A device file is read from a hardware/ folder itself (this knowledge base's, or another
    # catalog's, named by its whole path): its id is its file's name.
    folder, _, name = device.path.rpartition("/")
    expected = name.removesuffix(".yaml")
    if expected != device.id:
        yield device.source.error_at(
            DEVICE_ID,
            ("id",),
            f"device id '{device.id}' does not match the file name (expected '{expected}')",
            f"set id: {expected}, or rename the file to {folder}/{device.id}.yaml",
        )


@rule(DUPLICATE_ID, "unique-id", Scope.KNOWLEDGE_BASE)
def unique_ids(summaries: Sequence[Summary], context: Context) -> Iterable[Diagnostic]:
    """No two entries, and no two devices, share an id.

    ## What it checks
    Every entry's id, and every device's, is used once in the knowledge base. The duplicate is
    reported on the file that introduced it: since an id is its path, the file whose id is
    not its path (the first by path when none is).
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    Links, pages and evaluations are keyed by id; a second entry or device with the same id
    would replace the first without a word.
    ## How to fix
    Give the file the id its path gives, as the hint says; no other file has that path.
    ## Fails
    ```yaml
    id: fixtures/minimal
    ---
    # file: entries/other/minimal.yaml
    id: fixtures/minimal
    ```
    ## Passes
    ```yaml
    id: fixtures/minimal
    ---
    # file: entries/gemm/minimal.yaml
    id: gemm/minimal
    ```
    """
    ids = [summary.id for summary in summaries]
    if len(set(ids)) == len(ids):
        return  # nearly every run: no id to sort out
    holders: dict[str, list[Summary]] = {}
    for summary in sorted(summaries, key=lambda s: s.path):
        holders.setdefault(summary.id, []).append(summary)
    for entry_id, same in holders.items():
        if len(same) == 1:
            continue
        owner = next((s for s in same if _expected(s.path, "entries") == entry_id), same[0])
        for summary in same:
            if summary is owner:
                continue
            own_id = _expected(summary.path, "entries")
            yield error(
                DUPLICATE_ID,
                summary.path,
                summary.line,
                summary.col,
                f"id '{entry_id}' is already used by {owner.path}:{owner.line}",
                f"set id: {own_id}" if own_id is not None and _is_entry_id(own_id) else _MOVE,
            )


#: The hint where the file's path is no id an entry may have (`sp ace.yaml`, or a folder that
#: is not a namespace): a path that is one is free, as no file has it.
_MOVE = (
    "move the file to entries/<namespace>/<slug>.yaml, in a namespace the entry schema lists, "
    "and set id to match"
)


def _is_entry_id(text: str) -> bool:
    """Whether `text` is an id an entry may have: of the id's form, in a known namespace."""
    namespace = text.partition("/")[0]
    return schemas.is_id(schemas.ENTRY, text) and namespace in schemas.vocabulary(
        schemas.ENTRY, "namespace"
    )


@rule(ALIAS_TAKEN, "alias-not-taken", Scope.KNOWLEDGE_BASE)
def aliases_not_taken(summaries: Sequence[Summary], context: Context) -> Iterable[Diagnostic]:
    """A former id (alias) is nobody's id and nobody else's alias.

    ## What it checks
    Each item of `aliases` is not the id of an entry of the knowledge base, and no two
    entries list the same alias.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    The site turns each alias into a page that redirects to the entry; an alias that is an
    entry's id, or another entry's alias, cannot redirect, and the link it was kept for breaks.
    ## How to fix
    Remove the alias, or keep it on the one entry the old id now means.
    ## Fails
    ```yaml
    aliases: [fixtures/second]
    ---
    # file: entries/fixtures/second.yaml
    id: fixtures/second
    ```
    ## Passes
    ```yaml
    aliases: [fixtures/old-name]
    ---
    # file: entries/fixtures/second.yaml
    id: fixtures/second
    ```
    """
    keeping = [summary for summary in summaries if summary.aliases]
    if not keeping:
        return  # most knowledge bases: no entry was renamed
    ids = set(context.entry_ids) | {s.id for s in summaries}
    holders: dict[str, list[str]] = {}
    for summary in keeping:
        for alias, _, _ in summary.aliases:
            holders.setdefault(alias, []).append(summary.path)
    for summary in sorted(keeping, key=lambda s: s.path):
        for alias, line, col in summary.aliases:
            if alias in ids:
                yield error(
                    ALIAS_TAKEN,
                    summary.path,
                    line,
                    col,
                    f"alias '{alias}' is the id of an entry, so it cannot redirect to this one",
                    "remove the alias",
                )
                continue
            # Said on every entry that lists it: which one came first, the files do not say,
            # and a pull request's check shows the error on the file it adds.
            others = sorted({path for path in holders[alias] if path != summary.path})
            if others:
                yield error(
                    ALIAS_TAKEN,
                    summary.path,
                    line,
                    col,
                    f"alias '{alias}' is also an alias of {', '.join(others)}",
                    "keep the alias on the one entry the old id now means",
                )


@rule(PAGE_COLLISION, "page-not-taken", Scope.KNOWLEDGE_BASE)
def pages_not_taken(summaries: Sequence[Summary], context: Context) -> Iterable[Diagnostic]:
    """No entry, alias or device takes the address of another page of the site.

    ## What it checks
    The page the site makes for each entry (`entries/<id>/`), alias (a redirect at the
    former id's address) and device (`devices/<id>/`) is written to a file no other
    generated page is written to, with directory URLs or without: a device called `index`
    would be written over the device list.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    Two pages at one address is one page lost, silently: the reader of the device list would
    see a device instead, or a shared link would lead to the wrong page.
    ## How to fix
    Rename the entry or the device (keep the old id as an alias if it was published).
    ## Fails
    ```yaml
    # file: hardware/index.yaml
    id: index
    ```
    ## Passes
    ```yaml
    # file: hardware/fixture-index.yaml
    id: fixture-index
    ```
    """
    # Who claims each page, in the order that decides who keeps it: the fixed pages, every
    # entry's id, the devices, then the aliases; a later claimant is told, where it is written.
    Claim = tuple[str, str, tuple[str, int, int] | None]  # page, what claims it, where
    located = {s.id: (s.path, s.line, s.col) for s in summaries}
    claims: list[Claim] = [(page, f"the site's {page.removesuffix('.md')} page", None)
                           for page in FIXED_PAGES]  # fmt: skip
    claims += [
        (entry_page(entry_id), f"entry {entry_id}", located.get(entry_id))
        for entry_id in sorted({*context.entry_ids, *located})
    ]
    for device in sorted(context.devices.values(), key=lambda d: d.id):
        line, col = device.source.value_at(("id",))
        claims.append((device_page(device.id), f"device {device.id}", (device.path, line, col)))
    for summary in sorted(summaries, key=lambda s: s.path):
        claims += [
            (entry_page(alias), f"alias {alias}", (summary.path, line, col))
            for alias, line, col in summary.aliases
        ]
    owners: dict[str, Claim] = {}
    for claim in claims:
        page, what, at = claim
        for output in output_files(page):
            held = owners.setdefault(output, claim)
            if held is claim:
                continue
            # One entry id twice, or an alias that is an id: KB202's and KB214's to say.
            if held[0] == page and held[1].startswith(_NAMED) and what.startswith(_NAMED):
                break
            if at is not None:
                yield _collision(*at, what, held[1])
            break


#: How entries' ids and aliases are named in a claim.
_NAMED = ("entry ", "alias ")


def _collision(path: str, line: int, col: int, what: str, holder: str) -> Diagnostic:
    return error(
        PAGE_COLLISION,
        path,
        line,
        col,
        f"the page of {what} would be written where {holder} is",
        "rename it; an entry renamed keeps its old id as an alias",
    )
