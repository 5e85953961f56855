"""The explorer in headless Debian Chromium: for every entry, at random points within its
ranges (with and without each workaround), the raw values the page computes equal the
library's evaluation; hostile text and formulas run no script; a copied link reproduces what
the reader saw; no request leaves localhost; and the page stays light.

Until the site's pages embed it, each entry gets a small static page made of the same block,
payload and scripts (`explorer_block`, `explorer_assets`), served from a local http.server."""

from __future__ import annotations

import itertools
import json
import math
import posixpath
import random
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import markdown
import pytest
from click.testing import CliRunner

from bottleneck_kb.cli import main
from bottleneck_kb.core.numbers import exact_number, format_quantity
from bottleneck_kb.evaluation.entry import check_overrides, evaluate_entry, select_devices
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.evaluation.formulas import Formulas, parse_formulas
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.maths.formula import power
from bottleneck_kb.records.entry import Entry
from bottleneck_kb.records.fields import dtype_traits
from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched
from bottleneck_kb.site import charts
from bottleneck_kb.site.explorer import ASSETS as SHIPPED
from bottleneck_kb.site.explorer import (
    compare_body,
    entry_script,
    explorer_assets,
    explorer_block,
    script_path,
)
from bottleneck_kb.site.prose import plain
from bottleneck_kb.site.view import parse_all

from ..browser import Browser, row_headers
from ..conftest import EARLY_CARDS, REPOSITORY, copy_repository
from ..unit.test_formula_js import POWERS

SCREENSHOTS = REPOSITORY / "build" / "screenshots"
LM_HEAD = "flops/speculative-quantized-drafter-lm-head"
H100 = "nvidia-h100-sxm"
POINTS = 20
HOSTILE = "flops/hostile-explorer"
HOSTILE_FORMULA = "flops/hostile-formula"
WEIGHT_LIMIT = 300 * 1024
ODD = "flops/odd-symbols"
# A symbol named as a property every JavaScript object has, and ranges whose width (X) or
# ratio (N) is past the largest float.
ODD_ENTRY = patched(
    MINIMAL_ENTRY,
    """
id: flops/odd-symbols
title: Symbols named like object properties, ranges past float arithmetic
arithmetic_intensity:
  summary: A decode GEMM whose symbols stress the explorer.
  flops: 2 * constructor * N
  bytes: 2 * N + max(X, 1)
scales_with:
  - {name: batch, symbol: constructor, description: Rows., typical: 8, range: [1, 64]}
  - {name: weights, symbol: N, description: Weights., typical: 7.0e+9, range: [1.0e-200, 1.0e+200]}
  - {name: offset, symbol: X, description: Bytes., typical: 1.0e+9, range: [-1.0e+308, 1.0e+308]}
""",
)

FLOORED = "flops/floored-root"
# A floor of a square root at a value whose root is a hair under 511 (math.pow says 511.0):
# the explorer has to compute it as the static table (the library) does, and say so.
FLOORED_ENTRY = patched(
    MINIMAL_ENTRY,
    """
id: flops/floored-root
title: Square-tiled GEMM
arithmetic_intensity:
  summary: One tile side of floor(sqrt(x)) rows; the work grows a thousandfold past 510 rows.
  flops: 2 * N * (1 + 1000 * (floor(x ** 0.5) - 510))
scales_with:
  - {name: tile_area, symbol: x, description: Elements., typical: 261120.99999999997,
     range: [261000, 261200]}
  - {name: weights, symbol: N, description: Weights., typical: 1.0e+9}
""",
)

DISJOINT = "flops/disjoint-tile"
# The floored entry's x, over a range that does not meet its range; a range ending at 2**20,
# and derived values past six digits, whole and not.
DISJOINT_ENTRY = patched(
    MINIMAL_ENTRY,
    """
id: flops/disjoint-tile
title: Small tiles
arithmetic_intensity:
  summary: A tile of x elements.
  flops: 2 * N * x * c * constructor
scales_with:
  - {name: tile_area, symbol: x, description: Elements., typical: 2, range: [1, 4]}
  - {name: rows, symbol: constructor, description: Rows., unit: rows, typical: 2, range: [1, 8]}
  - {name: weights, symbol: N, description: Weights., typical: 1.0e+9}
  - {name: cache, symbol: c, description: Bytes., unit: B, typical: 1024, range: [1024, 1048576]}
derived:
  - {name: whole, formula: x * 33554432, unit: B, description: Whole bytes.}
  - {name: split, formula: x * 33554432.25, unit: B, description: Bytes and a quarter.}
  - {name: almost, formula: x * 50000.2, unit: B, description: Not quite a whole number.}
""",
)


PINNED = "flops/pinned-bits"
# Symbols in every state a control can be in: read (B, c), set by a workaround (q by the
# second), in no formula (D), read only by a workaround that sets it (r), and read only by a
# workaround that leaves it to the reader (g). Its c is the disjoint entry's, in the same unit.
PINNED_ENTRY = patched(
    MINIMAL_ENTRY,
    """
id: flops/pinned-bits
title: Quantized weights
arithmetic_intensity:
  summary: A decode GEMM over N weights of q bits each.
  flops: 2 * B * N
  bytes: N * q / 8 + c
scales_with:
  - {name: batch, symbol: B, description: Rows., unit: rows, typical: 4, range: [1, 64]}
  - {name: weights, symbol: N, description: Weights., typical: 1.0e+9}
  - {name: bits, symbol: q, description: Bits a weight., unit: bits, typical: 16, range: [4, 16]}
  - {name: cache, symbol: c, description: Bytes., unit: B, typical: 2048, range: [1024, 4096]}
  - {name: depth, symbol: D, description: In no formula., unit: candidates, typical: 4,
     range: [1, 64]}
  - {name: rank, symbol: r, description: Rank., typical: 512, range: [64, 4096]}
  - {name: group, symbol: g, description: Weights a scale., typical: 128, range: [32, 256]}
workarounds:
  - title: Low rank
    description: Factored weights.
    model: {set: {r: 512}, bytes: "N * r / 4096 * q / 8 + c"}
  - title: Quantized
    description: Four-bit weights.
    model: {set: {q: 4}}
  - title: Grouped scales
    description: One 16-bit scale a group.
    model: {bytes: "N * (q + 16 / g) / 8 + c"}
""",
)

FIXTURES = (HOSTILE, HOSTILE_FORMULA, ODD, FLOORED, DISJOINT, PINNED)


def _hostile(text: str, new_id: str) -> str:
    replacements = {
        f"id: {LM_HEAD}": f"id: {new_id}",
        'title: "Speculative decoding drafter bottlenecks: draft LM-head projection and '
        'quantized drafter scaling"': 'title: "</script><script>window.__pwned = 1</script>'
        '<img src=x onerror=window.__pwned=2>"',
        "    description: >-\n      Sequences drafted together.": (
            "    description: >-\n      <img src=x onerror=window.__pwned=3> Sequences drafted."
        ),
        "unit: sequences": 'unit: "<img src=x onerror=alert(4)>"',
        "- title: Low-rank drafter LM-head (SlimSpec)": '- title: "<svg onload=window.__pwned=5>"',
    }
    for old, new in replacements.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def knowledge_base(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    """The early cards and their catalog (frozen: the numbers and controls below are worked
    out from them), and hostile entries: one whose text tries to inject markup and script,
    one whose formula does."""
    root = shutil.copytree(EARLY_CARDS, tmp_path_factory.mktemp("kb") / "kb")
    copy_repository(root, ("schema",))
    source = (root / "entries" / f"{LM_HEAD}.yaml").read_text("utf-8")
    (root / "entries" / f"{HOSTILE}.yaml").write_text(_hostile(source, HOSTILE), "utf-8")
    formula = _hostile(source, HOSTILE_FORMULA).replace(
        "flops: 2 * B * k * d * V", 'flops: "2 * B</script><script>window.__pwned=6</script>"'
    )
    (root / "entries" / f"{HOSTILE_FORMULA}.yaml").write_text(formula, "utf-8")
    (root / "entries" / f"{ODD}.yaml").write_text(ODD_ENTRY, "utf-8")
    (root / "entries" / f"{FLOORED}.yaml").write_text(FLOORED_ENTRY, "utf-8")
    (root / "entries" / f"{DISJOINT}.yaml").write_text(DISJOINT_ENTRY, "utf-8")
    (root / "entries" / f"{PINNED}.yaml").write_text(PINNED_ENTRY, "utf-8")
    kb = KnowledgeBase.load(root)
    assert kb.diagnostics == []
    ids = {e.id for e in kb.entries}
    assert {LM_HEAD, *FIXTURES} <= ids
    return kb


def early_entries(kb: KnowledgeBase) -> list[Entry]:
    return sorted((e for e in kb.entries if e.id not in FIXTURES), key=lambda e: e.id)


def entry_url(entry_id: str) -> str:
    return f"entries/{entry_id}/"


def _page(title: str, block: str) -> str:
    """A page as the site makes one: the block between Markdown of the page's own, through
    Python-Markdown with the site's extensions (raw HTML blocks pass through as they are)."""
    source = f"# {title}\n\nThe static evaluation.\n\n{block}\n\n## Notes\n\nMore text.\n"
    body = markdown.markdown(source, extensions=["admonition", "tables", "toc"])
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title></head><body><main>{body}</main></body></html>"
    )


@pytest.fixture(scope="module")
def built(knowledge_base: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    devices = sorted(knowledge_base.catalog.devices.values(), key=lambda d: d.id)
    entries = sorted(knowledge_base.entries, key=lambda e: e.id)
    parsed = parse_all(entries)
    for path, content in explorer_assets(entries, devices, parsed).items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(content, "utf-8")
    for entry in entries:
        here = entry_url(entry.id)

        def relative(path: str, here: str = here) -> str:
            return posixpath.relpath(path, here)

        folder = site / here
        folder.mkdir(parents=True)
        block = explorer_block(entry, relative, explorable(entry))
        (folder / "index.html").write_text(_page("entry", block), "utf-8")
    (site / "compare").mkdir()

    def compare(path: str) -> str:  # for the page's markup and for its script alike
        return posixpath.relpath(path, "compare")

    (site / "compare" / "index.html").write_text(
        _page("compare", compare_body(entries, compare, compare, parsed)), "utf-8"
    )
    return site


def explorable(entry: Entry) -> bool:
    """Whether the entry has an explorer: its formulas parse."""
    return Evaluator.parse(entry)[0] is not None


def table(page: Any) -> dict[str, dict[str, str]]:
    """The explorer's results: by device, each quantity's raw value (`data-value`)."""
    rows: dict[str, dict[str, str]] = page.eval_on_selector_all(
        ".kb-explorer .kb-x-results tr[data-device]",
        """rows => Object.fromEntries(rows.map(r => [r.dataset.device, Object.fromEntries(
            [...r.querySelectorAll('[data-quantity]')].map(c => [c.dataset.quantity,
             c.dataset.value === undefined ? c.textContent : c.dataset.value]))]))""",
    )
    return rows


def random_point(entry: Entry, rng: random.Random) -> dict[str, float]:
    point = {}
    for symbol in entry.scales_with:
        if symbol.range is None:
            continue
        lo, hi = symbol.range
        if lo > 0 and hi / lo > 10:
            point[symbol.symbol] = lo * (hi / lo) ** rng.random()
        else:
            point[symbol.symbol] = lo + (hi - lo) * rng.random()
    return point


def assert_agrees(shown: dict[str, dict[str, str]], expected: dict[str, Any], where: str) -> None:
    """The page's rows hold every number of the library's results: work, intensity, ridge,
    every roof's time, the lower bound, the derived values, and the verdict."""
    assert sorted(shown) == sorted(expected), where
    for device, result in expected.items():
        row = shown[device]
        assert row["verdict"] == result.verdict, (where, device)
        # Whether the footprint fits, where the entry gives one (the capacity roof).
        assert row.get("fits") == (None if result.capacity is None else str(result.fits).lower())
        numbers = {name: getattr(result, name) for name in ("flops", "bytes", "intensity", "ridge")}
        numbers["time"] = result.time
        numbers.update({f"{roof}_time": t for roof, t in result.times.items()})
        numbers.update({f"derived.{name}": v for name, v in result.derived.items()})
        assert {k for k in row if k.endswith("_time") or k.startswith("derived.")} == {
            k for k in numbers if k.endswith("_time") or k.startswith("derived.")
        }, (where, device)
        for name, want in numbers.items():
            got = float(row[name])
            assert math.isclose(got, want, rel_tol=1e-9), (where, device, name, got, want)


def test_every_entry_agrees_with_the_library_at_random_points(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    catalog = knowledge_base.catalog.devices
    entries = [e for e in early_entries(knowledge_base) if explorable(e)]
    assert entries
    noted = 0
    for entry in entries:
        rng = random.Random(entry.id)
        formulas, _ = parse_formulas(entry)
        assert formulas is not None
        devices, _ = select_devices(Evaluator(entry, formulas), catalog)
        modeled = [i for i, w in enumerate(entry.workarounds) if w.model is not None]
        page = browser.open(entry_url(entry.id))
        # The symbols no formula reads (but a workaround's that sets them) have no controls, as
        # kb eval says they change nothing; a link's value for one is refused with a note.
        unread = evaluate_entry(
            entry, catalog, on=[devices[0].id], overrides=random_point(entry, rng), symbolic=False
        ).unread
        ranged = [s.symbol for s in entry.scales_with if s.range is not None]
        controls = page.eval_on_selector_all(
            ".kb-explorer input[type=range]", "inputs => inputs.map(i => i.dataset.symbol)"
        )
        assert controls == [s for s in ranged if s not in unread], entry.id
        for n in range(POINTS):
            point = {k: v for k, v in random_point(entry, rng).items() if k not in unread}
            check_overrides(entry, point)
            chosen = rng.choice([None, *range(len(modeled))])
            workaround = None if chosen is None else modeled[chosen]
            # A device whose figure is below a symbol bounded by it cannot run the entry there.
            evaluator = Evaluator(entry, formulas)
            values = evaluator.values(point, workaround)
            beyond = evaluator.beyond_all(devices, values)
            expected = {
                d.id: Evaluator(entry, formulas).result(d, point, workaround=workaround)
                for d in devices
                if d.id not in beyond
            }
            fragment = "&".join(f"{k}={v!r}" for k, v in point.items())
            if chosen is not None:
                fragment += f"&@w={chosen}"
            where = f"{entry.id} #{n}: {fragment}"
            # The page follows a change of fragment, as a reader's back button would.
            page.evaluate(
                """h => new Promise(done => {
                    addEventListener("hashchange", () => setTimeout(done), {once: true});
                    location.hash = h;
                })""",
                fragment,
            )
            # The one note: a workaround's model that replaces formulas leaves the derived ones.
            notes = []
            if workaround is not None and entry.derived and _replaces(entry, workaround):
                notes = [_derived_note(entry, workaround)]
                noted += 1
            assert page.locator(".kb-x-notes li").all_text_contents() == notes, where
            shown = table(page)
            skipped = {d: shown.pop(d) for d in beyond}
            assert skipped == {d: {"skipped": f"skipped: {why}"} for d, why in beyond.items()}
            assert_agrees(shown, expected, where)
    assert noted > 0  # the repository has an entry with derived values and such a workaround
    assert browser.errors == []


def _replaces(entry: Entry, workaround: int) -> list[str]:
    """The formulas a workaround's model replaces, by the names the explorer gives them."""
    model = entry.workarounds[workaround].model
    assert model is not None
    named = {"flops": model.flops, "bytes": model.bytes, **model.others}
    return sorted(name for name, written in named.items() if written is not None)


def _derived_note(entry: Entry, workaround: int) -> str:
    return (
        "The derived values follow the entry's own formulas: the workaround's model replaces "
        f"{' and '.join(_replaces(entry, workaround))}, not them."
    )


def kb_eval(*args: str) -> dict[str, Any]:
    """`kb eval ... --format json` on the early cards, as a reader would run it."""
    done = CliRunner().invoke(main, ["eval", *args, "--root", str(EARLY_CARDS), "--format", "json"])
    assert done.exit_code == 0, done.output
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def test_the_batch_slider_flips_the_lm_head_where_kb_eval_does(browser: Browser) -> None:
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100}")
    slider = page.locator('.kb-explorer input[type=range][data-symbol="B"]')
    field = page.locator('.kb-explorer input[type=number][data-symbol="B"]')
    verdicts = {}
    for batch in (79, 80):
        expected = kb_eval(LM_HEAD, "--on", H100, "--set", f"B={batch}")["results"][0]
        # Drive the slider to the position that lands on `batch` (log scale, whole steps).
        position = next(t for t in range(1001) if round(512 ** (t / 1000)) == batch)
        slider.fill(str(position))
        assert field.input_value() == str(batch)
        row = table(page)[H100]
        assert row["verdict"] == expected["verdict"]
        assert math.isclose(float(row["time"]), expected["time"], rel_tol=1e-9)
        verdicts[batch] = row["verdict"]
    assert verdicts == {79: "memory", 80: "compute"}
    # The charts follow: the reader's batch marked, a time line for each of the two roofs.
    assert page.locator(".kb-x-svg").count() == 2
    assert page.locator(".kb-x-times .kb-x-line polyline").count() == 2
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "explorer-lm-head-b80.png"), full_page=True)
    link = page.locator(".kb-x-link").get_attribute("href")
    assert link is not None and "B=80" in link
    reopened = browser.open(link.lstrip("/").removeprefix(urlsplit(browser.base).path.lstrip("/")))
    assert table(reopened)[H100]["verdict"] == "compute"
    assert (
        reopened.locator('.kb-explorer input[type=number][data-symbol="B"]').input_value() == "80"
    )


def test_a_slider_announces_its_value_and_each_arrow_key_changes_it(browser: Browser) -> None:
    """The slider announced its position (0 to 1000); on B's log scale of whole numbers,
    dozens of presses of an arrow key left B at 1."""
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100}")
    slider = page.locator('.kb-explorer input[type=range][data-symbol="B"]')
    field = page.locator('.kb-explorer input[type=number][data-symbol="B"]')
    assert slider.get_attribute("aria-valuetext") == "1 sequences"  # the typical value
    slider.focus()
    shown = []
    for key in ("ArrowRight", "ArrowUp", "ArrowRight", "ArrowLeft", "ArrowDown"):
        page.keyboard.press(key)
        shown.append((field.input_value(), slider.get_attribute("aria-valuetext")))
    assert shown == [
        ("2", "2 sequences"),
        ("3", "3 sequences"),
        ("4", "4 sequences"),
        ("3", "3 sequences"),
        ("2", "2 sequences"),
    ]
    field.fill("500")
    field.dispatch_event("change")
    assert slider.get_attribute("aria-valuetext") == "500 sequences"
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert 500 < int(field.input_value()) <= 512  # the next value, whatever the position
    assert browser.errors == []


def test_recomputed_results_are_announced(browser: Browser) -> None:
    """Neither the explorer's sentence nor the compare page said a new result to a screen
    reader: the compare page had no live region at all."""
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100}")
    status = page.locator(".kb-explorer [role=status]")
    assert status.count() == 1 and "-bound on 1 of 1" in status.inner_text()
    before = status.inner_text()
    field = page.locator('.kb-explorer input[type=number][data-symbol="B"]')
    field.fill("80")
    field.dispatch_event("change")
    assert status.inner_text() != before and "B = 80" in status.inner_text()
    page, rows = compare(browser, f"#@entries={LM_HEAD},{FLOORED}&@on={H100}")
    verdicts = [shown["verdict"] for _, _, shown in rows if "verdict" in shown]
    said = ", ".join(f"{v}-bound in {verdicts.count(v)}" for v in dict.fromkeys(verdicts))
    assert page.locator(".kb-compare [role=status]").inner_text() == f"{len(rows)} rows: {said}."
    assert page.locator(".kb-compare .kb-x-notes").get_attribute("aria-live") == "polite"
    page.locator(f'.kb-compare input[data-device="{H100}"]').uncheck()
    assert page.locator(".kb-compare [role=status]").inner_text() == "No device chosen."
    assert browser.errors == []


def test_a_results_box_that_scrolls_is_named_and_scrolls_by_keyboard(browser: Browser) -> None:
    """A table wider than its box scrolled only with a mouse (axe: scrollable-region-focusable)."""
    page = browser.new_page()
    page.set_viewport_size({"width": 520, "height": 900})
    browser.open(entry_url(DISJOINT), page)
    box = page.get_by_role("region", name="results on each device")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth && b.scrollLeft === 0")
    box.focus()
    page.keyboard.press("ArrowRight")
    # The browser may scroll smoothly: the box moves over a few frames, not at once.
    page.wait_for_function("b => b.scrollLeft > 0", arg=box.element_handle(), timeout=5000)
    assert box.evaluate("b => b === document.activeElement")
    browser.open(f"compare/#@entries={LM_HEAD}", page)
    assert page.get_by_role("region", name="entries compared").get_attribute("tabindex") == "0"
    page.close()
    assert browser.errors == []


def test_each_results_row_is_named_by_its_row_header_and_each_table_by_its_box(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """A row's device (and on the compare page its entry) was a plain cell: moving along a
    row, a screen reader could not say whose numbers it read; the tables had no name."""
    catalog = knowledge_base.catalog.devices
    chosen = [H100, "amd-instinct-mi300x"]
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={','.join(chosen)}")
    results = page.get_by_role("table", name="results on each device", exact=True)
    assert row_headers(results) == [[catalog[d].short_name] for d in sorted(chosen)]
    assert results.get_by_role("columnheader").first.inner_text() == "device"
    page, rows = compare(browser, f"#@entries={LM_HEAD},{FLOORED}&@on={H100}")
    compared = page.get_by_role("table", name="entries compared", exact=True)
    titles = {e.id: plain(e.title) for e in knowledge_base.entries}
    assert row_headers(compared) == [[titles[e], catalog[d].name] for e, d, _ in rows]
    assert browser.errors == []


def _description(control: Any) -> str:
    """The text of the elements a control's aria-describedby names, as a reader hears it."""
    described: str = control.evaluate(
        """c => c.getAttribute('aria-describedby').split(' ')
            .map(id => document.getElementById(id).textContent.trim()).join('; ')"""
    )
    return described


def test_a_symbols_controls_are_named_by_its_label_with_its_unit(browser: Browser) -> None:
    """The visible label "B (sequences)" was tied to no control: the field's name was "B", and
    on the compare page the bare symbol was all a field said."""
    page = browser.open(entry_url(LM_HEAD))
    field = page.get_by_role("spinbutton", name="B (sequences)", exact=True)
    slider = page.get_by_role("slider", name="B (sequences) slider", exact=True)
    assert field.get_attribute("data-symbol") == slider.get_attribute("data-symbol") == "B"
    assert page.get_by_label("B (sequences)", exact=True).get_attribute("type") == "number"
    assert _description(field) == _description(slider) == "1 to 512 (log scale); batch_size"
    page, _ = compare(browser, f"#@entries={LM_HEAD}&@on={H100}")
    field = page.get_by_role("spinbutton", name="B (sequences)", exact=True)
    assert field.get_attribute("data-symbol") == "B"
    assert _description(field) == "1 to 512; batch_size"
    assert browser.errors == []


def _at_typical(
    knowledge_base: KnowledgeBase, entry_id: str
) -> tuple[Entry, Formulas, dict[str, float]]:
    """The entry, its parsed formulas and its typical values."""
    entry = knowledge_base.entry(entry_id)
    assert entry is not None
    formulas, _ = parse_formulas(entry)
    assert formulas is not None
    return (
        entry,
        formulas,
        {s.symbol: s.typical for s in entry.scales_with if s.typical is not None},
    )


def test_odd_symbol_names_and_ranges_past_float_arithmetic(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    entry, formulas, typical = _at_typical(knowledge_base, ODD)
    page = browser.open(f"{entry_url(ODD)}#@on={H100}")
    device = knowledge_base.catalog.devices[H100]
    assert_agrees(
        table(page), {H100: Evaluator(entry, formulas).result(device, typical)}, "typical"
    )

    def moved(symbol: str, position: int) -> float:
        page.locator(f'.kb-explorer input[type=range][data-symbol="{symbol}"]').fill(str(position))
        field = page.locator(f'.kb-explorer input[type=number][data-symbol="{symbol}"]')
        return float(field.input_value())

    # Halfway is the middle of the range: 0 on a linear one, 1 on a log one.
    assert moved("X", 500) == 0
    assert math.isclose(moved("N", 500), 1, rel_tol=1e-9)
    assert (moved("X", 0), moved("X", 1000)) == (-1e308, 1e308)
    assert (moved("N", 0), moved("N", 1000)) == (1e-200, 1e200)
    assert moved("constructor", 1000) == 64
    at = {"constructor": 64.0, "N": 1e200, "X": 1e308}
    assert_agrees(table(page), {H100: Evaluator(entry, formulas).result(device, at)}, "ends")
    drawn = page.eval_on_selector_all(
        ".kb-explorer svg *", "nodes => nodes.flatMap(n => [...n.attributes].map(a => a.value))"
    )
    assert drawn and not [value for value in drawn if "NaN" in value or "Infinity" in value]
    assert page.locator(".kb-x-notes li").count() == 0
    assert browser.errors == []


def test_numbers_past_six_digits_read_as_what_they_are_and_ridges_drawn_are_said(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """Derived values were raw (67108864, 6.71089e+7) where the static page had 67.1 MB."""
    page = browser.open(entry_url(DISJOINT))
    header = page.locator(".kb-explorer .kb-x-results thead th").all_text_contents()
    assert header[-3:] == ["whole (B)", "split (B)", "almost (B)"]
    row = page.locator(f'.kb-explorer tr[data-device="{H100}"]')
    assert row.locator('[data-quantity="derived.whole"]').inner_text() == "67.1 MB"
    assert row.locator('[data-quantity="derived.split"]').inner_text() == "67.1 MB"
    assert row.locator('[data-quantity="derived.almost"]').inner_text() == "100 kB"
    extents = page.locator(".kb-explorer .kb-x-range").all_text_contents()
    assert " 1024 to 1048576 (log scale)" in extents, extents
    entry, formulas, _ = _at_typical(knowledge_base, DISJOINT)
    devices, _ = select_devices(Evaluator(entry, formulas), knowledge_base.catalog.devices)
    assert len(devices) > 6
    captions = page.locator(".kb-explorer .kb-x-caption").all_text_contents()
    assert (
        f"The ridge points of the first 6 of the {len(devices)} devices evaluated, in the "
        "table's order; choose fewer devices to see the others'."
    ) in captions
    # Past a million, an intensity in scientific notation, not a long integer.
    field = page.locator('.kb-explorer input[type=number][data-symbol="c"]')
    field.fill("1048576")
    field.dispatch_event("change")
    intensity = row.locator('[data-quantity="intensity"]').inner_text()
    assert intensity == "4.19e+06 FLOP/B", intensity
    assert browser.errors == []


def test_logarithmic_axes_mark_the_decades_between_their_ends(browser: Browser) -> None:
    page = browser.open(entry_url(DISJOINT))  # c sweeps 1024 to 1048576, on a log scale
    page.locator('.kb-explorer select[aria-label="chart symbol"]').select_option("c")
    chart = page.locator(".kb-explorer svg.kb-x-svg").first
    assert chart.locator("text.kb-x-along-x").all_text_contents() == ["10000", "1e+5"]
    # Every ridge lies below the curve here, at the plot's foot: their labels are lifted into
    # the plot, not stacked down over the axis.
    ridges = chart.locator("g.kb-ridge text").evaluate_all(
        "texts => texts.map(t => Number(t.getAttribute('y')))"
    )
    assert len(ridges) == 6 and max(ridges) <= 300 - 40 - 4, ridges
    assert chart.locator("text.kb-x-along-y").count() >= 1  # intensity spans decades too
    # ODD's N runs over 400 decades: at most charts.MAX_LOG_TICKS of them are marked.
    page = browser.open(entry_url(ODD))
    page.locator('.kb-explorer select[aria-label="chart symbol"]').select_option("N")
    marked = page.locator(".kb-explorer svg.kb-x-svg").first.locator("text.kb-x-along-x")
    assert 0 < marked.count() <= charts.MAX_LOG_TICKS
    assert browser.errors == []


def test_every_number_is_written_as_the_static_page_writes_it(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """The explorer wrote derived values raw (117440512, 267.383, 2.8672e-7 for seconds), a
    symbol's value as 0.0000036, intensities in four digits, and offered the dtypes in the
    order the devices happened to list them: now every cell is format_quantity's text for its
    value and unit, the values in the sentence are kb eval's with their units, and the dtypes
    come in the catalog's order."""
    units = {"flops": "FLOP", "bytes": "B", "intensity": "FLOP/B", "ridge": "FLOP/B"}
    shown = 0
    entries = [knowledge_base.entry(DISJOINT), *early_entries(knowledge_base)]
    for entry in entries:
        if entry is None or not explorable(entry):
            continue
        derived = {f"derived.{d.name}": d.unit for d in entry.derived}
        page = browser.open(entry_url(entry.id))
        cells = page.eval_on_selector_all(
            ".kb-explorer .kb-x-results [data-quantity][data-value]",
            "cells => cells.map(c => [c.dataset.quantity, Number(c.dataset.value), c.textContent])",
        )
        for quantity, value, text in cells:
            if quantity in ("verdict", "fits"):
                continue
            unit = "s" if quantity.endswith("time") else {**units, **derived}[quantity]
            assert text == format_quantity(value, unit), (entry.id, quantity, value)
            shown += 1
        _, formulas, typical = _at_typical(knowledge_base, entry.id)
        at = ", ".join(
            f"{k} = {exact_number(typical[k])}" + (f" {u}" if (u := entry.symbols[k].unit) else "")
            for k in sorted(formulas.symbols)
        )
        summary = page.locator(".kb-x-summary").inner_text()
        assert summary.startswith(f"At {at}, dense "), (entry.id, summary)
        offered = page.locator('.kb-explorer select[aria-label="dtype"] option')
        dtypes: list[str] = offered.evaluate_all("options => options.map(o => o.value)")
        assert dtypes == [t for t in dtype_traits() if t in dtypes], (entry.id, dtypes)
    assert shown > 0
    assert browser.errors == []


def test_a_wide_results_table_scrolls_in_its_box_not_the_page(browser: Browser) -> None:
    page = browser.new_page()
    page.set_viewport_size({"width": 520, "height": 900})
    browser.open(entry_url(DISJOINT), page)
    table_box = page.locator(".kb-explorer .kb-x-table")
    assert table_box.evaluate("box => box.scrollWidth > box.clientWidth")  # it is wider
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.close()
    assert browser.errors == []


def test_ridge_labels_do_not_overlap(browser: Browser) -> None:
    page = browser.open(entry_url(LM_HEAD))
    chart = page.locator(".kb-explorer svg.kb-x-svg").first
    ys = sorted(
        float(y)
        for y in chart.locator("g.kb-ridge text").evaluate_all(
            "texts => texts.map(t => t.getAttribute('y'))"
        )
    )
    assert len(ys) >= 2
    assert all(below - above >= 12 for above, below in itertools.pairwise(ys)), ys
    # Inside the plot, above the x axis and its labels (the chart is 300 high, 40 of it below).
    assert ys[0] >= 12 and ys[-1] <= 300 - 40, ys


def test_the_explorer_marks_as_many_decades_as_the_static_charts() -> None:
    script = REPOSITORY / "tools" / "bottleneck_kb" / "site" / "assets" / "kb-explorer-chart.js"
    assert f"var MAX_LOG_TICKS = {charts.MAX_LOG_TICKS};" in script.read_text("utf-8")


def test_a_floor_of_a_square_root_agrees_with_the_static_table(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    entry, formulas, typical = _at_typical(knowledge_base, FLOORED)
    devices, _ = select_devices(Evaluator(entry, formulas), knowledge_base.catalog.devices)
    expected = {d.id: Evaluator(entry, formulas).result(d, typical) for d in devices}
    assert {r.verdict for r in expected.values()} == {"memory"}
    assert {r.flops for r in expected.values()} == {2e9}
    page = browser.open(entry_url(FLOORED))
    assert_agrees(table(page), expected, "typical")
    # The value used, not 261121 (where the floor is 511).
    summary = page.locator(".kb-x-summary").inner_text()
    assert summary == (
        f"At N = 1e+09, x = 261120.99999999997, dense bf16 peak: memory-bound on "
        f"{len(devices)} of {len(devices)}. Every device: 2 GFLOP, 2 GB, intensity 1.0 FLOP/B."
    )
    # The page's runtime computes the powers Python does, to the bit.
    powers = page.evaluate("pairs => pairs.map(p => KBFormula.pow(p[0], p[1], 0))", POWERS)
    assert [float(x) for x in powers] == [power(*pair) for pair in POWERS]
    assert browser.errors == []


def test_a_shared_link_reproduces_the_state(browser: Browser) -> None:
    page = browser.open(entry_url(LM_HEAD))
    page.locator('.kb-explorer input[type=number][data-symbol="V"]').fill("152064")
    page.locator('.kb-explorer input[type=number][data-symbol="V"]').dispatch_event("change")
    page.locator(".kb-x-workaround").select_option("1")
    page.locator('.kb-x-devices input[data-device="amd-instinct-mi300x"]').uncheck()
    seen = table(page)
    assert "amd-instinct-mi300x" not in seen and H100 in seen
    link = page.locator(".kb-x-link").get_attribute("href")
    assert link is not None
    other = browser.new_page()
    reopened = browser.open(link.lstrip("/"), other)
    assert table(reopened) == seen
    assert reopened.locator(".kb-x-workaround").input_value() == "1"
    assert reopened.locator('[data-symbol="V"][type=number]').input_value() == "152064"
    other.close()


def test_a_link_to_a_place_on_the_page_keeps_the_explorers_state(browser: Browser) -> None:
    page = browser.open(f"{entry_url(LM_HEAD)}#notes")  # a heading's anchor, not state
    assert page.locator("#notes").count() == 1
    assert page.locator(".kb-x-notes li").count() == 0
    field = page.locator('.kb-explorer input[type=number][data-symbol="V"]')
    field.fill("152064")
    field.dispatch_event("change")
    seen = table(page)
    page.evaluate(
        """() => new Promise(done => {
            addEventListener("hashchange", () => setTimeout(done), {once: true});
            location.hash = "#notes";
        })"""
    )
    assert field.input_value() == "152064"
    assert table(page) == seen
    assert page.locator(".kb-x-notes li").count() == 0
    assert browser.errors == []


def test_out_of_range_and_invalid_values_in_a_link_are_clamped_or_ignored_with_a_note(
    browser: Browser,
) -> None:
    page = browser.open(f"{entry_url(LM_HEAD)}#B=1e9&k=alert(1)&nope=3&@on={H100},evil&@w=99&d=-5")
    notes = page.locator(".kb-x-notes li").all_text_contents()
    assert "B=1e9 is outside its range [1, 512]; set to 512" in notes
    assert "ignored k=\u201calert(1)\u201d: not a number" in notes
    assert "ignored \u201cnope\u201d: not a symbol of this entry" in notes
    assert "ignored unknown device \u201cevil\u201d" in notes
    assert "ignored workaround \u201c99\u201d" in notes
    assert "d=-5 is outside its range [1024, 16384]; set to 1024" in notes
    assert page.locator('[data-symbol="B"][type=number]').input_value() == "512"
    assert list(table(page)) == [H100]


def test_a_link_is_read_in_proportion_to_what_a_page_writes(browser: Browser) -> None:
    """A stranger's link: a device named 400 times is one device, 400 unknown
    ones are a dozen notes and a count, and a link past its length or parts is not read."""
    many = ",".join([H100] * 400)
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={many}")
    assert list(table(page)) == [H100]
    unknown = ",".join(f"gpu-{i}" for i in range(400))
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={unknown}")
    notes = page.locator(".kb-x-notes li").all_text_contents()
    assert notes[:2] == [
        "ignored unknown device \u201cgpu-0\u201d",
        "ignored unknown device \u201cgpu-1\u201d",
    ]
    assert notes[-1] == "and 388 more" and len(notes) == 13
    page = browser.open(f"{entry_url(LM_HEAD)}#B=2&" + "&".join(["x=1"] * 300))
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        "ignored the link's state: it has more than 200 parts"
    ]
    page = browser.open(f"{entry_url(LM_HEAD)}#B=2&x=" + "1" * 9000)
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        "ignored the link's state: it is longer than 8192 characters"
    ]
    page = browser.open(f"compare/#@entries={','.join([LM_HEAD] * 100)}")
    assert page.locator(".kb-compare input[data-entry]:checked").count() == 1
    assert browser.errors == []


def test_a_value_past_a_range_end_is_shown_as_given(browser: Browser) -> None:
    page = browser.open(f"{entry_url(LM_HEAD)}#B=512.0000000001&d=1e-400")
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        "B=512.0000000001 is outside its range [1, 512]; set to 512",
        "d=1e-400 is outside its range [1024, 16384]; set to 1024",
    ]
    field = page.locator('.kb-explorer input[type=number][data-symbol="B"]')
    field.fill("0.9999999999")
    field.dispatch_event("change")
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        "B=0.9999999999 is outside its range [1, 512]; set to 1"
    ]
    assert field.input_value() == "1"


def test_hostile_text_and_formulas_run_no_script(browser: Browser) -> None:
    for entry_id in (HOSTILE, HOSTILE_FORMULA):
        page = browser.open(entry_url(entry_id))
        assert page.evaluate("window.__pwned") is None, entry_id
        assert page.locator("img, svg[onload], .kb-explorer script").count() == 0
    page = browser.open(entry_url(HOSTILE))
    assert "<img src=x onerror=alert(4)>" in page.locator(".kb-x-name").all_text_contents()[5]
    assert page.locator(".kb-x-workaround option").all_text_contents()[1] == (
        "<svg onload=window.__pwned=5>"
    )
    # The formula that tried to inject is not explorable: no explorer and no entry script.
    page = browser.open(entry_url(HOSTILE_FORMULA))
    assert page.locator(".kb-explorer").count() == 0
    assert browser.dialogs == []


def compare(browser: Browser, fragment: str) -> tuple[Any, list[list[Any]]]:
    """The compare page opened at `fragment`, and its rows once the entries have loaded: entry,
    device, and each quantity's raw value (`data-value`)."""
    page = browser.open(f"compare/{fragment}")
    page.wait_for_selector(".kb-compare .kb-x-results tr[data-entry]")
    rows: list[list[Any]] = page.eval_on_selector_all(
        ".kb-compare tr[data-entry]",
        """rows => rows.map(r => [r.dataset.entry, r.dataset.device, Object.fromEntries(
            [...r.querySelectorAll('[data-quantity]')].map(c => [c.dataset.quantity,
             c.dataset.value === undefined ? c.textContent : c.dataset.value]))])""",
    )
    return page, rows


def test_compare_page_shows_entries_side_by_side(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    entries = early_entries(knowledge_base)
    ids = ",".join(e.id for e in entries)
    page, rows = compare(browser, f"#@entries={ids}&@on={H100},amd-instinct-mi300x&B=80")
    shared = page.eval_on_selector_all(
        ".kb-compare input[data-symbol]",
        "fields => Object.fromEntries(fields.map(f => [f.dataset.symbol, Number(f.value)]))",
    )
    with_b = [e.symbols["B"] for e in entries if "B" in e.symbols]
    if len({s.unit for s in with_b}) == 1:  # one quantity: the same batch for all, in range
        ranges = [s.range for s in with_b if s.range is not None]
        low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
        assert shared["B"] == min(max(80, low), high)
    else:  # B counts sequences in one entry and rows in another: not one quantity
        assert "B" not in shared
    catalog = knowledge_base.catalog.devices
    assert len(rows) == 2 * len(entries)
    for entry_id, device, shown in rows:
        entry = knowledge_base.entry(entry_id)
        assert entry is not None
        at = {k: v for k, v in shared.items() if k in entry.symbols}
        evaluation = evaluate_entry(entry, catalog, on=[device], overrides=at, symbolic=False)
        if evaluation.skipped:
            assert shown == {"skipped": f"skipped: {evaluation.skipped[0].reason}"}
            continue
        result = evaluation.results[0]
        assert shown["verdict"] == result.verdict
        assert math.isclose(float(shown["time"]), result.time, rel_tol=1e-9)
    assert any("verdict" in shown for _, _, shown in rows)


def test_compare_page_link_sets_only_ranged_symbols_and_says_what_it_ignores(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    catalog = knowledge_base.catalog.devices
    floored = knowledge_base.entry(FLOORED)
    assert floored is not None and floored.symbols["N"].range is None
    fragment = f"#@entries={FLOORED}&@on={H100}&N=0&x=261300&__proto__=1&constructor=2"
    page, rows = compare(browser, fragment)
    assert page.locator(".kb-compare .kb-x-notes li").all_text_contents() == [
        "ignored N: it has no range, so it keeps its typical value",
        "x=261300 is outside its range [261000, 261200]; set to 261200",
        "ignored \u201c__proto__\u201d: not a symbol of the entries chosen",
        "ignored \u201cconstructor\u201d: not a symbol of the entries chosen",
    ]
    # N keeps its typical value, so the device is evaluated; the link keeps only x.
    expected = evaluate_entry(floored, catalog, on=[H100], overrides={"x": 261200}).results[0]
    ((_, device, shown),) = rows
    assert (device, shown["verdict"]) == (H100, expected.verdict)
    assert math.isclose(float(shown["time"]), expected.time, rel_tol=1e-9)
    written = f"#@entries={quote(FLOORED, safe='')}&@on={H100}&x=261200"
    assert page.evaluate("location.hash") == written

    # N has a range in the odd entry only: the link sets it there, and the floored entry
    # keeps its typical N.
    page, rows = compare(browser, f"#@entries={FLOORED},{ODD}&@on={H100}&N=5&constructor=65")
    assert page.locator(".kb-compare .kb-x-notes li").all_text_contents() == [
        "constructor=65 is outside its range [1, 64]; set to 64"
    ]
    at = {FLOORED: {}, ODD: {"N": 5.0, "constructor": 64.0}}
    assert sorted(entry for entry, _, _ in rows) == [FLOORED, ODD]
    for entry_id, device, shown in rows:
        entry = knowledge_base.entry(entry_id)
        assert entry is not None
        result = evaluate_entry(entry, catalog, on=[device], overrides=at[entry_id]).results[0]
        assert shown["verdict"] == result.verdict, entry_id
        assert math.isclose(float(shown["time"]), result.time, rel_tol=1e-9), entry_id
    assert browser.errors == []


def test_compare_page_says_each_note_once_and_names_devices_it_ignores(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    page, rows = compare(browser, f"#@entries={FLOORED},{DISJOINT}&@on={H100},no-such-gpu")
    notes = page.locator(".kb-compare .kb-x-notes li")
    overlap = "x: the entries' ranges do not overlap"
    assert notes.all_text_contents() == [
        overlap,
        "ignored unknown device \u201cno-such-gpu\u201d",
    ]
    assert {device for _, device, _ in rows} == {H100}
    disjoint = page.locator(f'.kb-compare input[data-entry="{DISJOINT}"]')
    disjoint.uncheck()
    page.wait_for_function("!location.hash.includes('disjoint')")
    assert notes.all_text_contents() == []
    disjoint.check()
    page.wait_for_function("location.hash.includes('disjoint')")
    assert notes.all_text_contents() == [overlap]  # once, however often it is ticked
    page.locator(f'.kb-compare input[data-device="{H100}"]').uncheck()
    assert notes.all_text_contents() == [overlap]
    assert browser.errors == []


def test_compare_page_shares_no_symbol_the_entries_measure_in_other_units(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    page, rows = compare(browser, f"#@entries={ODD},{DISJOINT}&@on={H100}&constructor=3")
    assert page.locator(".kb-compare .kb-x-notes li").all_text_contents() == [
        "constructor is measured in rows and no unit by the entries chosen: each keeps its own "
        "typical value"
    ]
    shared = page.eval_on_selector_all(
        ".kb-compare input[data-symbol]",
        "fields => Object.fromEntries(fields.map(f => [f.dataset.symbol, Number(f.value)]))",
    )
    assert "constructor" not in shared
    catalog = knowledge_base.catalog.devices
    for entry_id, device, shown in rows:  # each at its own typical constructor
        entry, formulas, typical = _at_typical(knowledge_base, entry_id)
        ranged = {k for k, s in entry.symbols.items() if s.range is not None}
        at = {**typical, **{k: v for k, v in shared.items() if k in ranged}}
        result = Evaluator(entry, formulas).result(catalog[device], at)
        assert math.isclose(float(shown["time"]), result.time, rel_tol=1e-9), entry_id
    labels = page.locator(".kb-compare .kb-x-devices label").all_text_contents()
    assert f" {catalog[H100].name}" in labels
    assert not [label for label in labels if label.strip() in catalog]  # names, not ids
    assert browser.errors == []


def test_the_compare_page_reloaded_with_no_entry_chosen_says_nothing(browser: Browser) -> None:
    page = browser.open("compare/")
    page.wait_for_function("location.hash === '#@entries='")  # what it writes of no choice
    page.reload()
    page.wait_for_selector(".kb-compare .kb-x-results")
    assert page.locator(".kb-compare .kb-x-notes li").all_text_contents() == []
    assert browser.errors == []


def test_no_request_left_localhost_and_the_page_is_light(browser: Browser, built: Path) -> None:
    page = browser.open(entry_url(LM_HEAD), browser.new_page())
    # Decoded sizes from the page's own timing entries: the same whether or not a file came
    # from the cache. The test page has no theme, so all of it is the explorer's and the entry's.
    files = page.evaluate(
        """() => performance.getEntriesByType("navigation").concat(
            performance.getEntriesByType("resource")).map(e => [e.name, e.decodedBodySize])"""
    )
    weight = sum(size for _, size in files)
    print(f"\nexplorer entry page weight: {weight / 1024:.1f} KB ({len(files)} files)")
    loaded = {name.rsplit("/", 1)[-1] for name, size in files if size}
    # Every file the explorer ships (its scripts in order, its styles) and the entry's own.
    assert {*SHIPPED.values(), f"{LM_HEAD.split('/')[1]}.js"} < loaded
    assert 0 < weight < WEIGHT_LIMIT
    page.close()
    off = [
        u for u in browser.requests if urlsplit(u).hostname != "127.0.0.1" and u != "about:blank"
    ]
    assert off == []


def test_the_dtype_picker_uses_that_dtypes_dense_peak(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100}&@dtype=fp8")
    assert page.locator('select[aria-label="dtype"]').input_value() == "fp8"
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        "Only the peak is fp8's: the formulas are the entry's, written for bf16, with any bits "
        "or bytes per value they hold."
    ]
    row = table(page)[H100]
    peak = knowledge_base.catalog.devices[H100].peak_flops["fp8"].value
    assert math.isclose(float(row["compute_time"]), float(row["flops"]) / peak, rel_tol=1e-12)
    page.locator('select[aria-label="dtype"]').select_option("bf16")
    expected = evaluate_entry(
        knowledge_base.entry(LM_HEAD) or pytest.fail(), knowledge_base.catalog.devices, on=[H100]
    ).results[0]
    assert math.isclose(float(table(page)[H100]["time"]), expected.time, rel_tol=1e-9)
    assert page.locator(".kb-x-notes li").count() == 0


def test_stepping_through_a_picker_by_keyboard_keeps_the_focus_on_it(browser: Browser) -> None:
    """Each change rebuilt the dtype and chart pickers: the focus fell to the page's body."""
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100}")
    for picker in ('select[aria-label="dtype"]', 'select[aria-label="chart symbol"]'):
        select = page.locator(f".kb-explorer {picker}")
        before = select.input_value()
        select.focus()
        page.keyboard.press("ArrowDown")
        assert select.input_value() != before, picker
        assert select.evaluate("s => s === document.activeElement"), picker
    assert "dense bf16 peak" not in page.locator(".kb-x-summary").inner_text()  # it took effect
    assert browser.errors == []


@pytest.mark.parametrize("dtype", ["constructor", "fp99"])
def test_a_dtype_the_catalog_lacks_is_ignored_with_a_note(
    browser: Browser, knowledge_base: KnowledgeBase, dtype: str
) -> None:
    entry = knowledge_base.entry(LM_HEAD)
    assert entry is not None and entry.intensity.dtype == "bf16"
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100}&@dtype={dtype}")
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        f"ignored dtype \u201c{dtype}\u201d"
    ]
    assert page.locator('select[aria-label="dtype"]').input_value() == "bf16"
    expected = evaluate_entry(entry, knowledge_base.catalog.devices, on=[H100]).results[0]
    summary = page.locator(".kb-x-summary").inner_text()
    assert summary.endswith(f", dense bf16 peak: {expected.verdict}-bound on 1 of 1."), summary
    assert math.isclose(float(table(page)[H100]["time"]), expected.time, rel_tol=1e-9)
    assert page.locator(".kb-x-link").get_attribute("href") == f"/{entry_url(LM_HEAD)}#@on={H100}"


def test_without_javascript_the_explorer_stays_hidden(browser: Browser) -> None:
    context = browser.browser.new_context(java_script_enabled=False)
    context.route("**/*", browser._route)
    page = context.new_page()
    page.goto(browser.base + entry_url(LM_HEAD))
    assert page.locator(".kb-explorer").count() == 1
    assert not page.locator(".kb-explorer").is_visible()
    assert page.get_by_text("The static evaluation.").is_visible()
    context.close()


def test_entry_text_reaches_scripts_only_as_escaped_json(knowledge_base: KnowledgeBase) -> None:
    devices = list(knowledge_base.catalog.devices.values())
    hostile = knowledge_base.entry(HOSTILE)
    assert hostile is not None
    script = entry_script(Evaluator.of(hostile), devices)
    assert not set("<>&") & set(script)
    assert "\\u003cimg src=x onerror=alert(4)\\u003e" in script
    formula = knowledge_base.entry(HOSTILE_FORMULA)
    assert formula is not None
    assert not explorable(formula)
    assert explorer_block(formula, str, explorable(formula)) == ""
    assert script_path(HOSTILE) not in explorer_assets([formula], devices, parse_all([formula]))


def _control(page: Any, symbol: str) -> dict[str, Any]:
    """A symbol's field and slider as a reader meets them: the field's value, whether each
    is enabled, and the description the field is announced with."""
    field = page.locator(f'.kb-explorer input[type=number][data-symbol="{symbol}"]')
    slider = page.locator(f'.kb-explorer input[type=range][data-symbol="{symbol}"]')
    return {
        "value": field.input_value(),
        "enabled": (field.is_enabled(), slider.is_enabled()),
        "said": _description(field),
        "slider said": _description(slider),
    }


def test_a_control_a_workaround_sets_shows_its_value_and_is_off_saying_why(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """With a workaround chosen, the field kept the reader's q = 8 (or 16) while the table was
    computed at the workaround's 4, without a word."""
    entry, formulas, _ = _at_typical(knowledge_base, PINNED)
    device = knowledge_base.catalog.devices[H100]
    page = browser.open(f"{entry_url(PINNED)}#q=8&@w=1&@on={H100}")
    pinned = "set to 4 bits by \u201cQuantized\u201d"
    assert _control(page, "q") == {
        "value": "4",
        "enabled": (False, False),
        "said": f"{pinned}; 4 to 16; bits",
        "slider said": f"{pinned}; 4 to 16; bits",
    }
    assert page.get_by_role("spinbutton", name="q (bits)", exact=True).is_disabled()
    expected = Evaluator(entry, formulas).result(device, {"q": 8.0}, workaround=1)
    assert_agrees(table(page), {H100: expected}, "q=8 with the workaround")
    assert "q = 4 bits" in page.locator(".kb-x-summary").inner_text()
    # Cleared, the field is the reader's again, at the reader's value.
    workaround = page.locator(".kb-x-workaround")
    workaround.select_option("")
    assert _control(page, "q") == {
        "value": "8",
        "enabled": (True, True),
        "said": "4 to 16; bits",
        "slider said": "4 to 16; bits",
    }
    assert "q = 8 bits" in page.locator(".kb-x-summary").inner_text()
    # Chosen by the picker, it shows the workaround's value at once; the link keeps q=8.
    workaround.select_option("1")
    assert _control(page, "q")["value"] == "4"
    assert "q=8" in page.evaluate("location.hash")
    assert browser.errors == []


def test_a_symbol_that_changes_nothing_has_no_control_or_an_off_one_and_says_why(
    browser: Browser,
) -> None:
    """D was in no formula, r only in a workaround's that sets it, yet both had sliders that
    moved nothing; g is read only with a workaround, which leaves it to the reader."""
    page = browser.open(f"{entry_url(PINNED)}#@on={H100}&D=3&r=1024")
    assert page.locator(".kb-x-notes li").all_text_contents() == [
        "ignored D=3: D is not in the formulas, so nothing here depends on it",
        "ignored r=1024: r is read only with \u201cLow rank\u201d, which sets it to 512",
    ]
    lines = {
        symbol: page.locator(f'.kb-explorer .kb-x-symbol[data-symbol="{symbol}"]')
        for symbol in ("D", "r")
    }
    for symbol, line in lines.items():
        assert line.locator("input").count() == 0, symbol
    assert lines["D"].inner_text().split("\n")[:2] == [
        "D (candidates)",
        "not in the formulas, so nothing here depends on it",
    ]
    assert "read only with \u201cLow rank\u201d, which sets it to 512" in lines["r"].inner_text()
    # Neither is in the sentence of the values used, nor among the symbols the chart sweeps.
    summary = page.locator(".kb-x-summary").inner_text()
    assert "D =" not in summary and "r =" not in summary and "g =" not in summary
    swept = page.locator('.kb-explorer select[aria-label="chart symbol"] option')
    assert swept.all_text_contents() == ["B", "q", "c", "g"]
    grouped = "read only with \u201cGrouped scales\u201d"
    assert _control(page, "g")["enabled"] == (False, False)
    assert _control(page, "g")["said"] == f"{grouped}; 32 to 256; group"
    page.locator(".kb-x-workaround").select_option("2")
    assert _control(page, "g")["enabled"] == (True, True)
    assert "g = 128" in page.locator(".kb-x-summary").inner_text()
    # Swept while the workaround sets it, the chart says why its lines are level.
    page.locator(".kb-x-workaround").select_option("1")
    page.locator('.kb-explorer select[aria-label="chart symbol"]').select_option("q")
    captions = page.locator(".kb-explorer .kb-x-caption").all_text_contents()
    assert (
        "q: set to 4 bits by \u201cQuantized\u201d, so the lines below stay level across its range."
    ) in captions
    assert browser.errors == []


def test_the_time_chart_is_drawn_for_the_first_device_in_the_order_chosen(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """The caption said "the first device chosen" of the first in the catalog's order."""
    catalog = knowledge_base.catalog.devices
    mi300x = "amd-instinct-mi300x"
    page = browser.open(f"{entry_url(LM_HEAD)}#@on={H100},{mi300x}")

    def drawn_for() -> str:
        caption: str = page.locator(".kb-explorer .kb-x-caption").last.inner_text()
        return caption

    assert drawn_for().startswith(
        f"The time each roof gives on {catalog[H100].name}, the first device chosen"
    )
    # Ticked again, a device goes last: the chart follows the next.
    check = page.locator(f'.kb-x-devices input[data-device="{H100}"]')
    check.uncheck()
    check.check()
    assert drawn_for().startswith(f"The time each roof gives on {catalog[mi300x].name}, ")
    assert page.evaluate("location.hash").endswith(f"@on={mi300x},{H100}")
    assert browser.errors == []


def _compared_at(page: Any) -> tuple[str, dict[str, str]]:
    """What the compare page says the entries share, and each entry's values."""
    shared = page.locator(".kb-compare .kb-x-shared").inner_text()
    at: dict[str, str] = page.eval_on_selector_all(
        ".kb-compare .kb-x-at li",
        "items => Object.fromEntries(items.map(i => [i.dataset.entry, i.textContent]))",
    )
    return shared, at


def test_the_compare_page_says_what_the_entries_share_and_each_ones_values(
    browser: Browser,
) -> None:
    """Two entries that shared no symbol were shown side by side "at the same values of the
    symbols they share", each at its own operating point, which the page did not say."""
    page, _ = compare(browser, f"#@entries={FLOORED},{PINNED}&@on={H100}&D=3")
    assert _compared_at(page) == (
        "The entries chosen share no symbol: each is at its own values, so their rows are not "
        "one operating point:",
        {
            PINNED: "Quantized weights: at B = 4 rows, N = 1e+09, q = 16 bits, c = 2048 B",
            FLOORED: "Square-tiled GEMM: at x = 261120.99999999997, N = 1e+09",
        },
    )
    # D is read by no entry chosen: no field, and the link's value is refused.
    assert page.locator('.kb-compare input[data-symbol="D"]').count() == 0
    assert page.locator(".kb-compare .kb-x-notes li").all_text_contents() == [
        "ignored \u201cD\u201d: no formula of the entries chosen reads it"
    ]
    # Changing the fragment alone is a new view, as following a link to it would be.
    page.evaluate(
        """h => new Promise(done => {
            addEventListener("hashchange", () => setTimeout(done, 50), {once: true});
            location.hash = h;
        })""",
        f"#@entries={PINNED},{DISJOINT}&@on={H100}&c=4096",
    )
    page.wait_for_selector(f'.kb-compare tr[data-entry="{DISJOINT}"]')
    assert _compared_at(page) == (
        "Shared by the entries, at one value in each that reads it: c. Each entry's other "
        "symbols are at its own values:",
        {
            PINNED: "Quantized weights: at B = 4 rows, N = 1e+09, q = 16 bits, c = 4096 B (shared)",
            DISJOINT: "Small tiles: at x = 2, constructor = 2 rows, N = 1e+09, c = 4096 B (shared)",
        },
    )
    assert page.locator(f'.kb-compare input[data-entry="{FLOORED}"]').is_checked() is False
    assert browser.errors == []


def test_a_device_that_cannot_run_the_values_is_skipped_with_kb_evals_reason(
    browser: Browser, knowledge_base: KnowledgeBase
) -> None:
    """A ring of 64 on an HGX board of 8 (the all-reduce's P is at most the scale-up domain):
    the row says why, in kb eval's words; a rack of 72 still runs it."""
    ring = "collective/tensor-parallel-all-reduce"
    entry = knowledge_base.entry(ring)
    assert entry is not None
    page = browser.open(f"{entry_url(ring)}#@on={H100},nvidia-gb200&P=64&T=8")
    shown = table(page)
    evaluation = evaluate_entry(
        entry,
        knowledge_base.catalog.devices,
        [H100, "nvidia-gb200"],
        {"P": 64, "T": 8},
        symbolic=False,
    )
    assert [(s.device, s.reason) for s in evaluation.skipped] == [
        (H100, "P = 64 is more than its scale_up_domain (8)")
    ]
    assert shown[H100] == {"skipped": "skipped: P = 64 is more than its scale_up_domain (8)"}
    assert shown["nvidia-gb200"]["verdict"] == evaluation.results[0].verdict
    assert browser.errors == []
