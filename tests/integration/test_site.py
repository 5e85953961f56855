"""The built site: the real MkDocs build (in process, once per session) of a copy of the
repository, with the hostile markup fixtures, an entry no device can run and a renamed entry
added; then the pages in headless Chromium (Debian's package), served on localhost.

Counts and numbers come from the knowledge base and the library, never written here, so that a
contributor's new entry or device does not break these tests.
"""

from __future__ import annotations

import html.parser
import itertools
import json
import math
import posixpath
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import pytest
from mkdocs.exceptions import Abort

from bottleneck_kb.checking.run import check
from bottleneck_kb.core.diagnostics import located_line
from bottleneck_kb.evaluation.entry import evaluate_entry, select_devices
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.evaluation.formulas import EvaluationError, parse_formulas
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.records.fields import dtype_traits
from bottleneck_kb.report.evaluation import evaluation_data
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY, patched
from bottleneck_kb.schemas import ENTRY, HARDWARE, schema
from bottleneck_kb.site import charts, export
from bottleneck_kb.site import view as model_view
from bottleneck_kb.site.address import repository_address
from bottleneck_kb.site.cache import ViewCache, default_folder
from bottleneck_kb.site.pages.build import build_site
from bottleneck_kb.site.pages.html import Options
from bottleneck_kb.site.prose import plain
from bottleneck_kb.site.view import compute_view

from ..browser import Browser, row_headers
from ..conftest import FIXTURES, MINIMAL_PATH, REPOSITORY, npm_install

LM_HEAD = "flops/speculative-quantized-drafter-lm-head"
ALIAS = "flops/old-lm-head"
NO_DEVICE = "fixtures/fp4-only"  # devices without a dense fp4 peak must be skipped and named
HOSTILE = sorted((FIXTURES / "hostile").glob("markup-*.yaml"))
CODE_IN_NOTES = "fixtures/code-in-notes"
# Lines that Markdown extensions act on (fences, snippets, admonitions), in a code block.
CODE_NOTES = """notes: |
  Code:

      ```
      [link](javascript:alert(1))
      --8<-- "README.md"

      !!! note
  Done.
"""
BLOCK_MARKUP = "fixtures/block-markup"
# One-line fields that Markdown alone would make a heading, a list or a rule; a title past
# U+FFFF, which JSON writes as a surrogate pair that YAML front matter cannot read.
BLOCK_MARKUP_FIELDS = {
    'title: "A minimal valid entry"': 'title: "# Huge heading \\U0001F680"',
    "workarounds: []\n": """workarounds:
  - title: "1. First"
    description: Decode more.
    reported: "- bullet"
  - title: Second
    description: Decode more.
    reported: "---"
checks:
  - claim: "## sub"
    devices: [nvidia-h100-sxm]
    expect: {bound_by: memory}
""",
}
COPIED = (
    "entries",
    "hardware",
    "models",
    "schema",
    "site",
    "mkdocs.yml",
    "kb.yaml",
    "README.md",
    "CONTRIBUTING.md",
)


def copy_repository(target: Path) -> Path:
    """The parts of the repository a site build reads, copied to `target`."""
    target.mkdir(parents=True)
    for name in COPIED:
        source = REPOSITORY / name
        if source.is_dir():
            shutil.copytree(source, target / name)
        elif source.exists():
            shutil.copyfile(source, target / name)
    return target


def build(root: Path, strict: bool = True) -> Path:
    """`mkdocs build` of the repository copy at `root`: strict, as mkdocs.yml says, unless
    the copy holds entries that kb check fails on purpose."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    config = load_config(
        config_file=str(root / "mkdocs.yml"), site_dir=str(root / "build/site"), strict=strict
    )
    mkdocs_build(config)
    return root / "build" / "site"


def page_file(site: Path, page: str) -> Path:
    """The HTML file of a page given by its path below the docs folder (`entries/x.md`)."""
    stem = page.removesuffix(".md")
    if stem.endswith("index"):
        return site / f"{stem}.html"
    return site / stem / "index.html"


@pytest.fixture(scope="session")
def kb_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_repository(tmp_path_factory.mktemp("site") / "repository")
    fixtures = root / "entries" / "fixtures"
    fixtures.mkdir()
    for hostile in HOSTILE:
        shutil.copyfile(hostile, fixtures / hostile.name)
    minimal = MINIMAL_ENTRY
    (fixtures / "fp4-only.yaml").write_text(
        minimal.replace("id: fixtures/minimal", f"id: {NO_DEVICE}").replace(
            "  bytes: 2 * N\n", "  bytes: 2 * N\n  dtype: fp4\n"
        ),
        encoding="utf-8",
    )
    (fixtures / "code-in-notes.yaml").write_text(
        minimal.replace("id: fixtures/minimal", f"id: {CODE_IN_NOTES}") + CODE_NOTES,
        encoding="utf-8",
    )
    block_markup = minimal.replace("id: fixtures/minimal", f"id: {BLOCK_MARKUP}").replace(
        "title: A minimal valid entry", 'title: "A minimal valid entry"'
    )
    for written, instead in BLOCK_MARKUP_FIELDS.items():
        assert written in block_markup
        block_markup = block_markup.replace(written, instead)
    (fixtures / "block-markup.yaml").write_text(block_markup, encoding="utf-8")
    lm_head = root / "entries" / f"{LM_HEAD}.yaml"
    text = lm_head.read_text("utf-8")
    lm_head.write_text(text.replace(f"id: {LM_HEAD}\n", f"id: {LM_HEAD}\naliases: [{ALIAS}]\n"))
    return root


@pytest.fixture(scope="session")
def built(kb_copy: Path) -> Path:
    return build(kb_copy, strict=False)  # the hostile entries fail kb check, as they should


@pytest.fixture(scope="session")
def knowledge_base(kb_copy: Path) -> KnowledgeBase:
    kb = KnowledgeBase.load(kb_copy)
    assert kb.diagnostics == []
    return kb


class Elements(html.parser.HTMLParser):
    """Every start tag of a page with its attributes, and its text."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def ids(self) -> set[str]:
        return {i for _, a in self.tags if (i := a.get("id"))}

    def hrefs(self) -> list[str]:
        return [h for t, a in self.tags if t == "a" and (h := a.get("href"))]


def parsed(site: Path, page: str) -> Elements:
    return Elements(page_file(site, page).read_text("utf-8"))


def resolved(site: Path, page: str, href: str) -> str:
    """A relative link of a page as a path below the site's root."""
    base = page_file(site, page).parent.relative_to(site).as_posix()
    return posixpath.normpath(posixpath.join(base, href))


# --- pages ------------------------------------------------------------------------------------


def test_every_entry_has_its_page_with_every_part(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    devices = list(knowledge_base.catalog.devices.values())
    for entry in knowledge_base.entries:
        page = parsed(built, f"entries/{entry.id}.md")
        sections = page.ids()
        view = compute_view(entry, devices)
        expected = {"kb-title", "formulas", "scales-with"}
        if view.evaluation is not None:
            expected |= {"evaluation-on-every-device"}
        expected |= {"workarounds"} if entry.workarounds else set()
        expected |= {"checks"} if entry.checks and view.evaluation else set()
        expected |= {"references"} if entry.references else set()
        expected |= {"notes"} if entry.notes else set()
        expected |= {"hardware-parameters"} if entry.hardware_parameters else set()
        expected |= {"intensity-against-the-ridge-points"} if view.sweep else set()
        assert expected <= sections, entry.id
        tags = [a.get("class") for t, a in page.tags if t == "a"]
        assert "kb-tag" in tags and "kb-tag kb-bound" in tags
        maths = [a for t, a in page.tags if t == "math"]
        assert len(maths) == (3 if view.evaluation else 0), entry.id
        if view.sweep:
            assert ("svg", {"class": "kb-chart"}) in [
                (t, {"class": a.get("class")}) for t, a in page.tags if t == "svg"
            ]
        edit = [h for h in page.hrefs() if h.endswith(entry.path)]
        assert edit and edit[0].startswith("https://"), entry.id


def _rows(page: Elements, css: str) -> list[list[float]]:
    """The exact values (`data-value`) of each body row of the table wrapped in `div.css`."""
    start = page.tags.index(("div", {"class": css}))
    rows: list[list[float]] = []
    for tag, attributes in page.tags[start + 1 :]:
        if tag == "div":
            break
        if tag == "tr":
            rows.append([])
        elif tag == "td" and (value := attributes.get("data-value")) is not None:
            rows[-1].append(float(value))
    return [row for row in rows if row]  # the header's row holds no value


def dtype_order(device: Any) -> list[str]:
    """The device's data types in the catalog's order (the schema's)."""
    return [t for t in dtype_traits() if t in device.peak_flops]


def featured_order(results: list[Any], kb: KnowledgeBase) -> list[Any]:
    """`results` as a per-device table lists them: kb.yaml's featured devices first, in its
    order, then the others as the evaluation gives them (fastest first)."""
    featured = kb.config.featured(list(kb.catalog.devices))
    first = [r for d in featured for r in results if r.device == d]
    return first + [r for r in results if r.device not in featured]


def work_columns(results: list[Any]) -> list[str]:
    """The work a per-device table gives a column: what differs from device to device (the
    rest is said once, above it)."""
    return [w for w in ("flops", "bytes", "intensity") if len({getattr(r, w) for r in results}) > 1]


def test_every_roofs_time_and_every_derived_value_is_on_the_entry_page(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    devices = list(knowledge_base.catalog.devices.values())
    roofs_shown: set[str] = set()
    for entry in knowledge_base.entries:
        view = compute_view(entry, devices)
        if view.evaluation is None:
            continue
        page = parsed(built, f"entries/{entry.id}.md")
        results = view.evaluation.results
        roofs = list(dict.fromkeys(name for r in results for name in r.times))
        roofs_shown |= set(roofs)
        work = work_columns(results)
        assert _rows(page, "kb-evaluation kb-sortable") == [
            [
                *(getattr(r, w) for w in work),
                r.ridge,
                *(r.times[name] for name in roofs if name in r.times),
                r.time,
                # The expected time, where the device gives a fraction for the entry's class.
                *(
                    [view.evaluation.expected[r.device].seconds]
                    if r.device in view.evaluation.expected
                    else []
                ),
            ]
            for r in featured_order(results, knowledge_base)
        ], entry.id
        if not entry.derived or not results:
            assert "derived-values" not in page.ids(), entry.id
            continue
        same = [d.name for d in entry.derived if len({r.derived[d.name] for r in results}) == 1]
        varying = [d.name for d in entry.derived if d.name not in same]
        if same:
            assert _rows(page, "kb-derived") == [[results[0].derived[n]] for n in same]
        if varying:
            assert _rows(page, "kb-derived-by-device") == [
                [r.derived[n] for n in varying] for r in featured_order(results, knowledge_base)
            ], entry.id
    assert roofs_shown > {"compute", "memory"}  # the repository has entries with more roofs


def test_the_build_cached_every_view_as_computed(
    built: Path, kb_copy: Path, knowledge_base: KnowledgeBase
) -> None:
    devices = sorted(knowledge_base.catalog.devices.values(), key=lambda d: d.id)
    cache = ViewCache(default_folder(kb_copy))
    assert cache.folder is not None
    for entry in knowledge_base.entries:
        assert (cache.folder / f"{cache.key(entry, devices)}.json").is_file(), entry.id
    views = cache.views(knowledge_base.entries, devices)
    for entry in knowledge_base.entries:
        assert views[entry.id] == compute_view(entry, devices), entry.id


def test_every_device_has_its_page_with_a_dot_per_entry_evaluated_on_it(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    for device in knowledge_base.catalog.devices.values():
        page = parsed(built, f"devices/{device.id}.md")
        assert {"figures", "ridge-point-per-data-type", "sources", "roofline-with-every-entry"} <= (
            page.ids()
        )
        dots = [
            posixpath.normpath(posixpath.join(f"devices/{device.id}", a["href"] or ""))
            for t, a in page.tags
            if t == "a" and a.get("class") == "kb-dot"
        ]
        # Placed where it is evaluated at its typical values: a device with the figures it
        # reads, which can run those values (a ring of 8 is no place on a domain of 4), and
        # work with FLOPs (a gather of rows has no intensity to place on a log axis).
        on_device = [
            e.id
            for e in knowledge_base.entries
            if (evaluator := Evaluator.parse(e)[0]) is not None
            and select_devices(evaluator, {device.id: device})[0]
            and not evaluator.beyond_all([device], evaluator.values())
            and evaluator.result(device).flops > 0
        ]
        assert sorted(dots) == sorted(f"entries/{i}" for i in on_device)
        for source in device.sources:
            assert source.url in page.hrefs()
        # Every source supports a value (kb check's source-used), so a figure shown cites it,
        # by its number in the list of sources.
        tables = page_file(built, f"devices/{device.id}.md").read_text("utf-8")
        cited = Elements(tables.split('<h2 id="sources">')[0]).hrefs()
        numbers = {f"#source-{i}" for i in range(1, len(device.sources) + 1)}
        assert numbers <= set(cited), device.id
        shown = {float(v) for _, a in page.tags if (v := a.get("data-value"))}
        assert {m.value for m in device.measured.values()} <= shown, device.id
        assert set(device.achieved_fraction.values()) <= shown, device.id


def test_devices_without_the_entrys_dtype_are_skipped_and_named(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    page = page_file(built, f"entries/{NO_DEVICE}.md").read_text("utf-8")
    skipped = re.search(r'<p class="kb-skipped">(.*?)</p>', page)
    assert skipped is not None
    entry = knowledge_base.entry(NO_DEVICE)
    assert entry is not None
    formulas, _ = parse_formulas(entry)
    assert formulas is not None
    _, skipped_devices = select_devices(Evaluator(entry, formulas), knowledge_base.catalog.devices)
    assert skipped_devices  # fp4 is missing from older devices
    names = {d.id: d.name for d in knowledge_base.catalog.devices.values()}
    for device in skipped_devices:
        assert f"{names[device.device]}: {device.reason}" in skipped.group(1)


def test_indexes_list_every_entry_under_its_class_and_its_bound(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    for index, key in (("entries/index.md", "class"), ("entries/bound-by.md", "bound_by")):
        page = page_file(built, index).read_text("utf-8")
        sections = re.split(r'<h2 id="', page)
        for entry in knowledge_base.entries:
            value = entry.cls if key == "class" else entry.bound_by
            section = next(s for s in sections if s.startswith(f'{value}"'))
            links = {resolved(built, index, h) for h in Elements(section).hrefs()}
            assert f"entries/{entry.id}" in links, (index, entry.id)


def test_device_comparison_links_every_device(built: Path, knowledge_base: KnowledgeBase) -> None:
    table = page_file(built, "devices/index.md").read_text("utf-8")
    table = table.split("kb-device-comparison")[1].split("</table>")[0]
    links = {resolved(built, "devices/index.md", h) for h in Elements(table).hrefs()}
    assert links == {f"devices/{d}" for d in knowledge_base.catalog.devices}


def test_every_link_between_generated_pages_resolves(built: Path) -> None:
    for path in [*built.glob("entries/**/index.html"), *built.glob("devices/**/index.html")]:
        base = path.parent.relative_to(built).as_posix()
        for href in Elements(path.read_text("utf-8")).hrefs():
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            target = built / posixpath.normpath(posixpath.join(base, parts.path))
            assert target.is_file() or (target / "index.html").is_file(), (path, href)


def test_schema_reference_has_every_title_of_the_schemas(built: Path) -> None:
    page = page_file(built, "reference/schema.md").read_text("utf-8")

    def titles(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for name, prop in node.get("properties", {}).items():
                yield name
                yield from titles(prop)
                yield from titles(prop.get("items"))

    for document in (schema(ENTRY), schema(HARDWARE), export.export_schema()):
        for name in titles(document):
            assert f"{name}</code>" in page, name


def test_published_schemas_carry_their_address_as_id(built: Path) -> None:
    for kind, original in (
        (ENTRY, schema(ENTRY)),
        (HARDWARE, schema(HARDWARE)),
        (export.KIND, export.export_schema()),
    ):
        published = json.loads((built / "schema" / f"{kind}.schema.json").read_text("utf-8"))
        assert published["$id"] == f"{repository_address().site_url}schema/{kind}.schema.json"
        assert {k: v for k, v in published.items() if k != "$id"} == {
            k: v for k, v in original.items() if k != "$id"
        }


def test_export_holds_every_entry_and_device_with_the_librarys_evaluation(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    document = json.loads((built / "export" / "knowledge-base.json").read_text("utf-8"))
    jsonschema.Draft202012Validator(export.export_schema()).validate(document)
    assert sorted(e["id"] for e in document["entries"]) == sorted(
        e.id for e in knowledge_base.entries
    )
    assert sorted(d["id"] for d in document["devices"]) == sorted(knowledge_base.catalog.devices)
    entry = knowledge_base.entry(LM_HEAD)
    assert entry is not None
    expected = evaluation_data(evaluate_entry(entry, knowledge_base.catalog.devices))
    record = next(e for e in document["entries"] if e["id"] == LM_HEAD)
    assert record["evaluation"] == json.loads(json.dumps(expected))
    assert record["aliases"] == [ALIAS]


def test_a_former_id_redirects_to_the_entry(built: Path) -> None:
    page = (built / "entries" / ALIAS / "index.html").read_text("utf-8")
    target = "../speculative-quantized-drafter-lm-head/"
    assert f'<meta http-equiv="refresh" content="0; url={target}">' in page
    assert (built / "entries" / "flops" / "speculative-quantized-drafter-lm-head").is_dir()


@pytest.mark.parametrize("fixture", HOSTILE, ids=lambda p: p.stem)
def test_hostile_entry_text_is_text_on_the_built_page(built: Path, fixture: Path) -> None:
    page = page_file(built, f"entries/fixtures/{fixture.stem}.md").read_text("utf-8")
    elements = Elements(page)
    for tag, attrs in elements.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not (attrs.get("href") or "").lower().startswith("javascript:"), attrs
        if tag in ("img", "script"):  # only the theme's own, served from the site
            assert not urlsplit(attrs.get("src") or "").netloc, attrs
    assert "alert" not in "".join(
        s for t, a in elements.tags if t == "script" for s in a.values() if s
    )
    shown = "".join(elements.text)
    written = fixture.read_text("utf-8")
    for attack in ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>"):
        if attack in written:
            assert attack in shown  # shown as the text it is
            assert attack not in page  # never as markup


def test_one_line_fields_stay_text_in_their_place(built: Path) -> None:
    page = page_file(built, f"entries/{BLOCK_MARKUP}.md").read_text("utf-8")
    elements = Elements(page)
    assert "<title># Huge heading \U0001f680 - Bottleneck KB</title>" in page
    assert '<h1 id="kb-title"># Huge heading \U0001f680</h1>' in page
    assert [t for t, _ in elements.tags].count("h1") == 1
    assert "<h3>1. First</h3>" in page
    assert '<p class="kb-reported">Reported: - bullet</p>' in page
    assert '<p class="kb-reported">Reported: ---</p>' in page
    assert "<td>## sub</td>" in page
    # The front matter was read: no stray rule or heading before the page's own.
    assert not {"hr", "h2"} & {
        t for t, _ in elements.tags[: elements.tags.index(("h1", {"id": "kb-title"}))]
    }


def test_code_in_entry_text_stays_code(built: Path) -> None:
    page = page_file(built, f"entries/{CODE_IN_NOTES}.md").read_text("utf-8")
    notes = page.split('class="kb-prose kb-notes">')[1].split("</div>")[0]
    shown = "".join(Elements(notes).text)
    assert '```\n[link](javascript:alert(1))\n--8<-- "README.md"\n\n!!! note' in shown
    assert [t for t, _ in Elements(notes).tags] == ["p", "pre", "code", "p"]


def test_a_chart_across_six_hundred_decades_has_finite_points(kb_root: Path) -> None:
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry_file.read_text("utf-8").replace("range: [1, 1024]", "range: [1.0e-300, 1.0e+300]")
    entry_file.write_text(text.replace("2 * B * N", "2 * N * sqrt(sqrt(B))"), encoding="utf-8")
    assert check(kb_root).diagnostics == []
    kb = KnowledgeBase.load(kb_root)
    (entry,) = kb.entries

    view = compute_view(entry, list(kb.catalog.devices.values()))

    assert view.error is None and view.sweep is not None
    assert view.sweep.log and len(view.sweep.points) == 48
    xs = [x for x, _ in view.sweep.points]
    assert all(math.isfinite(x) for x in xs) and xs == sorted(xs)
    assert math.isclose(xs[0], 1.0e-300) and math.isclose(xs[-1], 1.0e300)


#: A device with measured values and achieved fractions, from a source no datasheet figure cites;
#: how one value was measured is written as hostile text.
MEASURED_DEVICE = patched(
    MINIMAL_DEVICE,
    """
memory_bandwidth:
  note: the sheet gives 3,350 GB/s
  measured:
    value: 2.9 TB/s
    how: "copy of `4 GiB` buffers, [more](https://example.com/more)"
    source: bench
interconnect_bandwidth: {value: 900 GB/s, source: sheet, direction: both_directions}
peak_flops:
  bf16: {measured: {value: 700 TFLOP/s, how: a GEMM of 8192 squared, source: bench}}
achieved_fraction:
  memory_bandwidth: {value: 0.8, source: bench}
  peak_flops: {value: 0.7, source: bench, note: large GEMMs}
sources:
  - {id: sheet, title: Sheet, url: "https://example.com/sheet", publisher: Nobody, kind: vendor,
     read: "2026-11-29"}
  - {id: bench, title: Bench, url: "https://example.com/bench", publisher: Somebody,
     kind: secondary, read: "2026-11-29"}
""",
)


def test_a_devices_measured_values_achieved_fractions_and_notes_are_on_its_page_and_export(
    kb_root: Path,
) -> None:
    (kb_root / "hardware" / "fixture-device.yaml").write_text(MEASURED_DEVICE, "utf-8")
    assert check(kb_root).diagnostics == []  # markup there is KB501's and KB503's to refuse

    site = build_site(kb_root, Options())

    page = site.pages["devices/fixture-device.md"]
    # A figure's source is its number in the list of sources, its title on hover.
    sheet = '<a class="kb-source-ref" href="#source-1" title="Sheet">[1]</a>'
    bench = '<a class="kb-source-ref" href="#source-2" title="Bench">[2]</a>'
    achieved = "<td>fraction of the datasheet value reached in practice</td>"
    figures = (
        '<tr><th scope="row">memory bandwidth</th>'
        '<td class="kb-number" data-value="3350000000000.0">3.35 TB/s</td>'
        f"<td>datasheet</td><td>{sheet}</td>"
        "<td>the sheet gives 3,350 GB/s</td></tr>"
        '<tr><th scope="row">memory bandwidth, measured</th><td class="kb-number" '
        'data-value="2900000000000.0">2.9 TB/s</td><td>measured</td>'
        f"<td>{bench}</td><td>copy of <code>4 GiB</code> buffers, "
        '<a href="https://example.com/more" rel="nofollow noopener">more</a></td></tr>'
        '<tr><th scope="row">memory bandwidth, typical achieved fraction</th>'
        f'<td class="kb-number" data-value="0.8">0.8</td>{achieved}<td>{bench}</td><td></td></tr>'
        '<tr><th scope="row">interconnect bandwidth, per direction</th>'
        '<td class="kb-number" data-value="450000000000.0">450 GB/s</td>'
        f"<td>datasheet</td><td>{sheet}</td>"
        "<td>the source gives 900 GB/s for both directions summed</td></tr>"
    )
    peaks = (
        '<tr><th scope="row">bf16</th>'
        '<td class="kb-number" data-value="989400000000000.0">989 TFLOP/s</td>'
        '<td class="kb-number" data-value="295.34328358208955">295 FLOP/B</td>'
        f"<td>datasheet</td><td>{sheet}</td><td></td></tr>"
        '<tr><th scope="row">bf16, measured</th>'
        '<td class="kb-number" data-value="700000000000000.0">700 TFLOP/s</td>'
        f"<td></td><td>measured</td><td>{bench}</td>"
        "<td>a GEMM of 8192 squared</td></tr>"
        '<tr><th scope="row">fp8</th>'
        '<td class="kb-number" data-value="1978900000000000.0">1.98 PFLOP/s</td>'
        '<td class="kb-number" data-value="590.7164179104477">591 FLOP/B</td>'
        f"<td>datasheet</td><td>{sheet}</td><td></td></tr>"
        '<tr><th scope="row">every data type, typical achieved fraction</th>'
        f'<td class="kb-number" data-value="0.7">0.7</td><td></td>{achieved}<td>{bench}</td>'
        "<td>large GEMMs</td></tr></tbody></table>"
    )
    assert figures in page
    assert peaks in page
    assert (
        '<ol class="kb-sources"><li id="source-1"><a href="https://example.com/sheet" '
        'rel="nofollow noopener">Sheet</a> (Nobody, vendor, read 2026-11-29)</li>'
        '<li id="source-2"><a href="https://example.com/bench" rel="nofollow noopener">Bench</a>'
        " (Somebody, secondary, read 2026-11-29)</li></ol>"
    ) in page
    legend = "; ".join(
        f"<em>{o['const']}</em>: {o['description']}"
        for o in schema(HARDWARE)["$defs"]["basis"]["oneOf"]
    )
    assert f'<p class="kb-legend">Basis: {legend}</p>' in page
    document = json.loads(site.assets["export/knowledge-base.json"])
    jsonschema.Draft202012Validator(export.export_schema()).validate(document)
    record = next(d for d in document["devices"] if d["id"] == "fixture-device")
    assert record["measured"] == {
        "memory_bandwidth": {
            "value": 2.9e12,
            "how": "copy of `4 GiB` buffers, [more](https://example.com/more)",
            "source": "bench",
        },
        "peak_flops.bf16": {"value": 700e12, "how": "a GEMM of 8192 squared", "source": "bench"},
    }
    assert record["achieved_fraction"] == {
        "memory_bandwidth": {"value": 0.8, "source": "bench"},
        "peak_flops": {"value": 0.7, "source": "bench", "note": "large GEMMs"},
    }
    assert record["notes"] == {"memory_bandwidth": "the sheet gives 3,350 GB/s"}
    assert record["quantities"]["interconnect_bandwidth"] == 450e9


@pytest.mark.slow
def test_the_build_says_what_kb_check_finds_and_strict_fails(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = copy_repository(tmp_path / "repository")
    entry = root / "entries" / "gemm" / "prefill-gemm.yaml"
    entry.write_text(
        entry.read_text("utf-8").replace("bound_by: compute", "bound_by: memory"), "utf-8"
    )
    found = check(root).diagnostics
    assert {(d.path, d.code) for d in found} >= {("entries/gemm/prefill-gemm.yaml", "KB406")}

    with pytest.raises(Abort, match=f"Aborted with {len(found)} errors in strict mode"):
        build(root)

    said = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert said == [f"bottleneck_kb: kb check: {located_line(d)}" for d in found]


def test_an_entry_kb_check_passes_that_its_page_cannot_evaluate_fails_a_strict_build(
    kb_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Such an entry is a bug of kb (kb check must refuse what the site cannot show): the page
    said "Not evaluated" and `mkdocs build --strict` passed. Here the bug is planted."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise EvaluationError("planted")

    monkeypatch.setattr(model_view, "evaluate_parsed", refuse)
    found = build_site(kb_root, Options()).diagnostics

    assert [(d.code, d.path, d.severity.value, d.message) for d in found] == [
        (
            "KB000",
            "entries/fixtures/minimal.yaml",
            "error",
            "kb check passes this entry, but its page could not evaluate it: planted",
        )
    ]


@pytest.mark.slow
def test_adding_an_entry_file_or_a_model_file_adds_its_pages_rows_dots_and_record(
    tmp_path: Path,
) -> None:
    """A new entry is one YAML file: its page, its rows in the indexes, its dots on every
    device that can run it, its record in the export. So is a new model of a known kind: its
    page, the models' index and the export have it. (Both are added to one copy, so that the
    copy is built twice, not three times.)"""
    from .test_estimate import INVENTED_MOE

    root = copy_repository(tmp_path / "repository")
    site = build(root)
    before = {p.relative_to(site) for p in site.rglob("*.html")}
    new_id = "flops/third-entry"
    text = (root / "entries" / "flops" / "speculative-draft.yaml").read_text("utf-8")
    (root / "entries" / f"{new_id}.yaml").write_text(
        text.replace("id: flops/speculative-draft", f"id: {new_id}").replace(
            'title: "Speculative decoding: draft-model proposal pass"', "title: A third entry"
        ),
        encoding="utf-8",
    )

    (root / "models" / "invented-moe-16x1b.yaml").write_text(INVENTED_MOE, encoding="utf-8")

    site = build(root)

    after = {p.relative_to(site) for p in site.rglob("*.html")}
    assert after - before == {
        Path(f"entries/{new_id}/index.html"),
        Path("models/invented-moe-16x1b/index.html"),
    }
    for index in ("entries/index.md", "entries/bound-by.md"):
        page = page_file(site, index).read_text("utf-8")
        folder = page_file(site, index).parent.relative_to(site).as_posix()
        href = posixpath.relpath(f"entries/{new_id}", folder)
        assert f'href="{href}/">A third entry</a>' in page
    # On every device with the bf16 peak it reads (the L4 has none).
    able = [d for d in KnowledgeBase.load(root).catalog.devices.values() if "bf16" in d.peak_flops]
    assert able
    for device in able:
        dots = parsed(site, f"devices/{device.id}.md")
        assert "../../entries/flops/third-entry/" in [
            a["href"] for t, a in dots.tags if t == "a" and a.get("class") == "kb-dot"
        ]
    document = json.loads((site / "export" / "knowledge-base.json").read_text("utf-8"))
    assert new_id in [e["id"] for e in document["entries"]]
    page = page_file(site, "models/invented-moe-16x1b.md").read_text("utf-8")
    assert "Invented MoE 16x1B" in page and "moe/grouped-expert-gemm" in page
    index = page_file(site, "models/index.md").read_text("utf-8")
    assert "Invented MoE 16x1B" in index
    assert "invented-moe-16x1b" in [m["id"] for m in document["models"]]


# --- in the browser ---------------------------------------------------------------------------


def test_entry_page_renders_math_the_librarys_numbers_and_a_labelled_chart(
    browser: Browser, knowledge_base: KnowledgeBase, built: Path
) -> None:
    page = browser.open(f"entries/{LM_HEAD}/")
    maths = page.locator("math")
    assert maths.count() == 3
    assert page.locator("math mfrac").count() >= 1
    boxes = [maths.nth(i).bounding_box() for i in range(3)]
    for box in boxes:  # typeset: MathML Core boxes, not raw text in one line
        assert box is not None and box["height"] > 10
    # Rows apart: a fraction's glyphs reach past its box, so touching boxes overlap on screen.
    for above, below in itertools.pairwise(boxes):
        assert above is not None and below is not None
        assert below["y"] - (above["y"] + above["height"]) >= 4
    entry = knowledge_base.entry(LM_HEAD)
    assert entry is not None
    evaluation = evaluate_entry(entry, knowledge_base.catalog.devices, symbolic=False)
    shown = page.eval_on_selector_all(
        ".kb-evaluation tbody tr",
        """rows => rows.map(r => [r.querySelector('[data-device]').dataset.device,
              [...r.querySelectorAll('[data-value]')].map(c => Number(c.dataset.value)),
              r.querySelector('.kb-verdict').textContent])""",
    )
    work = work_columns(evaluation.results)
    assert shown == [
        [
            r.device,
            [*(getattr(r, w) for w in work), r.ridge, r.compute_time, r.memory_time, r.time],
            r.verdict,
        ]
        for r in featured_order(evaluation.results, knowledge_base)
    ]
    chart = page.locator("svg.kb-chart").first
    labels = chart.locator("text.kb-axis-label").all_text_contents()
    assert labels == ["B (sequences)", "arithmetic intensity (FLOP/B)"]
    assert chart.locator("polyline.kb-curve").count() == 1
    # The featured devices' crossovers are marked and named; the other devices' ridges are
    # grey lines.
    featured = knowledge_base.config.featured(list(knowledge_base.catalog.devices))
    assert chart.locator(".kb-crossover").count() == len(featured)
    assert chart.locator(".kb-ridge-other").count() == len(evaluation.results) - len(featured)
    page.screenshot(path=str(REPOSITORY / "build" / "site-entry.png"), full_page=True)
    assert browser.off_localhost() == []


def test_device_page_chart_links_each_dot_to_its_entry(browser: Browser) -> None:
    page = browser.open("devices/nvidia-h100-sxm/")
    dots = page.locator("svg.kb-chart a.kb-dot")
    assert dots.count() >= 1
    hrefs = dots.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert f"../../entries/{LM_HEAD}/" in hrefs
    labels = page.locator("svg.kb-chart text.kb-axis-label").all_text_contents()
    assert labels == ["arithmetic intensity (FLOP/B)", "attainable performance (FLOP/s)"]
    page.screenshot(path=str(REPOSITORY / "build" / "site-device.png"), full_page=True)
    assert browser.off_localhost() == []


# The heading a table sits under: the last h1 to h3 before it, its permalink's "¶" left out.
_HEADING_ABOVE = """t => document.evaluate(
    'preceding::*[self::h1 or self::h2 or self::h3][1]', t, null,
    XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue.textContent.replace('\u00b6', '')"""


def _tables(page: Any) -> dict[str, tuple[str, list[list[str]]]]:
    """Each table of the page's article by its accessible name (as the browser computes it):
    the heading it sits under, and each body row's leading row headers. Every table has a
    name of its own, and each body row one row header with text."""
    tables: dict[str, tuple[str, list[list[str]]]] = {}
    # A collapsed table (a workaround's by device) is a table too: opened to be read.
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    for table in page.locator("article table").all():
        snapshot = table.aria_snapshot().splitlines()[0]
        named = re.fullmatch(r'- table "((?:[^"\\]|\\.)*)":?', snapshot)
        assert named is not None, snapshot
        name = json.loads(f'"{named.group(1)}"')
        assert name and name not in tables, name
        headers = row_headers(table)
        assert headers and all(len(h) == 1 and h[0].strip() for h in headers), name
        tables[name] = (table.evaluate(_HEADING_ABOVE).strip(), headers)
    return tables


def test_each_tables_rows_are_named_by_their_first_cell_and_each_table_by_its_heading(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """A row's name (a device, an entry, a symbol, a data type, a check) was a plain cell:
    moving along a row, a screen reader could not say whose row it was; and no table had a
    name to tell it from the others on the page."""
    entry = knowledge_base.entry(LM_HEAD)
    assert entry is not None
    devices = knowledge_base.catalog.devices
    page = browser.open(f"entries/{LM_HEAD}/")
    tables = _tables(page)
    evaluation = evaluate_entry(entry, devices, symbolic=False)
    assert tables["Evaluation on every device"] == (
        "Evaluation on every device",
        [
            [devices[r.device].short_name]
            for r in featured_order(evaluation.results, knowledge_base)
        ],
    )
    assert tables["Scales with"] == ("Scales with", [[s.symbol] for s in entry.scales_with])
    assert tables["Checks"][1][0] == ["1"]
    for name, (heading, _) in tables.items():
        # The explorer's table is named by the box it scrolls in; the answer's sits under the
        # page's title, before the first section.
        answer = name == "Lower bound on the featured devices" and heading == plain(entry.title)
        assert name.startswith(heading) or heading == "Explore" or answer, (name, heading)
    device = devices["nvidia-h100-sxm"]
    page = browser.open(f"devices/{device.id}/")
    tables = _tables(page)
    # The answer's table of ridge points sits under the device's name, before any section.
    glance = tables.pop("Ridge points at a glance")
    assert glance[0] == device.name and glance[1] == [[t] for t in dtype_order(device)]
    assert all(name == heading for name, (heading, _) in tables.items())
    ridges = [h for [h] in tables["Ridge point per data type"][1]]
    assert set(device.peak_flops) <= set(ridges)
    assert ["memory bandwidth"] in tables["Figures"][1]
    page = browser.open("entries/")
    tables = _tables(page)
    assert all(name == heading for name, (heading, _) in tables.items())
    by_class: dict[str, list[list[str]]] = {}
    for e in sorted(knowledge_base.entries, key=lambda e: e.id):
        by_class.setdefault(e.cls, []).append([plain(e.title)])
    assert sorted(rows for _, rows in tables.values()) == sorted(by_class.values())
    assert browser.errors == []


def test_search_finds_the_lm_head_entry(browser: Browser, knowledge_base: KnowledgeBase) -> None:
    page = browser.open("")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator(".md-search__input").press_sequentially("LM-head projection", delay=20)
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    assert any(LM_HEAD in (h or "") for h in results.evaluate_all("as => as.map(a => a.href)"))
    assert browser.off_localhost() == []


def _luminance(css: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"[\d.]+", css)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_dark_palette_keeps_the_chart_readable(browser: Browser) -> None:
    page = browser.open(f"entries/{LM_HEAD}/")
    page.locator("form[data-md-component=palette] label:visible").click()
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    label = page.locator("svg.kb-chart text.kb-axis-label").first
    fill = label.evaluate("t => getComputedStyle(t).fill")
    background = page.evaluate(
        "getComputedStyle(document.querySelector('.md-main')).backgroundColor"
    )
    if "rgba(0, 0, 0, 0)" in background:
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    light, dark = sorted([_luminance(fill), _luminance(background)], reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= 4.5  # WCAG AA contrast for text
    page.screenshot(path=str(REPOSITORY / "build" / "site-entry-dark.png"))


def _contrast(page: Any, colour: str) -> float:
    """`colour`'s contrast ratio with the page's background, as WCAG reckons it."""
    background = page.evaluate(
        "getComputedStyle(document.querySelector('.md-main')).backgroundColor"
    )
    if "rgba(0, 0, 0, 0)" in background:
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    light, dark = sorted([_luminance(colour), _luminance(background)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_every_series_colour_stands_out_in_both_palettes(browser: Browser) -> None:
    """The fifth series' #a0a000 had a contrast of 2.8 with the light background."""
    page = browser.open(f"entries/{LM_HEAD}/")
    lines = ".kb-x-svg .kb-ridge line"
    assert page.locator(lines).count() == 6  # every series colour, on the explorer's chart
    for scheme in ("slate", "default"):  # ending as the site opens
        if page.evaluate("document.body.dataset.mdColorScheme") != scheme:
            page.locator("form[data-md-component=palette] label:visible").click()
        assert page.evaluate("document.body.dataset.mdColorScheme") == scheme
        strokes = page.eval_on_selector_all(lines, "ls => ls.map(l => getComputedStyle(l).stroke)")
        assert len(set(strokes)) == 6
        low = {s: _contrast(page, s) for s in strokes if _contrast(page, s) < 3}
        assert low == {}, scheme  # WCAG's 3:1 for graphics
    assert browser.errors == []


def test_hostile_entries_run_nothing_in_the_browser(browser: Browser) -> None:
    for fixture in HOSTILE:
        page = browser.open(f"entries/fixtures/{fixture.stem}/")
        assert page.locator("[onerror]").count() == 0, fixture.stem
        assert page.locator("a[href^='javascript:' i]").count() == 0, fixture.stem
        assert page.evaluate("[...document.images].every(i => i.src.startsWith(location.origin))")
        if "<script>" in fixture.read_text("utf-8"):
            assert "<script>alert(1)</script>" in page.locator("h1").first.inner_text()
    # The search index holds the same text: its results must show it as text too.
    page.locator(".md-search__input").first.click()
    page.locator(".md-search__input").press_sequentially("GEMM weights", delay=20)
    page.locator(".md-search-result__item").first.wait_for(timeout=10_000)
    assert page.locator("[onerror]").count() == 0
    assert page.locator(".md-search-result script").count() == 0
    assert browser.dialogs == []
    assert browser.off_localhost() == []


def test_entry_pages_carry_claims_related_both_ways_and_the_explorer(
    built: Path, knowledge_base: KnowledgeBase
) -> None:
    one_way = 0
    for entry in knowledge_base.entries:
        page = page_file(built, f"entries/{entry.id}.md").read_text("utf-8")
        if entry.claims:
            table = page.split("kb-claims")[1].split("</table>")[0]
            assert table.count('<th scope="col">') == 3
            assert table.count("<tr>") == len(entry.claims) + 1
            # A claim a check computes links to that check's row.
            cited = re.findall(r'href="#check-(\d+)"', table)
            assert len(cited) == sum(c.check is not None for c in entry.claims), entry.id
            for number in cited:
                row_header = f'<th scope="row" id="check-{number}">{number}</th>'
                assert row_header in page, (entry.id, number)
            computed = [c.check + 1 for c in entry.claims if c.check is not None]
            assert [int(n) for n in cited] == computed, entry.id  # by index, not by words
        incoming = [
            other.id for other in knowledge_base.entries for r in other.related if r.id == entry.id
        ]
        for linked in [*(r.id for r in entry.related), *incoming]:
            related = page.split("kb-related")[1].split("</table>")[0]
            assert f"{linked}</a>" in related, (entry.id, linked)
        # A link this entry does not return reads from its side: "part of this entry".
        for other in knowledge_base.entries:
            for r in other.related:
                if r.id == entry.id and not any(mine.id == other.id for mine in entry.related):
                    related = page.split("kb-related")[1].split("</table>")[0]
                    row = f"{other.id}</a></th><td>{r.relation.replace('_', ' ')} this entry"
                    assert row in related, (entry.id, other.id)
                    one_way += 1
    assert one_way > 0
    lm_head = page_file(built, f"entries/{LM_HEAD}.md").read_text("utf-8")
    assert 'class="kb-explorer' in lm_head
    assert page_file(built, "compare.md").exists()


def test_the_explorers_heading_is_in_the_pages_table_of_contents(built: Path) -> None:
    """The script wrote the heading, so the table of contents never listed it."""
    page = parsed(built, f"entries/{LM_HEAD}.md")
    assert ("h2", {"id": "explore"}) in page.tags
    assert page.hrefs().count("#explore") == 2  # the table of contents' link and the permalink


def test_every_diagnostic_code_has_its_page_from_the_rules_documentation(built: Path) -> None:
    from bottleneck_kb.rules import REGISTRY

    index = page_file(built, "reference/rules.md").read_text("utf-8")
    for code, rule in REGISTRY.items():
        page = page_file(built, f"reference/rules/{code}.md").read_text("utf-8")
        assert f"{code} {rule.name}" in page
        for section in ("What it checks", "Why it matters", "How to fix"):
            assert (section in page) == (section in rule.doc.sections), (code, section)
        assert f"{code}</a>" in index


def test_charts_stay_within_floats_and_readable_across_every_range() -> None:
    """An intensity of 1e308 padded by 4 ended the build in an OverflowError; a range of
    1e-300 to 1e300 drew 601 labelled ticks."""
    chart = charts.roofline_chart(
        "D", 3e12, [charts.RoofLine("bf16", 1e15)], [charts.Dot("e", "e/", 1e308, 1e15)]
    )
    numbers = re.findall(r' (?:x|y|cx|cy|x1|x2|y1|y2)="([^"]+)"', chart)
    assert numbers and all(math.isfinite(float(n)) for n in numbers)
    wide = charts.axis("x", [1e-300, 1e300])
    assert len(wide.ticks()) <= charts.MAX_LOG_TICKS + 1
    assert charts.axis("x", [-1e308, 1e308]).ticks() == [-1e308, -5e307, 0.0, 5e307, 1e308]


def test_a_former_ids_shared_link_keeps_the_explorers_state(browser: Browser) -> None:
    """The redirect dropped the fragment, so the entry opened at its typical values."""
    page = browser.open(f"entries/{ALIAS}/#B=100")
    page.wait_for_url("**/speculative-quantized-drafter-lm-head/#B=100")

    assert page.locator('.kb-explorer input[type=number][data-symbol="B"]').input_value() == "100"
    assert browser.errors == []


# A4's width less Chromium's default margins, in CSS pixels, rounded down.
PAPER_WIDTH = 700


def test_printing_keeps_every_column_of_every_table_on_the_paper(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """Wide tables scroll in their boxes on screen; on paper the columns past a box's edge
    were lost (the index printed 6 of its 16 devices)."""
    page = browser.new_page()
    page.set_viewport_size({"width": PAPER_WIDTH, "height": 1000})
    page.emulate_media(media="print")
    paths = ["entries/", "devices/", *(f"entries/{e.id}/" for e in knowledge_base.entries)]
    for path in paths:
        browser.open(path, page)
        cells, cut = page.eval_on_selector_all(
            "th, td",
            """cells => [cells.length, cells.filter(c => {
                const box = c.getBoundingClientRect();
                return box.width > 0 && (box.left < 0 || c.scrollWidth > c.clientWidth + 1 ||
                    box.right > document.documentElement.clientWidth);
            }).map(c => c.textContent)]""",
        )
        assert cells > 0 and cut == [], path
    browser.open(f"entries/{LM_HEAD}/", page)
    assert page.locator(".kb-x-results td").count() > 0  # the explorer's table among them
    page.close()
    assert browser.errors == []


def test_no_entry_page_scrolls_sideways_on_a_narrow_phone(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """At 320 pixels a formula beside its 9em name, or a workaround's title in its picker,
    made the whole page wider than the screen."""
    page = browser.new_page()
    page.set_viewport_size({"width": 320, "height": 800})
    for entry in knowledge_base.entries:
        browser.open(f"entries/{entry.id}/", page)
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), entry.id
    page.close()
    assert browser.errors == []


#: The least height of a chart's text on screen, in CSS pixels: the static charts' on a desktop.
READABLE_CHART_TEXT = 9

# Each chart's text height on screen: its font size times the scale its viewBox is drawn at.
_CHART_TEXT = """ss => ss.map(s => s.getScreenCTM().a
    * parseFloat(getComputedStyle(s.querySelector('text')).fontSize))"""


# How many charts their least width widens, or scroll in their box.
_WIDENED = """ss => ss.filter(s => {
    const width = s.getBoundingClientRect().width;
    s.style.minWidth = '0';
    const free = s.getBoundingClientRect().width;
    s.style.minWidth = '';
    return width !== free || s.parentElement.scrollWidth > s.parentElement.clientWidth;
}).length"""


def test_charts_keep_their_text_readable_on_a_phone_in_a_box_that_scrolls_by_keyboard(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """Charts were drawn at the column's width: on a 375-pixel phone their 12px text was 6.4
    pixels high. A chart keeps a least width and scrolls in its own box instead, which the
    keyboard reaches; on a desktop the charts are as they were, and nothing scrolls."""
    device = knowledge_base.catalog.devices["nvidia-h100-sxm"]
    paths = [f"entries/{e.id}/" for e in knowledge_base.entries] + [f"devices/{device.id}/"]
    page = browser.new_page()
    page.set_viewport_size({"width": 375, "height": 800})
    for path in paths:
        browser.open(path, page)
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), path
        sizes = page.eval_on_selector_all("svg.kb-chart", _CHART_TEXT)
        assert all(size >= READABLE_CHART_TEXT for size in sizes), (path, sizes)
        boxes = page.eval_on_selector_all(
            "svg.kb-chart",
            "ss => ss.map(s => "
            "s.parentElement.matches('[tabindex=\"0\"][role=group][aria-label]'))",
        )
        assert all(boxes), path
    box = page.get_by_role("group", name=f"Roofline of {device.name} chart", exact=True)
    assert box.evaluate("b => b.scrollWidth > b.clientWidth && b.scrollLeft === 0")
    box.focus()
    page.keyboard.press("ArrowRight")
    assert box.evaluate("b => b === document.activeElement")
    # A key scrolls smoothly: the box moves over a few frames.
    page.wait_for_function("b => b.scrollLeft > 0", arg=box.element_handle(), timeout=5_000)
    browser.open(f"entries/{LM_HEAD}/", page)
    for name in ("Arithmetic intensity against B", "intensity (FLOP/B) against B"):
        box = page.get_by_role("group", name=f"{name} chart", exact=True)
        assert box.locator("svg.kb-chart").count() == 1, name
    page.set_viewport_size({"width": 1280, "height": 800})
    for path in (f"entries/{LM_HEAD}/", f"devices/{device.id}/"):
        browser.open(path, page)
        assert page.eval_on_selector_all("svg.kb-chart", _WIDENED) == 0, path
    page.close()
    assert browser.errors == []


def _keyboard_focus_ring(page: Any, selector: str) -> dict[str, str]:
    """The outline of the first element `selector` finds once the keyboard has moved to it."""
    control = page.locator(selector).first
    control.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    ring: dict[str, str] = control.evaluate(
        """c => ({focused: String(c === document.activeElement && c.matches(':focus-visible')),
                 style: getComputedStyle(c).outlineStyle,
                 width: getComputedStyle(c).outlineWidth})"""
    )
    return ring


def test_the_explorers_and_compare_pages_controls_show_the_keyboards_focus(
    browser: Browser,
) -> None:
    """The theme takes the outline off inputs: a slider, a field or a box focused by keyboard
    looked like any other."""
    ring = {"focused": "true", "style": "solid", "width": "2px"}
    page = browser.open(f"entries/{LM_HEAD}/")
    for kind in ("range", "number", "checkbox"):
        assert _keyboard_focus_ring(page, f".kb-explorer input[type={kind}]") == ring, kind
    browser.open(f"compare/#@entries={LM_HEAD}")
    for kind in ("number", "checkbox"):
        assert _keyboard_focus_ring(page, f".kb-compare input[type={kind}]") == ring, kind
    assert browser.errors == []


def test_the_explorers_table_fields_and_buttons_look_like_the_sites(browser: Browser) -> None:
    """The theme styles only tables without a class and takes borders off inputs and buttons:
    the results' numbers ran together, fields read as text and "all" "none" as "allnone"."""
    page = browser.open(f"entries/{LM_HEAD}/")
    cell = page.locator(".kb-x-results td.kb-number").first
    padding, rule = cell.evaluate(
        """c => [parseFloat(getComputedStyle(c).paddingLeft),
                 getComputedStyle(c).borderTopStyle]"""
    )
    assert padding >= 8 and rule == "solid"
    for control in (".kb-explorer input[type=number]", ".kb-explorer button"):
        assert (
            page.locator(control).first.evaluate("c => getComputedStyle(c).borderStyle") == "solid"
        ), control
    every, none = (page.get_by_role("button", name=n, exact=True) for n in ("all", "none"))
    first, second = every.bounding_box(), none.bounding_box()
    assert first is not None and second is not None
    assert second["x"] - (first["x"] + first["width"]) >= 4
    assert browser.errors == []


def test_the_compare_page_lists_one_entry_a_line(browser: Browser) -> None:
    """The entries flowed inline: each box stood at the end of the title before it."""
    page = browser.open("compare/")
    boxes = page.eval_on_selector_all(
        ".kb-x-entries label",
        """labels => labels.map(l => [l.getBoundingClientRect().left,
            l.querySelector('input').getBoundingClientRect().left,
            l.getBoundingClientRect().top])""",
    )
    assert len(boxes) > 2
    assert len({round(left) for left, _, _ in boxes}) == 1  # every label starts its own line
    assert all(box >= left for left, box, _ in boxes)  # and its box begins it
    assert all(a[2] < b[2] for a, b in itertools.pairwise(boxes))
    assert browser.errors == []


def test_a_link_in_a_title_is_text_where_the_title_is_itself_a_link(kb_root: Path) -> None:
    """In the entry index, the device pages and the references, a title's link inside the
    page's own ended that one: part of the listed title led off the site."""
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    entry.write_text(
        patched(
            MINIMAL_ENTRY,
            'title: "Decode [read the entry](https://evil.example/phish)"\n'
            "references:\n"
            '  - {title: "Paper [mirror](https://evil.example/mirror)", first_author: X, '
            "year: 2020, url: https://example.org/paper}",
        ),
        "utf-8",
    )
    assert check(kb_root).errors == 0

    site = build_site(kb_root, Options())

    nested = re.compile(r"<a [^>]*>(?:(?!</a>).)*<a ", re.S)
    assert [p for p, html in site.pages.items() if nested.search(html)] == []
    page = site.pages["entries/fixtures/minimal.md"]
    assert 'rel="nofollow noopener">Paper <span>mirror</span></a>' in page
    assert '<a href="https://evil.example/phish" rel="nofollow noopener">read the entry</a>' in page


def test_a_count_among_a_devices_figures_is_a_whole_number(kb_root: Path) -> None:
    """The scale-up domain's 8 devices read "8.0", a ratio's form."""
    page = build_site(kb_root, Options()).pages["devices/nvidia-h100-sxm.md"]
    row = next(
        r for r in page.split("<tr>") if r.startswith('<th scope="row">scale up domain</th>')
    )
    assert 'data-value="8.0">8</td>' in row


@pytest.mark.parametrize("low", [1.0e-150, 5.68e-60, 1.13e-132, 1.17e104])
def test_a_chart_up_to_the_largest_float_is_drawn(kb_root: Path, low: float) -> None:
    """The last point's logarithm rounded one ulp past the largest float's, and its exp ended
    the site build in an OverflowError."""
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry_file.read_text("utf-8").replace(
        "range: [1, 1024]", f"range: [{low!r}, 1.7976931348623157e+308]"
    )
    text = text.replace("typical: 8\n", "typical: 1.0e+200\n")
    entry_file.write_text(text.replace("flops: 2 * B * N", "flops: 2 * N + B / 1e300"), "utf-8")
    assert check(kb_root).errors == 0
    kb = KnowledgeBase.load(kb_root)
    (entry,) = kb.entries

    view = compute_view(entry, list(kb.catalog.devices.values()))

    assert view.error is None and view.sweep is not None
    assert view.sweep.points[-1][0] == 1.7976931348623157e308


def test_an_entry_whose_time_rounds_to_zero_has_no_dot_and_the_build_goes_on(
    kb_root: Path,
) -> None:
    """Its FLOPs over its time, where a device's roofline places it, ended the build in a
    ZeroDivisionError on every device page."""
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry_file.read_text("utf-8").replace("flops: 2 * B * N", "flops: 0 * B * N")
    text = text.replace("bytes: 2 * N", 'bytes: "5.0e-324"')
    entry_file.write_text(text.replace("bound_by: memory", "bound_by: compute"), "utf-8")
    assert check(kb_root).errors == 0

    page = build_site(kb_root, Options()).pages["devices/nvidia-h100-sxm.md"]

    assert 'class="kb-dot"' not in page


def test_checks_sharing_a_claims_words_keep_their_own_numbers(kb_root: Path) -> None:
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    entry_file.write_text(
        patched(
            MINIMAL_ENTRY,
            """
checks:
  - {claim: Memory-bound., set: {B: 8}, devices: [nvidia-h100-sxm], expect: {bound_by: memory}}
  - {claim: Memory-bound., set: {B: 16}, devices: [nvidia-h100-sxm], expect: {bound_by: memory}}
claims:
  - {card: Memory-bound at batch 16., verdict: computed, check: 1}
""",
        ),
        "utf-8",
    )
    assert check(kb_root).errors == 0

    page = build_site(kb_root, Options()).pages["entries/fixtures/minimal.md"]

    assert '<th scope="row" id="check-1">1</th>' in page
    assert '<th scope="row" id="check-2">2</th>' in page
    claims = page.split("kb-claims")[1].split("</table>")[0]
    assert '<a href="#check-2">check 2</a> holds' in claims


def test_a_titles_markdown_is_rendered_away_in_the_browsers_tab_and_scripts(
    kb_root: Path,
) -> None:
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    entry_file.write_text(patched(MINIMAL_ENTRY, "title: 'A `vector<float>` *GEMM*'"), "utf-8")
    assert check(kb_root).diagnostics == []

    site = build_site(kb_root, Options())

    page = site.pages["entries/fixtures/minimal.md"]
    assert page.startswith('---\ntitle: "A vector&lt;float&gt; GEMM"\n---\n')
    script = site.assets["assets/explorer/entries/fixtures/minimal.js"]
    assert '"title":"A vector\\u003cfloat\\u003e GEMM"' in script


def test_a_symbols_bound_is_shown_with_its_range(built: Path) -> None:
    """The all-reduce's ring of P devices is at most the device's scale-up domain: said where
    the page gives P's range, beside the devices it skips."""
    page = page_file(built, "entries/collective/tensor-parallel-all-reduce.md").read_text("utf-8")
    assert "<td>2 to 72 devices; at most the device's <code>scale_up_domain</code></td>" in page
    skipped = re.search(r'<p class="kb-skipped">(.*?)</p>', page)
    assert skipped is not None and "no scale_up_domain in the catalog" in skipped.group(1)


def test_a_workaround_step_that_does_not_fit_shows_no_speedup(built: Path) -> None:
    page = page_file(built, "entries/speculative/verification.md").read_text("utf-8")
    rows = re.findall(r'<tr><th scope="row">TPU v5e</th>(.*?)</tr>', page)
    modeled = [row for row in rows if ">does not fit</td>" in row]
    assert len(modeled) == 1, rows  # its row of the workaround's table


def test_a_count_a_hardware_parameter_names_is_written_as_a_count(kb_root: Path) -> None:
    """A scale-up domain of 8 read "8.0" in an entry's hardware parameters."""
    (kb_root / MINIMAL_PATH).write_text(
        patched(
            MINIMAL_ENTRY,
            "hardware_parameters:\n"
            "  - parameter: scale_up_domain\n"
            "    effect: Sets how many devices one all-reduce spans.\n"
            "    values_for: [nvidia-h100-sxm]\n"
            "    magnitude: 8 devices\n"
            "    basis: datasheet\n",
        ),
        "utf-8",
    )
    page = build_site(kb_root, Options()).pages["entries/fixtures/minimal.md"]
    shown = page.split('aria-label="Hardware parameters"')[1].split("</table>")[0]
    assert re.findall(r"</a>: ([^<]*)<", shown) == ["8"]


# --- models -------------------------------------------------------------------------------


def test_every_model_has_its_page_with_kb_estimates_numbers(built: Path, kb_copy: Path) -> None:
    """The page states the typical deployment's numbers as `kb estimate` gives them: one row a
    device, in the order of decode time, each number's exact value in data-value."""
    from bottleneck_kb.composition.cards import recipe_cards
    from bottleneck_kb.composition.request import estimate_model

    kb = KnowledgeBase.load(kb_copy)
    cards = recipe_cards(kb_copy)
    assert kb.models
    for model in kb.models:
        found = estimate_model(model, {}, list(kb.catalog.devices.values()), cards)
        page = page_file(built, f"models/{model.id}.md").read_text("utf-8")
        table = page.split('aria-label="On each device"')[1].split("</table>")[0]
        # Each row names its device by a link to the device's page (its short name shown).
        rows = re.findall(r'<th scope="row"><a href="../../devices/([^/"]+)/"', table)
        expected = featured_order(
            sorted(found.results, key=lambda r: r.phase_seconds("decode")), kb
        )
        assert rows == [r.device for r in expected], model.id
        first = table.split("<tr>")[2]
        values = re.findall(r'data-value="([^"]+)"', first)
        assert float(values[2]) == expected[0].phase_seconds("decode"), model.id
        for skipped in found.skipped:
            assert f"{skipped.device}: " in page


def test_the_export_carries_each_model_with_its_estimate(built: Path, kb_copy: Path) -> None:
    document = json.loads((built / "export" / "knowledge-base.json").read_text("utf-8"))
    kb = KnowledgeBase.load(kb_copy)
    assert sorted(m["id"] for m in document["models"]) == sorted(m.id for m in kb.models)
    record = next(m for m in document["models"] if m["id"] == "llama-3.1-70b")
    assert record["estimate"]["deployment"]["tp"] == 8
    h100 = next(r for r in record["estimate"]["results"] if r["device"] == "nvidia-h100-sxm")
    assert h100["weights_bytes"] == 141_107_412_992


def _explored(page: Any) -> dict[str, list[float]]:
    """The model explorer's table: each device's exact values (data-value), by device."""
    rows = page.locator(".kb-model-results tbody tr").evaluate_all(
        """rows => rows.map(r => [r.cells[0].textContent,
            Array.from(r.querySelectorAll('td.kb-number')).map(c => Number(c.dataset.value))])"""
    )
    return {device: values for device, values in rows}


def test_the_model_explorer_gives_kb_estimates_numbers(browser: Browser, kb_copy: Path) -> None:
    """At the typical deployment and after a reader moves batch and tp, every device's row is
    what `kb estimate` gives: prefill, floors, decode, tokens a second, memory, max batch."""
    from bottleneck_kb.composition.cards import recipe_cards
    from bottleneck_kb.composition.request import estimate_model

    kb = KnowledgeBase.load(kb_copy)
    model = kb.model("llama-3.1-70b")
    assert model is not None
    cards = recipe_cards(kb_copy)
    page = browser.open("models/llama-3.1-70b/")
    page.wait_for_selector(".kb-model-results table")
    for given in ({}, {"batch": 64.0}, {"batch": 64.0, "tp": 4.0}):
        for name, value in given.items():
            control = page.locator(f"#kb-model-{name}")
            if name == "tp":
                control.select_option(str(int(value)))
            else:
                control.fill(str(int(value)))
                control.dispatch_event("change")
        found = estimate_model(model, given, list(kb.catalog.devices.values()), cards)
        explored = _explored(page)
        assert list(explored) == [
            r.device for r in sorted(found.results, key=lambda r: r.phase_seconds("decode"))
        ]
        for result in found.results:
            decode = result.phase_seconds("decode")
            expected = [
                result.phase_seconds("prefill"),
                result.floor("prefill"),
                decode,
                result.floor("decode"),
                result.batch / decode,
                result.footprint_bytes_per_device,
                float(result.max_batch),
            ]
            assert explored[result.device] == pytest.approx(expected, rel=1e-12), (
                given,
                result.device,
            )
    assert browser.errors == []
    page.screenshot(path=str(REPOSITORY / "build" / "site-model.png"), full_page=True)
    assert browser.off_localhost() == []


def test_every_models_explorer_gives_kb_estimates_numbers_at_its_typical_deployment(
    browser: Browser, kb_copy: Path
) -> None:
    from bottleneck_kb.composition.cards import recipe_cards
    from bottleneck_kb.composition.request import estimate_model

    kb = KnowledgeBase.load(kb_copy)
    cards = recipe_cards(kb_copy)
    for model in kb.models:
        page = browser.open(f"models/{model.id}/")
        page.wait_for_selector(".kb-model-results table")
        found = estimate_model(model, {}, list(kb.catalog.devices.values()), cards)
        explored = _explored(page)
        assert sorted(explored) == sorted(r.device for r in found.results), model.id
        for result in found.results:
            decode = result.phase_seconds("decode")
            assert explored[result.device][2] == pytest.approx(decode, rel=1e-12), model.id
            assert explored[result.device][0] == pytest.approx(
                result.phase_seconds("prefill"), rel=1e-12
            ), model.id
    assert browser.errors == []


def test_every_measurement_is_on_its_page_the_measurements_page_and_the_export(
    built: Path, kb_copy: Path
) -> None:
    """Each card's and model's measurements are on its page (the number kb check judged, in
    data-value) and on the measurements page; the export carries them, as kb eval gives them."""
    from bottleneck_kb.composition.cards import recipe_cards
    from bottleneck_kb.composition.measured import model_outcomes
    from bottleneck_kb.evaluation.measured import card_outcomes

    kb = KnowledgeBase.load(kb_copy)
    devices = kb.catalog.devices
    every = [
        (f"entries/{e.id}.md", o)
        for e in kb.entries
        if e.measurements and not e.id.startswith("fixtures/")
        for o in card_outcomes(Evaluator.of(e), devices)
    ]
    cards = recipe_cards(kb_copy)
    every += [
        (f"models/{m.id}.md", o) for m in kb.models for o in model_outcomes(m, devices, cards)
    ]
    assert len(every) >= 30
    listing = page_file(built, "measurements.md").read_text("utf-8")
    document = json.loads((built / "export" / "knowledge-base.json").read_text("utf-8"))
    exported = {
        m["key"]: m
        for record in (*document["entries"], *document["models"])
        for m in record["measurements"]
    }
    for page, found in every:
        text = page_file(built, page).read_text("utf-8")
        section = text.split('id="measured"')[1].split('aria-label="Measured"')[1]
        assert f'data-value="{found.bound_s!r}"' in section, (page, found.key)
        assert f'data-value="{found.fraction!r}"' in listing, found.key
        assert exported[found.key]["fraction_of_bound"] == found.fraction
        assert exported[found.key]["measured_s"] == found.measured_s
    assert len(exported) == len(every)


@pytest.mark.slow
def test_the_measurements_page_sorts_and_each_chart_draws_the_line_of_equality(
    browser: Browser,
) -> None:
    page = browser.open("measurements/")
    rows = page.locator(".kb-sortable tbody tr")
    count = rows.count()
    assert count >= 30
    fractions = page.locator(".kb-sortable tbody td:nth-child(5)")

    def shown() -> list[float]:
        return [float(v) for v in fractions.evaluate_all("cs => cs.map(c => c.dataset.value)")]

    assert shown() == sorted(shown(), reverse=True)  # as written: closest to its bound first
    header = page.locator(".kb-sortable thead th").nth(4)
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert shown() == sorted(shown())
    header.locator("button").click()
    assert shown() == sorted(shown(), reverse=True)
    # The tables fit the content column at 1400 px: no sideways scrolling to reach a source.
    fits = """() => Array.from(document.querySelectorAll('.kb-measurements table')).every(t =>
        t.getBoundingClientRect().width <= document.querySelector('article')
            .getBoundingClientRect().width + 1 && t.scrollWidth <= t.clientWidth + 1)"""
    for path in ("measurements/", "entries/elementwise/rmsnorm/", "models/llama-2-7b/"):
        page = browser.open(path)
        page.set_viewport_size({"width": 1400, "height": 900})
        assert page.evaluate(fits), path
    # A card's page: the chart's points lie on or above the diagonal, and it says so in words.
    card = browser.open("entries/elementwise/rmsnorm/")
    chart = card.locator("#measured ~ figure svg.kb-chart").first
    assert "every point lies on or above it" in chart.locator("desc").text_content()
    line = chart.locator(".kb-equality line")
    x1, y1, x2, y2 = (float(line.get_attribute(a)) for a in ("x1", "y1", "x2", "y2"))
    for circle in chart.locator("circle.kb-measured").all():
        cx, cy = float(circle.get_attribute("cx")), float(circle.get_attribute("cy"))
        # SVG's y grows downwards: above the line is a smaller y than the line's at cx.
        assert cy <= y1 + (y2 - y1) * (cx - x1) / (x2 - x1) + 0.5
    assert browser.off_localhost() == []


def test_an_expected_time_stands_beside_the_bound_only_where_a_class_fraction_exists(
    built: Path,
) -> None:
    page = page_file(built, "entries/elementwise/rmsnorm.md").read_text("utf-8")
    table = page.split('aria-label="Evaluation on every device"')[1].split("</table>")[0]
    rows = {
        re.search(r'data-device="([^"]+)"', row).group(1): row  # type: ignore[union-attr]
        for row in table.split("<tr>")[2:]
    }
    # The H100 gives elementwise kernels 0.83 of its bandwidth, the A100 0.7; the MI300X none.
    assert 'title="0.83 of memory_bandwidth, from elementwise/rmsnorm#' in rows["nvidia-h100-sxm"]
    assert (
        'title="0.7 of memory_bandwidth, from elementwise/rmsnorm#' in rows["nvidia-a100-sxm-80gb"]
    )
    assert rows["amd-instinct-mi300x"].rstrip().endswith("<td></td></tr>")


#: One page of each kind a reader lands on, by its path below the site.
READER_PAGES = {
    "home": "",
    "entry": f"entries/{LM_HEAD}/",
    "device": "devices/nvidia-h100-sxm/",
    "entries-index": "entries/",
    "devices-index": "devices/",
    "model": "models/llama-3.1-70b/",
    "compare": "compare/",
}
#: Where the screenshots go, for a person to look at (CI keeps build/ as its artefact).
SCREENSHOTS = REPOSITORY / "build" / "screenshots"


def local_context(chromium: Any, width: int, scheme: str) -> Any:
    """A context of the session's Chromium `width` px wide and 900 high in the `scheme`
    palette, which refuses every request that would leave localhost."""
    context = chromium.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if urlsplit(route.request.url).hostname == "127.0.0.1"
            else route.abort()
        ),
    )
    return context


def test_every_page_kind_fits_both_widths_in_both_palettes(chromium: Any, served: str) -> None:
    """At a desktop's 1400 px and a phone's 390 px, light and dark: no page scrolls sideways,
    every table fits its column or scrolls inside its own box, and an entry page's first
    screen (1400 x 900) holds the lower bound on the first featured device. A screenshot of
    each goes to build/screenshots/ (geometry is asserted; pixels are for the eye)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, scheme in itertools.product((1400, 390), ("light", "dark")):
        context = local_context(chromium, width, scheme)
        page = context.new_page()
        for kind, path in READER_PAGES.items():
            page.goto(served + path)
            page.wait_for_load_state("load")
            page.screenshot(path=str(SCREENSHOTS / f"{kind}-{width}-{scheme}.png"))
            where = f"{kind} at {width} px, {scheme}"
            scroll = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll[0] <= scroll[1], f"{where} scrolls sideways: {scroll}"
            # A table wider than its box must be inside a box that scrolls, within the page.
            overflowing = page.evaluate(
                """() => [...document.querySelectorAll('article table')].filter(t => {
                    const box = t.getBoundingClientRect();
                    let up = t.parentElement;
                    while (up && getComputedStyle(up).overflowX === 'visible') {
                        up = up.parentElement;
                    }
                    const frame = up ? up.getBoundingClientRect() : {left: 0, right: innerWidth};
                    const inside = box.left >= frame.left - 1 && box.right <= frame.right + 1;
                    const scrolls = up
                        && ['auto', 'scroll'].includes(getComputedStyle(up).overflowX)
                        && frame.right <= innerWidth + 1;
                    return !inside && !scrolls;
                }).map(t => t.getAttribute('aria-label'))"""
            )
            assert overflowing == [], f"{where}: tables past their box {overflowing}"
            if width == 1400:
                # The per-device tables fit the column whole: nothing to scroll to.
                clipped = page.evaluate(
                    """() => [...document.querySelectorAll(
                        '.kb-evaluation, .kb-crossovers, .kb-answer-table, .kb-index,'
                        + ' .kb-device-comparison')]
                      .flatMap(b => [...b.querySelectorAll('.md-typeset__scrollwrap')])
                      .filter(w => w.scrollWidth > w.clientWidth + 1).length"""
                )
                assert clipped == 0, f"{where}: {clipped} per-device tables scroll sideways"
            if kind == "entry" and width == 1400:
                first = page.locator(".kb-answer-table tbody tr").first.locator("td").first
                box = first.bounding_box()
                assert box is not None and box["y"] + box["height"] <= 900, box
        context.close()
    assert len(list(SCREENSHOTS.glob("*.png"))) >= 4 * len(READER_PAGES)


def test_the_readers_device_is_remembered_across_pages(browser: Browser) -> None:
    """Made "my device" on its page, a device gets its row in every entry page's answer,
    beside the featured devices, with the lower bound the static table gives it."""
    page = browser.open("devices/nvidia-l40s/")
    button = page.locator("button.kb-my-device")
    assert button.text_content() == "Make this my device"
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    page = browser.open(f"entries/{LM_HEAD}/")
    chosen = page.locator(".kb-answer-table tr.kb-chosen")
    assert chosen.locator("th").text_content() == "L40S (yours)"
    bound = page.locator('.kb-evaluation th[data-device="nvidia-l40s"] ~ td.kb-lower-bound')
    assert chosen.locator("td").first.text_content() == bound.text_content()
    assert page.locator(".kb-device-choice select").input_value() == "nvidia-l40s"
    # Chosen away on the entry page, it is gone there and on the next page too.
    page.locator(".kb-device-choice select").select_option("")
    assert page.locator(".kb-answer-table tr.kb-chosen").count() == 0
    page = browser.open("entries/gemm/prefill-gemm/")
    assert page.locator(".kb-answer-table tr.kb-chosen").count() == 0
    assert browser.errors == []


#: axe-core, the accessibility engine, from the npm registry at a pinned version.
AXE = "axe-core@4.14.1"


@pytest.fixture(scope="session")
def axe_script(tmp_path_factory: pytest.TempPathFactory) -> str:
    """axe-core's script, installed with the machine's npm (in CI a missing npm fails)."""
    folder = npm_install(AXE, tmp_path_factory.mktemp("axe"))
    return (folder / "axe.min.js").read_text("utf-8")


def test_axe_finds_no_serious_violation_on_any_page_kind(
    chromium: Any, served: str, axe_script: str
) -> None:
    """axe-core (WCAG 2 A and AA, and its best practices), run inside the same Chromium on
    each page kind in both palettes: no serious or critical violation."""
    found = []
    for scheme in ("light", "dark"):
        context = local_context(chromium, 1400, scheme)
        page = context.new_page()
        for kind, path in {**READER_PAGES, "entries-by-bound": "entries/bound-by/"}.items():
            page.goto(served + path)
            page.wait_for_load_state("load")
            page.add_script_tag(content=axe_script)  # no request: the script is inlined
            violations = page.evaluate(
                """() => axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']})
                    .then(r => r.violations
                        .filter(v => ['serious', 'critical'].includes(v.impact))
                        .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', ')))"""
            )
            found += [f"{kind} ({scheme}): {v}" for v in violations]
        context.close()
    assert found == []


def test_an_entry_pages_own_html_stays_light(built: Path, knowledge_base: KnowledgeBase) -> None:
    """Under 150 KB each: the answer-first page is read on a phone too (its explorer's script
    and the theme's are assets, cached across pages)."""
    sizes = {
        entry.id: page_file(built, f"entries/{entry.id}.md").stat().st_size
        for entry in knowledge_base.entries
    }
    assert max(sizes.values()) < 150_000, max(sizes.items(), key=lambda item: item[1])
